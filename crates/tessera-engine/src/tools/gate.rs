//! The one consent gate. A tool's handler runs only with a [`ToolContext`], and a
//! `ToolContext` holds a [`Clearance`] that [`ConsentGate::clear`] alone creates: so every
//! path that runs a tool (the model's calls, direct TOOL_CALL_REQUEST and INSTRUCTION runs,
//! fallbacks and alternatives, specialists, planners, retries) passes here, and the type
//! system keeps it so.
//!
//! The gate lets a call through when its tool needs no consent, when the person allowed this
//! very call (their answer to its consent request), or when a stored grant allows the tool in
//! this conversation (a `once` grant is spent by the call it lets through). Anything else is
//! refused with [`ToolFailureCode::PermissionDenied`]: the call ends `denied` and its tool never runs. Asking
//! the person happens before a coordinator's call reaches the executor (a model turn suspends
//! for it, [`crate::turn`]); a specialist's or a plan's own calls are asked for while the
//! specialist waits, in a run where the person can be asked (the executor's `ask_person`);
//! where nobody is asked — a direct run — a call without a grant is refused here.

use std::collections::HashSet;
use std::sync::{Arc, Mutex};

use tessera_protocol::easyflow::{FormRequester, RequesterKind};
use tessera_protocol::mcp_cp::PermissionLevel;
use tessera_store::Store;

use super::{ToolFailure, ToolFailureCode, ToolSpec};

/// Who makes the calls a gate sees: the coordinator, or a specialist by name.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RequestedBy {
    Agent,
    Specialist(String),
}

impl RequestedBy {
    /// As the consent request's `requested_by`.
    pub(crate) fn to_wire(&self, agent_name: &str) -> FormRequester {
        let (kind, name) = match self {
            Self::Agent => (RequesterKind::Agent, agent_name),
            Self::Specialist(name) => (RequesterKind::Specialist, name.as_str()),
        };
        FormRequester {
            kind: Some(kind),
            name: Some(name.to_owned()),
            extra: Default::default(),
        }
    }

    fn describe(&self) -> String {
        match self {
            Self::Agent => "the agent".to_owned(),
            Self::Specialist(name) => format!("the specialist `{name}`"),
        }
    }
}

/// Proof that the gate let one call of one tool through. Only [`ConsentGate::clear`] makes
/// one; a [`ToolContext`](super::ToolContext) cannot exist without it.
#[derive(Debug)]
pub struct Clearance {
    tool: String,
    call_id: String,
}

impl Clearance {
    pub fn tool(&self) -> &str {
        &self.tool
    }

    pub fn call_id(&self) -> &str {
        &self.call_id
    }

    /// The same clearance for another attempt of the same call (a retry): a `once` grant is
    /// spent by the call, not by each attempt.
    pub(crate) fn for_retry(&self) -> Clearance {
        Clearance {
            tool: self.tool.clone(),
            call_id: self.call_id.clone(),
        }
    }
}

/// Decides, call by call, whether a tool may run. One per executor (a run, a direct request,
/// a specialist's loop); cheap for tools that need no consent (no lock, no store).
#[derive(Debug)]
pub struct ConsentGate {
    conversation_id: String,
    /// Where grants are read; None: none can be (every tool that needs consent is refused).
    grants: Option<Arc<Store>>,
    requested_by: RequestedBy,
    /// Calls the person allowed in answer to their own consent request: the call id and the
    /// tool it named (an approval never lets another tool through, an alternative included).
    approved: Mutex<HashSet<(String, String)>>,
}

impl ConsentGate {
    /// A gate that reads the grants of `conversation_id` from `store`.
    pub fn new(store: Arc<Store>, conversation_id: impl Into<String>) -> Self {
        Self {
            conversation_id: conversation_id.into(),
            grants: Some(store),
            requested_by: RequestedBy::Agent,
            approved: Mutex::new(HashSet::new()),
        }
    }

    /// A gate with no grants to read: only tools that need no consent run.
    pub(crate) fn without_grants(conversation_id: impl Into<String>) -> Self {
        Self {
            conversation_id: conversation_id.into(),
            grants: None,
            requested_by: RequestedBy::Agent,
            approved: Mutex::new(HashSet::new()),
        }
    }

    /// The gate for calls `requested_by` makes inside a call of this gate's run: the same
    /// grants, none of this run's approvals (the person allowed the outer call, not what it
    /// does).
    pub fn nested(&self, requested_by: RequestedBy) -> Self {
        Self {
            conversation_id: self.conversation_id.clone(),
            grants: self.grants.clone(),
            requested_by,
            approved: Mutex::new(HashSet::new()),
        }
    }

    pub fn requested_by(&self) -> &RequestedBy {
        &self.requested_by
    }

    pub fn conversation_id(&self) -> &str {
        &self.conversation_id
    }

