//! Chat Completions answers (stream chunks and whole responses) into normalised items.
//!
//! The recorded streams differ in ways that matter: tool-call indices may start at 1
//! (Anthropic's compatible endpoint), later fragments may repeat `"id": ""` (DashScope), a call
//! may arrive whole in one chunk (Groq, xAI), usage may ride on the finish chunk (DeepSeek) or
//! come alone with `choices: []` (OpenAI), and xAI counts reasoning outside `completion_tokens`.

use std::borrow::Cow;

use serde::Deserialize;
use serde_json::Value;
use tessera_protocol::mcp_cp::FinishReason;

use crate::error::ProviderError;
use crate::limits::{MAX_ARGUMENT_BYTES, MAX_TOOL_CALLS};
use crate::stream::{parse_arguments, IncompleteReason, StreamItem, Usage};

#[derive(Deserialize)]
struct Chunk<'a> {
    #[serde(borrow, default)]
    id: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    model: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    choices: OurChoice<'a>,
    #[serde(default)]
    usage: Option<WireUsage>,
    #[serde(default)]
    error: Option<Value>,
}

/// The chunk's choice 0, the only one asked for (others are not ours to show). Kept without
/// a `Vec`: this is decoded for every streamed delta.
#[derive(Default)]
struct OurChoice<'a>(Option<Choice<'a>>);

impl<'de: 'a, 'a> Deserialize<'de> for OurChoice<'a> {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Choices<'a>(std::marker::PhantomData<&'a ()>);
        impl<'de: 'a, 'a> serde::de::Visitor<'de> for Choices<'a> {
            type Value = OurChoice<'a>;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a list of choices")
            }
            fn visit_unit<E>(self) -> Result<Self::Value, E> {
                Ok(OurChoice(None))
            }
            fn visit_seq<A: serde::de::SeqAccess<'de>>(
                self,
                mut seq: A,
            ) -> Result<Self::Value, A::Error> {
                let mut ours = None;
                while let Some(choice) = seq.next_element::<Choice<'a>>()? {
                    if choice.index == 0 && ours.is_none() {
                        ours = Some(choice);
                    }
                }
                Ok(OurChoice(ours))
            }
        }
        deserializer.deserialize_any(Choices(std::marker::PhantomData))
    }
}

#[derive(Deserialize)]
struct Choice<'a> {
    #[serde(default)]
    index: u32,
    #[serde(borrow, default)]
    delta: Option<Delta<'a>>,
    #[serde(borrow, default)]
    finish_reason: Option<Cow<'a, str>>,
}

#[derive(Deserialize)]
struct Delta<'a> {
    #[serde(borrow, default)]
    content: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    reasoning_content: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    reasoning: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    refusal: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    tool_calls: Option<Vec<ToolCallDelta<'a>>>,
}

#[derive(Deserialize)]
struct ToolCallDelta<'a> {
    #[serde(default)]
    index: Option<u32>,
    #[serde(borrow, default)]
    id: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    function: Option<FunctionDelta<'a>>,
}

#[derive(Deserialize)]
struct FunctionDelta<'a> {
    #[serde(borrow, default)]
    name: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    arguments: Option<Cow<'a, str>>,
}

#[derive(Deserialize, Default)]
pub(crate) struct WireUsage {
    #[serde(default)]
    prompt_tokens: Option<u64>,
    #[serde(default)]
    completion_tokens: Option<u64>,
    #[serde(default)]
    total_tokens: Option<u64>,
    #[serde(default)]
    prompt_tokens_details: Option<PromptDetails>,
    #[serde(default)]
    completion_tokens_details: Option<CompletionDetails>,
    /// DeepSeek's name for cached input.
    #[serde(default)]
    prompt_cache_hit_tokens: Option<u64>,
}

#[derive(Deserialize, Default)]
struct PromptDetails {
    #[serde(default)]
    cached_tokens: Option<u64>,
}

#[derive(Deserialize, Default)]
struct CompletionDetails {
    #[serde(default)]
    reasoning_tokens: Option<u64>,
}

impl WireUsage {
    fn normalise(&self) -> Usage {
        let input = self.prompt_tokens.unwrap_or(0);
        let completion = self.completion_tokens.unwrap_or(0);
        // xAI reports total = prompt + completion + reasoning: what was generated is what the
        // total says beyond the prompt.
        let output = match self.total_tokens {
            Some(total) if total > input.saturating_add(completion) => total - input,
            _ => completion,
        };
        Usage {
            input_tokens: input,
            output_tokens: output,
            reasoning_tokens: self
                .completion_tokens_details
                .as_ref()
                .and_then(|d| d.reasoning_tokens),
            cached_input_tokens: self
                .prompt_tokens_details
                .as_ref()
                .and_then(|d| d.cached_tokens)
                .or(self.prompt_cache_hit_tokens),
            cache_creation_input_tokens: None,
        }
    }
}

