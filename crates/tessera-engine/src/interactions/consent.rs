//! Consent before a sensitive call: which calls must ask, what the dialog shows (the tool, its
//! exact arguments, what it touches, the risk — written by the app, not the model), and what a
//! decision grants.

use serde_json::Value;
use tessera_protocol::easyflow::{ConsentDecision, ConsentRequestPayload, Risk, RiskReason};
use tessera_protocol::mcp_cp::{PermissionLevel, Runtime};
use tessera_protocol::wire::JsonObject;
use tessera_store::consents::ConsentScope;
use tessera_store::{StoreError, WriteTx};

use crate::tools::{ToolKind, ToolSpec};

/// Resources whose reading exposes the person: what is on their screen, what they copied,
/// their files, their camera and microphone.
fn is_personal(resource: &str) -> bool {
    matches!(
        resource,
        "screen" | "clipboard" | "filesystem" | "camera" | "microphone" | "location"
    ) || resource.starts_with("file:")
}

/// Writes that can destroy what the person has (a file overwritten).
fn is_destructive_write(resource: &str) -> bool {
    resource == "filesystem" || resource.starts_with("file:")
}

/// The risk the dialog shows, rated by what the call exposes or changes, with why: reading the
/// person's screen, clipboard or files, overwriting files, or an MCP tool that may change or
/// delete data is high; another change (the clipboard written, a notification) medium; a call
/// that only reads what is not personal low.
pub(crate) fn risk_of(spec: &ToolSpec) -> (Risk, Vec<RiskReason>) {
    let mut risk = Risk::Low;
    let mut reasons = Vec::new();
    let mut raise = |to: Risk| {
        if rank(to) > rank(risk) {
            risk = to;
        }
    };
    for read in spec.reads.iter().filter(|r| is_personal(r)) {
        raise(Risk::High);
        reasons.push(RiskReason::Reads {
            resource: read.clone(),
        });
    }
    for write in &spec.writes {
        raise(if is_destructive_write(write) {
            Risk::High
        } else {
            Risk::Medium
        });
        reasons.push(RiskReason::Writes {
            resource: write.clone(),
        });
    }
    if spec.kind == ToolKind::Mcp && spec.permission != PermissionLevel::None {
        raise(Risk::High);
        reasons.push(RiskReason::MayDestroy {
            server: spec.provider.clone(),
        });
    } else if reasons.is_empty() && !spec.is_concurrency_safe() {
        raise(Risk::Medium);
        reasons.push(RiskReason::SideEffects);
    }
    (risk, reasons)
}

fn rank(risk: Risk) -> u8 {
    match risk {
        Risk::Low => 0,
        Risk::Medium => 1,
        Risk::High => 2,
    }
}

/// The dialog's content for one call.
pub(crate) fn request_payload(
    consent_id: &str,
    tool_call_id: &str,
    spec: &ToolSpec,
    arguments: &Value,
) -> ConsentRequestPayload {
    let (risk, risk_reasons) = risk_of(spec);
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
        risk,
        // The model's own words, if it gave a reason: shown only as its quotation.
        agent_says: arguments
            .get("userPrompt")
            .or_else(|| arguments.get("user_prompt"))
            .and_then(Value::as_str)
            .map(str::to_owned),
        requested_by: None,
        risk_reasons,
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn risk_follows_what_a_call_exposes_or_changes() {
        let screen = ToolSpec::new("screen_capture", "s")
            .runtime(Runtime::Frontend)
            .reads(["screen"]);
        assert_eq!(
            risk_of(&screen),
            (
                Risk::High,
                vec![RiskReason::Reads {
                    resource: "screen".into()
                }]
            )
        );
        let copy = ToolSpec::new("clipboard_write", "c")
            .runtime(Runtime::Frontend)
            .writes(["clipboard"]);
        assert_eq!(risk_of(&copy).0, Risk::Medium);
        let save = ToolSpec::new("save_file", "f").writes(["filesystem"]);
        assert_eq!(risk_of(&save).0, Risk::High);
        let mcp = ToolSpec::new("gh__delete_repo", "d")
            .kind(ToolKind::Mcp)
            .provider("gh")
            .permission(PermissionLevel::UserConsent);
        assert_eq!(
            risk_of(&mcp),
            (
                Risk::High,
                vec![RiskReason::MayDestroy {
                    server: "gh".into()
                }]
            )
        );
        let time = ToolSpec::new("get_current_datetime", "t").safe(true);
        assert_eq!(risk_of(&time), (Risk::Low, vec![]));
        let act = ToolSpec::new("send_message", "m").safe(false);
        assert_eq!(risk_of(&act), (Risk::Medium, vec![RiskReason::SideEffects]));
    }
}
