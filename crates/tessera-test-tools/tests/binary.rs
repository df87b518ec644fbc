//! `tessera-with-test-tools` is the `tessera` command line with the test tools: its `serve`
//! lists them beside the built-in ones, and a direct call of one runs and writes its log.

use std::path::Path;
use std::time::{Duration, Instant};

use tessera_testkit::http::{request, request_with_body};
use tessera_testkit::server::RunningServer;

fn serve(data: &Path) -> RunningServer {
    let mut cmd = std::process::Command::new(env!("CARGO_BIN_EXE_tessera-with-test-tools"));
    cmd.arg("--data-dir")
        .arg(data)
        .args(["serve", "--port", "0"]);
    for var in [
        "TESSERA_TOKEN",
        "OPENAI_API_KEY",
        "ANTHROPIC_API_KEY",
        "DBUS_SESSION_BUS_ADDRESS",
    ] {
        cmd.env_remove(var);
    }
    RunningServer::spawn(cmd).unwrap_or_else(|e| panic!("{e}"))
}

#[test]
fn serve_offers_the_test_tools_and_runs_them() {
    let data = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let server = serve(data.path());
    let auth = format!("Bearer {}", server.token);
    let headers = [("Authorization", auth.as_str())];

    let tools =
        request(server.port, "GET", "/v1/tools", &headers).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(tools.status, 200, "{}", tools.body);
    for name in [
        "test_slow_write",
        "test_guarded_write",
        "test_slow_read",
        "test_image",
        "get_current_datetime",
    ] {
        assert!(
            tools.body.contains(&format!("\"name\":\"{name}\"")),
            "{name} in {}",
            tools.body
        );
    }

    // A direct call of the side-effecting one (it needs no consent) runs and leaves its line.
    let call = serde_json::json!({
        "messageId": "msg_1", "contextId": "ctx_test_tools", "timestamp": "2026-11-23T10:00:00Z",
        "type": "TOOL_CALL_REQUEST", "sender": {"id": "client_1", "type": "USER"},
        "content": {"calls": [{"callId": "c_1", "name": "test_slow_write",
            "parameters": {"ms": 0, "tag": "once"}}], "executionMode": "PARALLEL", "timeout": 60}
    });
    let answer = request_with_body(
        server.port,
        "POST",
        "/v1/messages",
        &[
            ("Authorization", auth.as_str()),
            ("Content-Type", "application/json"),
        ],
        &call.to_string(),
    )
    .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(answer.status, 200, "{}", answer.body);
    assert!(
        answer.body.contains("\"status\":\"SUCCESS\""),
        "{}",
        answer.body
    );
    let log = data.path().join(tessera_test_tools::LOG);
    let deadline = Instant::now() + Duration::from_secs(20);
    while !log.exists() && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(50));
    }
    let written = std::fs::read_to_string(&log).unwrap_or_default();
    assert!(
        written.contains("test_slow_write"),
        "the run left its line: {written:?}"
    );
}
