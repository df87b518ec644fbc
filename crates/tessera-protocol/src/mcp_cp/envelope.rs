//! The MCP-CP 1.0 message envelope (seed 000 §2.2) with its content chosen by `type`.

use std::borrow::Cow;

use schemars::{JsonSchema, Schema, SchemaGenerator};
use serde::ser::SerializeMap;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::Value;
use ts_rs::TS;

use super::capabilities::{ClientCapabilities, ToolAvailabilityRequest, ToolAvailabilityResponse};
use super::content::{ErrorResponse, ModelResponse, SystemMessage, UserInput};
use super::context::ContextUpdate;
use super::instruction::InstructionSet;
use super::tools::{ToolCallRequest, ToolCallResponse};
use crate::wire::{add_dispatch, extensible_enum, JsonObject, Timestamp};

extensible_enum! {
    /// MCP-CP message type (seed 000 §3).
    pub enum MessageType {
        UserInput => "USER_INPUT",
        ModelResponse => "MODEL_RESPONSE",
        ToolCallRequest => "TOOL_CALL_REQUEST",
        ToolCallResponse => "TOOL_CALL_RESPONSE",
        SystemMessage => "SYSTEM_MESSAGE",
        Instruction => "INSTRUCTION",
        ErrorResponse => "ERROR_RESPONSE",
        ContextUpdate => "CONTEXT_UPDATE",
        ClientCapabilities => "CLIENT_CAPABILITIES",
        ToolAvailabilityRequest => "TOOL_AVAILABILITY_REQUEST",
        ToolAvailabilityResponse => "TOOL_AVAILABILITY_RESPONSE",
    }
}

/// Who sent a message.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
#[ts(optional_fields)]
pub struct Sender {
    pub id: String,
    #[serde(rename = "type")]
    pub sender_type: SenderType,
    /// Fields this version does not know, kept as written.
    #[serde(flatten)]
    #[ts(skip)]
    pub extra: JsonObject,
}

/// Kind of sender (closed).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum SenderType {
    User,
    Model,
    System,
    Tool,
}

/// An MCP-CP 1.0 message (seed 000 §2.2), kind `message`. On the wire `type` and `content` are
/// siblings; here they are one [`MessageContent`] so the content is always typed by its type.
#[derive(Clone, Debug, PartialEq, TS)]
#[ts(rename_all = "camelCase", optional_fields)]
pub struct Message {
    pub message_id: String,
    pub context_id: String,
    pub timestamp: Timestamp,
    pub sender: Sender,
    /// `type` and `content`.
    #[ts(flatten)]
    pub content: MessageContent,
    /// Extensible.
    pub metadata: Option<JsonObject>,
    /// Fields this version does not know, kept as written.
    #[ts(skip)]
    pub extra: JsonObject,
}

impl Message {
    /// The wire `type`.
    pub fn message_type(&self) -> MessageType {
        self.content.message_type()
    }
}

/// A message's `type` with its `content`.
#[derive(Clone, Debug, PartialEq, TS)]
#[ts(tag = "type", content = "content")]
pub enum MessageContent {
    #[ts(rename = "USER_INPUT")]
    UserInput(UserInput),
    #[ts(rename = "MODEL_RESPONSE")]
    ModelResponse(ModelResponse),
    #[ts(rename = "TOOL_CALL_REQUEST")]
    ToolCallRequest(ToolCallRequest),
    #[ts(rename = "TOOL_CALL_RESPONSE")]
    ToolCallResponse(ToolCallResponse),
    #[ts(rename = "SYSTEM_MESSAGE")]
    SystemMessage(SystemMessage),
    #[ts(rename = "INSTRUCTION")]
    Instruction(InstructionSet),
    #[ts(rename = "ERROR_RESPONSE")]
    ErrorResponse(ErrorResponse),
    #[ts(rename = "CONTEXT_UPDATE")]
    ContextUpdate(ContextUpdate),
    #[ts(rename = "CLIENT_CAPABILITIES")]
    ClientCapabilities(ClientCapabilities),
    #[ts(rename = "TOOL_AVAILABILITY_REQUEST")]
    ToolAvailabilityRequest(ToolAvailabilityRequest),
    #[ts(rename = "TOOL_AVAILABILITY_RESPONSE")]
    ToolAvailabilityResponse(ToolAvailabilityResponse),
    /// A type this version does not know: its content is kept as an object.
    #[ts(untagged)]
    Other {
        #[ts(rename = "type")]
        message_type: String,
        content: JsonObject,
    },
}

