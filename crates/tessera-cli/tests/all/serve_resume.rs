//! The real `tessera serve`, killed (SIGKILL) and started again over the same data folder while
//! a run waits for a form, streams an answer, or runs a side-effecting tool: the form is still
//! there and its answer resumes the run; the partial answer is kept and the run ends as
//! interrupted; the tool that had started never runs again (its run log keeps one line) and the
//! model is told so. Also: an invalid form submission answers 422 per field, consent denied
//! never runs the tool. Every stream passes the event-order checker.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::support;

use std::path::Path;
use std::time::Duration;

use serde_json::{json, Value};
use tessera_testkit::event_order::{check_resumed, check_run};
use tessera_testkit::scripted::{Gate, Reply, ScriptedProvider, Step};
use tessera_testkit::server::RunningServer;

use support::stream::parse_block;
use support::{save_scripted_provider, serve_local};

fn serve(data: &Path) -> RunningServer {
    RunningServer::spawn(serve_local(data, true)).unwrap()
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

/// An SSE body read as it arrives.
struct Stream {
    response: reqwest::Response,
    buffer: String,
    events: Vec<(u64, String, Value)>,
}

impl Stream {
    /// Reads until `stop` holds for an event (or the stream ends); the events so far.
    async fn until(&mut self, stop: impl Fn(&Value) -> bool) -> &[(u64, String, Value)] {
        loop {
            while let Some(end) = self.buffer.find("\n\n") {
                let block: String = self.buffer.drain(..end + 2).collect();
                if let Some(event) = parse_block(&block) {
                    let hit = stop(&event.2);
                    self.events.push(event);
                    if hit {
                        return &self.events;
                    }
                }
            }
            let chunk = tokio::time::timeout(Duration::from_secs(20), self.response.chunk())
                .await
                .expect("the stream goes on")
                .unwrap();
            match chunk {
                Some(bytes) => self.buffer.push_str(&String::from_utf8_lossy(&bytes)),
                None => return &self.events,
            }
        }
    }

    fn data(&self) -> Vec<Value> {
        self.events.iter().map(|e| e.2.clone()).collect()
    }
}

async fn post_stream(server: &RunningServer, context: &str, text: &str) -> Stream {
    let response = http()
        .post(format!("{}/v1/messages", server.base))
        .bearer_auth(&server.token)
        .header("accept", "text/event-stream")
        .json(&user_input(context, text))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 200);
    Stream {
        response,
        buffer: String::new(),
        events: Vec::new(),
    }
}

async fn follow(server: &RunningServer, context: &str, after: u64) -> Stream {
    let response = http()
        .get(format!("{}/v1/conversations/{context}/events", server.base))
        .bearer_auth(&server.token)
        .header("last-event-id", after.to_string())
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 200);
    Stream {
        response,
        buffer: String::new(),
        events: Vec::new(),
    }
}

fn is(event: &Value, kind: &str) -> bool {
    event["type"] == kind
}

fn state(event: &Value, state: &str) -> bool {
    event["type"] == "status" && event["payload"]["state"] == state
}

/// The payload of the first event of `kind` the stream saw.
fn payload(stream: &Stream, kind: &str) -> Value {
    stream
        .events
        .iter()
        .find(|e| is(&e.2, kind))
        .map(|e| e.2["payload"].clone())
        .unwrap_or_else(|| panic!("no {kind} event"))
}

fn runs_logged(data: &Path) -> usize {
    std::fs::read_to_string(data.join("test-tool-runs.log"))
        .map(|t| t.lines().count())
        .unwrap_or(0)
}

const FORM: &str = r#"{"title": "Your trip", "schema": {"type": "object", "required": ["email", "nights"], "properties": {"email": {"type": "string", "format": "email"}, "nights": {"type": "integer", "minimum": 1}}}}"#;

