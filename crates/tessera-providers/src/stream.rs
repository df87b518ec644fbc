//! The normalised stream every provider produces, and the accumulator that turns it into one
//! whole answer (kept when a stream breaks, so a partial answer is never lost).

use serde::{Deserialize, Serialize};
use serde_json::Value;
use tessera_protocol::mcp_cp::FinishReason;

/// Token counts of one call, as the provider reported them so far (each report replaces the
/// previous one: Anthropic's are cumulative, OpenAI's come once).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Usage {
    pub input_tokens: u64,
    pub output_tokens: u64,
    /// Of the output, how many were reasoning (when reported).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reasoning_tokens: Option<u64>,
    /// Of the input, how many came from the provider's prompt cache.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cached_input_tokens: Option<u64>,
    /// Anthropic: input tokens written to the cache.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cache_creation_input_tokens: Option<u64>,
}

impl Usage {
    pub fn total(&self) -> u64 {
        self.input_tokens.saturating_add(self.output_tokens)
    }
}

/// Why a tool call cannot be run.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum IncompleteReason {
    /// The token limit cut its arguments off.
    CutOff,
    /// Its arguments are not a JSON object.
    InvalidJson(String),
    /// The stream ended before the call did.
    StreamEnded,
}

/// One normalised item of a model's answer.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "item", rename_all = "snake_case")]
pub enum StreamItem {
    /// The provider accepted the call (its response id and the model that answers).
    Started {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        response_id: Option<String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        model: Option<String>,
    },
    TextDelta {
        text: String,
    },
    /// The model declined (OpenAI `refusal`), shown like text.
    RefusalDelta {
        text: String,
    },
    ReasoningDelta {
        text: String,
    },
    /// The signature closing a reasoning block (Anthropic), needed to replay it.
    ReasoningSignature {
        signature: String,
    },
    /// Reasoning the provider encrypted (Anthropic `redacted_thinking`).
    RedactedReasoning {
        data: String,
    },
    /// A tool call begins. `index` counts calls of this answer from 0, whatever the wire said.
    ToolCallStart {
        index: usize,
        id: String,
        name: String,
    },
    ToolCallDelta {
        index: usize,
        arguments: String,
    },
    /// The call is complete: `arguments` is a JSON object (`{}` when it had none).
    ToolCallEnd {
        index: usize,
        id: String,
        name: String,
        arguments: Value,
    },
    /// The call's arguments never became valid JSON: it must not be executed.
    ToolCallIncomplete {
        index: usize,
        id: String,
        name: String,
        partial_arguments: String,
        reason: IncompleteReason,
    },
    Usage {
        usage: Usage,
    },
    Finish {
        reason: FinishReason,
        /// The provider's own word for it (`end_turn`, `content_filter`…).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        raw: Option<String>,
    },
    /// The call failed before any output and is tried again (shown as a recoverable error).
    Retrying {
        attempt: u32,
        delay_ms: u64,
        code: crate::ProviderFailureCode,
        message: String,
    },
    /// The model was overloaded; the call continues with the fallback model.
    FallbackModel {
        from: String,
        to: String,
    },
}

impl StreamItem {
    /// Whether this item is part of the answer itself (after which a call is never retried).
    pub fn is_output(&self) -> bool {
        !matches!(
            self,
            Self::Started { .. }
                | Self::Usage { .. }
                | Self::Retrying { .. }
                | Self::FallbackModel { .. }
        )
    }
}

/// A block of reasoning, replayable.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct ReasoningBlock {
    pub text: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub signature: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub redacted: Option<String>,
}

/// A complete tool call.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CompletedToolCall {
    pub id: String,
    pub name: String,
    pub arguments: Value,
}

/// A tool call that must not run.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct IncompleteToolCall {
    pub id: String,
    pub name: String,
    pub partial_arguments: String,
    pub reason: IncompleteReason,
}

/// A whole answer.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Response {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub response_id: Option<String>,
    /// The model that answered (the fallback model after an overload).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    pub text: String,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub refusal: String,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub reasoning: Vec<ReasoningBlock>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tool_calls: Vec<CompletedToolCall>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub incomplete_tool_calls: Vec<IncompleteToolCall>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub usage: Option<Usage>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub finish_reason: Option<FinishReason>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub raw_finish_reason: Option<String>,
}

