//! A `/v1` SSE stream of a running `tessera serve`, read event by event as it arrives, so a
//! suite can act in the middle of a run (cancel it, answer a form) and then read on.

use std::time::Duration;

use serde_json::{json, Value};
use tessera_testkit::server::RunningServer;

/// How long a read waits for the next bytes: generous, the machine may be busy.
pub const READ_TIMEOUT: Duration = Duration::from_secs(30);

/// One SSE event: `id:` (the seq), the event name, the JSON data.
pub type SseEvent = (u64, String, Value);

/// An SSE body read as it arrives.
pub struct Stream {
    response: reqwest::Response,
    buffer: String,
    /// Every event read so far.
    pub events: Vec<SseEvent>,
    /// The `x-tessera-run-id` header, when the stream answered a message.
    pub run_id: Option<String>,
}

pub fn http() -> reqwest::Client {
    reqwest::Client::builder().no_proxy().build().unwrap()
}

/// A USER_INPUT for conversation `context`.
pub fn user_input(context: &str, text: &str) -> Value {
    json!({
        "messageId": format!("msg_{}", uuid::Uuid::now_v7()), "contextId": context, "timestamp": "2026-11-23T10:00:00Z",
        "type": "USER_INPUT", "sender": {"id": "user_1", "type": "USER"},
        "content": {"text": text}
    })
}

/// Parses one SSE block (None for a comment or keep-alive).
pub fn parse_block(block: &str) -> Option<SseEvent> {
    let (mut id, mut name, mut data) = (0, "message".to_owned(), String::new());
    for line in block.lines() {
        if let Some(v) = line.strip_prefix("id:") {
            id = v.trim().parse().ok()?;
        } else if let Some(v) = line.strip_prefix("event:") {
            name = v.trim().to_owned();
        } else if let Some(v) = line.strip_prefix("data:") {
            data.push_str(v.trim_start());
        }
    }
    (!data.is_empty()).then(|| (id, name, serde_json::from_str(&data).unwrap()))
}

impl Stream {
    fn new(response: reqwest::Response) -> Self {
        assert_eq!(response.status(), 200);
        let run_id = response
            .headers()
            .get("x-tessera-run-id")
            .and_then(|v| v.to_str().ok())
            .map(str::to_owned);
        Self {
            response,
            buffer: String::new(),
            events: Vec::new(),
            run_id,
        }
    }

    /// `POST /v1/messages` with `Accept: text/event-stream`: the run's stream.
    pub async fn post(server: &RunningServer, context: &str, text: &str) -> Self {
        let response = http()
            .post(format!("{}/v1/messages", server.base))
            .bearer_auth(&server.token)
            .header("accept", "text/event-stream")
            .json(&user_input(context, text))
            .send()
            .await
            .unwrap();
        Self::new(response)
    }

    /// `GET /v1/conversations/{context}/events` after `Last-Event-ID: after`.
    pub async fn follow(server: &RunningServer, context: &str, after: u64) -> Self {
        let response = http()
            .get(format!("{}/v1/conversations/{context}/events", server.base))
            .bearer_auth(&server.token)
            .header("last-event-id", after.to_string())
            .send()
            .await
            .unwrap();
        Self::new(response)
    }

    /// Reads until `stop` holds for an event (panics if the stream ends first); the events so
    /// far.
    pub async fn until(&mut self, stop: impl Fn(&Value) -> bool) -> &[SseEvent] {
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
            let chunk = tokio::time::timeout(READ_TIMEOUT, self.response.chunk())
                .await
                .unwrap_or_else(|_| {
                    panic!(
                        "no event for {READ_TIMEOUT:?}; so far: {:#?}",
                        self.events.iter().map(|e| &e.2).collect::<Vec<_>>()
                    )
                })
                .unwrap();
            match chunk {
                Some(bytes) => self.buffer.push_str(&String::from_utf8_lossy(&bytes)),
                None => panic!(
                    "the stream ended before the awaited event; so far: {:#?}",
                    self.events.iter().map(|e| &e.2).collect::<Vec<_>>()
                ),
            }
        }
    }

    /// Reads to `done` and checks that nothing follows it.
    pub async fn read_to_done(&mut self) -> &[SseEvent] {
        self.until(|e| e["type"] == "done").await;
        let rest = tokio::time::timeout(READ_TIMEOUT, self.response.chunk())
            .await
            .expect("the stream ends after done")
            .unwrap();
        assert!(
            rest.is_none_or(|b| String::from_utf8_lossy(&b).trim().is_empty()),
            "nothing after done"
        );
        &self.events
    }

    /// The data of every event read.
    pub fn data(&self) -> Vec<Value> {
        self.events.iter().map(|e| e.2.clone()).collect()
    }

    /// The `tool_result` payload of call `id` (panics when there is none).
    pub fn tool_result(&self, id: &str) -> Value {
        self.events
            .iter()
            .find(|e| is_tool_event(&e.2, "tool_result", id))
            .map(|e| e.2["payload"].clone())
            .unwrap_or_else(|| panic!("no tool_result for {id}"))
    }

    /// The position of the first event for which `pred` holds.
    pub fn position(&self, pred: impl Fn(&Value) -> bool) -> Option<usize> {
        self.events.iter().position(|e| pred(&e.2))
    }

    /// The streamed text of the answer (deltas, or a folded whole message).
    pub fn text(&self) -> String {
        self.events
            .iter()
            .filter(|e| e.2["type"] == "message")
            .filter_map(|e| {
                e.2["payload"]["delta"]
                    .as_str()
                    .or(e.2["payload"]["content"].as_str())
            })
            .collect()
    }
}

/// Whether `event` is a `kind` event (`tool_started`, `tool_result`, …) of call `call`.
pub fn is_tool_event(event: &Value, kind: &str, call: &str) -> bool {
    event["type"] == kind && event["payload"]["tool_call_id"] == call
}

/// Whether `event` is a `system/status` with `state`.
pub fn is_state(event: &Value, state: &str) -> bool {
    event["type"] == "status" && event["payload"]["state"] == state
}
