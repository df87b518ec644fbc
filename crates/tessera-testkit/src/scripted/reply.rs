//! What the scripted provider answers to one request.

use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};
use tokio::sync::Semaphore;

/// A point in a stream where the provider waits until the test opens it, so tests advance the
/// provider step by step instead of sleeping.
#[derive(Clone, Debug)]
pub struct Gate(Arc<Semaphore>);

impl Default for Gate {
    fn default() -> Self {
        Self::new()
    }
}

impl Gate {
    pub fn new() -> Self {
        Self(Arc::new(Semaphore::new(0)))
    }
    /// Lets one waiting (or the next) stream past this gate.
    pub fn open(&self) {
        self.0.add_permits(1);
    }
    pub(crate) async fn pass(&self) {
        if let Ok(permit) = self.0.acquire().await {
            permit.forget();
        }
    }
}

/// One step of a streamed body.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Step {
    /// Bytes written as they are (already SSE-framed).
    Raw(String),
    /// Waits this long before the next step.
    DelayMs(u64),
    /// Waits for the test to open the gate.
    #[serde(skip)]
    Gate(Gate),
    /// Breaks the connection here (the client sees the body end with an error).
    Reset,
    /// Never sends anything again, keeping the connection open.
    Stall,
}

/// The body of a reply.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Body {
    Json(Value),
    /// `text/event-stream`, sent step by step (each step flushed on its own).
    Sse(Vec<Step>),
    /// Any bytes with a content type.
    Text {
        content_type: String,
        text: String,
    },
}

/// The answer to one request.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Reply {
    #[serde(default = "ok")]
    pub status: u16,
    #[serde(default)]
    pub headers: Vec<(String, String)>,
    pub body: Body,
    /// Waits this long before sending the status line (time to first byte).
    #[serde(default)]
    pub delay_ms: u64,
}

fn ok() -> u16 {
    200
}

fn sse_data(value: &Value) -> Step {
    Step::Raw(format!("data: {value}\n\n"))
}

fn sse_event(value: &Value) -> Step {
    let kind = value
        .get("type")
        .and_then(Value::as_str)
        .unwrap_or("message");
    Step::Raw(format!("event: {kind}\ndata: {value}\n\n"))
}

impl Reply {
    pub fn json(status: u16, body: Value) -> Self {
        Self {
            status,
            headers: Vec::new(),
            body: Body::Json(body),
            delay_ms: 0,
        }
    }

    pub fn sse(steps: Vec<Step>) -> Self {
        Self {
            status: 200,
            headers: Vec::new(),
            body: Body::Sse(steps),
            delay_ms: 0,
        }
    }

    pub fn with_header(mut self, name: &str, value: &str) -> Self {
        self.headers.push((name.to_owned(), value.to_owned()));
        self
    }

    /// Waits before answering at all.
    pub fn with_delay(mut self, delay: Duration) -> Self {
        self.delay_ms = delay.as_millis() as u64;
        self
    }

    /// Inserts a delay before every step of a stream.
    pub fn with_step_delay(mut self, delay: Duration) -> Self {
        if let Body::Sse(steps) = &mut self.body {
            let ms = delay.as_millis() as u64;
            *steps = std::mem::take(steps)
                .into_iter()
                .flat_map(|s| [Step::DelayMs(ms), s])
                .collect();
        }
        self
    }

    /// Inserts `step` before the `n`-th step of the stream (0-based).
    pub fn insert_step(mut self, n: usize, step: Step) -> Self {
        if let Body::Sse(steps) = &mut self.body {
            let n = n.min(steps.len());
            steps.insert(n, step);
        }
        self
    }

    /// The length in bytes of each step of a stream (0 for steps that send nothing), to cut a
    /// stream at a chosen event with [`Reply::reset_after_bytes`].
    pub fn step_lengths(&self) -> Vec<usize> {
        match &self.body {
            Body::Sse(steps) => steps
                .iter()
                .map(|s| match s {
                    Step::Raw(text) => text.len(),
                    _ => 0,
                })
                .collect(),
            _ => Vec::new(),
        }
    }

    /// Cuts the stream after `n` bytes of body and breaks the connection.
    pub fn reset_after_bytes(mut self, n: usize) -> Self {
        if let Body::Sse(steps) = &mut self.body {
            let mut left = n;
            let mut kept = Vec::new();
            for step in std::mem::take(steps) {
                match step {
                    Step::Raw(text) if text.len() >= left => {
                        let mut cut = left;
                        while !text.is_char_boundary(cut) {
                            cut -= 1;
                        }
                        kept.push(Step::Raw(text[..cut].to_owned()));
                        break;
                    }
                    Step::Raw(text) => {
                        left -= text.len();
                        kept.push(Step::Raw(text));
                    }
                    other => kept.push(other),
                }
            }
            kept.push(Step::Reset);
            *steps = kept;
        }
        self
    }

