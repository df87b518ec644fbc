//! Front-end tools in headless mode, against a real `tessera serve` and the scripted provider:
//! a client announces what it runs (CLIENT_CAPABILITIES), the model is offered it, its call
//! arrives on the run's stream as `tool/tool_call` with runtime FRONTEND, the client posts the
//! TOOL_CALL_RESPONSE and the model reads the result. A call nobody answers follows the tool's
//! fallbackBehavior (SKIP, USE_ALTERNATIVE); a front-end call nobody announced follows the
//! call's. Every stream passes the event-order checker.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::support;

use std::path::Path;

use serde_json::{json, Value};
use support::api::{mcp_message, user_input_message, Api};
use support::serve_scripted;
use tessera_testkit::event_order::check_run;
use tessera_testkit::scripted::{Reply, ScriptedProvider};

fn serve(data: &Path, provider: &ScriptedProvider) -> Api {
    Api::start(serve_scripted(data, provider, false))
}

async fn announce(api: &Api, context: &str, tool: Value) {
    let message = mcp_message(
        context,
        "CLIENT_CAPABILITIES",
        json!({"clientId": "client_1", "deviceType": "desktop", "supportedTools": [tool]}),
    );
    api.post("/messages", &message).await.ok(200);
}

/// The text the model read for its last tool result.
fn tool_result_text(provider: &ScriptedProvider, call: usize) -> String {
    let messages = provider.calls()[call].body["messages"].clone();
    let last = messages.as_array().unwrap().last().unwrap().clone();
    assert_eq!(last["role"], "tool", "{last}");
    last["content"].as_str().unwrap().to_owned()
}