impl MessageContent {
    /// The wire `type` of this content.
    pub fn message_type(&self) -> MessageType {
        match self {
            Self::UserInput(_) => MessageType::UserInput,
            Self::ModelResponse(_) => MessageType::ModelResponse,
            Self::ToolCallRequest(_) => MessageType::ToolCallRequest,
            Self::ToolCallResponse(_) => MessageType::ToolCallResponse,
            Self::SystemMessage(_) => MessageType::SystemMessage,
            Self::Instruction(_) => MessageType::Instruction,
            Self::ErrorResponse(_) => MessageType::ErrorResponse,
            Self::ContextUpdate(_) => MessageType::ContextUpdate,
            Self::ClientCapabilities(_) => MessageType::ClientCapabilities,
            Self::ToolAvailabilityRequest(_) => MessageType::ToolAvailabilityRequest,
            Self::ToolAvailabilityResponse(_) => MessageType::ToolAvailabilityResponse,
            Self::Other { message_type, .. } => MessageType::from_wire(message_type),
        }
    }

    /// Types `content` by `message_type`; an unknown type keeps the object as it is.
    pub fn from_parts(
        message_type: &MessageType,
        content: JsonObject,
    ) -> Result<Self, serde_json::Error> {
        fn typed<T: serde::de::DeserializeOwned>(
            content: JsonObject,
        ) -> Result<T, serde_json::Error> {
            serde_json::from_value(Value::Object(content))
        }
        Ok(match message_type {
            MessageType::UserInput => Self::UserInput(typed(content)?),
            MessageType::ModelResponse => Self::ModelResponse(typed(content)?),
            MessageType::ToolCallRequest => Self::ToolCallRequest(typed(content)?),
            MessageType::ToolCallResponse => Self::ToolCallResponse(typed(content)?),
            MessageType::SystemMessage => Self::SystemMessage(typed(content)?),
            MessageType::Instruction => Self::Instruction(typed(content)?),
            MessageType::ErrorResponse => Self::ErrorResponse(typed(content)?),
            MessageType::ContextUpdate => Self::ContextUpdate(typed(content)?),
            MessageType::ClientCapabilities => Self::ClientCapabilities(typed(content)?),
            MessageType::ToolAvailabilityRequest => Self::ToolAvailabilityRequest(typed(content)?),
            MessageType::ToolAvailabilityResponse => {
                Self::ToolAvailabilityResponse(typed(content)?)
            }
            MessageType::Other(other) => Self::Other {
                message_type: other.clone(),
                content,
            },
        })
    }

    /// The content alone, serialized as it goes on the wire.
    fn serialize_body<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            Self::UserInput(c) => c.serialize(s),
            Self::ModelResponse(c) => c.serialize(s),
            Self::ToolCallRequest(c) => c.serialize(s),
            Self::ToolCallResponse(c) => c.serialize(s),
            Self::SystemMessage(c) => c.serialize(s),
            Self::Instruction(c) => c.serialize(s),
            Self::ErrorResponse(c) => c.serialize(s),
            Self::ContextUpdate(c) => c.serialize(s),
            Self::ClientCapabilities(c) => c.serialize(s),
            Self::ToolAvailabilityRequest(c) => c.serialize(s),
            Self::ToolAvailabilityResponse(c) => c.serialize(s),
            Self::Other { content, .. } => content.serialize(s),
        }
    }
}

