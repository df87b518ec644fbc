//! Messages stream events and whole responses into normalised items.
//!
//! The event type is read from the JSON `type` field (the SSE `event:` line repeats it and is
//! missing from some recordings). Usage is cumulative: `message_start` gives the input,
//! `message_delta` the output so far, and each report is merged into one snapshot.

use std::borrow::Cow;

use serde::Deserialize;
use serde_json::Value;
use tessera_protocol::mcp_cp::FinishReason;

use crate::error::ProviderError;
use crate::limits::{MAX_ARGUMENT_BYTES, MAX_TOOL_CALLS};
use crate::openai::decode_error_fields;
use crate::stream::{parse_arguments, IncompleteReason, StreamItem, Usage};

#[derive(Deserialize)]
struct Event<'a> {
    #[serde(borrow, rename = "type")]
    kind: Cow<'a, str>,
    #[serde(default)]
    index: Option<usize>,
    #[serde(borrow, default)]
    delta: Option<EventDelta<'a>>,
    #[serde(default)]
    content_block: Option<Value>,
    #[serde(default)]
    message: Option<Value>,
    #[serde(default)]
    usage: Option<WireUsage>,
    #[serde(default)]
    error: Option<Value>,
}

#[derive(Deserialize)]
struct EventDelta<'a> {
    #[serde(borrow, rename = "type", default)]
    kind: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    text: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    thinking: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    signature: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    partial_json: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    stop_reason: Option<Cow<'a, str>>,
}

#[derive(Deserialize, Default, Clone, Copy)]
struct WireUsage {
    #[serde(default)]
    input_tokens: Option<u64>,
    #[serde(default)]
    output_tokens: Option<u64>,
    #[serde(default)]
    cache_read_input_tokens: Option<u64>,
    #[serde(default)]
    cache_creation_input_tokens: Option<u64>,
}

/// Seed 000's finish reasons from Anthropic's stop reasons.
pub fn finish_reason(raw: &str) -> FinishReason {
    match raw {
        "end_turn" | "stop_sequence" | "pause_turn" => FinishReason::Stop,
        "max_tokens" | "model_context_window_exceeded" => FinishReason::Length,
        "tool_use" => FinishReason::ToolCalls,
        _ => FinishReason::Error,
    }
}

#[derive(Debug)]
enum Block {
    Text,
    Thinking,
    Tool {
        index: usize,
        id: String,
        name: String,
        json: String,
        /// `input` given at the start, used when no delta follows.
        initial: Option<Value>,
    },
    Other,
}

/// Decodes one Messages stream. Feed it each SSE `data` payload in order.
#[derive(Debug)]
pub struct Decoder {
    provider: String,
    blocks: Vec<(usize, Block)>,
    tools: usize,
    usage: Usage,
    /// Anthropic's own `input_tokens` (without cache reads and writes).
    input_uncached: u64,
    stop_reason: Option<String>,
    finished: bool,
    done: bool,
}

impl Decoder {
    pub fn new(provider: impl Into<String>) -> Self {
        Self {
            provider: provider.into(),
            blocks: Vec::new(),
            tools: 0,
            usage: Usage::default(),
            input_uncached: 0,
            stop_reason: None,
            finished: false,
            done: false,
        }
    }

    /// Whether `message_stop` was seen.
    pub fn is_done(&self) -> bool {
        self.done
    }

    fn merge_usage(&mut self, usage: WireUsage) {
        if let Some(n) = usage.input_tokens {
            self.input_uncached = n;
        }
        if let Some(n) = usage.output_tokens {
            self.usage.output_tokens = n;
        }
        if let Some(n) = usage.cache_read_input_tokens {
            self.usage.cached_input_tokens = Some(n);
        }
        if let Some(n) = usage.cache_creation_input_tokens {
            self.usage.cache_creation_input_tokens = Some(n);
        }
        // Anthropic's input_tokens leaves out what was read from or written to the cache;
        // the normalised input counts every prompt token, as OpenAI's prompt_tokens does.
        self.usage.input_tokens = self
            .input_uncached
            .saturating_add(self.usage.cached_input_tokens.unwrap_or(0))
            .saturating_add(self.usage.cache_creation_input_tokens.unwrap_or(0));
    }

