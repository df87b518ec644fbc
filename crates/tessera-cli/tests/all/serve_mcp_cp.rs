//! `POST /v1/messages` with the MCP-CP types other than USER_INPUT, against a real `tessera
//! serve` over a real data folder: TOOL_CALL_REQUEST runs the calls (results in order,
//! dependencies honoured, a call needing consent refused as DENIED and never run), INSTRUCTION
//! runs the set and keeps it as the task list (a cyclic set refused, nothing stored),
//! CONTEXT_UPDATE applies versioned updates (a stale version refused, nothing changed),
//! CLIENT_CAPABILITIES and TOOL_AVAILABILITY_REQUEST. Every stream passes the event-order
//! checker.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::support;

use std::path::Path;
use std::sync::Arc;

use serde_json::{json, Value};
use support::api::{mcp_message, Api};
use support::serve_scripted;
use tessera_testkit::scripted::ScriptedProvider;

fn serve(data: &Path, provider: &ScriptedProvider) -> Api {
    Api::start(serve_scripted(data, provider, true))
}

fn test_tool_runs(data: &Path) -> usize {
    std::fs::read_to_string(data.join("test-tool-runs.log"))
        .map(|t| t.lines().count())
        .unwrap_or(0)
}

#[tokio::test(flavor = "multi_thread")]
async fn tool_call_requests_run_in_order_and_calls_needing_consent_are_denied() {
    let provider = ScriptedProvider::start().await.unwrap();
    let data = tempfile::tempdir().unwrap();
    let api = serve(data.path(), &provider);
    let request = mcp_message(
        "ctx_tools",
        "TOOL_CALL_REQUEST",
        json!({
            "calls": [
                {"callId": "c_sum", "name": "calculator", "parameters": {"expression": "2+3"}},
                {"callId": "c_guarded", "name": "test_guarded_write", "parameters": {"ms": 0}},
                {"callId": "c_double", "name": "calculator",
                 "parameters": {"expression": "${results.c_sum.result.result} * 2"}},
                {"callId": "c_after", "name": "get_current_datetime", "parameters": {},
                 "requiredAfter": ["c_double"]},
                {"callId": "c_missing", "name": "no_such_tool", "parameters": {}}
            ],
            "executionMode": "PARALLEL", "timeout": 30
        }),
    );
    let answer = api.post("/messages", &request).await;
    let body = answer.ok(200);
    assert_eq!(body["type"], "TOOL_CALL_RESPONSE", "{body}");
    assert_eq!(body["contextId"], "ctx_tools");
    assert_eq!(body["metadata"]["inReplyTo"], request["messageId"]);
    let results = body["content"]["results"].as_array().unwrap();
    let ids: Vec<&str> = results
        .iter()
        .map(|r| r["callId"].as_str().unwrap())
        .collect();
    assert_eq!(
        ids,
        ["c_sum", "c_guarded", "c_double", "c_after", "c_missing"]
    );
    assert_eq!(results[0]["status"], "SUCCESS");
    assert_eq!(results[0]["result"]["result"], 5);
    assert_eq!(results[1]["status"], "DENIED", "{}", results[1]);
    assert_eq!(results[1].get("error"), None, "{}", results[1]);
    assert_eq!(results[1]["reason"]["code"], "PERMISSION_DENIED");
    assert!(results[1]["reason"]["message"]
        .as_str()
        .unwrap()
        .contains("consent"));
    assert_eq!(results[2]["status"], "SUCCESS", "{}", results[2]);
    assert_eq!(results[2]["result"]["result"], 10);
    assert_eq!(results[3]["status"], "SUCCESS", "{}", results[3]);
    assert_eq!(results[4]["status"], "NOT_FOUND");
    // The refused call never ran.
    assert_eq!(test_tool_runs(data.path()), 0);

    // The calls are a run on the conversation's stream, denied there too.
    let run_id = body["metadata"]["runId"].as_str().unwrap();
    let events = api.run_events("ctx_tools", 0, run_id).await;
    let denied = events
        .iter()
        .find(|e| e["type"] == "tool_result" && e["payload"]["tool_call_id"] == "c_guarded")
        .unwrap();
    assert_eq!(denied["payload"]["status"], "denied");
    assert_eq!(events.last().unwrap()["type"], "done");
    assert!(provider.calls().is_empty());
}