/// Folds stream items into a [`Response`].
#[derive(Debug, Default)]
pub struct Accumulator {
    response: Response,
    reasoning_open: bool,
}

impl Accumulator {
    pub fn new() -> Self {
        Self::default()
    }

    pub fn push(&mut self, item: &StreamItem) {
        let r = &mut self.response;
        match item {
            StreamItem::Started { response_id, model } => {
                if response_id.is_some() {
                    r.response_id.clone_from(response_id);
                }
                if model.is_some() {
                    r.model.clone_from(model);
                }
            }
            StreamItem::TextDelta { text } => {
                self.reasoning_open = false;
                r.text.push_str(text);
            }
            StreamItem::RefusalDelta { text } => r.refusal.push_str(text),
            StreamItem::ReasoningDelta { text } => {
                if !self.reasoning_open || r.reasoning.is_empty() {
                    r.reasoning.push(ReasoningBlock::default());
                    self.reasoning_open = true;
                }
                if let Some(block) = r.reasoning.last_mut() {
                    block.text.push_str(text);
                }
            }
            StreamItem::ReasoningSignature { signature } => {
                if r.reasoning.is_empty() {
                    r.reasoning.push(ReasoningBlock::default());
                }
                if let Some(block) = r.reasoning.last_mut() {
                    block.signature = Some(signature.clone());
                }
                self.reasoning_open = false;
            }
            StreamItem::RedactedReasoning { data } => {
                r.reasoning.push(ReasoningBlock {
                    redacted: Some(data.clone()),
                    ..ReasoningBlock::default()
                });
                self.reasoning_open = false;
            }
            StreamItem::ToolCallStart { .. } | StreamItem::ToolCallDelta { .. } => {
                self.reasoning_open = false;
            }
            StreamItem::ToolCallEnd {
                id,
                name,
                arguments,
                ..
            } => r.tool_calls.push(CompletedToolCall {
                id: id.clone(),
                name: name.clone(),
                arguments: arguments.clone(),
            }),
            StreamItem::ToolCallIncomplete {
                id,
                name,
                partial_arguments,
                reason,
                ..
            } => r.incomplete_tool_calls.push(IncompleteToolCall {
                id: id.clone(),
                name: name.clone(),
                partial_arguments: partial_arguments.clone(),
                reason: reason.clone(),
            }),
            StreamItem::Usage { usage } => r.usage = Some(*usage),
            StreamItem::Finish { reason, raw } => {
                r.finish_reason = Some(*reason);
                r.raw_finish_reason.clone_from(raw);
            }
            StreamItem::Retrying { .. } => {}
            StreamItem::FallbackModel { to, .. } => r.model = Some(to.clone()),
        }
    }

    /// The answer so far.
    pub fn response(&self) -> &Response {
        &self.response
    }

    pub fn into_response(self) -> Response {
        self.response
    }
}

/// Why a tool call's accumulated arguments are not the call's arguments.
#[derive(Debug, thiserror::Error)]
pub enum ArgumentsError {
    #[error("arguments must be a JSON object, got {0}")]
    NotAnObject(&'static str),
    #[error("{0}")]
    NotJson(#[from] serde_json::Error),
}

/// Parses accumulated tool-call arguments: empty is `{}`; anything else must be a JSON object.
pub fn parse_arguments(raw: &str) -> Result<Value, ArgumentsError> {
    if raw.trim().is_empty() {
        return Ok(Value::Object(serde_json::Map::new()));
    }
    match serde_json::from_str::<Value>(raw)? {
        value @ Value::Object(_) => Ok(value),
        Value::Null => Err(ArgumentsError::NotAnObject("null")),
        Value::Bool(_) => Err(ArgumentsError::NotAnObject("a boolean")),
        Value::Number(_) => Err(ArgumentsError::NotAnObject("a number")),
        Value::String(_) => Err(ArgumentsError::NotAnObject("a string")),
        Value::Array(_) => Err(ArgumentsError::NotAnObject("an array")),
    }
}