    /// Decodes one `data:` payload, pushing what it means onto `out`.
    pub fn feed(&mut self, data: &str, out: &mut Vec<StreamItem>) -> Result<(), ProviderError> {
        let data = data.trim();
        if data.is_empty() || data == "[DONE]" {
            return Ok(());
        }
        let event: Event<'_> = serde_json::from_str(data).map_err(|err| ProviderError::Decode {
            provider: self.provider.clone(),
            message: format!("a stream event is not valid JSON ({err})"),
        })?;
        match event.kind.as_ref() {
            "message_start" => {
                let message = event.message.unwrap_or(Value::Null);
                if let Some(usage) = message.get("usage") {
                    if let Ok(usage) = serde_json::from_value::<WireUsage>(usage.clone()) {
                        self.merge_usage(usage);
                    }
                }
                out.push(StreamItem::Started {
                    response_id: message.get("id").and_then(Value::as_str).map(str::to_owned),
                    model: message
                        .get("model")
                        .and_then(Value::as_str)
                        .map(str::to_owned),
                });
                out.push(StreamItem::Usage { usage: self.usage });
            }
            "content_block_start" => {
                let index = event.index.unwrap_or(self.blocks.len());
                let block = event.content_block.unwrap_or(Value::Null);
                let is_tool = block.get("type").and_then(Value::as_str) == Some("tool_use");
                if self.blocks.len() >= MAX_TOOL_CALLS || (is_tool && self.tools >= MAX_TOOL_CALLS)
                {
                    return Err(self.too_much(format!(
                        "the answer has more than {MAX_TOOL_CALLS} tool calls or open blocks"
                    )));
                }
                let block = self.start_block(&block, out);
                self.blocks.push((index, block));
            }
            "content_block_delta" => {
                if let (Some(index), Some(delta)) = (event.index, event.delta) {
                    self.block_delta(index, delta, out)?;
                }
            }
            "content_block_stop" => {
                if let Some(index) = event.index {
                    if let Some(pos) = self.blocks.iter().position(|(i, _)| *i == index) {
                        let (_, block) = self.blocks.remove(pos);
                        if let Block::Tool { .. } = block {
                            out.push(end_tool(block, None));
                        }
                    }
                }
            }
            "message_delta" => {
                if let Some(usage) = event.usage {
                    self.merge_usage(usage);
                    out.push(StreamItem::Usage { usage: self.usage });
                }
                if let Some(raw) = event.delta.and_then(|d| d.stop_reason) {
                    self.finish_with(raw.into_owned(), out);
                }
            }
            "message_stop" => self.done = true,
            "error" => {
                let (kind, message) =
                    decode_error_fields(event.error.as_ref().unwrap_or(&Value::Null));
                return Err(ProviderError::Stream {
                    provider: self.provider.clone(),
                    kind,
                    message,
                });
            }
            _ => {} // ping, and types this version does not know
        }
        Ok(())
    }

    fn start_block(&mut self, block: &Value, out: &mut Vec<StreamItem>) -> Block {
        let text = |key: &str| block.get(key).and_then(Value::as_str).unwrap_or_default();
        match text("type") {
            "text" => {
                if !text("text").is_empty() {
                    out.push(StreamItem::TextDelta {
                        text: text("text").to_owned(),
                    });
                }
                Block::Text
            }
            "thinking" => {
                if !text("thinking").is_empty() {
                    out.push(StreamItem::ReasoningDelta {
                        text: text("thinking").to_owned(),
                    });
                }
                Block::Thinking
            }
            "redacted_thinking" => {
                out.push(StreamItem::RedactedReasoning {
                    data: text("data").to_owned(),
                });
                Block::Other
            }
            "tool_use" => {
                let index = self.tools;
                self.tools += 1;
                let id = match text("id") {
                    "" => crate::openai::synthetic_call_id(index),
                    id => id.to_owned(),
                };
                let name = text("name").to_owned();
                out.push(StreamItem::ToolCallStart {
                    index,
                    id: id.clone(),
                    name: name.clone(),
                });
                Block::Tool {
                    index,
                    id,
                    name,
                    json: String::new(),
                    initial: block
                        .get("input")
                        .filter(|v| v.as_object().is_some_and(|m| !m.is_empty()))
                        .cloned(),
                }
            }
            _ => Block::Other, // server tools, web search results…
        }
    }

    fn too_much(&self, what: String) -> ProviderError {
        ProviderError::Decode {
            provider: self.provider.clone(),
            message: what,
        }
    }

    fn block_delta(
        &mut self,
        index: usize,
        delta: EventDelta<'_>,
        out: &mut Vec<StreamItem>,
    ) -> Result<(), ProviderError> {
        let provider = &self.provider;
        let Some((_, block)) = self.blocks.iter_mut().find(|(i, _)| *i == index) else {
            return Ok(());
        };
        match (delta.kind.as_deref(), block) {
            (Some("text_delta"), _) => {
                if let Some(text) = delta.text.filter(|t| !t.is_empty()) {
                    out.push(StreamItem::TextDelta {
                        text: text.into_owned(),
                    });
                }
            }
            (Some("thinking_delta"), _) => {
                if let Some(text) = delta.thinking.filter(|t| !t.is_empty()) {
                    out.push(StreamItem::ReasoningDelta {
                        text: text.into_owned(),
                    });
                }
            }
            (Some("signature_delta"), _) => {
                if let Some(signature) = delta.signature {
                    out.push(StreamItem::ReasoningSignature {
                        signature: signature.into_owned(),
                    });
                }
            }
            (
                Some("input_json_delta"),
                Block::Tool {
                    index, json, id, ..
                },
            ) => {
                if let Some(fragment) = delta.partial_json.filter(|f| !f.is_empty()) {
                    if json.len() + fragment.len() > MAX_ARGUMENT_BYTES {
                        return Err(ProviderError::Decode {
                            provider: provider.clone(),
                            message: format!(
                                "the arguments of tool call {id} passed {MAX_ARGUMENT_BYTES} bytes"
                            ),
                        });
                    }
                    json.push_str(&fragment);
                    out.push(StreamItem::ToolCallDelta {
                        index: *index,
                        arguments: fragment.into_owned(),
                    });
                }
            }
            _ => {} // citations and kinds this version does not know
        }
        Ok(())
    }

    /// The model said why it stopped: tool blocks still open were cut off (or broken).
    fn finish_with(&mut self, raw: String, out: &mut Vec<StreamItem>) {
        let reason = finish_reason(&raw);
        let cut = if reason == FinishReason::Length {
            IncompleteReason::CutOff
        } else {
            IncompleteReason::StreamEnded
        };
        for (_, block) in std::mem::take(&mut self.blocks) {
            if let Block::Tool { .. } = block {
                out.push(end_tool(block, Some(cut.clone())));
            }
        }
        self.stop_reason = Some(raw.clone());
        self.finished = true;
        out.push(StreamItem::Finish {
            reason,
            raw: Some(raw),
        });
    }

    /// Ends the stream at EOF. A stream that never said why it stopped was cut short.
    pub fn finish(&mut self, out: &mut Vec<StreamItem>) -> Result<(), ProviderError> {
        for (_, block) in std::mem::take(&mut self.blocks) {
            if let Block::Tool { .. } = block {
                out.push(end_tool(block, Some(IncompleteReason::StreamEnded)));
            }
        }
        if !self.finished {
            return Err(ProviderError::Network {
                provider: self.provider.clone(),
                message: "the stream ended before the answer was complete".into(),
            });
        }
        Ok(())
    }
}