#[tokio::test(flavor = "multi_thread")]
async fn bad_tool_call_sets_and_types_are_refused_with_nothing_run() {
    let provider = ScriptedProvider::start().await.unwrap();
    let data = tempfile::tempdir().unwrap();
    let api = serve(data.path(), &provider);
    let cyclic = mcp_message(
        "ctx_cycle",
        "TOOL_CALL_REQUEST",
        json!({"calls": [
            {"callId": "a", "name": "test_slow_write", "parameters": {}, "requiredAfter": ["b"]},
            {"callId": "b", "name": "test_slow_write", "parameters": {}, "requiredAfter": ["a"]}
        ]}),
    );
    let message = api
        .post("/messages", &cyclic)
        .await
        .error(422, "INVALID_PLAN");
    assert!(
        message.contains("cycle") || message.contains("a"),
        "{message}"
    );
    assert_eq!(test_tool_runs(data.path()), 0);
    // Nothing was stored: not even the conversation.
    api.get("/conversations/ctx_cycle")
        .await
        .error(404, "NOT_FOUND");

    let outgoing = mcp_message(
        "ctx_x",
        "TOOL_AVAILABILITY_RESPONSE",
        json!({"availableTools": []}),
    );
    api.post("/messages", &outgoing)
        .await
        .error(501, "UNSUPPORTED_MESSAGE_TYPE");
    let stray = mcp_message(
        "ctx_x",
        "TOOL_CALL_RESPONSE",
        json!({"results": [{"callId": "nobody", "status": "SUCCESS", "result": 1}]}),
    );
    let message = api
        .post("/messages", &stray)
        .await
        .error(404, "NO_WAITING_CALL");
    assert!(message.contains("nobody"), "{message}");
}

