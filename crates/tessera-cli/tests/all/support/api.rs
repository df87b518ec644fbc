//! The `/v1` API of a running `tessera serve`, as the UI calls it: JSON in, JSON out.

use reqwest::Method;
use serde_json::Value;
use tessera_testkit::server::RunningServer;

/// A server and a client holding its token.
pub struct Api {
    pub server: RunningServer,
    client: reqwest::Client,
}

/// A status and the body (JSON, or the text as a string when it is not JSON).
#[derive(Debug)]
pub struct Answer {
    pub status: u16,
    pub body: Value,
    pub text: String,
    pub headers: reqwest::header::HeaderMap,
}

impl Answer {
    pub async fn read(response: reqwest::Response) -> Self {
        let status = response.status().as_u16();
        let headers = response.headers().clone();
        let text = response.text().await.unwrap();
        let body = serde_json::from_str(&text).unwrap_or_else(|_| Value::String(text.clone()));
        Answer {
            status,
            body,
            text,
            headers,
        }
    }

    /// A header's value as text.
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.get(name).and_then(|v| v.to_str().ok())
    }

    /// Asserts an ERROR_RESPONSE with this status and code, and returns its message.
    pub fn error(&self, status: u16, code: &str) -> String {
        assert_eq!(self.status, status, "{}", self.text);
        assert_eq!(self.body["type"], "ERROR_RESPONSE", "{}", self.text);
        assert_eq!(self.body["content"]["errorCode"], code, "{}", self.text);
        self.body["content"]["message"].as_str().unwrap().to_owned()
    }

    /// Asserts the status and returns the body.
    pub fn ok(&self, status: u16) -> &Value {
        assert_eq!(self.status, status, "{}", self.text);
        &self.body
    }
}

impl Api {
    pub fn start(cmd: std::process::Command) -> Self {
        Self {
            server: RunningServer::spawn(cmd).unwrap(),
            client: reqwest::Client::builder().no_proxy().build().unwrap(),
        }
    }

    pub async fn call(&self, method: Method, path: &str, body: Option<&Value>) -> Answer {
        let mut request = self
            .client
            .request(method, format!("{}/v1{path}", self.server.base))
            .bearer_auth(&self.server.token);
        if let Some(body) = body {
            request = request.json(body);
        }
        let response = request.send().await.unwrap();
        Answer::read(response).await
    }

    /// Sends `body` as it is (not necessarily JSON).
    pub async fn raw(&self, method: Method, path: &str, body: &str) -> Answer {
        let response = self
            .client
            .request(method, format!("{}/v1{path}", self.server.base))
            .bearer_auth(&self.server.token)
            .header("content-type", "application/json")
            .body(body.to_owned())
            .send()
            .await
            .unwrap();
        Answer::read(response).await
    }

    pub async fn get(&self, path: &str) -> Answer {
        self.call(Method::GET, path, None).await
    }

    pub async fn post(&self, path: &str, body: &Value) -> Answer {
        self.call(Method::POST, path, Some(body)).await
    }

    pub async fn put(&self, path: &str, body: &Value) -> Answer {
        self.call(Method::PUT, path, Some(body)).await
    }

    pub async fn patch(&self, path: &str, body: &Value) -> Answer {
        self.call(Method::PATCH, path, Some(body)).await
    }

    pub async fn delete(&self, path: &str) -> Answer {
        self.call(Method::DELETE, path, None).await
    }
}

/// An MCP-CP message of `type` with `content` in conversation `context`.
pub fn mcp_message(context: &str, message_type: &str, content: Value) -> Value {
    serde_json::json!({
        "messageId": format!("msg_{}", uuid_like()), "contextId": context,
        "timestamp": "2026-11-23T10:00:00Z", "type": message_type,
        "sender": {"id": "client_1", "type": "USER"}, "content": content
    })
}

fn uuid_like() -> u64 {
    use std::sync::atomic::{AtomicU64, Ordering};
    static NEXT: AtomicU64 = AtomicU64::new(1);
    NEXT.fetch_add(1, Ordering::Relaxed)
}

/// `(seq, event name, data)` of each event of a whole SSE body.
pub fn sse_events(body: &str) -> Vec<(u64, String, Value)> {
    body.split("\n\n")
        .filter_map(super::stream::parse_block)
        .collect()
}

impl Api {
    /// The events of run `run_id` in `conversation`, from the stored log (the stream ends at
    /// the first `done` after `after`), checked by the event-order checker.
    pub async fn run_events(&self, conversation: &str, after: u64, run_id: &str) -> Vec<Value> {
        let response = self
            .client
            .get(format!(
                "{}/v1/conversations/{conversation}/events",
                self.server.base
            ))
            .bearer_auth(&self.server.token)
            .header("last-event-id", after.to_string())
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), 200);
        let text = tokio::time::timeout(std::time::Duration::from_secs(60), response.text())
            .await
            .expect("the stream ends with done")
            .unwrap();
        let events: Vec<Value> = sse_events(&text)
            .into_iter()
            .map(|e| e.2)
            .filter(|e| e["meta"]["run_id"] == run_id)
            .collect();
        assert_eq!(
            tessera_testkit::event_order::check_run(&events),
            Ok(()),
            "{events:#?}"
        );
        events
    }

    /// Opens an SSE stream (GET `path`, or POST with `body`) to read as it arrives.
    pub async fn open_sse(&self, path: &str, body: Option<&Value>) -> SseReader {
        self.open_sse_after(path, body, None).await
    }

    /// [`Api::open_sse`] resuming after event `after` (`Last-Event-ID`).
    pub async fn open_sse_after(
        &self,
        path: &str,
        body: Option<&Value>,
        after: Option<u64>,
    ) -> SseReader {
        let url = format!("{}/v1{path}", self.server.base);
        let mut request = match body {
            Some(b) => self.client.post(url).json(b),
            None => self.client.get(url),
        };
        if let Some(after) = after {
            request = request.header("last-event-id", after.to_string());
        }
        let response = request
            .bearer_auth(&self.server.token)
            .header("accept", "text/event-stream")
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), 200);
        SseReader {
            response,
            buffer: String::new(),
            events: Vec::new(),
        }
    }
}

/// An SSE body read as it arrives.
pub struct SseReader {
    response: reqwest::Response,
    buffer: String,
    /// Every event's data so far.
    pub events: Vec<Value>,
}

impl SseReader {
    /// Reads until an event satisfies `stop` (returned) or the stream ends (None).
    pub async fn until(&mut self, stop: impl Fn(&Value) -> bool) -> Option<Value> {
        loop {
            while let Some(end) = self.buffer.find("\n\n") {
                let block: String = self.buffer.drain(..end + 2).collect();
                for (_, _, data) in sse_events(&block) {
                    self.events.push(data.clone());
                    if stop(&data) {
                        return Some(data);
                    }
                }
            }
            let chunk =
                tokio::time::timeout(std::time::Duration::from_secs(60), self.response.chunk())
                    .await
                    .expect("the stream goes on")
                    .unwrap();
            match chunk {
                Some(bytes) => self.buffer.push_str(&String::from_utf8_lossy(&bytes)),
                None => return None,
            }
        }
    }
}

/// A USER_INPUT in conversation `context`.
pub fn user_input_message(context: &str, text: &str) -> Value {
    mcp_message(context, "USER_INPUT", serde_json::json!({"text": text}))
}
