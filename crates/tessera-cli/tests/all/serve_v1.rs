//! `tessera serve` with an engine, as a client uses it: a USER_INPUT posted to `/v1/messages`
//! answered as an SSE stream (ids are seqs; `done` ends it) or as a MODEL_RESPONSE; a tool call
//! run by the engine between two model calls; a reconnect with `Last-Event-ID` that receives
//! exactly the missed events; errors as ERROR_RESPONSE bodies.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::support;

use std::path::Path;

use serde_json::{json, Value};
use tessera_testkit::scripted::{Reply, ScriptedProvider};
use tessera_testkit::server::RunningServer;

/// A saved provider pointing at the scripted one (no key needed), and a server over it.
fn serve(data: &Path, provider: &ScriptedProvider) -> RunningServer {
    support::save_scripted_provider(data, provider);
    RunningServer::start(
        Path::new(env!("CARGO_BIN_EXE_tessera")),
        &["--data-dir", data.to_str().unwrap(), "--provider", "local"],
    )
    .unwrap()
}

fn http() -> reqwest::Client {
    reqwest::Client::builder().no_proxy().build().unwrap()
}

fn user_input(context: &str, text: &str) -> Value {
    json!({
        "messageId": format!("msg_{}", uuid::Uuid::now_v7()), "contextId": context, "timestamp": "2026-11-23T10:00:00Z",
        "type": "USER_INPUT", "sender": {"id": "user_1", "type": "USER"},
        "content": {"text": text}
    })
}

/// `(id, event name, data)` of each SSE event in a whole body.
fn sse_events(body: &str) -> Vec<(u64, String, Value)> {
    body.split("\n\n")
        .filter(|block| block.contains("data:"))
        .map(|block| {
            let mut id = 0;
            let mut name = "message".to_owned();
            let mut data = String::new();
            for line in block.lines() {
                if let Some(v) = line.strip_prefix("id:") {
                    id = v.trim().parse().unwrap();
                } else if let Some(v) = line.strip_prefix("event:") {
                    name = v.trim().to_owned();
                } else if let Some(v) = line.strip_prefix("data:") {
                    data.push_str(v.trim_start());
                }
            }
            (id, name, serde_json::from_str(&data).unwrap())
        })
        .collect()
}

#[tokio::test(flavor = "multi_thread")]
async fn a_user_input_streams_its_run_and_a_reconnect_gets_exactly_what_it_missed() {
    let provider = ScriptedProvider::start().await.unwrap();
    provider.push(Reply::openai_text("m", &["Hello ", "from ", "Tessera"]));
    let data = tempfile::tempdir().unwrap();
    let server = serve(data.path(), &provider);
    let client = http();
    let response = client
        .post(format!("{}/v1/messages", server.base))
        .bearer_auth(&server.token)
        .header("accept", "text/event-stream")
        .json(&user_input("ctx_stream", "Hi"))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 200);
    assert!(response.headers()["content-type"]
        .to_str()
        .unwrap()
        .starts_with("text/event-stream"));
    let events = sse_events(&response.text().await.unwrap());
    let ids: Vec<u64> = events.iter().map(|e| e.0).collect();
    assert!(
        ids.windows(2).all(|w| w[1] == w[0] + 1),
        "ids without gaps: {ids:?}"
    );
    let data: Vec<Value> = events.iter().map(|e| e.2.clone()).collect();
    assert_eq!(tessera_testkit::event_order::check_run(&data), Ok(()));
    let last = events.last().unwrap();
    assert_eq!(
        (last.1.as_str(), last.2["type"].as_str()),
        ("done", Some("done"))
    );
    let text: String = events
        .iter()
        .filter(|e| e.2["type"] == "message")
        .map(|e| {
            e.2["payload"]["delta"]
                .as_str()
                .unwrap_or_default()
                .to_owned()
        })
        .collect();
    assert_eq!(text, "Hello from Tessera");
    assert!(events
        .iter()
        .all(|e| e.2["conversation_id"] == "ctx_stream"));

    // A client that had seen up to the second event reconnects: it gets the rest (the deltas
    // now folded into the whole message), ending with done.
    let second = ids[1];
    let replay = client
        .get(format!(
            "{}/v1/conversations/ctx_stream/events",
            server.base
        ))
        .bearer_auth(&server.token)
        .header("last-event-id", second.to_string())
        .send()
        .await
        .unwrap();
    assert_eq!(replay.status(), 200);
    let replayed = sse_events(&replay.text().await.unwrap());
    let data: Vec<Value> = replayed.iter().map(|e| e.2.clone()).collect();
    assert_eq!(
        tessera_testkit::event_order::check_resumed(&data, second),
        Ok(())
    );
    // Only what came after it — or a folded whole message whose range reaches past it (it
    // replaces the deltas the client had, docs/design.md "Persistence").
    assert!(
        replayed.iter().all(|e| e.0 > second
            || e.2["meta"]["replaces"]["to"]
                .as_u64()
                .is_some_and(|to| to > second)),
        "only what came after {second}: {replayed:?}"
    );
    assert!(replayed
        .iter()
        .any(|e| e.2["payload"]["content"] == "Hello from Tessera"));
    assert_eq!(replayed.last().unwrap().1, "done");
    let replay_text: String = replayed
        .iter()
        .filter(|e| e.2["type"] == "message")
        .map(|e| {
            e.2["payload"]["delta"]
                .as_str()
                .or(e.2["payload"]["content"].as_str())
                .unwrap_or_default()
                .to_owned()
        })
        .collect();
    assert!(replay_text.contains("Tessera"), "{replay_text}");
}