/// A finished tool block; `forced` when it ended without its own `content_block_stop`.
fn end_tool(block: Block, forced: Option<IncompleteReason>) -> StreamItem {
    let Block::Tool {
        index,
        id,
        name,
        json,
        initial,
    } = block
    else {
        return StreamItem::ToolCallIncomplete {
            index: 0,
            id: String::new(),
            name: String::new(),
            partial_arguments: String::new(),
            reason: IncompleteReason::StreamEnded,
        };
    };
    let parsed = if json.is_empty() {
        Ok(initial.unwrap_or_else(|| Value::Object(serde_json::Map::new())))
    } else {
        parse_arguments(&json)
    };
    match (parsed, forced) {
        // A call whose JSON happens to parse but was never closed by its block is still cut.
        (Ok(arguments), None) => StreamItem::ToolCallEnd {
            index,
            id,
            name,
            arguments,
        },
        (Ok(_), Some(reason)) => StreamItem::ToolCallIncomplete {
            index,
            id,
            name,
            partial_arguments: json,
            reason,
        },
        (Err(message), forced) => StreamItem::ToolCallIncomplete {
            index,
            id,
            name,
            partial_arguments: json,
            reason: forced.unwrap_or(IncompleteReason::InvalidJson(message.to_string())),
        },
    }
}

/// A whole (non-streaming) Messages response as the items a stream would have produced.
pub fn decode_response(provider: &str, body: &Value) -> Result<Vec<StreamItem>, ProviderError> {
    if body.get("type").and_then(Value::as_str) == Some("error") {
        let (kind, message) = decode_error_fields(body.get("error").unwrap_or(&Value::Null));
        return Err(ProviderError::Stream {
            provider: provider.to_owned(),
            kind,
            message,
        });
    }
    let mut decoder = Decoder::new(provider);
    let mut out = Vec::new();
    let mut start = body.clone();
    if let Some(map) = start.as_object_mut() {
        map.remove("content");
    }
    decoder.feed(
        &serde_json::json!({"type": "message_start", "message": start}).to_string(),
        &mut out,
    )?;
    let content = body
        .get("content")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    for (index, block) in content.iter().enumerate() {
        let mut start = block.clone();
        // Whole blocks carry their text inline; the stream shape starts them empty.
        let signature = block.get("signature").and_then(Value::as_str);
        decoder.feed(
            &serde_json::json!({"type": "content_block_start", "index": index, "content_block": start.take()})
                .to_string(),
            &mut out,
        )?;
        if let Some(signature) = signature {
            out.push(StreamItem::ReasoningSignature {
                signature: signature.to_owned(),
            });
        }
        decoder.feed(
            &serde_json::json!({"type": "content_block_stop", "index": index}).to_string(),
            &mut out,
        )?;
    }
    let stop = body
        .get("stop_reason")
        .and_then(Value::as_str)
        .unwrap_or("end_turn");
    decoder.feed(
        &serde_json::json!({"type": "message_delta", "delta": {"stop_reason": stop}, "usage": body.get("usage")})
            .to_string(),
        &mut out,
    )?;
    Ok(out)
}