/// Seed 000's finish reasons from OpenAI's words.
pub fn finish_reason(raw: &str) -> FinishReason {
    match raw {
        "stop" | "end_turn" | "eos" => FinishReason::Stop,
        "length" | "max_tokens" | "model_length" => FinishReason::Length,
        "tool_calls" | "function_call" | "tool_use" => FinishReason::ToolCalls,
        _ => FinishReason::Error,
    }
}

#[derive(Debug)]
struct OpenCall {
    wire_index: u32,
    id: String,
    name: String,
    arguments: String,
    ended: bool,
}

/// Decodes one stream of chunks. Feed it each SSE `data` payload in order.
#[derive(Debug)]
pub struct Decoder {
    provider: String,
    started: bool,
    calls: Vec<OpenCall>,
    finished: bool,
    done: bool,
}

impl Decoder {
    pub fn new(provider: impl Into<String>) -> Self {
        Self {
            provider: provider.into(),
            started: false,
            calls: Vec::new(),
            finished: false,
            done: false,
        }
    }

    /// Whether `[DONE]` was seen.
    pub fn is_done(&self) -> bool {
        self.done
    }

    /// Decodes one `data:` payload, pushing what it means onto `out`.
    pub fn feed(&mut self, data: &str, out: &mut Vec<StreamItem>) -> Result<(), ProviderError> {
        let data = data.trim();
        if data == "[DONE]" {
            self.done = true;
            self.close_calls(None, out);
            return Ok(());
        }
        if data.is_empty() {
            return Ok(());
        }
        let chunk: Chunk<'_> = serde_json::from_str(data).map_err(|err| ProviderError::Decode {
            provider: self.provider.clone(),
            message: format!("a stream chunk is not valid JSON ({err})"),
        })?;
        if let Some(error) = chunk.error {
            let (kind, message) = error_fields(&error);
            return Err(ProviderError::Stream {
                provider: self.provider.clone(),
                kind,
                message,
            });
        }
        if !self.started {
            self.started = true;
            out.push(StreamItem::Started {
                response_id: chunk.id.map(Cow::into_owned).filter(|s| !s.is_empty()),
                model: chunk.model.map(Cow::into_owned).filter(|s| !s.is_empty()),
            });
        }
        if let Some(choice) = chunk.choices.0 {
            if let Some(delta) = choice.delta {
                self.delta(delta, out)?;
            }
            if let Some(raw) = choice.finish_reason {
                let reason = finish_reason(&raw);
                self.close_calls(Some(reason), out);
                self.finished = true;
                out.push(StreamItem::Finish {
                    reason,
                    raw: Some(raw.into_owned()),
                });
            }
        }
        if let Some(usage) = chunk.usage {
            out.push(StreamItem::Usage {
                usage: usage.normalise(),
            });
        }
        Ok(())
    }

    fn delta(&mut self, delta: Delta<'_>, out: &mut Vec<StreamItem>) -> Result<(), ProviderError> {
        for reasoning in [delta.reasoning_content, delta.reasoning]
            .into_iter()
            .flatten()
        {
            if !reasoning.is_empty() {
                out.push(StreamItem::ReasoningDelta {
                    text: reasoning.into_owned(),
                });
            }
        }
        if let Some(text) = delta.content.filter(|t| !t.is_empty()) {
            out.push(StreamItem::TextDelta {
                text: text.into_owned(),
            });
        }
        if let Some(text) = delta.refusal.filter(|t| !t.is_empty()) {
            out.push(StreamItem::RefusalDelta {
                text: text.into_owned(),
            });
        }
        for call in delta.tool_calls.into_iter().flatten() {
            self.tool_call(call, out)?;
        }
        Ok(())
    }

    fn too_much(&self, what: String) -> ProviderError {
        ProviderError::Decode {
            provider: self.provider.clone(),
            message: what,
        }
    }

    fn tool_call(
        &mut self,
        call: ToolCallDelta<'_>,
        out: &mut Vec<StreamItem>,
    ) -> Result<(), ProviderError> {
        let wire_index = call.index.unwrap_or_else(|| {
            // Without an index, a fragment continues the newest call unless it names a new id.
            match (&call.id, self.calls.last()) {
                (Some(id), Some(last)) if !id.is_empty() && *id != last.id => {
                    last.wire_index.saturating_add(1)
                }
                (_, Some(last)) => last.wire_index,
                (_, None) => 0,
            }
        });
        let (name, fragment) = match call.function {
            Some(f) => (f.name, f.arguments),
            None => (None, None),
        };
        let position = match self
            .calls
            .iter()
            .position(|c| c.wire_index == wire_index && !c.ended)
        {
            Some(i) => i,
            None => {
                let index = self.calls.len();
                if index >= MAX_TOOL_CALLS {
                    return Err(self.too_much(format!(
                        "the answer has more than {MAX_TOOL_CALLS} tool calls"
                    )));
                }
                let id = call
                    .id
                    .as_deref()
                    .filter(|s| !s.is_empty())
                    .map(str::to_owned)
                    .unwrap_or_else(|| synthetic_call_id(index));
                let name = name.as_deref().unwrap_or_default().to_owned();
                out.push(StreamItem::ToolCallStart {
                    index,
                    id: id.clone(),
                    name: name.clone(),
                });
                self.calls.push(OpenCall {
                    wire_index,
                    id,
                    name,
                    arguments: String::new(),
                    ended: false,
                });
                index
            }
        };
        let open = &mut self.calls[position];
        if open.name.is_empty() {
            if let Some(name) = name.filter(|n| !n.is_empty()) {
                open.name = name.into_owned();
            }
        }
        if let Some(fragment) = fragment.filter(|f| !f.is_empty()) {
            if open.arguments.len() + fragment.len() > MAX_ARGUMENT_BYTES {
                let id = open.id.clone();
                return Err(self.too_much(format!(
                    "the arguments of tool call {id} passed {MAX_ARGUMENT_BYTES} bytes"
                )));
            }
            open.arguments.push_str(&fragment);
            out.push(StreamItem::ToolCallDelta {
                index: position,
                arguments: fragment.into_owned(),
            });
        }
        Ok(())
    }

    /// Ends every open call: complete when its arguments parse, else incomplete.
    fn close_calls(&mut self, reason: Option<FinishReason>, out: &mut Vec<StreamItem>) {
        for (index, call) in self.calls.iter_mut().enumerate() {
            if call.ended {
                continue;
            }
            call.ended = true;
            out.push(end_item(index, call, reason));
        }
    }

    /// Ends the stream at EOF: open calls are incomplete; a stream that never said why it
    /// stopped was cut short.
    pub fn finish(&mut self, out: &mut Vec<StreamItem>) -> Result<(), ProviderError> {
        let open = self.calls.iter().any(|c| !c.ended);
        if open {
            for (index, call) in self.calls.iter_mut().enumerate() {
                if !call.ended {
                    call.ended = true;
                    out.push(StreamItem::ToolCallIncomplete {
                        index,
                        id: call.id.clone(),
                        name: call.name.clone(),
                        partial_arguments: std::mem::take(&mut call.arguments),
                        reason: IncompleteReason::StreamEnded,
                    });
                }
            }
        }
        if !self.finished && !self.done {
            return Err(ProviderError::Network {
                provider: self.provider.clone(),
                message: "the stream ended before the answer was complete".into(),
            });
        }
        Ok(())
    }
}

