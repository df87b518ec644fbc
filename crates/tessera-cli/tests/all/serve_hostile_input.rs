//! Input built to crash or swell the app, sent to a real `tessera serve` as a crafted client
//! would: a state path too deep to read back (or deep enough to overflow a stack), and
//! `${results…}` references that multiply a small request into a huge one. Each is refused
//! with a clear error, the server stays up, and what was stored before stays usable.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::support;

use serde_json::{json, Value};
use support::api::mcp_message;
use support::api::Api;
use support::serve_scripted;
use tessera_testkit::scripted::ScriptedProvider;

async fn start() -> (tempfile::TempDir, Api) {
    let (data, _provider, api) = start_with_provider().await;
    (data, api)
}

async fn start_with_provider() -> (tempfile::TempDir, ScriptedProvider, Api) {
    let provider = ScriptedProvider::start().await.unwrap();
    let data = tempfile::tempdir().unwrap();
    let api = Api::start(serve_scripted(data.path(), &provider, false));
    (data, provider, api)
}

/// Sends `text` as a message and reads the run to its end: every event's data.
async fn run_to_end(api: &Api, context: &str, text: &str) -> Vec<Value> {
    let mut stream = api
        .open_sse(
            "/messages",
            Some(&support::api::user_input_message(context, text)),
        )
        .await;
    stream.until(|e| e["type"] == "done").await;
    stream.events
}

#[tokio::test(flavor = "multi_thread")]
async fn a_model_server_cannot_make_tessera_hold_without_end() {
    use tessera_testkit::scripted::{Reply, Step};
    let (_data, provider, api) = start_with_provider().await;
    // A line that never ends (9 MB without a newline).
    let endless = format!("data: {}", "x".repeat(9 * 1024 * 1024));
    provider.push(Reply::sse(vec![Step::Raw(endless)]));
    let events = run_to_end(&api, "ctx_endless", "hi").await;
    let said = serde_json::to_string(&events).unwrap();
    assert!(said.contains("8388608 bytes without ending"), "{said}");

    // An answer of 300 tool calls.
    let calls: Vec<(String, String)> = (0..300)
        .map(|i| (format!("call_{i}"), "get_current_datetime".to_owned()))
        .collect();
    let calls: Vec<(&str, &str, &[&str])> = calls
        .iter()
        .map(|(id, name)| (id.as_str(), name.as_str(), &["{}"][..]))
        .collect();
    provider.push(Reply::openai_tool_calls("m", &calls));
    let events = run_to_end(&api, "ctx_many", "hi").await;
    let said = serde_json::to_string(&events).unwrap();
    assert!(said.contains("more than 256 tool calls"), "{said}");
    assert!(
        !said.contains("\"tool_result\""),
        "no call of that answer ran"
    );

    // The server is still there for the next question.
    provider.push(Reply::openai_text("m", &["Still here."]));
    let events = run_to_end(&api, "ctx_after", "hi").await;
    assert!(serde_json::to_string(&events)
        .unwrap()
        .contains("Still here."));
}

#[tokio::test(flavor = "multi_thread")]
async fn a_state_path_too_deep_is_refused_and_the_conversation_stays_usable() {
    let (_data, api) = start().await;
    let update = |content: Value| mcp_message("ctx_deep", "CONTEXT_UPDATE", content);
    api.post(
        "/messages",
        &update(json!({"operation": "UPDATE_STATE", "path": "currentTopic", "value": "tea"})),
    )
    .await
    .ok(200);

    // Past serde's 128 levels: stored, it could never be read again.
    let deep = vec!["a"; 150].join(".");
    let refused = api
        .post(
            "/messages",
            &update(json!({"operation": "UPDATE_STATE", "path": deep, "value": 1})),
        )
        .await;
    let says = refused.error(422, "INVALID_CONTEXT_UPDATE");
    assert!(says.contains("150 segments"), "{says}");
    // About 10 KB of path: it used to overflow the writer thread's stack and kill the process.
    let huge = vec!["a"; 5000].join(".");
    let refused = api
        .post(
            "/messages",
            &update(json!({"operation": "UPDATE_STATE", "path": huge, "value": 1})),
        )
        .await;
    let says = refused.error(422, "INVALID_CONTEXT_UPDATE");
    assert!(says.contains("at most 512"), "{says}");

    // The server is up, and the conversation takes every later update.
    let later = api
        .post(
            "/messages",
            &update(
                json!({"operation": "UPDATE_STATE", "path": "userPreferences.language",
                           "value": "en"}),
            ),
        )
        .await;
    let state = &later.ok(200)["content"]["data"]["state"];
    assert_eq!(state["currentTopic"], "tea");
    assert_eq!(state["userPreferences"]["language"], "en");
    api.post("/messages", &update(json!({"operation": "CLEAR_HISTORY"})))
        .await
        .ok(200);
}

#[tokio::test(flavor = "multi_thread")]
async fn references_cannot_multiply_a_small_request_into_a_huge_one() {
    let (data, api) = start().await;
    // 20,000 references to one small result: about 340 KB of request, 2 MB substituted.
    let many: Vec<String> = (0..20_000).map(|_| "${results.c_sum}".to_owned()).collect();
    let request = mcp_message(
        "ctx_refs",
        "TOOL_CALL_REQUEST",
        json!({"calls": [
            {"callId": "c_sum", "name": "calculator", "parameters": {"expression": "2+3"}},
            {"callId": "c_big", "name": "calculator",
             "parameters": {"expression": "1", "padding": many}}
        ], "executionMode": "SEQUENTIAL"}),
    );
    let answer = api.post("/messages", &request).await;
    let body = answer.ok(200);
    let results = body["content"]["results"].as_array().unwrap();
    assert_eq!(results[0]["status"], "SUCCESS");
    assert_eq!(results[1]["status"], "ERROR", "{}", results[1]);
    assert_eq!(results[1]["error"]["code"], "ARGUMENTS_TOO_LARGE");
    assert!(results[1]["error"]["message"]
        .as_str()
        .unwrap()
        .contains("at most 1.0 MiB"));
    // Nothing of the substituted megabytes was kept.
    assert!(answer.text.len() < 10_000, "{} bytes", answer.text.len());
    let folder: u64 = std::fs::read_dir(data.path())
        .unwrap()
        .filter_map(|e| e.ok()?.metadata().ok())
        .filter(|m| m.is_file())
        .map(|m| m.len())
        .sum();
    let db = std::fs::metadata(data.path().join(tessera_store::layout::DATABASE_FILE))
        .unwrap()
        .len();
    assert!(db > 0);
    assert!(
        folder < 8 * 1024 * 1024,
        "the data folder holds {folder} bytes"
    );
}
