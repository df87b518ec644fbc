//! How one call or instruction ended, and its wire forms.

use serde_json::Value;
use tessera_protocol::mcp_cp::{McpToolStatus, ToolError, ToolResult};
use tessera_protocol::vocabulary::{InstructionState, ToolOutcome};
use tessera_protocol::wire::JsonObject;

use crate::tools::failure::FailureCode;

/// Why a call did not succeed.
#[derive(Clone, Debug, PartialEq)]
pub struct CallError {
    pub code: FailureCode,
    pub message: String,
    pub details: Option<JsonObject>,
}

impl CallError {
    pub fn new(code: impl Into<FailureCode>, message: impl Into<String>) -> Self {
        Self {
            code: code.into(),
            message: message.into(),
            details: None,
        }
    }

    /// `{code, message, details?}`.
    pub fn to_value(&self) -> Value {
        let mut o = JsonObject::new();
        o.insert("code".into(), Value::String(self.code.as_str().to_owned()));
        o.insert("message".into(), Value::String(self.message.clone()));
        if let Some(d) = &self.details {
            o.insert("details".into(), Value::Object(d.clone()));
        }
        Value::Object(o)
    }

    pub(crate) fn to_tool_error(&self) -> ToolError {
        ToolError {
            code: self.code.as_str().to_owned(),
            message: self.message.clone(),
            details: self.details.clone(),
            extra: JsonObject::new(),
        }
    }
}

/// The note a front-end call's result carries the client's `clientInfo` under (on the
/// `tool_result` event, as `client_info`).
pub(crate) const CLIENT_INFO_NOTE: &str = "client_info";

/// How one call ended.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct CallOutcome {
    pub outcome: ToolOutcome,
    pub result: Option<Value>,
    pub error: Option<CallError>,
    /// From start to end; 0 when it never started.
    pub duration_ms: u64,
    /// Attempts made (0 when it never ran).
    pub attempts: u32,
    /// The tool that answered instead (fallbackBehavior USE_ALTERNATIVE).
    pub alternative: Option<String>,
    /// What the tool noted beside its result ([`crate::tools::ToolContext::note`]: a client's
    /// `clientInfo`), carried on the `tool_result` event and the call's record.
    pub notes: tessera_protocol::wire::JsonObject,
}

impl CallOutcome {
    pub(crate) fn not_run(outcome: ToolOutcome, error: CallError) -> Self {
        Self {
            outcome,
            result: None,
            error: Some(error),
            duration_ms: 0,
            attempts: 0,
            alternative: None,
            notes: Default::default(),
        }
    }

    pub fn is_success(&self) -> bool {
        self.outcome == ToolOutcome::Success
    }

    /// The MCP-CP result (seed 000 §3.4) for call `call_id`.
    pub(crate) fn to_tool_result(&self, call_id: &str) -> ToolResult {
        let mut extra = JsonObject::new();
        if let Some(alt) = &self.alternative {
            extra.insert("alternativeTool".into(), Value::String(alt.clone()));
        }
        // Seed 000 §3.4: `error` only when the status is ERROR (仅在status为ERROR时存在). Why
        // a call timed out, was denied, skipped, cancelled, interrupted or not found is said
        // in `reason`, the same {code, message, details} (docs/protocol-rules.md).
        let error = self.error.as_ref().map(CallError::to_tool_error);
        let (error, reason) = if self.outcome == ToolOutcome::Error {
            (error, None)
        } else {
            (None, error)
        };
        if let Some(reason) = reason.and_then(|r| serde_json::to_value(r).ok()) {
            extra.insert("reason".into(), reason);
        }
        ToolResult {
            call_id: call_id.to_owned(),
            status: self.outcome.to_mcp_cp(),
            result: self.result.clone(),
            error,
            execution_time: Some(self.duration_ms),
            // Seed 000 §4.5.4: the client's own words about where it ran.
            client_info: self
                .notes
                .get(CLIENT_INFO_NOTE)
                .and_then(|v| serde_json::from_value(v.clone()).ok()),
            extra,
        }
    }

    /// The instruction state this outcome gives.
    pub(crate) fn instruction_state(&self) -> InstructionState {
        match self.outcome {
            ToolOutcome::Success => InstructionState::Completed,
            ToolOutcome::Timeout => InstructionState::Timeout,
            ToolOutcome::Skipped => InstructionState::Skipped,
            ToolOutcome::Error
            | ToolOutcome::Denied
            | ToolOutcome::Cancelled
            | ToolOutcome::Interrupted
            | ToolOutcome::NotFound => InstructionState::Failed,
        }
    }

    /// What `${results.<id>…}` reads for a tool call.
    pub(crate) fn tool_entry(&self, call_id: &str) -> Value {
        serde_json::to_value(self.to_tool_result(call_id)).unwrap_or(Value::Null)
    }

    /// What `${dependencies.<id>…}` and conditions read for an instruction.
    pub(crate) fn instruction_entry(&self) -> Value {
        let mut o = JsonObject::new();
        o.insert(
            "status".into(),
            Value::String(self.instruction_state().as_mcp_cp_str().into()),
        );
        o.insert("result".into(), self.result.clone().unwrap_or(Value::Null));
        o.insert(
            "error".into(),
            self.error.as_ref().map_or(Value::Null, CallError::to_value),
        );
        Value::Object(o)
    }
}

/// One instruction's result: `{"status", "result", "error"}`.
#[derive(Clone, Debug, PartialEq)]
pub struct InstructionRecord {
    pub state: InstructionState,
    pub result: Option<Value>,
    pub error: Option<CallError>,
    pub duration_ms: u64,
}

/// The results of an instruction set, in the set's order.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct InstructionResults {
    pub results: Vec<(String, InstructionRecord)>,
}

impl InstructionResults {
    /// `{"results": {"<instructionId>": {"status": …, "result": …, "error": …}}}`.
    pub fn to_json(&self) -> Value {
        let mut map = JsonObject::new();
        for (id, r) in &self.results {
            let mut o = JsonObject::new();
            o.insert(
                "status".into(),
                Value::String(r.state.as_mcp_cp_str().into()),
            );
            o.insert("result".into(), r.result.clone().unwrap_or(Value::Null));
            o.insert(
                "error".into(),
                r.error.as_ref().map_or(Value::Null, CallError::to_value),
            );
            map.insert(id.clone(), Value::Object(o));
        }
        let mut out = JsonObject::new();
        out.insert("results".into(), Value::Object(map));
        Value::Object(out)
    }

    /// The record of one instruction.
    pub fn get(&self, id: &str) -> Option<&InstructionRecord> {
        self.results.iter().find(|(i, _)| i == id).map(|(_, r)| r)
    }
}

/// Whether an MCP-CP status counts as success.
pub fn is_success(status: McpToolStatus) -> bool {
    status == McpToolStatus::Success
}
