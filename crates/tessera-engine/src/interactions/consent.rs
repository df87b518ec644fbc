//! Consent before a sensitive call: which calls must ask, what the dialog shows (the tool, its
//! exact arguments, what it touches, the risk — written by the app, not the model), and what a
//! decision grants.

use serde_json::Value;
use tessera_protocol::easyflow::{ConsentDecision, ConsentRequestPayload, Risk};
use tessera_protocol::mcp_cp::Runtime;
use tessera_protocol::wire::JsonObject;
use tessera_store::consents::ConsentScope;
use tessera_store::{StoreError, WriteTx};

use crate::tools::ToolSpec;

/// The risk the dialog shows: a front-end call that changes something is high, any other call
/// with side effects medium, a read-only call low.
pub fn risk_of(spec: &ToolSpec) -> Risk {
    let side_effects = !spec.is_concurrency_safe() || !spec.writes.is_empty();
    match (side_effects, spec.runtime) {
        (true, Runtime::Frontend) => Risk::High,
        (true, Runtime::Backend) => Risk::Medium,
        (false, _) => Risk::Low,
    }
}

/// The dialog's content for one call.
pub fn request_payload(
    consent_id: &str,
    tool_call_id: &str,
    spec: &ToolSpec,
    arguments: &Value,
) -> ConsentRequestPayload {
    let mut touches: Vec<String> = spec
        .writes
        .iter()
        .map(|w| format!("writes {w}"))
        .chain(spec.reads.iter().map(|r| format!("reads {r}")))
        .collect();
    if touches.is_empty() {
        touches.push(match spec.runtime {
            Runtime::Frontend => "this computer, through the app".to_owned(),
            Runtime::Backend => format!("whatever {} acts on", spec.name),
        });
    }
    ConsentRequestPayload {
        consent_id: consent_id.to_owned(),
        tool_call_id: tool_call_id.to_owned(),
        tool: spec.name.clone(),
        arguments: arguments.clone(),
        touches,
        risk: risk_of(spec),
        // The model's own words, if it gave a reason: shown only as its quotation.
        agent_says: arguments
            .get("userPrompt")
            .or_else(|| arguments.get("user_prompt"))
            .and_then(Value::as_str)
            .map(str::to_owned),
        requested_by: None,
        extra: JsonObject::new(),
    }
}

/// Whether the decision lets the call run.
pub fn allows(decision: ConsentDecision) -> bool {
    !matches!(decision, ConsentDecision::Deny)
}

/// Records what a decision grants beyond this call (for the conversation, or always).
pub(crate) fn grant(
    tx: &mut WriteTx<'_>,
    tool: &str,
    decision: ConsentDecision,
    conversation_id: &str,
) -> Result<(), StoreError> {
    match decision {
        ConsentDecision::AllowConversation => {
            tx.grant_consent(tool, ConsentScope::Conversation, Some(conversation_id))?;
        }
        ConsentDecision::AllowAlways => {
            tx.grant_consent(tool, ConsentScope::Always, None)?;
        }
        ConsentDecision::AllowOnce | ConsentDecision::Deny => {}
    }
    Ok(())
}
