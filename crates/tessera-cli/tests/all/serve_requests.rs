//! `POST /v1/requests` with seed-003 request objects against a real `tessera serve` and the
//! scripted provider: success, tool_wait (a consent suspends the run), in_progress (the wait
//! budget runs out; the run is followed on its events), the event stream, and errors that
//! keep the whole response structure. Every answer is a valid seed-003 response whose
//! `trace_id` is the request's `metadata.request_id`; every stream passes the event-order
//! checker.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::support;

use std::path::Path;

use serde_json::{json, Value};
use support::api::Api;
use support::serve_scripted;
use tessera_protocol::DocumentKind;
use tessera_testkit::event_order::check_run;
use tessera_testkit::scripted::{Reply, ScriptedProvider};

fn serve(data: &Path, provider: &ScriptedProvider) -> Api {
    Api::start(serve_scripted(data, provider, true))
}

fn request(root: &str, request_id: &str, text: &str, config: Value) -> Value {
    json!({
        "model": "m", "root_id": root,
        "resources": [
            {"role": "system", "content": "You are helpful."},
            {"role": "user", "content": text}
        ],
        "config": config,
        "metadata": {"request_id": request_id, "caller": "suite",
                     "timestamp": "2026-11-23T10:00:00Z"}
    })
}

/// Asserts a valid seed-003 response with this trace id, and returns its status.
fn response_status<'a>(body: &'a Value, trace_id: &str) -> &'a str {
    let problems = tessera_protocol::validate(DocumentKind::Response, body);
    assert!(problems.is_empty(), "{problems:?} in {body}");
    assert_eq!(body["trace_id"], trace_id, "{body}");
    body["status"].as_str().unwrap()
}

#[tokio::test(flavor = "multi_thread")]
async fn a_request_is_answered_with_a_success_response() {
    let provider = ScriptedProvider::start().await.unwrap();
    provider.push(Reply::openai_text("m", &["Match: ", "85%"]));
    let data = tempfile::tempdir().unwrap();
    let api = serve(data.path(), &provider);
    let answer = api
        .post(
            "/requests",
            &request(
                "root_1",
                "req_1",
                "Analyse the match",
                json!({"temperature": 0.5}),
            ),
        )
        .await;
    let body = answer.ok(200);
    assert_eq!(response_status(body, "req_1"), "success");
    assert_eq!(body["outputs"][0]["role"], "assistant");
    assert_eq!(body["outputs"][0]["content"], "Match: 85%");
    assert_eq!(body["context_updates"][0]["type"], "append_prompt");
    assert_eq!(body["metadata"]["conversation_id"], "root_1");
    // root_id is the conversation, holding what was said.
    let shown = api.get("/conversations/root_1").await;
    let messages = shown.ok(200)["messages"].to_string();
    assert!(messages.contains("Analyse the match") && messages.contains("Match: 85%"));
    let run_id = body["metadata"]["run_id"].as_str().unwrap();
    api.run_events("root_1", 0, run_id).await;
}