    /// Stops sending after the `n`-th step and keeps the connection open.
    pub fn stall_after(mut self, n: usize) -> Self {
        if let Body::Sse(steps) = &mut self.body {
            steps.truncate(n);
            steps.push(Step::Stall);
        }
        self
    }

    // ----- OpenAI-compatible -----

    /// OpenAI chunks, each as one `data:` event, then `data: [DONE]`.
    pub fn openai_chunks(chunks: &[Value]) -> Self {
        let mut steps: Vec<Step> = chunks.iter().map(sse_data).collect();
        steps.push(Step::Raw("data: [DONE]\n\n".into()));
        Self::sse(steps)
    }

    /// A streamed text answer in `deltas`, with usage in a final `choices: []` chunk.
    pub fn openai_text(model: &str, deltas: &[&str]) -> Self {
        let mut chunks = vec![openai_chunk(
            model,
            json!({"role": "assistant", "content": ""}),
            None,
        )];
        chunks.extend(
            deltas
                .iter()
                .map(|d| openai_chunk(model, json!({"content": d}), None)),
        );
        chunks.push(openai_chunk(model, json!({}), Some("stop")));
        chunks.push(openai_usage(model, 12, deltas.len() as u64));
        Self::openai_chunks(&chunks)
    }

    /// Reasoning deltas (`reasoning_content`), then text.
    pub fn openai_reasoning(model: &str, reasoning: &[&str], text: &[&str]) -> Self {
        let mut chunks = vec![openai_chunk(
            model,
            json!({"role": "assistant", "content": null, "reasoning_content": ""}),
            None,
        )];
        chunks.extend(reasoning.iter().map(|d| {
            openai_chunk(
                model,
                json!({"content": null, "reasoning_content": d}),
                None,
            )
        }));
        chunks.extend(text.iter().map(|d| {
            openai_chunk(
                model,
                json!({"content": d, "reasoning_content": null}),
                None,
            )
        }));
        chunks.push(openai_chunk(model, json!({"content": ""}), Some("stop")));
        chunks.push(openai_usage(
            model,
            20,
            (reasoning.len() + text.len()) as u64,
        ));
        Self::openai_chunks(&chunks)
    }

    /// Parallel tool calls, each `(id, name, argument fragments)`, interleaved fragment by
    /// fragment as OpenAI sends them.
    pub fn openai_tool_calls(model: &str, calls: &[(&str, &str, &[&str])]) -> Self {
        let mut chunks = vec![openai_chunk(
            model,
            json!({"role": "assistant", "content": null}),
            None,
        )];
        for (i, (id, name, _)) in calls.iter().enumerate() {
            chunks.push(openai_chunk(
                model,
                json!({"tool_calls": [{"index": i, "id": id, "type": "function",
                    "function": {"name": name, "arguments": ""}}]}),
                None,
            ));
        }
        let longest = calls.iter().map(|c| c.2.len()).max().unwrap_or(0);
        for f in 0..longest {
            for (i, (_, _, fragments)) in calls.iter().enumerate() {
                if let Some(fragment) = fragments.get(f) {
                    chunks.push(openai_chunk(
                        model,
                        json!({"tool_calls": [{"index": i, "function": {"arguments": fragment}}]}),
                        None,
                    ));
                }
            }
        }
        chunks.push(openai_chunk(model, json!({}), Some("tool_calls")));
        chunks.push(openai_usage(model, 40, 20));
        Self::openai_chunks(&chunks)
    }

    /// A whole (non-streamed) Chat Completions answer.
    pub fn openai_whole(model: &str, text: &str) -> Self {
        Self::json(
            200,
            json!({
                "id": "chatcmpl-scripted", "object": "chat.completion", "created": 0,
                "model": model,
                "choices": [{"index": 0, "message": {"role": "assistant", "content": text},
                    "finish_reason": "stop"}],
                "usage": {"prompt_tokens": 12, "completion_tokens": 3, "total_tokens": 15}
            }),
        )
    }

    /// An OpenAI-style HTTP error.
    pub fn openai_error(status: u16, kind: &str, message: &str) -> Self {
        Self::json(
            status,
            json!({"error": {"message": message, "type": kind, "param": null, "code": kind}}),
        )
    }

    // ----- Anthropic -----

    /// Anthropic events, each with its `event:` line.
    pub fn anthropic_events(events: &[Value]) -> Self {
        Self::sse(events.iter().map(sse_event).collect())
    }

