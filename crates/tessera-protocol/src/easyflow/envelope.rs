//! The easyflow-chat 1.1 event envelope (seed 002 §4) with its payload typed by domain and type.

use std::borrow::Cow;

use schemars::{JsonSchema, Schema, SchemaGenerator};
use serde::ser::SerializeMap;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::Value;
use ts_rs::TS;

use super::interaction::{
    ConsentRequestPayload, ConsentResultPayload, FormCancelPayload, FormRequestPayload,
    FormResultPayload,
};
use super::llm::{LlmMessagePayload, LlmThinkingPayload};
use super::status::{
    BusinessErrorPayload, DebugLogPayload, DonePayload, ModelFallbackPayload, SystemErrorPayload,
    SystemStatusPayload, WorkflowGraphPayload, WorkflowStatusPayload,
};
use super::tool::{
    QueueDrainedPayload, ToolCallDeltaPayload, ToolCallPayload, ToolProgressPayload,
    ToolQueuedPayload, ToolResultPayload, ToolStartedPayload,
};
use crate::wire::{add_dispatch, extensible_enum, JsonObject, Timestamp};

/// The `protocol` value of every event.
pub const PROTOCOL: &str = "easyflow-chat";
/// The `version` Tessera writes.
pub const VERSION: &str = "1.1";
/// What `version` must look like: `1.<n>`.
pub const VERSION_PATTERN: &str = r"^1\.[0-9]+$";

extensible_enum! {
    /// easyflow-chat event domain (seed 002 §5).
    pub enum Domain {
        Llm => "llm",
        Tool => "tool",
        System => "system",
        Business => "business",
        Workflow => "workflow",
        Interaction => "interaction",
        Debug => "debug",
    }
}

/// Envelope `meta` (extensible): Tessera's ordering fields and usage figures.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
#[ts(optional_fields)]
pub struct EventMeta {
    /// The run that produced the event.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub run_id: Option<String>,
    /// Strictly increasing per conversation; the SSE `id:`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seq: Option<u64>,
    /// When the event was produced.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ts: Option<Timestamp>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prompt_tokens: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub completion_tokens: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub latency_ms: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub first_token_latency_ms: Option<u64>,
    /// Usage per model.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub usage: Option<JsonObject>,
    /// Any other field.
    #[serde(flatten)]
    pub extra: JsonObject,
}

/// An easyflow-chat 1.1 event (seed 002 §4), kind `event`. On the wire `domain`, `type` and
/// `payload` are siblings; here they are one [`EventBody`] so the payload is always typed.
#[derive(Clone, Debug, PartialEq, TS)]
#[ts(optional_fields)]
pub struct Event {
    /// Always `easyflow-chat`.
    pub protocol: String,
    /// `1.<n>`.
    pub version: String,
    /// `domain`, `type` and `payload`.
    #[ts(flatten)]
    pub body: EventBody,
    pub conversation_id: String,
    /// The assistant message the event belongs to.
    pub message_id: Option<String>,
    /// Position in a streamed output.
    pub index: Option<u64>,
    pub meta: Option<EventMeta>,
    /// Fields this version does not know, kept as written.
    #[ts(skip)]
    pub extra: JsonObject,
}

impl Event {
    /// An event of the current protocol version with only the required fields.
    pub fn new(conversation_id: impl Into<String>, body: EventBody) -> Self {
        Self {
            protocol: PROTOCOL.to_owned(),
            version: VERSION.to_owned(),
            body,
            conversation_id: conversation_id.into(),
            message_id: None,
            index: None,
            meta: None,
            extra: JsonObject::new(),
        }
    }
}

