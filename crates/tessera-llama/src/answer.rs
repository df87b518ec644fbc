//! One answer as the client gets it: the job's text run through the family's tool-call parser,
//! sent as OpenAI chunks (streamed) or as one completion (whole). The answer cancels its job
//! when it is dropped: the client went away.

use std::convert::Infallible;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use axum::http::StatusCode;
use axum::response::sse::{Event, Sse};
use axum::response::{IntoResponse, Response};
use axum::Json;
use serde_json::{json, Value};
use tessera_local::chat_format::{Parsed, ToolCallParser};
use tokio::sync::mpsc;
use tokio_stream::wrappers::UnboundedReceiverStream;

use crate::api::error;
use crate::engine::{Finish, Out};

pub struct CancelOnDrop(pub Arc<AtomicBool>);

impl Drop for CancelOnDrop {
    fn drop(&mut self) {
        self.0.store(true, Ordering::Relaxed);
    }
}

/// One answer as it is put together for the client.
pub struct Answer {
    pub id: String,
    pub created: u64,
    pub model: String,
    pub parser: Option<ToolCallParser>,
    pub include_usage: bool,
    pub prompt_tokens: u32,
    pub cached_tokens: u32,
    pub saw_call: bool,
    /// The client went away (its stream or request dropped): the job stops.
    pub _cancel_on_drop: CancelOnDrop,
}

impl Answer {
    fn chunk(&self, delta: Value, finish: Option<&str>) -> Value {
        json!({
            "id": self.id,
            "object": "chat.completion.chunk",
            "created": self.created,
            "model": self.model,
            "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
        })
    }

    /// The deltas of what the parser made of `pieces`.
    fn deltas(&mut self, pieces: Vec<Parsed>) -> Vec<Value> {
        let mut out = Vec::new();
        for piece in pieces {
            match piece {
                Parsed::Text(text) if !text.is_empty() => out.push(json!({"content": text})),
                Parsed::Text(_) => {}
                Parsed::ToolCall {
                    index,
                    id,
                    name,
                    arguments,
                } => {
                    self.saw_call = true;
                    out.push(json!({"tool_calls": [{
                        "index": index, "id": id, "type": "function",
                        "function": {"name": name, "arguments": arguments}
                    }]}));
                }
            }
        }
        out
    }

    fn finish_reason(&self, reason: Finish) -> &'static str {
        match reason {
            Finish::Length => "length",
            _ if self.saw_call => "tool_calls",
            _ => "stop",
        }
    }

    fn usage(&self, completion_tokens: u32) -> Value {
        json!({
            "prompt_tokens": self.prompt_tokens,
            "completion_tokens": completion_tokens,
            "total_tokens": self.prompt_tokens + completion_tokens,
            "prompt_tokens_details": {"cached_tokens": self.cached_tokens},
        })
    }

    /// What the parser still held at the end: an unfinished call is shown as the text it was.
    fn flush(&mut self) -> Vec<Value> {
        let Some(parser) = self.parser.take() else {
            return Vec::new();
        };
        match parser.finish() {
            Ok(pieces) => self.deltas(pieces),
            Err(tessera_local::chat_format::ParseError::UnterminatedToolCall { raw }) => {
                vec![json!({"content": raw})]
            }
        }
    }
}

/// What one piece of the job's output makes of the answer.
enum Step {
    Deltas(Vec<Value>),
    End {
        deltas: Vec<Value>,
        finish: &'static str,
        usage: Value,
    },
    Failed(crate::engine::Failure),
}

