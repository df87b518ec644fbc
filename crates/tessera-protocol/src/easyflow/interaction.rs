//! `interaction` domain payloads (seed 002 §11) and the form submission (seed 002 §12, kind
//! `form-submission`).

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use ts_rs::TS;

use crate::wire::JsonObject;

/// `interaction/form_request`: the run suspends until the person answers the form.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
#[ts(optional_fields)]
pub struct FormRequestPayload {
    pub form_id: String,
    pub title: String,
    /// The form, as a JSON Schema (the flat subset MCP elicitation allows).
    pub schema: JsonObject,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ui: Option<FormUi>,
    /// Who asked.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub requester: Option<FormRequester>,
    /// Any other field.
    #[serde(flatten)]
    pub extra: JsonObject,
}

/// Button texts of a form (extensible).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
#[ts(optional_fields)]
pub struct FormUi {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub submit_text: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cancel_text: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub decline_text: Option<String>,
    /// Any other field.
    #[serde(flatten)]
    pub extra: JsonObject,
}

/// Who asked for a form (extensible).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
#[ts(optional_fields)]
pub struct FormRequester {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kind: Option<RequesterKind>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// Any other field.
    #[serde(flatten)]
    pub extra: JsonObject,
}

/// Kind of requester (closed).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "snake_case")]
pub enum RequesterKind {
    Agent,
    Specialist,
    McpServer,
}

/// `interaction/form_cancel`: the form is withdrawn.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
#[ts(optional_fields)]
pub struct FormCancelPayload {
    pub form_id: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// Any other field.
    #[serde(flatten)]
    pub extra: JsonObject,
}

/// `interaction/form_result`: how the person answered.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
#[ts(optional_fields)]
pub struct FormResultPayload {
    pub form_id: String,
    pub action: FormAction,
    /// Any other field.
    #[serde(flatten)]
    pub extra: JsonObject,
}

/// The person's answer to a form (closed).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "snake_case")]
pub enum FormAction {
    Accept,
    Decline,
    Cancel,
}

/// `interaction/consent_request`: the app asks before running a sensitive tool.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
#[ts(optional_fields)]
pub struct ConsentRequestPayload {
    pub consent_id: String,
    pub tool_call_id: String,
    pub tool: String,
    /// The exact arguments (any JSON).
    pub arguments: Value,
    /// What the call touches.
    pub touches: Vec<String>,
    pub risk: Risk,
    /// The model's own words, shown only as a quotation attributed to the agent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub agent_says: Option<String>,
    /// Who made the call: the agent, or a specialist by name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub requested_by: Option<FormRequester>,
    /// Why `risk` is what it is (what the call exposes or changes), for the dialog to say in
    /// the person's language.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[ts(as = "Option<Vec<RiskReason>>", optional)]
    pub risk_reasons: Vec<RiskReason>,
    /// Any other field.
    #[serde(flatten)]
    pub extra: JsonObject,
}

/// What makes a call risky: what it exposes or changes.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum RiskReason {
    /// It reads something of the person's: `screen`, `clipboard`, `filesystem`, a `file:…`.
    Reads { resource: String },
    /// It changes something: `clipboard`, `filesystem`, `notifications`…
    Writes { resource: String },
    /// An MCP server's tool that does not claim to only read (its `destructiveHint` is true or
    /// unsaid), or of a server the person marked "always ask": it may change or delete data.
    MayDestroy { server: String },
    /// It acts outside Tessera, with effects its declaration does not name.
    SideEffects,
}

/// Risk of a tool call (closed).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "snake_case")]
pub enum Risk {
    Low,
    Medium,
    High,
}

/// `interaction/consent_result`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
#[ts(optional_fields)]
pub struct ConsentResultPayload {
    pub consent_id: String,
    pub decision: ConsentDecision,
    /// Any other field.
    #[serde(flatten)]
    pub extra: JsonObject,
}

/// The person's consent decision (closed).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "snake_case")]
pub enum ConsentDecision {
    AllowOnce,
    AllowConversation,
    AllowAlways,
    Deny,
}

/// A form submission (seed 002 §12), kind `form-submission`: sent over a plain request, it
/// resumes the suspended stream. `values` is required when the action is accept (the default).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
#[ts(optional_fields)]
pub struct FormSubmission {
    pub conversation_id: String,
    pub form_id: String,
    /// Absent means accept.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub action: Option<FormAction>,
    /// The answers, by field name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub values: Option<JsonObject>,
    /// Fields this version does not know, kept as written.
    #[serde(flatten)]
    #[ts(skip)]
    pub extra: JsonObject,
}

impl FormSubmission {
    /// The action, accept when absent.
    pub fn effective_action(&self) -> FormAction {
        self.action.unwrap_or(FormAction::Accept)
    }
}