    /// Records that the person allowed call `call_id` of `tool` (their answer to its consent
    /// request).
    pub(crate) fn approve(&self, call_id: &str, tool: &str) {
        let key = (call_id.to_owned(), tool.to_owned());
        crate::sync::lock(&self.approved).insert(key);
    }

    fn take_approval(&self, call_id: &str, tool: &str) -> bool {
        let key = (call_id.to_owned(), tool.to_owned());
        crate::sync::lock(&self.approved).remove(&key)
    }

    /// Whether `spec` may run now without asking, without spending a grant: a model turn asks
    /// the person for the calls this says no to.
    pub(crate) fn would_allow(&self, spec: &ToolSpec) -> Result<bool, tessera_store::StoreError> {
        match spec.permission {
            PermissionLevel::None => Ok(true),
            PermissionLevel::AlwaysAsk => Ok(false),
            PermissionLevel::UserConsent => match &self.grants {
                Some(store) => Ok(store
                    .read(|r| r.active_consent(&spec.name, &self.conversation_id))?
                    .is_some()),
                None => Ok(false),
            },
        }
    }

    /// Lets call `call_id` of `spec` through, or says why not.
    pub fn clear(&self, spec: &ToolSpec, call_id: &str) -> Result<Clearance, ToolFailure> {
        let pass = || Clearance {
            tool: spec.name.clone(),
            call_id: call_id.to_owned(),
        };
        if spec.permission == PermissionLevel::None {
            return Ok(pass());
        }
        if self.take_approval(call_id, &spec.name) {
            // An answer of "this conversation" or "always" made a grant this call is the first
            // use of: the permissions page says so.
            if let (Some(store), PermissionLevel::UserConsent) = (&self.grants, spec.permission) {
                if let Err(error) = store.note_consent_used(&spec.name, &self.conversation_id) {
                    tracing::warn!(%error, tool = %spec.name, "a grant's use was not recorded");
                }
            }
            return Ok(pass());
        }
        let level = match spec.permission {
            PermissionLevel::AlwaysAsk => "ALWAYS_ASK",
            _ => "USER_CONSENT",
        };
        let granted = match (&self.grants, spec.permission) {
            (Some(store), PermissionLevel::UserConsent) => {
                store.use_consent(&spec.name, &self.conversation_id)
            }
            _ => Ok(None),
        };
        match granted {
            Ok(Some(_)) => Ok(pass()),
            Ok(None) => Err(ToolFailure::new(
                ToolFailureCode::PermissionDenied,
                format!(
                    "`{}` needs the person's consent ({level}), asked for by {}, and no grant \
                     allows it in this conversation; it was not run",
                    spec.name,
                    self.requested_by.describe()
                ),
            )),
            Err(error) => Err(ToolFailure::new(
                ToolFailureCode::PermissionDenied,
                format!(
                    "the consent of `{}` could not be read ({error}); it was not run",
                    spec.name
                ),
            )),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_tools_without_consent_pass_a_gate_without_grants() {
        let gate = ConsentGate::without_grants("c");
        let open = ToolSpec::new("get_time", "t");
        assert!(gate.clear(&open, "1").is_ok());
        let guarded = ToolSpec::new("screen_capture", "s").permission(PermissionLevel::UserConsent);
        let refused = gate.clear(&guarded, "2").err().map(|f| f.code);
        assert_eq!(refused, Some(ToolFailureCode::PermissionDenied.into()));
        let always = ToolSpec::new("wipe", "w").permission(PermissionLevel::AlwaysAsk);
        assert!(gate.clear(&always, "3").is_err());
    }

    #[test]
    fn an_approval_lets_one_call_through_once() {
        let gate = ConsentGate::without_grants("c");
        let always = ToolSpec::new("wipe", "w").permission(PermissionLevel::AlwaysAsk);
        gate.approve("call_1", "wipe");
        assert!(gate.clear(&always, "call_2").is_err());
        // Not another tool under the same call id (an alternative, a reused id).
        let other = ToolSpec::new("format_disk", "f").permission(PermissionLevel::AlwaysAsk);
        assert!(gate.clear(&other, "call_1").is_err());
        let pass = gate.clear(&always, "call_1");
        assert_eq!(pass.as_ref().map(Clearance::tool).ok(), Some("wipe"));
        assert!(gate.clear(&always, "call_1").is_err(), "spent");
    }

    #[test]
    fn a_nested_gate_keeps_no_approvals_of_the_outer_run() {
        let gate = ConsentGate::without_grants("c");
        gate.approve("call_1", "wipe");
        let inner = gate.nested(RequestedBy::Specialist("researcher".into()));
        let always = ToolSpec::new("wipe", "w").permission(PermissionLevel::AlwaysAsk);
        let why = inner.clear(&always, "call_1").err().map(|f| f.message);
        assert!(
            why.as_deref()
                .is_some_and(|m| m.contains("the specialist `researcher`")),
            "{why:?}"
        );
    }
}