    /// A streamed Anthropic text answer.
    pub fn anthropic_text(model: &str, deltas: &[&str]) -> Self {
        let mut events = vec![
            anthropic_start(model, 12),
            json!({"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}}),
            json!({"type": "ping"}),
        ];
        events.extend(deltas.iter().map(|d| {
            json!({"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": d}})
        }));
        events.push(json!({"type": "content_block_stop", "index": 0}));
        events.push(anthropic_end("end_turn", deltas.len() as u64));
        events.push(json!({"type": "message_stop"}));
        Self::anthropic_events(&events)
    }

    /// Thinking (with its signature), then text.
    pub fn anthropic_thinking(
        model: &str,
        thinking: &[&str],
        signature: &str,
        text: &[&str],
    ) -> Self {
        let mut events = vec![
            anthropic_start(model, 30),
            json!({"type": "content_block_start", "index": 0, "content_block": {"type": "thinking", "thinking": "", "signature": ""}}),
        ];
        events.extend(thinking.iter().map(|d| {
            json!({"type": "content_block_delta", "index": 0, "delta": {"type": "thinking_delta", "thinking": d}})
        }));
        events.push(json!({"type": "content_block_delta", "index": 0, "delta": {"type": "signature_delta", "signature": signature}}));
        events.push(json!({"type": "content_block_stop", "index": 0}));
        events.push(json!({"type": "content_block_start", "index": 1, "content_block": {"type": "text", "text": ""}}));
        events.extend(text.iter().map(|d| {
            json!({"type": "content_block_delta", "index": 1, "delta": {"type": "text_delta", "text": d}})
        }));
        events.push(json!({"type": "content_block_stop", "index": 1}));
        events.push(anthropic_end(
            "end_turn",
            (thinking.len() + text.len()) as u64,
        ));
        events.push(json!({"type": "message_stop"}));
        Self::anthropic_events(&events)
    }

    /// Tool calls `(id, name, input_json fragments)`, one block each, the first fragment empty
    /// as Anthropic sends it.
    pub fn anthropic_tool_use(model: &str, calls: &[(&str, &str, &[&str])]) -> Self {
        let mut events = vec![anthropic_start(model, 50)];
        for (i, (id, name, fragments)) in calls.iter().enumerate() {
            events.push(json!({"type": "content_block_start", "index": i, "content_block": {"type": "tool_use", "id": id, "name": name, "input": {}}}));
            for fragment in std::iter::once(&"").chain(fragments.iter()) {
                events.push(json!({"type": "content_block_delta", "index": i, "delta": {"type": "input_json_delta", "partial_json": fragment}}));
            }
            events.push(json!({"type": "content_block_stop", "index": i}));
        }
        events.push(anthropic_end("tool_use", 30));
        events.push(json!({"type": "message_stop"}));
        Self::anthropic_events(&events)
    }

    /// An Anthropic-style HTTP error (`overloaded_error` with 529, `rate_limit_error` with 429…).
    pub fn anthropic_error(status: u16, kind: &str, message: &str) -> Self {
        Self::json(
            status,
            json!({"type": "error", "error": {"type": kind, "message": message}}),
        )
    }

    /// A whole (non-streamed) Messages answer.
    pub fn anthropic_whole(model: &str, text: &str) -> Self {
        Self::json(
            200,
            json!({
                "id": "msg_scripted", "type": "message", "role": "assistant", "model": model,
                "content": [{"type": "text", "text": text}],
                "stop_reason": "end_turn", "stop_sequence": null,
                "usage": {"input_tokens": 12, "output_tokens": 3}
            }),
        )
    }
}

/// One Chat Completions chunk.
pub fn openai_chunk(model: &str, delta: Value, finish: Option<&str>) -> Value {
    json!({
        "id": "chatcmpl-scripted", "object": "chat.completion.chunk", "created": 0,
        "model": model,
        "choices": [{"index": 0, "delta": delta, "logprobs": null, "finish_reason": finish}],
        "usage": null
    })
}

/// The `include_usage` chunk.
pub fn openai_usage(model: &str, prompt: u64, completion: u64) -> Value {
    json!({
        "id": "chatcmpl-scripted", "object": "chat.completion.chunk", "created": 0,
        "model": model, "choices": [],
        "usage": {"prompt_tokens": prompt, "completion_tokens": completion,
            "total_tokens": prompt + completion}
    })
}

/// `message_start`.
pub fn anthropic_start(model: &str, input_tokens: u64) -> Value {
    json!({"type": "message_start", "message": {
        "id": "msg_scripted", "type": "message", "role": "assistant", "model": model,
        "content": [], "stop_reason": null, "stop_sequence": null,
        "usage": {"input_tokens": input_tokens, "output_tokens": 1}
    }})
}

/// `message_delta` with the stop reason and cumulative output tokens.
pub fn anthropic_end(stop_reason: &str, output_tokens: u64) -> Value {
    json!({"type": "message_delta", "delta": {"stop_reason": stop_reason, "stop_sequence": null},
        "usage": {"output_tokens": output_tokens}})
}

impl From<&str> for Step {
    fn from(text: &str) -> Self {
        Step::Raw(text.to_owned())
    }
}

impl Step {
    pub(crate) fn bytes(text: &str) -> Bytes {
        Bytes::copy_from_slice(text.as_bytes())
    }
}