#[tokio::test(flavor = "multi_thread")]
async fn a_form_survives_a_killed_server_and_its_answer_resumes_the_run() {
    let provider = ScriptedProvider::start().await.unwrap();
    provider.push(Reply::openai_tool_calls(
        "m",
        &[("call_f", "request_form", &[FORM])],
    ));
    provider.push(Reply::openai_text("m", &["Booked: ", "2 nights."]));
    let data = tempfile::tempdir().unwrap();
    save_scripted_provider(data.path(), &provider);
    let server = serve(data.path());
    let mut stream = post_stream(&server, "ctx_form", "Book a room").await;
    stream.until(|e| state(e, "suspended")).await;
    let form = payload(&stream, "form_request");
    assert_eq!(form["title"], "Your trip");
    assert_eq!(form["requester"]["kind"], "agent");
    // Seed 002 §8.2/§10: set up while `initializing`, and the wait said as the run node's
    // suspension with reason `interaction`, right before `suspended`.
    assert!(
        state(&stream.events[0].2, "initializing"),
        "{:?}",
        stream.events[0]
    );
    let n = stream.events.len();
    let suspend = &stream.events[n - 2].2;
    assert_eq!(
        (
            &suspend["domain"],
            &suspend["type"],
            &suspend["payload"]["state"],
            &suspend["payload"]["reason"]
        ),
        (
            &json!("workflow"),
            &json!("status"),
            &json!("suspend"),
            &json!("interaction")
        ),
        "{suspend}"
    );
    let seen = stream.events.last().unwrap().0;
    drop(stream);
    drop(server); // SIGKILL

    let server = serve(data.path());
    let client = http();
    let pending: Value = client
        .get(format!(
            "{}/v1/interactions?conversation_id=ctx_form",
            server.base
        ))
        .bearer_auth(&server.token)
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(
        pending["interactions"][0]["interaction_id"],
        form["form_id"]
    );
    let mut resumed = follow(&server, "ctx_form", seen).await;

    // Invalid values: 422 with one entry per field; the run keeps waiting.
    let bad = client
        .post(format!("{}/v1/forms", server.base))
        .bearer_auth(&server.token)
        .json(
            &json!({"conversation_id": "ctx_form", "form_id": form["form_id"],
                      "values": {"email": "nope", "nights": 0}}),
        )
        .send()
        .await
        .unwrap();
    assert_eq!(bad.status(), 422);
    let body: Value = bad.json().await.unwrap();
    let fields: Vec<&str> = body["content"]["details"]["fields"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["field"].as_str().unwrap())
        .collect();
    assert_eq!(fields, ["email", "nights"], "{body}");
    assert_eq!(provider.calls().len(), 1);

    let answer = json!({"action": "accept", "values": {"email": "a@b.com", "nights": 2}});
    let url = format!(
        "{}/v1/interactions/{}",
        server.base,
        form["form_id"].as_str().unwrap()
    );
    let ok = client
        .post(&url)
        .bearer_auth(&server.token)
        .json(&answer)
        .send()
        .await
        .unwrap();
    assert_eq!(ok.status(), 200);
    resumed.until(|e| is(e, "done")).await;
    assert_eq!(check_resumed(&resumed.data(), seen), Ok(()));
    assert!(resumed.events.iter().any(|e| state(&e.2, "resumed")));
    assert!(resumed.events.iter().any(|e| e.2["domain"] == "workflow"
        && e.2["payload"]["state"] == "resume"
        && e.2["payload"]["reason"] == "interaction"));
    assert!(resumed.events.iter().any(|e| state(&e.2, "completed")));
    // The same answer again is accepted as the same; another one is refused.
    let again = client
        .post(&url)
        .bearer_auth(&server.token)
        .json(&answer)
        .send()
        .await
        .unwrap();
    assert_eq!(again.status(), 200);
    let other = client
        .post(&url)
        .bearer_auth(&server.token)
        .json(&json!({"action": "decline"}))
        .send()
        .await
        .unwrap();
    assert_eq!(other.status(), 409);
    // The model read the answer, rebuilt from the store by the new process.
    let messages = provider.calls()[1].body["messages"].clone();
    let tool = messages.as_array().unwrap().last().unwrap();
    assert_eq!(tool["tool_call_id"], "call_f");
    assert!(tool["content"].as_str().unwrap().contains("a@b.com"));
}

