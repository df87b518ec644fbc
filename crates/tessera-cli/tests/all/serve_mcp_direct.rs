//! Direct TOOL_CALL_REQUESTs to MCP tools through the real `tessera serve`: the tools a
//! direct call runs against are kept between calls (issue 27), and a change on the server's
//! side reaches the next call: a tool the server adds while it runs is listed and callable.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::support;

use serde_json::{json, Value};
use support::api::{mcp_message, Answer, Api};
use support::mcp::{own_server, write_config};
use support::serve_scripted;
use tessera_testkit::scripted::ScriptedProvider;

async fn direct_call(api: &Api, name: &str) -> Answer {
    let request = mcp_message(
        "ctx_direct",
        "TOOL_CALL_REQUEST",
        json!({"calls": [{"callId": "c1", "name": name, "parameters": {}}]}),
    );
    api.post("/messages", &request).await
}

fn result(answer: &Answer) -> &Value {
    &answer.ok(200)["content"]["results"][0]
}

async fn listed(api: &Api) -> Vec<String> {
    let tools = api.get("/tools").await;
    tools.ok(200)["tools"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|t| t["name"].as_str().map(str::to_owned))
        .collect()
}

#[tokio::test(flavor = "multi_thread")]
async fn a_tool_the_server_adds_while_it_runs_is_listed_and_called_directly() {
    let data = tempfile::tempdir().unwrap();
    write_config(data.path(), json!({ "flaky": own_server("flaky.mjs") }));
    let provider = ScriptedProvider::start().await.unwrap();
    let api = Api::start(serve_scripted(data.path(), &provider, false));

    // The server starts with the first call; its tools are then kept between calls.
    let first = direct_call(&api, "flaky__add_tool").await;
    assert_eq!(result(&first)["status"], "SUCCESS", "{}", first.text);
    let text = first.text.clone();
    assert!(text.contains("added"), "{text}");

    // The server said its list changed: the next calls see the new tool, once the
    // notification has arrived (it follows the call's answer).
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
    loop {
        let answer = direct_call(&api, "flaky__added").await;
        if answer.status == 200 && result(&answer)["status"] == "SUCCESS" {
            assert!(answer.text.contains("added ran"), "{}", answer.text);
            break;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "the added tool never became callable: {}",
            answer.text
        );
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    let names = listed(&api).await;
    assert!(names.iter().any(|n| n == "flaky__added"), "{names:?}");
    assert!(names.iter().any(|n| n == "flaky__add_tool"), "{names:?}");
}
