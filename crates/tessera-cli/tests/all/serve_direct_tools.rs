//! Direct runs (TOOL_CALL_REQUEST, INSTRUCTION) and `GET /v1/tools` see every tool a model run
//! sees, through the real `tessera serve`:
//!
//! - tools need no model: with no provider set up and no model flag, the built-in tools are
//!   listed and run (a USER_INPUT is still NO_MODEL);
//! - an MCP server's tools are listed (kind `mcp`, the server as provider) and run directly,
//!   through the same consent gate: a destructive one is DENIED and never reaches the server;
//! - the front-end tools a client announced in a conversation are listed for that
//!   conversation, and only for it.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::support;

use serde_json::{json, Value};
use support::api::{mcp_message, user_input_message, Api};
use support::mcp::{everything, own_server, write_config};
use support::tessera_std;

/// `tessera serve` with no model flag over `data` (no provider saved).
fn serve_without_model(data: &std::path::Path) -> Api {
    let mut cmd = tessera_std(data);
    cmd.args(["serve", "--port", "0"]);
    Api::start(cmd)
}

fn names(list: &Value) -> Vec<String> {
    list["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap().to_owned())
        .collect()
}

fn tool<'a>(list: &'a Value, name: &str) -> &'a Value {
    list["tools"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["name"] == name)
        .unwrap_or_else(|| panic!("no {name} in {list}"))
}

async fn call(api: &Api, context: &str, calls: Value) -> Vec<Value> {
    let request = mcp_message(
        context,
        "TOOL_CALL_REQUEST",
        json!({"calls": calls, "executionMode": "PARALLEL", "timeout": 60}),
    );
    let answer = api.post("/messages", &request).await;
    let body = answer.ok(200);
    assert_eq!(body["type"], "TOOL_CALL_RESPONSE", "{body}");
    body["content"]["results"].as_array().unwrap().clone()
}

#[tokio::test(flavor = "multi_thread")]
async fn tools_run_and_are_listed_before_any_model_is_set_up() {
    let data = tempfile::tempdir().unwrap();
    let api = serve_without_model(data.path());

    let listed = api.get("/tools").await;
    let list = listed.ok(200);
    assert!(names(list).contains(&"calculator".to_owned()), "{list}");

    let results = call(
        &api,
        "ctx_nomodel",
        json!([{"callId": "c_sum", "name": "calculator", "parameters": {"expression": "6*7"}}]),
    )
    .await;
    assert_eq!(results[0]["status"], "SUCCESS", "{}", results[0]);
    assert_eq!(results[0]["result"]["result"], 42);

    let set = mcp_message(
        "ctx_nomodel",
        "INSTRUCTION",
        json!({"instructions": [
            {"instructionId": "i_sum", "action": "calculator", "parameters": {"expression": "1+1"}}
        ]}),
    );
    let answer = api.post("/messages", &set).await;
    let body = answer.ok(200);
    assert_eq!(
        body["content"]["data"]["results"][0]["status"], "COMPLETED",
        "{body}"
    );
    assert_eq!(body["content"]["data"]["results"][0]["result"]["result"], 2);

    // Talking still needs a model.
    let said = api
        .post("/messages", &user_input_message("ctx_nomodel", "hello"))
        .await;
    said.error(503, "NO_MODEL");
}

#[tokio::test(flavor = "multi_thread")]
async fn an_mcp_servers_tools_are_listed_and_run_directly_through_the_consent_gate() {
    let data = tempfile::tempdir().unwrap();
    write_config(
        data.path(),
        json!({"everything": everything(), "flaky": own_server("flaky.mjs")}),
    );
    let api = serve_without_model(data.path());

    let results = call(
        &api,
        "ctx_direct_mcp",
        json!([
            {"callId": "c_echo", "name": "everything__echo", "parameters": {"message": "straight through"}},
            {"callId": "c_forget", "name": "flaky__forget_all", "parameters": {}}
        ]),
    )
    .await;
    assert_eq!(results[0]["status"], "SUCCESS", "{}", results[0]);
    assert!(
        results[0]["result"]
            .to_string()
            .contains("straight through"),
        "{}",
        results[0]
    );
    assert_eq!(results[1]["status"], "DENIED", "{}", results[1]);
    assert_eq!(results[1]["reason"]["code"], "PERMISSION_DENIED");
    let log = api.get("/mcp/servers/flaky/log").await;
    assert!(
        !log.ok(200)["lines"].to_string().contains("forget_all: ran"),
        "{}",
        log.text
    );

    // The servers are up now: their tools are listed with where they come from.
    let listed = api.get("/tools").await;
    let list = listed.ok(200);
    let echo = tool(list, "everything__echo");
    assert_eq!(echo["kind"], "mcp");
    assert_eq!(echo["provider"], "everything");
    assert_eq!(tool(list, "flaky__forget_all")["safe"], false);
    assert!(names(list).contains(&"calculator".to_owned()));

    // TOOL_AVAILABILITY_REQUEST sees them too.
    let asked = mcp_message(
        "ctx_direct_mcp",
        "TOOL_AVAILABILITY_REQUEST",
        json!({"tools": [{"toolId": "everything__echo"}]}),
    );
    let answer = api.post("/messages", &asked).await;
    let body = answer.ok(200);
    assert_eq!(
        body["content"]["availableTools"][0]["available"], true,
        "{body}"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn a_clients_front_end_tools_are_listed_for_its_conversation() {
    let data = tempfile::tempdir().unwrap();
    let api = serve_without_model(data.path());
    let announce = mcp_message(
        "ctx_fe_listed",
        "CLIENT_CAPABILITIES",
        json!({"clientId": "client_1", "deviceType": "desktop", "supportedTools": [
            {"toolId": "frontend_location", "version": "1.0.1",
             "description": "The device's location",
             "parameters": {"type": "object", "properties": {"accuracy": {"type": "string"}}}}
        ]}),
    );
    api.post("/messages", &announce).await.ok(200);

    let listed = api.get("/tools?conversation_id=ctx_fe_listed").await;
    let list = listed.ok(200);
    let location = tool(list, "frontend_location");
    assert_eq!(location["kind"], "front_end", "{location}");
    assert_eq!(location["description"], "The device's location");

    let elsewhere = api.get("/tools?conversation_id=ctx_other").await;
    assert!(!names(elsewhere.ok(200)).contains(&"frontend_location".to_owned()));
    let plain = api.get("/tools").await;
    assert!(!names(plain.ok(200)).contains(&"frontend_location".to_owned()));
}