macro_rules! event_bodies {
    ($( $(#[doc = $doc:literal])* $variant:ident($payload:ty) => ($domain:literal, $ty:literal), )+) => {
        /// An event's `domain` and `type` with its typed `payload`.
        #[derive(Clone, Debug, PartialEq)]
        pub enum EventBody {
            $( $(#[doc = $doc])* #[doc = concat!("`", $domain, "/", $ty, "`")] $variant($payload), )+
            /// A domain/type pair this version does not type: the payload is kept as an object.
            Other {
                domain: Domain,
                event_type: String,
                payload: JsonObject,
            },
        }

        impl EventBody {
            /// The envelope `domain`.
            pub fn domain(&self) -> Domain {
                match self {
                    $( Self::$variant(_) => Domain::from_wire($domain), )+
                    Self::Other { domain, .. } => domain.clone(),
                }
            }

            /// The envelope `type`.
            pub fn event_type(&self) -> &str {
                match self {
                    $( Self::$variant(_) => $ty, )+
                    Self::Other { event_type, .. } => event_type,
                }
            }

            /// Types `payload` by `domain` and `type`; other pairs keep the object as it is.
            pub fn from_parts(
                domain: &Domain,
                event_type: &str,
                payload: JsonObject,
            ) -> Result<Self, serde_json::Error> {
                Ok(match (domain.as_str(), event_type) {
                    $( ($domain, $ty) => Self::$variant(serde_json::from_value(Value::Object(payload))?), )+
                    _ => Self::Other {
                        domain: domain.clone(),
                        event_type: event_type.to_owned(),
                        payload,
                    },
                })
            }

            fn serialize_payload<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                match self {
                    $( Self::$variant(payload) => payload.serialize(s), )+
                    Self::Other { payload, .. } => payload.serialize(s),
                }
            }

            fn schema_arms(generator: &mut SchemaGenerator) -> Vec<(Vec<(&'static str, String)>, Schema)> {
                vec![
                    $( (
                        vec![("domain", $domain.to_owned()), ("type", $ty.to_owned())],
                        generator.subschema_for::<$payload>(),
                    ), )+
                ]
            }
        }

        impl TS for EventBody {
            type WithoutGenerics = Self;
            type OptionInnerType = Self;

            fn docs() -> Option<String> {
                Some(ts_rs::format_docs(&[" An event's `domain` and `type` with its typed `payload`."]))
            }

            fn name(_: &ts_rs::Config) -> String {
                "EventBody".to_owned()
            }

            fn inline(cfg: &ts_rs::Config) -> String {
                // No arm for the untyped pairs: every event Tessera emits is typed, so a client
                // narrows exhaustively (and a renamed field fails its typecheck).
                let arms = vec![
                    $( format!(
                        "{{ \"domain\": \"{}\", \"type\": \"{}\", \"payload\": {} }}",
                        $domain,
                        $ty,
                        <$payload as TS>::name(cfg),
                    ), )+
                ];
                arms.join(" | ")
            }

            fn inline_flattened(cfg: &ts_rs::Config) -> String {
                format!("({})", <Self as TS>::inline(cfg))
            }

            fn decl(cfg: &ts_rs::Config) -> String {
                format!("type EventBody = {};", <Self as TS>::inline(cfg))
            }

            fn decl_concrete(cfg: &ts_rs::Config) -> String {
                <Self as TS>::decl(cfg)
            }

            fn visit_dependencies(v: &mut impl ts_rs::TypeVisitor)
            where
                Self: 'static,
            {
                $( v.visit::<$payload>(); )+
            }

            fn output_path() -> Option<std::path::PathBuf> {
                Some(std::path::PathBuf::from("EventBody.ts"))
            }
        }
    };
}

event_bodies! {
    LlmThinking(LlmThinkingPayload) => ("llm", "thinking"),
    LlmMessage(LlmMessagePayload) => ("llm", "message"),
    ToolCallDelta(ToolCallDeltaPayload) => ("tool", "tool_call_delta"),
    ToolCall(ToolCallPayload) => ("tool", "tool_call"),
    ToolResult(ToolResultPayload) => ("tool", "tool_result"),
    ToolQueued(ToolQueuedPayload) => ("tool", "tool_queued"),
    ToolStarted(ToolStartedPayload) => ("tool", "tool_started"),
    ToolProgress(ToolProgressPayload) => ("tool", "tool_progress"),
    QueueDrained(QueueDrainedPayload) => ("tool", "queue_drained"),
    SystemError(SystemErrorPayload) => ("system", "error"),
    SystemStatus(SystemStatusPayload) => ("system", "status"),
    Done(DonePayload) => ("system", "done"),
    ModelFallback(ModelFallbackPayload) => ("system", "model_fallback"),
    BusinessError(BusinessErrorPayload) => ("business", "error"),
    WorkflowStatus(WorkflowStatusPayload) => ("workflow", "status"),
    WorkflowGraph(WorkflowGraphPayload) => ("workflow", "graph"),
    FormRequest(FormRequestPayload) => ("interaction", "form_request"),
    FormCancel(FormCancelPayload) => ("interaction", "form_cancel"),
    FormResult(FormResultPayload) => ("interaction", "form_result"),
    ConsentRequest(ConsentRequestPayload) => ("interaction", "consent_request"),
    ConsentResult(ConsentResultPayload) => ("interaction", "consent_result"),
    DebugLog(DebugLogPayload) => ("debug", "log"),
}

// The envelope as it is on the wire; also the base of the event JSON Schema.
/// An easyflow-chat 1.1 event (seed 002 §4).
#[derive(Deserialize, JsonSchema)]
#[schemars(rename = "Event")]
struct RawEvent {
    /// Always `easyflow-chat`.
    #[schemars(extend("const" = PROTOCOL))]
    protocol: String,
    /// Protocol version, `1.<n>`.
    #[schemars(extend("pattern" = VERSION_PATTERN))]
    version: String,
    /// Area of responsibility of the event.
    domain: Domain,
    /// The event's meaning within its domain.
    #[serde(rename = "type")]
    event_type: String,
    conversation_id: String,
    /// The assistant message the event belongs to.
    #[serde(default)]
    message_id: Option<String>,
    /// Position in a streamed output.
    #[serde(default)]
    index: Option<u64>,
    /// Event data; shape depends on `domain` and `type`, any object otherwise.
    payload: JsonObject,
    #[serde(default)]
    meta: Option<EventMeta>,
    #[serde(flatten)]
    extra: JsonObject,
}

impl<'de> Deserialize<'de> for Event {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let raw = RawEvent::deserialize(d)?;
        let body = EventBody::from_parts(&raw.domain, &raw.event_type, raw.payload)
            .map_err(serde::de::Error::custom)?;
        Ok(Self {
            protocol: raw.protocol,
            version: raw.version,
            body,
            conversation_id: raw.conversation_id,
            message_id: raw.message_id,
            index: raw.index,
            meta: raw.meta,
            extra: raw.extra,
        })
    }
}

struct Payload<'a>(&'a EventBody);

impl Serialize for Payload<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        self.0.serialize_payload(s)
    }
}

impl Serialize for Event {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut map = s.serialize_map(None)?;
        map.serialize_entry("protocol", &self.protocol)?;
        map.serialize_entry("version", &self.version)?;
        map.serialize_entry("domain", &self.body.domain())?;
        map.serialize_entry("type", self.body.event_type())?;
        map.serialize_entry("conversation_id", &self.conversation_id)?;
        if let Some(message_id) = &self.message_id {
            map.serialize_entry("message_id", message_id)?;
        }
        if let Some(index) = &self.index {
            map.serialize_entry("index", index)?;
        }
        map.serialize_entry("payload", &Payload(&self.body))?;
        if let Some(meta) = &self.meta {
            map.serialize_entry("meta", meta)?;
        }
        for (key, value) in &self.extra {
            map.serialize_entry(key, value)?;
        }
        map.end()
    }
}

impl JsonSchema for Event {
    fn schema_name() -> Cow<'static, str> {
        "Event".into()
    }

    fn json_schema(generator: &mut SchemaGenerator) -> Schema {
        let mut schema = RawEvent::json_schema(generator);
        let arms = EventBody::schema_arms(generator);
        add_dispatch(&mut schema, "payload", arms);
        schema
    }
}