#[tokio::test(flavor = "multi_thread")]
async fn an_instruction_set_runs_and_is_kept_as_the_task_list() {
    let provider = ScriptedProvider::start().await.unwrap();
    let data = tempfile::tempdir().unwrap();
    let api = serve(data.path(), &provider);
    // A message first, so the conversation exports as a context document.
    let note = mcp_message("ctx_plan", "USER_INPUT", json!({"text": "plan this"}));
    api.post(
        "/messages",
        &mcp_message(
            "ctx_plan",
            "CONTEXT_UPDATE",
            json!({"operation": "ADD_MESSAGE", "message": note}),
        ),
    )
    .await
    .ok(200);
    let set = mcp_message(
        "ctx_plan",
        "INSTRUCTION",
        json!({
            "instructions": [
                {"instructionId": "i_sum", "action": "calculator",
                 "parameters": {"expression": "20+22"}},
                {"instructionId": "i_big", "action": "calculator",
                 "parameters": {"expression": "${dependencies.i_sum.result.result} + 1"},
                 "dependencies": ["i_sum"],
                 "condition": "dependencies.i_sum.status == 'COMPLETED'"},
                {"instructionId": "i_small", "action": "calculator",
                 "parameters": {"expression": "1"},
                 "dependencies": ["i_sum"],
                 "condition": "dependencies.i_sum.result.result < 10"},
                {"instructionId": "i_bad", "action": "calculator",
                 "parameters": {"expression": "1/"}}
            ],
            "executionMode": "SEQUENTIAL", "timeout": 60
        }),
    );
    let answer = api.post("/messages", &set).await;
    let body = answer.ok(200);
    assert_eq!(body["type"], "SYSTEM_MESSAGE", "{body}");
    let results = body["content"]["data"]["results"].as_array().unwrap();
    let states: Vec<(&str, &str)> = results
        .iter()
        .map(|r| {
            (
                r["instructionId"].as_str().unwrap(),
                r["status"].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        states,
        [
            ("i_sum", "COMPLETED"),
            ("i_big", "COMPLETED"),
            ("i_small", "SKIPPED"),
            ("i_bad", "FAILED")
        ]
    );
    assert_eq!(results[1]["result"]["result"], 43);

    // The task list, as the context document exports it.
    let exported = api
        .get("/conversations/ctx_plan/export?format=context")
        .await;
    let tasks = exported.ok(200)["session"]["task_state"]["todo_list"]["tasks"]
        .as_array()
        .unwrap()
        .clone();
    let listed: Vec<(&str, &str)> = tasks
        .iter()
        .map(|t| {
            (
                t["task_id"].as_str().unwrap(),
                t["status"].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        listed,
        [
            ("i_sum", "completed"),
            ("i_big", "completed"),
            ("i_small", "skipped"),
            ("i_bad", "failed")
        ]
    );
    assert_eq!(tasks[1]["depends_on"], json!(["i_sum"]));
    assert_eq!(tasks[1]["name"], "calculator");
    assert!(tasks[3]["error"].as_str().is_some_and(|e| !e.is_empty()));
    assert!(tasks[0].get("error").is_none());
    let run_id = body["content"]["data"]["runId"].as_str().unwrap();
    let events = api.run_events("ctx_plan", 0, run_id).await;
    // One message id for the whole run, so a client shows its steps together.
    let ids: std::collections::BTreeSet<&str> = events
        .iter()
        .map(|e| {
            e["message_id"]
                .as_str()
                .expect("every event names its message")
        })
        .collect();
    assert_eq!(ids.len(), 1, "{ids:?}");

    // A set with an unknown dependency: refused, nothing run, the task list untouched.
    let broken = mcp_message(
        "ctx_plan",
        "INSTRUCTION",
        json!({"instructions": [
            {"instructionId": "j1", "action": "calculator", "parameters": {"expression": "1"},
             "dependencies": ["nowhere"]}
        ]}),
    );
    let message = api
        .post("/messages", &broken)
        .await
        .error(422, "INVALID_PLAN");
    assert!(message.contains("nowhere"), "{message}");
    let again = api
        .get("/conversations/ctx_plan/export?format=context")
        .await;
    assert_eq!(
        again.ok(200)["session"]["task_state"]["todo_list"]["tasks"]
            .as_array()
            .unwrap()
            .len(),
        4
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn context_updates_are_versioned_and_a_stale_one_changes_nothing() {
    let provider = ScriptedProvider::start().await.unwrap();
    let data = tempfile::tempdir().unwrap();
    let api = serve(data.path(), &provider);
    let update = |content: Value| mcp_message("ctx_state", "CONTEXT_UPDATE", content);

    let first = api
        .post(
            "/messages",
            &update(json!({"operation": "UPDATE_STATE",
                           "path": "userPreferences.language", "value": "中文"})),
        )
        .await;
    let data0 = &first.ok(200)["content"]["data"];
    assert_eq!(data0["version"], 1);
    assert_eq!(data0["state"]["userPreferences"]["language"], "中文");

    let stale = api
        .post(
            "/messages",
            &update(json!({"operation": "UPDATE_STATE", "path": "currentTopic",
                           "value": "weather", "expectedVersion": 0})),
        )
        .await;
    let message = stale.error(409, "VERSION_CONFLICT");
    assert!(message.contains("version"), "{message}");
    assert_eq!(stale.body["content"]["details"]["currentVersion"], 1);

    // A path through a value that is not an object: refused, nothing changed.
    let bad = api
        .post(
            "/messages",
            &update(json!({"operation": "UPDATE_STATE",
                           "path": "userPreferences.language.deeper", "value": 1})),
        )
        .await;
    bad.error(422, "INVALID_CONTEXT_UPDATE");

    let added = api
        .post(
            "/messages",
            &update(
                json!({"operation": "ADD_MESSAGE", "expectedVersion": 1, "message":
                mcp_message("ctx_state", "USER_INPUT", json!({"text": "remember: I like tea"}))}),
            ),
        )
        .await;
    let data1 = &added.ok(200)["content"]["data"];
    assert_eq!(data1["version"], 2);
    assert_eq!(data1["messages"], 1);
    assert_eq!(data1["state"]["userPreferences"]["language"], "中文");
    assert!(data1["state"].get("currentTopic").is_none());
    // The added message joined the conversation, where the model reads it.
    let shown = api.get("/conversations/ctx_state").await;
    let messages = shown.ok(200)["messages"].as_array().unwrap().clone();
    assert_eq!(messages.len(), 1, "{messages:?}");
    assert!(messages[0].to_string().contains("remember: I like tea"));

    let cleared = api
        .post(
            "/messages",
            &update(json!({"operation": "CLEAR_HISTORY", "filter": {"type": "USER_INPUT"}})),
        )
        .await;
    let data2 = &cleared.ok(200)["content"]["data"];
    assert_eq!(data2["version"], 3);
    assert_eq!(data2["removedMessages"], 1);
    assert_eq!(data2["messages"], 0);
}

#[tokio::test(flavor = "multi_thread")]
async fn client_capabilities_are_remembered_and_availability_says_why_not() {
    let provider = ScriptedProvider::start().await.unwrap();
    let data = tempfile::tempdir().unwrap();
    let api = serve(data.path(), &provider);
    let announce = mcp_message(
        "ctx_caps",
        "CLIENT_CAPABILITIES",
        json!({
            "clientId": "client_abc", "deviceType": "desktop", "platform": "Linux",
            "supportedTools": [
                {"toolId": "frontend_camera", "version": "1.2.0",
                 "capabilities": ["photo", "video"]},
                {"toolId": "frontend_location", "version": "0.9.0",
                 "description": "Where the device is",
                 "parameters": {"type": "object", "properties": {"accuracy": {"type": "string"}}}}
            ]
        }),
    );
    let ack = api.post("/messages", &announce).await;
    let body = ack.ok(200);
    assert_eq!(body["type"], "SYSTEM_MESSAGE");
    assert_eq!(
        body["content"]["data"]["tools"],
        json!(["frontend_camera", "frontend_location"])
    );

    let ask = mcp_message(
        "ctx_caps",
        "TOOL_AVAILABILITY_REQUEST",
        json!({"tools": [
            {"toolId": "frontend_camera", "minVersion": "1.0.0", "requiredCapabilities": ["photo"]},
            {"toolId": "frontend_camera", "requiredCapabilities": ["ar"]},
            {"toolId": "frontend_location", "minVersion": "1.0.0"},
            {"toolId": "calculator"},
            {"toolId": "frontend_scanner"}
        ]}),
    );
    let answer = api.post("/messages", &ask).await;
    let body = answer.ok(200);
    assert_eq!(body["type"], "TOOL_AVAILABILITY_RESPONSE");
    let tools = body["content"]["availableTools"].as_array().unwrap();
    assert_eq!(tools[0]["available"], true);
    assert_eq!(tools[0]["version"], "1.2.0");
    assert_eq!(tools[1]["available"], false);
    assert_eq!(tools[1]["reason"], "CAPABILITY_MISSING");
    assert!(tools[1]["message"].as_str().unwrap().contains("ar"));
    assert_eq!(tools[2]["reason"], "VERSION_TOO_OLD");
    assert_eq!(tools[3]["available"], true);
    assert_eq!(tools[4]["reason"], "NOT_FOUND");
    // Another conversation has no client tools.
    let elsewhere = mcp_message(
        "ctx_other",
        "TOOL_AVAILABILITY_REQUEST",
        json!({"tools": [{"toolId": "frontend_camera"}]}),
    );
    let answer = api.post("/messages", &elsewhere).await;
    assert_eq!(
        answer.ok(200)["content"]["availableTools"][0]["available"],
        false
    );

    // A tool with a schema that is not one: refused, naming it; nothing announced.
    let broken = mcp_message(
        "ctx_caps",
        "CLIENT_CAPABILITIES",
        json!({"clientId": "client_abc", "supportedTools": [
            {"toolId": "frontend_bad", "parameters": {"type": "nonsense"}}
        ]}),
    );
    let message = api
        .post("/messages", &broken)
        .await
        .error(422, "INVALID_CAPABILITIES");
    assert!(message.contains("frontend_bad"), "{message}");
    let still = api.post("/messages", &ask).await;
    assert_eq!(
        still.ok(200)["content"]["availableTools"][0]["available"],
        true
    );
}

/// Starts `message` (a direct run of a slow call) in the background, finds its run on the
/// conversation's stream, cancels it once the call is running (the test tool has counted it in
/// `data`) and returns the request's answer.
async fn cancelled_direct_run(
    api: &Arc<Api>,
    data: &Path,
    conversation: &str,
    after: u64,
    message: Value,
) -> (Value, String, u64) {
    let runs_before = test_tool_runs(data);
    // After the conversation's last event: an earlier run's `done` would end the stream.
    let mut stream = api
        .open_sse_after(
            &format!("/conversations/{conversation}/events"),
            None,
            Some(after),
        )
        .await;
    let request = tokio::spawn({
        let api = api.clone();
        async move { api.post("/messages", &message).await.ok(200).clone() }
    });
    // The slow call has started once its `tool_call` is on the stream.
    let call = stream
        .until(|e| e["type"] == "tool_call" && e["payload"]["name"] == "test_slow_write")
        .await
        .unwrap();
    let run_id = call["meta"]["run_id"].as_str().unwrap().to_owned();
    // The `tool_call` event announces the call; its handler may start a moment later.
    for _ in 0..200 {
        if test_tool_runs(data) > runs_before {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(25)).await;
    }
    assert_eq!(test_tool_runs(data), runs_before + 1, "the slow call runs");
    let cancelled = api
        .post(&format!("/runs/{run_id}/cancel"), &json!({}))
        .await;
    assert_eq!(cancelled.ok(200)["cancelled"], true);
    let answer = tokio::time::timeout(std::time::Duration::from_secs(20), request)
        .await
        .expect("a cancelled run answers at once, not after its 60 s call")
        .unwrap();
    let events = api.run_events(conversation, after, &run_id).await;
    let states: Vec<&Value> = events
        .iter()
        .filter(|e| e["type"] == "status")
        .map(|e| &e["payload"]["state"])
        .collect();
    assert_eq!(
        states.last().copied(),
        Some(&json!("cancelled")),
        "{states:?}"
    );
    // Over: a second cancel finds nothing running.
    let again = api
        .post(&format!("/runs/{run_id}/cancel"), &json!({}))
        .await;
    assert_eq!(again.status, 404);
    (answer, run_id, last_seq(&events))
}

fn last_seq(events: &[Value]) -> u64 {
    events.last().unwrap()["meta"]["seq"].as_u64().unwrap()
}

#[tokio::test(flavor = "multi_thread")]
async fn direct_runs_of_tool_calls_and_instructions_can_be_cancelled() {
    let provider = ScriptedProvider::start().await.unwrap();
    let data = tempfile::tempdir().unwrap();
    let api = Arc::new(serve(data.path(), &provider));
    // The conversation exists before its stream is opened.
    let first = api
        .post(
            "/messages",
            &mcp_message(
                "ctx_stop",
                "TOOL_CALL_REQUEST",
                json!({"calls": [{"callId": "c0", "name": "calculator",
                              "parameters": {"expression": "1"}}]}),
            ),
        )
        .await;
    let first_run = first.ok(200)["metadata"]["runId"].as_str().unwrap();
    let after = last_seq(&api.run_events("ctx_stop", 0, first_run).await);

    let calls = mcp_message(
        "ctx_stop",
        "TOOL_CALL_REQUEST",
        json!({"calls": [{"callId": "c_slow", "name": "test_slow_write",
                          "parameters": {"ms": 60000}}], "timeout": 120}),
    );
    let (answer, _, after) =
        cancelled_direct_run(&api, data.path(), "ctx_stop", after, calls).await;
    assert_eq!(
        answer["content"]["results"][0]["status"], "CANCELLED",
        "{answer}"
    );

    let set = mcp_message(
        "ctx_stop",
        "INSTRUCTION",
        json!({"instructions": [{"instructionId": "i_slow", "action": "test_slow_write",
                                 "parameters": {"ms": 60000}}],
               "executionMode": "SEQUENTIAL", "timeout": 120}),
    );
    let (answer, run_id, _) = cancelled_direct_run(&api, data.path(), "ctx_stop", after, set).await;
    assert_eq!(answer["content"]["data"]["runId"], run_id, "{answer}");
    assert_ne!(
        answer["content"]["data"]["results"][0]["status"], "COMPLETED",
        "{answer}"
    );
    assert_eq!(test_tool_runs(data.path()), 2);
}