#[tokio::test(flavor = "multi_thread")]
async fn the_client_runs_the_call_and_the_model_reads_its_result() {
    let provider = ScriptedProvider::start().await.unwrap();
    provider.push(Reply::openai_tool_calls(
        "m",
        &[(
            "call_loc",
            "frontend_location",
            &["{\"accuracy\":", "\"high\"}"],
        )],
    ));
    provider.push(Reply::openai_text("m", &["You are in Beijing."]));
    let data = tempfile::tempdir().unwrap();
    let api = serve(data.path(), &provider);
    announce(
        &api,
        "ctx_fe",
        json!({"toolId": "frontend_location", "version": "1.0.1",
               "description": "The device's location",
               "parameters": {"type": "object",
                              "properties": {"accuracy": {"type": "string"}}}}),
    )
    .await;
    let mut stream = api
        .open_sse(
            "/messages",
            Some(&user_input_message("ctx_fe", "Where am I?")),
        )
        .await;
    let call = stream
        .until(|e| e["type"] == "tool_call" && e["payload"]["name"] == "frontend_location")
        .await
        .expect("the call reaches the client");
    assert_eq!(call["payload"]["runtime"], "FRONTEND");
    assert_eq!(call["payload"]["arguments"], json!({"accuracy": "high"}));
    assert_eq!(call["payload"]["provider"], "client:client_1");
    let reply = mcp_message(
        "ctx_fe",
        "TOOL_CALL_RESPONSE",
        json!({"results": [{"callId": "call_loc", "status": "SUCCESS",
                            "result": {"city": "Beijing"}, "executionTime": 12,
                            "clientInfo": {"deviceType": "desktop"}}]}),
    );
    let ack = api.post("/messages", &reply).await;
    assert_eq!(
        ack.ok(200)["content"]["data"]["accepted"],
        json!(["call_loc"])
    );
    stream.until(|e| e["type"] == "done").await.unwrap();
    assert_eq!(check_run(&stream.events), Ok(()));
    let result = stream
        .events
        .iter()
        .find(|e| e["type"] == "tool_result")
        .unwrap();
    assert_eq!(result["payload"]["status"], "success");
    // The model was offered the tool, and read the client's result.
    let offered = provider.calls()[0].body["tools"].to_string();
    assert!(offered.contains("frontend_location") && offered.contains("The device's location"));
    assert!(tool_result_text(&provider, 1).contains("Beijing"));
    // The same answer again finds nothing waiting.
    api.post("/messages", &reply)
        .await
        .error(404, "NO_WAITING_CALL");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_call_nobody_answers_follows_the_tools_fallback() {
    let provider = ScriptedProvider::start().await.unwrap();
    provider.push(Reply::openai_tool_calls(
        "m",
        &[
            ("call_cam", "frontend_camera", &["{}"]),
            ("call_time", "frontend_clock", &["{}"]),
        ],
    ));
    provider.push(Reply::openai_text("m", &["No photo, but I know the time."]));
    let data = tempfile::tempdir().unwrap();
    let api = serve(data.path(), &provider);
    announce(
        &api,
        "ctx_quiet",
        json!({"toolId": "frontend_camera", "timeout": 1, "fallbackBehavior": "SKIP"}),
    )
    .await;
    let clock = mcp_message(
        "ctx_quiet",
        "CLIENT_CAPABILITIES",
        json!({"clientId": "client_2", "supportedTools": [
            {"toolId": "frontend_clock", "timeout": 1, "fallbackBehavior": "USE_ALTERNATIVE",
             "alternative": "get_current_datetime"}
        ]}),
    );
    api.post("/messages", &clock).await.ok(200);
    let mut stream = api
        .open_sse(
            "/messages",
            Some(&user_input_message("ctx_quiet", "photo and time")),
        )
        .await;
    stream.until(|e| e["type"] == "done").await.unwrap();
    assert_eq!(check_run(&stream.events), Ok(()));
    let result_of = |id: &str| {
        stream
            .events
            .iter()
            .find(|e| e["type"] == "tool_result" && e["payload"]["tool_call_id"] == id)
            .cloned()
            .unwrap()
    };
    let camera = result_of("call_cam");
    assert_eq!(camera["payload"]["status"], "skipped", "{camera}");
    assert_eq!(camera["payload"]["error"]["code"], "SKIPPED", "{camera}");
    assert!(camera["payload"]["error"]["message"]
        .as_str()
        .unwrap()
        .contains("SKIP"));
    let time = result_of("call_time");
    assert_eq!(time["payload"]["status"], "success", "{time}");
    assert_eq!(
        time["payload"]["result"]["alternativeTool"],
        "get_current_datetime"
    );
    // The model was told both, and the run went on.
    let second = provider.calls()[1].body["messages"].to_string();
    assert!(second.contains("SKIPPED"), "{second}");
    assert_eq!(provider.calls().len(), 2);
}

#[tokio::test(flavor = "multi_thread")]
async fn a_front_end_call_nobody_announced_follows_the_calls_fallback() {
    let provider = ScriptedProvider::start().await.unwrap();
    let data = tempfile::tempdir().unwrap();
    let api = serve(data.path(), &provider);
    let request = mcp_message(
        "ctx_none",
        "TOOL_CALL_REQUEST",
        json!({"calls": [
            {"callId": "fe_skip", "name": "frontend_screenshot", "runtime": "FRONTEND",
             "parameters": {}, "fallbackBehavior": "SKIP"},
            {"callId": "be", "name": "calculator", "parameters": {"expression": "1+1"}},
            {"callId": "fe_abort", "name": "frontend_camera", "runtime": "FRONTEND",
             "parameters": {}, "fallbackBehavior": "ABORT", "requiredAfter": ["be"]},
            {"callId": "after", "name": "calculator", "parameters": {"expression": "2"},
             "requiredAfter": ["fe_abort"]}
        ], "executionMode": "SEQUENTIAL"}),
    );
    let answer = api.post("/messages", &request).await;
    let results = answer.ok(200)["content"]["results"]
        .as_array()
        .unwrap()
        .clone();
    let statuses: Vec<&str> = results
        .iter()
        .map(|r| r["status"].as_str().unwrap())
        .collect();
    assert_eq!(statuses[0], "SKIPPED", "{results:?}");
    assert_eq!(statuses[1], "SUCCESS");
    assert_eq!(statuses[2], "NOT_FOUND");
    // ABORT stopped what had not started.
    assert_ne!(statuses[3], "SUCCESS", "{results:?}");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_client_announces_for_a_new_conversation_before_its_first_message() {
    let provider = ScriptedProvider::start().await.unwrap();
    provider.push(Reply::openai_text("m", &["Noted."]));
    let data = tempfile::tempdir().unwrap();
    let api = serve(data.path(), &provider);
    announce(
        &api,
        "ctx_new",
        json!({"toolId": "highlight_element", "description": "Highlights part of the app",
               "parameters": {"type": "object",
                              "properties": {"selector": {"type": "string"}}}}),
    )
    .await;
    // The announcement alone makes no conversation (nothing empty appears in the list).
    api.get("/conversations/ctx_new")
        .await
        .error(404, "NOT_FOUND");
    let listed = api.get("/conversations").await;
    assert_eq!(listed.ok(200)["conversations"], json!([]));
    // The first message creates it under its own title, and the run offers the tool.
    let mut stream = api
        .open_sse(
            "/messages",
            Some(&user_input_message("ctx_new", "Show me the composer")),
        )
        .await;
    stream.until(|e| e["type"] == "done").await.unwrap();
    let detail = api.get("/conversations/ctx_new").await;
    assert_eq!(
        detail.ok(200)["conversation"]["title"],
        "Show me the composer"
    );
    let offered = provider.calls()[0].body["tools"].to_string();
    assert!(offered.contains("highlight_element"), "{offered}");
}

/// Seed 000 §4.5.3, §4.5.4 and §4.7.1, on a direct TOOL_CALL_REQUEST: the call's `userPrompt`
/// (as the agent's words) and `uiSettings` reach the client in its `tool/tool_call` event; the
/// client's `clientInfo` is kept with the result; a call carrying a file over the client's
/// announced `maxFileSize` is refused before it is sent; an announced ABORT stops the set as
/// one on the call does.
#[tokio::test(flavor = "multi_thread")]
async fn a_clients_limits_prompt_settings_and_info_are_honoured() {
    let provider = ScriptedProvider::start().await.unwrap();
    let data = tempfile::tempdir().unwrap();
    let api = std::sync::Arc::new(serve(data.path(), &provider));
    let ctx = "ctx_fe_limits";
    let announce_all = mcp_message(
        ctx,
        "CLIENT_CAPABILITIES",
        json!({"clientId": "client_9", "deviceType": "desktop",
        "limitations": {"maxFileSize": 16, "maxProcessingTime": 60000},
        "supportedTools": [
            {"toolId": "frontend_screenshot", "parameters": {"type": "object"}},
            {"toolId": "frontend_print", "parameters": {"type": "object"}},
            {"toolId": "frontend_flaky", "timeout": 1, "fallbackBehavior": "ABORT"}
        ]}),
    );
    api.post("/messages", &announce_all).await.ok(200);
    // A first direct call makes the conversation, whose events are then followed.
    let first = mcp_message(
        ctx,
        "TOOL_CALL_REQUEST",
        json!({"calls": [{"callId": "warm", "name": "calculator", "parameters": {"expression": "1"}}]}),
    );
    let warm = api.post("/messages", &first).await;
    let warm_run = warm.ok(200)["metadata"]["runId"]
        .as_str()
        .unwrap()
        .to_owned();
    let last_seq = api
        .run_events(ctx, 0, &warm_run)
        .await
        .iter()
        .filter_map(|e| e["meta"]["seq"].as_u64())
        .max()
        .unwrap();
    let mut events = api
        .open_sse_after(
            &format!("/conversations/{ctx}/events"),
            None,
            Some(last_seq),
        )
        .await;

    let request = mcp_message(
        ctx,
        "TOOL_CALL_REQUEST",
        json!({"calls": [
            {"callId": "shot", "name": "frontend_screenshot", "runtime": "FRONTEND",
             "parameters": {"region": "selection"},
             "userPrompt": "此操作将截取您选择的屏幕区域,是否允许?",
             "uiSettings": {"theme": "dark"}},
            {"callId": "big", "name": "frontend_print", "runtime": "FRONTEND",
             "parameters": {"document": "data:application/pdf;base64,QUJDREVGR0hJSktMTU5PUFFSU1RVVldYWVo="}}
        ], "executionMode": "PARALLEL", "timeout": 30}),
    );
    let asking = {
        let api = api.clone();
        tokio::spawn(async move { api.post("/messages", &request).await })
    };
    let call = events
        .until(|e| e["type"] == "tool_call" && e["payload"]["tool_call_id"] == "shot")
        .await
        .unwrap();
    assert_eq!(
        call["payload"]["agent_says"],
        "此操作将截取您选择的屏幕区域,是否允许?"
    );
    assert_eq!(call["payload"]["ui_settings"], json!({"theme": "dark"}));
    let answer = mcp_message(
        ctx,
        "TOOL_CALL_RESPONSE",
        json!({"results": [{"callId": "shot", "status": "SUCCESS",
            "result": {"imageData": "data:image/png;base64,AAAA"},
            "clientInfo": {"deviceType": "desktop", "browser": "chrome", "version": "96.0"},
            "executionTime": 350}]}),
    );
    api.post("/messages", &answer).await.ok(200);
    let done = asking.await.unwrap();
    let results = done.ok(200)["content"]["results"]
        .as_array()
        .unwrap()
        .clone();
    assert_eq!(results[0]["status"], "SUCCESS", "{results:?}");
    assert_eq!(results[0]["clientInfo"]["browser"], "chrome", "{results:?}");
    assert_eq!(results[1]["status"], "ERROR", "{results:?}");
    assert_eq!(results[1]["error"]["code"], "FILE_TOO_LARGE");
    assert!(results[1]["error"]["message"]
        .as_str()
        .unwrap()
        .contains("maxFileSize is 16 bytes"));
    // The big file was never sent: no tool_call event for it.
    let run_id = done.ok(200)["metadata"]["runId"].clone();
    events
        .until(|e| e["type"] == "done" && e["meta"]["run_id"] == run_id)
        .await
        .unwrap();
    assert!(!events
        .events
        .iter()
        .any(|e| e["type"] == "tool_call" && e["payload"]["tool_call_id"] == "big"));
    // The client's information is kept with the call's record (the export needs a message).
    provider.push(Reply::openai_text("m", &["Seen."]));
    api.post("/messages", &user_input_message(ctx, "thanks"))
        .await
        .ok(200);
    let export = api
        .get(&format!("/conversations/{ctx}/export?format=context"))
        .await;
    let calls = export.ok(200)["session"]["tool_state"]["tool_calls"].clone();
    let shot = calls
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["tool_call_id"] == "shot")
        .unwrap();
    assert_eq!(shot["client_info"]["browser"], "chrome", "{shot}");

    // An announced ABORT stops the rest of the set, as one on the call does.
    let set = mcp_message(
        ctx,
        "TOOL_CALL_REQUEST",
        json!({"calls": [
            {"callId": "flaky", "name": "frontend_flaky", "runtime": "FRONTEND", "parameters": {}},
            {"callId": "after", "name": "calculator", "parameters": {"expression": "2"},
             "requiredAfter": ["flaky"]}
        ], "executionMode": "SEQUENTIAL", "timeout": 30}),
    );
    let answer = api.post("/messages", &set).await;
    let results = answer.ok(200)["content"]["results"]
        .as_array()
        .unwrap()
        .clone();
    assert_eq!(results[0]["status"], "ERROR", "{results:?}");
    assert_ne!(results[1]["status"], "SUCCESS", "{results:?}");
}

/// Seed 000 §4.5.3: the alternative a front-end tool announced (USE_ALTERNATIVE) passes the same
/// consent gate as every call: one that needs the person's consent is DENIED in a direct run
/// (nobody there to ask) and never runs.
#[tokio::test(flavor = "multi_thread")]
async fn an_announced_alternative_passes_the_consent_gate() {
    let provider = ScriptedProvider::start().await.unwrap();
    let data = tempfile::tempdir().unwrap();
    let api = Api::start(serve_scripted(data.path(), &provider, true));
    announce(
        &api,
        "ctx_alt_gate",
        json!({"toolId": "frontend_save", "timeout": 1, "fallbackBehavior": "USE_ALTERNATIVE",
               "alternative": "test_guarded_write",
               "parameters": {"type": "object", "properties": {"ms": {"type": "integer"}}}}),
    )
    .await;
    let request = mcp_message(
        "ctx_alt_gate",
        "TOOL_CALL_REQUEST",
        json!({"calls": [{"callId": "save", "name": "frontend_save", "runtime": "FRONTEND",
                          "parameters": {"ms": 0}}]}),
    );
    let answer = api.post("/messages", &request).await;
    let result = answer.ok(200)["content"]["results"][0].clone();
    assert_eq!(result["status"], "DENIED", "{result}");
    assert_eq!(result["reason"]["code"], "PERMISSION_DENIED", "{result}");
    let runs = std::fs::read_to_string(data.path().join("test-tool-runs.log")).unwrap_or_default();
    assert!(runs.is_empty(), "the alternative ran: {runs}");
}
