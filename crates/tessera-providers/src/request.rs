//! One model call, independent of the wire that carries it.

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// Who said a message.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Role {
    User,
    Assistant,
}

/// An image, inline.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Image {
    /// `image/png`, `image/jpeg`, `image/gif` or `image/webp`.
    pub media_type: String,
    /// The bytes, base64 (standard alphabet, padded).
    pub data_base64: String,
}

/// A piece of a message.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Part {
    Text {
        text: String,
    },
    Image(Image),
    /// An attached file. Text files travel as text; anything else becomes a note naming it.
    File {
        name: String,
        media_type: String,
        /// The file's text when it is text (UTF-8), else None.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        text: Option<String>,
    },
    /// Reasoning the model produced earlier, replayed so the provider can continue it
    /// (Anthropic needs the signature; DeepSeek needs `reasoning_content` on tool-call turns).
    Reasoning {
        text: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        signature: Option<String>,
        /// Anthropic `redacted_thinking` data, replayed as is.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        redacted: Option<String>,
    },
    /// A tool call the model made earlier.
    ToolCall {
        id: String,
        name: String,
        arguments: Value,
    },
    /// What a tool call returned.
    ToolResult {
        call_id: String,
        content: Vec<ToolResultPart>,
        #[serde(default)]
        is_error: bool,
    },
}

/// What a tool result may hold.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ToolResultPart {
    Text { text: String },
    Image(Image),
}

impl Part {
    pub fn text(text: impl Into<String>) -> Self {
        Self::Text { text: text.into() }
    }
}

/// One message of the conversation.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ChatMessage {
    pub role: Role,
    pub parts: Vec<Part>,
}

impl ChatMessage {
    pub fn user(text: impl Into<String>) -> Self {
        Self {
            role: Role::User,
            parts: vec![Part::text(text)],
        }
    }
    pub fn assistant(text: impl Into<String>) -> Self {
        Self {
            role: Role::Assistant,
            parts: vec![Part::text(text)],
        }
    }
}

/// A tool the model may call.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ToolSpec {
    pub name: String,
    pub description: String,
    /// JSON Schema of the arguments (an object schema).
    pub input_schema: Value,
}

/// How much the model should think, where the provider lets us say.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ReasoningEffort {
    Low,
    Medium,
    High,
}

/// A model call.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ChatRequest {
    pub model: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub system: Option<String>,
    pub messages: Vec<ChatMessage>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tools: Vec<ToolSpec>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_tokens: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub temperature: Option<f64>,
    /// Nucleus sampling (seed 003 §1.2 `config.top_p`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub top_p: Option<f64>,
    /// Extended thinking / reasoning effort; None leaves the provider's default.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reasoning: Option<ReasoningEffort>,
    /// Whether the model must call a tool; None leaves it to the model (and the provider).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_choice: Option<ToolChoice>,
}

/// Whether (and which) tool the model must call.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ToolChoice {
    /// Text or tool calls, as the model sees fit.
    Auto,
    /// At least one tool call.
    Required,
    /// No tool call.
    None,
    /// A call of this tool.
    Tool(String),
}

impl std::str::FromStr for ToolChoice {
    type Err = std::convert::Infallible;

    /// `auto`, `required`, `none`, or a tool's name.
    fn from_str(text: &str) -> Result<Self, Self::Err> {
        Ok(match text {
            "auto" => Self::Auto,
            "required" => Self::Required,
            "none" => Self::None,
            name => Self::Tool(name.to_owned()),
        })
    }
}

impl ChatRequest {
    pub fn new(model: impl Into<String>, messages: Vec<ChatMessage>) -> Self {
        Self {
            model: model.into(),
            system: None,
            messages,
            tools: Vec::new(),
            max_tokens: None,
            temperature: None,
            top_p: None,
            reasoning: None,
            tool_choice: None,
        }
    }
}

/// The text a model without image input gets in place of an image.
pub fn image_omitted_note(model: &str) -> String {
    format!("[An image was attached here, but {model} does not accept images, so it was left out.]")
}

/// The text sent for a file that is not text.
pub fn binary_file_note(name: &str, media_type: &str) -> String {
    format!("[Attached file `{name}` ({media_type}) is not text and was not sent to the model.]")
}

/// A text file as the model sees it: named and fenced.
pub fn file_as_text(name: &str, text: &str) -> String {
    format!("File `{name}`:\n```\n{text}\n```")
}