#[tokio::test(flavor = "multi_thread")]
async fn without_a_stream_the_answer_is_a_model_response_and_tools_run_in_between() {
    let provider = ScriptedProvider::start().await.unwrap();
    provider.push(Reply::openai_tool_calls(
        "m",
        &[("call_1", "calculator", &["{\"expression\":", "\"2+3*4\"}"])],
    ));
    provider.push(Reply::openai_text("m", &["It is ", "14."]));
    let data = tempfile::tempdir().unwrap();
    let server = serve(data.path(), &provider);
    let client = http();
    let asked = user_input("ctx_calc", "2+3*4?");
    let response = client
        .post(format!("{}/v1/messages", server.base))
        .bearer_auth(&server.token)
        .json(&asked)
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 200);
    let reply: Value = response.json().await.unwrap();
    assert_eq!(reply["type"], "MODEL_RESPONSE");
    assert_eq!(reply["contextId"], "ctx_calc");
    assert_eq!(reply["content"]["text"], "It is 14.");
    assert_eq!(reply["content"]["finishReason"], "STOP");
    assert_eq!(reply["metadata"]["inReplyTo"], asked["messageId"]);
    // The calculator ran and its result reached the model.
    let second = &provider.calls()[1].body["messages"];
    let tool = second.as_array().unwrap().last().unwrap();
    assert_eq!(tool["role"], "tool");
    assert!(tool["content"].as_str().unwrap().contains("14"), "{tool}");
    assert!(provider.calls()[0].body["tools"]
        .as_array()
        .unwrap()
        .iter()
        .any(|t| t["function"]["name"] == "calculator"));
}

#[tokio::test(flavor = "multi_thread")]
async fn bad_requests_get_error_responses() {
    let provider = ScriptedProvider::start().await.unwrap();
    let data = tempfile::tempdir().unwrap();
    let server = serve(data.path(), &provider);
    let client = http();
    let url = format!("{}/v1/messages", server.base);
    let unauthorized = client
        .post(&url)
        .json(&user_input("c", "hi"))
        .send()
        .await
        .unwrap();
    assert_eq!(unauthorized.status(), 401);

    let invalid = client
        .post(&url)
        .bearer_auth(&server.token)
        .json(&json!({"type": "USER_INPUT"}))
        .send()
        .await
        .unwrap();
    assert_eq!(invalid.status(), 400);
    let body: Value = invalid.json().await.unwrap();
    assert_eq!(body["type"], "ERROR_RESPONSE");
    assert_eq!(body["content"]["errorCode"], "INVALID_MESSAGE");
    assert!(body["content"]["message"]
        .as_str()
        .unwrap()
        .contains("messageId"));

    let missing = client
        .get(format!("{}/v1/conversations/nope/events", server.base))
        .bearer_auth(&server.token)
        .send()
        .await
        .unwrap();
    assert_eq!(missing.status(), 404);
    let cancel = client
        .post(format!("{}/v1/runs/nope/cancel", server.base))
        .bearer_auth(&server.token)
        .send()
        .await
        .unwrap();
    assert_eq!(cancel.status(), 404);
    assert!(provider.calls().is_empty());
}

#[tokio::test(flavor = "multi_thread")]
async fn without_a_model_v1_says_how_to_configure_one() {
    let data = tempfile::tempdir().unwrap();
    let server = RunningServer::start(
        Path::new(env!("CARGO_BIN_EXE_tessera")),
        &["--data-dir", data.path().to_str().unwrap()],
    )
    .unwrap();
    let response = http()
        .post(format!("{}/v1/messages", server.base))
        .bearer_auth(&server.token)
        .json(&user_input("c", "hi"))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 503);
    let body: Value = response.json().await.unwrap();
    assert_eq!(body["content"]["errorCode"], "NO_MODEL");
    assert!(body["content"]["message"]
        .as_str()
        .unwrap()
        .contains("--provider"));
}