#[tokio::test(flavor = "multi_thread")]
async fn a_server_killed_mid_stream_keeps_the_partial_answer() {
    let provider = ScriptedProvider::start().await.unwrap();
    let gate = Gate::new();
    provider.push(
        Reply::openai_text("m", &["The first ", "half, ", "then more"])
            .insert_step(3, Step::Gate(gate.clone())),
    );
    let data = tempfile::tempdir().unwrap();
    save_scripted_provider(data.path(), &provider);
    let server = serve(data.path());
    let mut stream = post_stream(&server, "ctx_cut", "Tell me").await;
    stream
        .until(|e| e["payload"]["delta"].as_str() == Some("half, "))
        .await;
    drop(stream);
    drop(server);
    gate.open();

    let server = serve(data.path());
    let mut replay = follow(&server, "ctx_cut", 0).await;
    replay.until(|e| is(e, "done")).await;
    assert_eq!(check_run(&replay.data()), Ok(()));
    let text: String = replay
        .events
        .iter()
        .filter(|e| is(&e.2, "message"))
        .map(|e| {
            e.2["payload"]["delta"]
                .as_str()
                .or(e.2["payload"]["content"].as_str())
                .unwrap_or_default()
                .to_owned()
        })
        .collect();
    assert_eq!(text, "The first half, ");
    // The run's fatal error ends the stream (SSE `event: error`, seed 002 section 14)...
    let (error_seq, name, error) = replay.events.last().unwrap().clone();
    assert_eq!(name, "error");
    assert_eq!(error["payload"]["code"], "interrupted");
    // ...and what follows it in the log is the run's end.
    let mut tail = follow(&server, "ctx_cut", error_seq).await;
    tail.until(|e| is(e, "done")).await;
    assert!(tail.events.iter().any(|e| state(&e.2, "failed")));
    assert_eq!(tail.events.last().unwrap().1, "done");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_side_effecting_call_running_when_the_server_died_never_runs_again() {
    let provider = ScriptedProvider::start().await.unwrap();
    provider.push(Reply::openai_tool_calls(
        "m",
        &[("call_w", "test_slow_write", &[r#"{"ms": 60000}"#])],
    ));
    let data = tempfile::tempdir().unwrap();
    save_scripted_provider(data.path(), &provider);
    let server = serve(data.path());
    let mut stream = post_stream(&server, "ctx_tool", "Write it").await;
    stream.until(|e| is(e, "tool_started")).await;
    for _ in 0..200 {
        if runs_logged(data.path()) == 1 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert_eq!(runs_logged(data.path()), 1);
    drop(stream);
    drop(server);

    let server = serve(data.path());
    let mut replay = follow(&server, "ctx_tool", 0).await;
    replay.until(|e| is(e, "done")).await;
    assert_eq!(check_run(&replay.data()), Ok(()));
    let result = replay
        .events
        .iter()
        .find(|e| is(&e.2, "tool_result"))
        .expect("the call ends");
    assert_eq!(result.2["payload"]["status"], "interrupted");

    // The next message: the model is told the call was interrupted; it is not run again.
    provider.push(Reply::openai_text("m", &["Understood."]));
    let mut next = post_stream(&server, "ctx_tool", "Did it work?").await;
    next.until(|e| is(e, "done")).await;
    assert_eq!(check_run(&next.data()), Ok(()));
    assert_eq!(runs_logged(data.path()), 1);
    let sent = provider.calls().last().unwrap().body["messages"].to_string();
    assert!(
        sent.contains("test_slow_write") && sent.contains("interrupted"),
        "{sent}"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn consent_denied_through_the_api_never_runs_the_tool() {
    let provider = ScriptedProvider::start().await.unwrap();
    provider.push(Reply::openai_tool_calls(
        "m",
        &[("call_g", "test_guarded_write", &[r#"{"ms": 0}"#])],
    ));
    provider.push(Reply::openai_text("m", &["I did not write it."]));
    let data = tempfile::tempdir().unwrap();
    save_scripted_provider(data.path(), &provider);
    let server = serve(data.path());
    let mut stream = post_stream(&server, "ctx_consent", "Write, carefully").await;
    stream.until(|e| state(e, "suspended")).await;
    let consent = payload(&stream, "consent_request");
    assert_eq!(consent["tool"], "test_guarded_write");
    assert_eq!(consent["risk"], "medium");
    let denied = http()
        .post(format!(
            "{}/v1/interactions/{}",
            server.base,
            consent["consent_id"].as_str().unwrap()
        ))
        .bearer_auth(&server.token)
        .json(&json!({"decision": "deny"}))
        .send()
        .await
        .unwrap();
    assert_eq!(denied.status(), 200);
    stream.until(|e| is(e, "done")).await;
    assert_eq!(check_run(&stream.data()), Ok(()));
    assert_eq!(runs_logged(data.path()), 0);
    let result = stream
        .events
        .iter()
        .find(|e| is(&e.2, "tool_result"))
        .unwrap();
    assert_eq!(result.2["payload"]["status"], "denied");
}

/// The JSON body of `GET path`.
async fn get_json(server: &RunningServer, path: &str) -> Value {
    http()
        .get(format!("{}{path}", server.base))
        .bearer_auth(&server.token)
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap()
}

/// `waits_for_person` of each conversation in `GET /v1/conversations`, by id.
async fn waiting(server: &RunningServer) -> Vec<(String, bool)> {
    let list = get_json(server, "/v1/conversations").await;
    let mut rows: Vec<(String, bool)> = list["conversations"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| {
            let waits = c["waits_for_person"].as_bool();
            (c["id"].as_str().unwrap().to_owned(), waits.expect("a bool"))
        })
        .collect();
    rows.sort();
    rows
}

#[tokio::test(flavor = "multi_thread")]
async fn the_list_says_which_conversations_wait_for_the_person_across_a_restart() {
    let provider = ScriptedProvider::start().await.unwrap();
    provider.push(Reply::openai_text("m", &["Hi."]));
    provider.push(Reply::openai_tool_calls(
        "m",
        &[("call_f", "request_form", &[FORM])],
    ));
    provider.push(Reply::openai_tool_calls(
        "m",
        &[("call_g", "test_guarded_write", &[r#"{"ms": 0}"#])],
    ));
    let data = tempfile::tempdir().unwrap();
    save_scripted_provider(data.path(), &provider);
    let server = serve(data.path());
    post_stream(&server, "ctx_plain", "Hello")
        .await
        .until(|e| is(e, "done"))
        .await;
    let mut form_stream = post_stream(&server, "ctx_form", "Book a room").await;
    form_stream.until(|e| state(e, "suspended")).await;
    let form = payload(&form_stream, "form_request");
    post_stream(&server, "ctx_consent", "Write, carefully")
        .await
        .until(|e| state(e, "suspended"))
        .await;
    let expected = |form_waits: bool| {
        vec![
            ("ctx_consent".to_owned(), true),
            ("ctx_form".to_owned(), form_waits),
            ("ctx_plain".to_owned(), false),
        ]
    };
    assert_eq!(waiting(&server).await, expected(true));
    drop(form_stream);
    drop(server); // SIGKILL

    // Still waiting in the new process, and said the same by one conversation's detail.
    let server = serve(data.path());
    assert_eq!(waiting(&server).await, expected(true));
    let detail = get_json(&server, "/v1/conversations/ctx_form").await;
    assert_eq!(detail["conversation"]["waits_for_person"], true);

    provider.push(Reply::openai_text("m", &["Booked."]));
    let ok = http()
        .post(format!(
            "{}/v1/interactions/{}",
            server.base,
            form["form_id"].as_str().unwrap()
        ))
        .bearer_auth(&server.token)
        .json(&json!({"action": "accept", "values": {"email": "a@b.com", "nights": 2}}))
        .send()
        .await
        .unwrap();
    assert_eq!(ok.status(), 200);
    assert_eq!(waiting(&server).await, expected(false));
}