// The envelope as it is on the wire; also the base of the message JSON Schema.
/// An MCP-CP 1.0 message (seed 000 §2.2).
#[derive(Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[schemars(rename = "Message")]
struct RawMessage {
    /// Unique id of the message.
    message_id: String,
    /// The context (conversation) the message belongs to.
    context_id: String,
    /// When the message was created.
    timestamp: Timestamp,
    /// Decides the shape of `content`.
    #[serde(rename = "type")]
    message_type: MessageType,
    sender: Sender,
    /// Shape depends on `type`; any object for an unknown type.
    content: JsonObject,
    /// Extensible.
    #[serde(default)]
    metadata: Option<JsonObject>,
    #[serde(flatten)]
    extra: JsonObject,
}

impl<'de> Deserialize<'de> for Message {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let raw = RawMessage::deserialize(d)?;
        let content = MessageContent::from_parts(&raw.message_type, raw.content)
            .map_err(serde::de::Error::custom)?;
        Ok(Self {
            message_id: raw.message_id,
            context_id: raw.context_id,
            timestamp: raw.timestamp,
            sender: raw.sender,
            content,
            metadata: raw.metadata,
            extra: raw.extra,
        })
    }
}

struct Body<'a>(&'a MessageContent);

impl Serialize for Body<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        self.0.serialize_body(s)
    }
}

impl Serialize for Message {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut map = s.serialize_map(None)?;
        map.serialize_entry("messageId", &self.message_id)?;
        map.serialize_entry("contextId", &self.context_id)?;
        map.serialize_entry("timestamp", &self.timestamp)?;
        map.serialize_entry("type", &self.content.message_type())?;
        map.serialize_entry("sender", &self.sender)?;
        map.serialize_entry("content", &Body(&self.content))?;
        if let Some(metadata) = &self.metadata {
            map.serialize_entry("metadata", metadata)?;
        }
        for (key, value) in &self.extra {
            map.serialize_entry(key, value)?;
        }
        map.end()
    }
}

impl JsonSchema for Message {
    fn schema_name() -> Cow<'static, str> {
        "Message".into()
    }

    fn json_schema(generator: &mut SchemaGenerator) -> Schema {
        let mut schema = RawMessage::json_schema(generator);
        let arm = |ty: MessageType, content: Schema| (vec![("type", ty.to_string())], content);
        let arms = vec![
            arm(
                MessageType::UserInput,
                generator.subschema_for::<UserInput>(),
            ),
            arm(
                MessageType::ModelResponse,
                generator.subschema_for::<ModelResponse>(),
            ),
            arm(
                MessageType::ToolCallRequest,
                generator.subschema_for::<ToolCallRequest>(),
            ),
            arm(
                MessageType::ToolCallResponse,
                generator.subschema_for::<ToolCallResponse>(),
            ),
            arm(
                MessageType::SystemMessage,
                generator.subschema_for::<SystemMessage>(),
            ),
            arm(
                MessageType::Instruction,
                generator.subschema_for::<InstructionSet>(),
            ),
            arm(
                MessageType::ErrorResponse,
                generator.subschema_for::<ErrorResponse>(),
            ),
            arm(
                MessageType::ContextUpdate,
                generator.subschema_for::<ContextUpdate>(),
            ),
            arm(
                MessageType::ClientCapabilities,
                generator.subschema_for::<ClientCapabilities>(),
            ),
            arm(
                MessageType::ToolAvailabilityRequest,
                generator.subschema_for::<ToolAvailabilityRequest>(),
            ),
            arm(
                MessageType::ToolAvailabilityResponse,
                generator.subschema_for::<ToolAvailabilityResponse>(),
            ),
        ];
        add_dispatch(&mut schema, "content", arms);
        schema
    }
}