#[tokio::test(flavor = "multi_thread")]
async fn a_consent_makes_it_tool_wait_and_a_long_run_in_progress() {
    let provider = ScriptedProvider::start().await.unwrap();
    provider.push(Reply::openai_tool_calls(
        "m",
        &[("call_g", "test_guarded_write", &["{\"ms\":", "0}"])],
    ));
    let data = tempfile::tempdir().unwrap();
    let api = serve(data.path(), &provider);
    let answer = api
        .post(
            "/requests",
            &request("root_w", "req_w", "write it", json!({})),
        )
        .await;
    let body = answer.ok(200);
    assert_eq!(response_status(body, "req_w"), "tool_wait");
    let waiting = &body["context_updates"][0];
    assert_eq!(waiting["type"], "interaction_request", "{body}");
    assert_eq!(waiting["kind"], "consent");
    assert_eq!(waiting["request"]["tool"], "test_guarded_write");
    assert!(waiting["interaction_id"].as_str().is_some());

    // A run longer than the wait budget: in_progress, then followed to its end.
    provider.push(Reply::openai_tool_calls(
        "m",
        &[("call_s", "test_slow_write", &["{\"ms\":", "1500}"])],
    ));
    provider.push(Reply::openai_text("m", &["done writing"]));
    let answer = api
        .post(
            "/requests",
            &request(
                "root_p",
                "req_p",
                "slow",
                json!({"stream": false, "wait_ms": 0}),
            ),
        )
        .await;
    let body = answer.ok(200);
    assert_eq!(response_status(body, "req_p"), "in_progress");
    assert_eq!(
        body["metadata"]["events_url"],
        "/v1/conversations/root_p/events"
    );
    let run_id = body["metadata"]["run_id"].as_str().unwrap();
    let events = api.run_events("root_p", 0, run_id).await;
    assert!(events
        .iter()
        .any(|e| e["payload"]["content"] == "done writing"
            || e["payload"]["delta"] == "done writing"));
}

#[tokio::test(flavor = "multi_thread")]
async fn with_accept_event_stream_the_answer_is_the_run_stream() {
    let provider = ScriptedProvider::start().await.unwrap();
    provider.push(Reply::openai_text("m", &["streamed ", "answer"]));
    let data = tempfile::tempdir().unwrap();
    let api = serve(data.path(), &provider);
    let mut reader = api
        .open_sse(
            "/requests",
            Some(&request("root_s", "req_s", "stream it", json!({}))),
        )
        .await;
    let last = reader.until(|e| e["type"] == "done").await;
    assert!(last.is_some(), "the stream ends with done");
    assert_eq!(check_run(&reader.events), Ok(()));
    let text: String = reader
        .events
        .iter()
        .filter(|e| e["type"] == "message")
        .filter_map(|e| e["payload"]["delta"].as_str())
        .collect();
    assert_eq!(text, "streamed answer");
}

#[tokio::test(flavor = "multi_thread")]
async fn errors_keep_the_whole_response_structure() {
    let provider = ScriptedProvider::start().await.unwrap();
    let data = tempfile::tempdir().unwrap();
    let api = serve(data.path(), &provider);
    // No model and a metadata key that breaks the rules: every problem named.
    let mut bad = request("root_e", "req_e", "hi", json!({"temperature": 7}));
    bad.as_object_mut().unwrap().remove("model");
    bad["metadata"]["BadKey"] = json!(1);
    let answer = api.post("/requests", &bad).await;
    assert_eq!(answer.status, 422, "{}", answer.text);
    assert_eq!(response_status(&answer.body, "req_e"), "error");
    assert_eq!(answer.body["error"]["code"], "INVALID_REQUEST");
    let message = answer.body["error"]["message"].as_str().unwrap();
    assert!(message.contains("model"), "{message}");
    assert!(message.contains("config.temperature"), "{message}");
    assert!(message.contains("BadKey"), "{message}");
    assert!(
        answer.body["error"]["detail"]["problems"]
            .as_array()
            .unwrap()
            .len()
            >= 3
    );

    let no_user = json!({
        "model": "m", "root_id": "root_e", "resources": [{"role": "system", "content": "x"}],
        "config": {}, "metadata": {"request_id": "req_nu"}
    });
    let answer = api.post("/requests", &no_user).await;
    assert_eq!(answer.status, 422);
    assert_eq!(response_status(&answer.body, "req_nu"), "error");
    assert_eq!(answer.body["error"]["code"], "NO_USER_INPUT");

    let answer = api
        .raw(reqwest::Method::POST, "/requests", "{not json")
        .await;
    assert_eq!(answer.status, 400);
    assert_eq!(answer.body["status"], "error");
    assert_eq!(answer.body["error"]["code"], "INVALID_JSON");
    // Nothing was stored, and the model was never called.
    api.get("/conversations/root_e")
        .await
        .error(404, "NOT_FOUND");
    assert!(provider.calls().is_empty());
}