fn end_item(index: usize, call: &mut OpenCall, reason: Option<FinishReason>) -> StreamItem {
    let arguments = std::mem::take(&mut call.arguments);
    match parse_arguments(&arguments) {
        Ok(value) => StreamItem::ToolCallEnd {
            index,
            id: call.id.clone(),
            name: call.name.clone(),
            arguments: value,
        },
        Err(message) => StreamItem::ToolCallIncomplete {
            index,
            id: call.id.clone(),
            name: call.name.clone(),
            partial_arguments: arguments,
            reason: match reason {
                Some(FinishReason::Length) => IncompleteReason::CutOff,
                None => IncompleteReason::StreamEnded,
                _ => IncompleteReason::InvalidJson(message.to_string()),
            },
        },
    }
}

/// An id for a call the provider sent without one: unique, so records of calls from
/// different answers never collide.
pub(crate) fn synthetic_call_id(index: usize) -> String {
    format!("call_{index}_{:016x}", rand::random::<u64>())
}

/// The provider's error type and message from an `error` object (or string).
pub fn error_fields(error: &Value) -> (Option<String>, String) {
    match error {
        Value::Object(map) => {
            let kind = ["type", "code"]
                .iter()
                .find_map(|k| map.get(*k))
                .and_then(|v| match v {
                    Value::String(s) => Some(s.clone()),
                    Value::Number(n) => Some(n.to_string()),
                    _ => None,
                });
            let message = map
                .get("message")
                .and_then(Value::as_str)
                .map(str::to_owned)
                .unwrap_or_else(|| error.to_string());
            (kind, message)
        }
        Value::String(s) => (None, s.clone()),
        other => (None, other.to_string()),
    }
}