impl Answer {
    fn step(&mut self, item: Out) -> Step {
        match item {
            Out::Started {
                prompt_tokens,
                cached_tokens,
            } => {
                self.prompt_tokens = prompt_tokens;
                self.cached_tokens = cached_tokens;
                Step::Deltas(Vec::new())
            }
            Out::Text(text) => {
                let pieces = self
                    .parser
                    .as_mut()
                    .map(|p| p.push(&text))
                    .unwrap_or_default();
                Step::Deltas(self.deltas(pieces))
            }
            Out::Done {
                reason,
                completion_tokens,
            } => Step::End {
                deltas: self.flush(),
                finish: self.finish_reason(reason),
                usage: self.usage(completion_tokens),
            },
            Out::Failed(failure) => Step::Failed(failure),
        }
    }
}

pub fn stream(
    mut answer: Answer,
    mut out: mpsc::UnboundedReceiver<Out>,
) -> Sse<UnboundedReceiverStream<Result<Event, Infallible>>> {
    let (events, receiver) = mpsc::unbounded_channel::<Result<Event, Infallible>>();
    // The task ends when the client is gone (a send fails): `answer` is dropped with it,
    // which cancels the job before its next token.
    tokio::spawn(async move {
        let send = |value: Value| {
            events
                .send(Ok(Event::default().data(value.to_string())))
                .is_ok()
        };
        if !send(answer.chunk(json!({"role": "assistant", "content": ""}), None)) {
            return;
        }
        while let Some(item) = out.recv().await {
            match answer.step(item) {
                Step::Deltas(deltas) => {
                    for delta in deltas {
                        if !send(answer.chunk(delta, None)) {
                            return;
                        }
                    }
                }
                Step::End {
                    deltas,
                    finish,
                    usage,
                } => {
                    for delta in deltas {
                        send(answer.chunk(delta, None));
                    }
                    send(answer.chunk(json!({}), Some(finish)));
                    if answer.include_usage {
                        let mut last = answer.chunk(json!({}), None);
                        last["choices"] = json!([]);
                        last["usage"] = usage;
                        send(last);
                    }
                    let _ = events.send(Ok(Event::default().data("[DONE]")));
                    return;
                }
                Step::Failed(failure) => {
                    send(json!({"error": {"message": failure.message, "type": failure.kind}}));
                    return;
                }
            }
        }
    });
    Sse::new(UnboundedReceiverStream::new(receiver))
}

pub async fn whole(mut answer: Answer, mut out: mpsc::UnboundedReceiver<Out>) -> Response {
    let mut content = String::new();
    let mut calls: Vec<Value> = Vec::new();
    let mut collect = |deltas: Vec<Value>| {
        for delta in deltas {
            if let Some(text) = delta.get("content").and_then(Value::as_str) {
                content.push_str(text);
            }
            if let Some(Value::Array(list)) = delta.get("tool_calls") {
                for call in list {
                    let mut call = call.clone();
                    if let Some(o) = call.as_object_mut() {
                        o.remove("index");
                    }
                    calls.push(call);
                }
            }
        }
    };
    while let Some(item) = out.recv().await {
        match answer.step(item) {
            Step::Deltas(deltas) => collect(deltas),
            Step::End {
                deltas,
                finish,
                usage,
            } => {
                collect(deltas);
                let text = if content.is_empty() && !calls.is_empty() {
                    Value::Null
                } else {
                    Value::String(content)
                };
                let mut message = json!({"role": "assistant", "content": text});
                if !calls.is_empty() {
                    message["tool_calls"] = Value::Array(calls);
                }
                return Json(json!({
                    "id": answer.id,
                    "object": "chat.completion",
                    "created": answer.created,
                    "model": answer.model,
                    "choices": [{"index": 0, "message": message, "finish_reason": finish}],
                    "usage": usage,
                }))
                .into_response();
            }
            Step::Failed(failure) => {
                let status = if failure.kind == "server_error" {
                    StatusCode::INTERNAL_SERVER_ERROR
                } else {
                    StatusCode::BAD_REQUEST
                };
                return error(status, failure.kind, &failure.message);
            }
        }
    }
    error(
        StatusCode::INTERNAL_SERVER_ERROR,
        "server_error",
        "the model thread stopped",
    )
}