/// A whole (non-streaming) response as the items a stream would have produced.
pub fn decode_response(provider: &str, body: &Value) -> Result<Vec<StreamItem>, ProviderError> {
    let decode_error = |message: &str| ProviderError::Decode {
        provider: provider.to_owned(),
        message: message.to_owned(),
    };
    if let Some(error) = body.get("error").filter(|e| !e.is_null()) {
        let (kind, message) = error_fields(error);
        return Err(ProviderError::Stream {
            provider: provider.to_owned(),
            kind,
            message,
        });
    }
    let mut out = vec![StreamItem::Started {
        response_id: body.get("id").and_then(Value::as_str).map(str::to_owned),
        model: body.get("model").and_then(Value::as_str).map(str::to_owned),
    }];
    let choice = body
        .get("choices")
        .and_then(Value::as_array)
        .and_then(|c| c.first())
        .ok_or_else(|| decode_error("the response has no choices"))?;
    let message = choice
        .get("message")
        .ok_or_else(|| decode_error("the first choice has no message"))?;
    let raw_finish = choice
        .get("finish_reason")
        .and_then(Value::as_str)
        .map(str::to_owned);
    let reason = raw_finish.as_deref().map(finish_reason);
    for key in ["reasoning_content", "reasoning"] {
        if let Some(text) = message.get(key).and_then(Value::as_str) {
            if !text.is_empty() {
                out.push(StreamItem::ReasoningDelta { text: text.into() });
            }
        }
    }
    if let Some(text) = message.get("content").and_then(Value::as_str) {
        if !text.is_empty() {
            out.push(StreamItem::TextDelta { text: text.into() });
        }
    }
    if let Some(text) = message.get("refusal").and_then(Value::as_str) {
        if !text.is_empty() {
            out.push(StreamItem::RefusalDelta { text: text.into() });
        }
    }
    let calls = message.get("tool_calls").and_then(Value::as_array);
    for (index, call) in calls.into_iter().flatten().enumerate() {
        let function = call.get("function");
        let mut open = OpenCall {
            wire_index: 0,
            id: call
                .get("id")
                .and_then(Value::as_str)
                .filter(|s| !s.is_empty())
                .map(str::to_owned)
                .unwrap_or_else(|| synthetic_call_id(index)),
            name: function
                .and_then(|f| f.get("name"))
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_owned(),
            arguments: match function.and_then(|f| f.get("arguments")) {
                Some(Value::String(s)) => s.clone(),
                Some(Value::Object(_)) => function
                    .and_then(|f| f.get("arguments"))
                    .map(Value::to_string)
                    .unwrap_or_default(),
                _ => String::new(),
            },
            ended: false,
        };
        out.push(StreamItem::ToolCallStart {
            index,
            id: open.id.clone(),
            name: open.name.clone(),
        });
        out.push(end_item(
            index,
            &mut open,
            reason.or(Some(FinishReason::Stop)),
        ));
    }
    if let Some(reason) = reason {
        out.push(StreamItem::Finish {
            reason,
            raw: raw_finish,
        });
    }
    if let Some(usage) = body.get("usage").filter(|u| !u.is_null()) {
        let usage: WireUsage = serde_json::from_value(usage.clone())
            .map_err(|err| decode_error(&format!("usage is not readable: {err}")))?;
        out.push(StreamItem::Usage {
            usage: usage.normalise(),
        });
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    fn texts(chunks: &[&str]) -> Result<Vec<String>, ProviderError> {
        let mut decoder = Decoder::new("test");
        let mut out = Vec::new();
        for chunk in chunks {
            decoder.feed(chunk, &mut out)?;
        }
        Ok(out
            .into_iter()
            .filter_map(|item| match item {
                StreamItem::TextDelta { text } => Some(text),
                _ => None,
            })
            .collect())
    }

    #[test]
    fn only_choice_0_is_shown_wherever_it_is_in_the_list() {
        let chunks = [
            r#"{"choices":[{"index":1,"delta":{"content":"theirs"}},{"index":0,"delta":{"content":"ours"}}]}"#,
            r#"{"choices":[{"index":0,"delta":{"content":" too"}},{"index":2,"delta":{"content":"x"}}]}"#,
            r#"{"choices":[],"usage":{"prompt_tokens":1,"completion_tokens":2}}"#,
            r#"{"choices":null}"#,
            r#"{"id":"c"}"#,
        ];
        assert_eq!(texts(&chunks).unwrap(), ["ours", " too"]);
    }

    #[test]
    fn choices_that_are_not_a_list_are_a_decode_error() {
        let error = texts(&[r#"{"choices":"ours"}"#]).unwrap_err();
        assert!(error.to_string().contains("a list of choices"), "{error}");
    }
}
