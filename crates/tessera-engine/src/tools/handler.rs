//! How a tool runs: a handler gets the (substituted, validated) arguments and a context to
//! report progress and notice cancellation.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

use serde_json::Value;
use tessera_protocol::wire::JsonObject;

use super::failure::ToolFailure;
use super::gate::{Clearance, ConsentGate, RequestedBy};
use crate::executor::events::Emitter;
use tokio_util::sync::CancellationToken;

/// What a handler returns.
pub type ToolFuture = Pin<Box<dyn Future<Output = Result<Value, ToolFailure>> + Send>>;

/// Runs a tool.
pub trait ToolHandler: Send + Sync {
    fn call(&self, arguments: Value, ctx: ToolContext) -> ToolFuture;
}

impl<F, Fut> ToolHandler for F
where
    F: Fn(Value, ToolContext) -> Fut + Send + Sync,
    Fut: Future<Output = Result<Value, ToolFailure>> + Send + 'static,
{
    fn call(&self, arguments: Value, ctx: ToolContext) -> ToolFuture {
        Box::pin(self(arguments, ctx))
    }
}

/// Given to a running tool. Only the executor makes one, from the [`Clearance`] the consent
/// gate gave the call ([`super::gate`]): a handler cannot be called without it. Not `Clone`:
/// what outlives the call's own code (an MCP server's progress and forms) keeps a
/// [`CallReporter`] instead, which cannot run a tool.
pub struct ToolContext {
    pub call_id: String,
    pub tool: String,
    /// 1 for the first attempt.
    pub attempt: u32,
    /// Cancelled when the set is cancelled or times out; the executor also drops the tool's
    /// future then, so checking it only matters for work outside the future (threads).
    pub cancel: CancellationToken,
    reporter: CallReporter,
    /// The gate this call passed; the calls the tool makes itself pass a gate nested in it.
    gate: Arc<ConsentGate>,
    clearance: Clearance,
    /// Fields the tool notes beside its result (shared with the executor's attempt).
    notes: Arc<std::sync::Mutex<JsonObject>>,
}

impl ToolContext {
    /// Notes `key` beside the call's result: the `tool_result` event and the call's record
    /// carry it (a client's `clientInfo`, seed 000 §4.5.4).
    pub fn note(&self, key: &str, value: serde_json::Value) {
        {
            let mut notes = crate::sync::lock(&self.notes);
            notes.insert(key.to_owned(), value);
        }
    }

    /// The context of one attempt of a call the gate let through.
    pub(crate) fn new(
        clearance: Clearance,
        attempt: u32,
        cancel: CancellationToken,
        emitter: Arc<Emitter>,
        gate: Arc<ConsentGate>,
        notes: Arc<std::sync::Mutex<JsonObject>>,
    ) -> Self {
        Self {
            notes,
            call_id: clearance.call_id().to_owned(),
            tool: clearance.tool().to_owned(),
            attempt,
            cancel,
            reporter: CallReporter {
                call_id: clearance.call_id().to_owned(),
                emitter,
            },
            gate,
            clearance,
        }
    }

    /// What the gate let through: this call of this tool.
    pub(crate) fn clearance(&self) -> &Clearance {
        &self.clearance
    }

    /// What reports on this call and asks the person on its behalf, for code that outlives
    /// the handler's future (a server's notifications).
    pub fn reporter(&self) -> CallReporter {
        self.reporter.clone()
    }

    /// The conversation the call runs for (the executor's), so a tool that reads or writes
    /// the context database knows whose data it is.
    pub fn conversation_id(&self) -> &str {
        self.reporter.emitter.conversation_id()
    }

    /// The run the call belongs to, when the executor was given one.
    pub fn run_id(&self) -> Option<&str> {
        self.reporter.emitter.run_id()
    }

    /// Where the run's events go: a tool that runs calls of its own (a specialist, a plan)
    /// sends their events there, under its own call id ([`crate::executor::NestedSink`]).
    pub(crate) fn event_sink(&self) -> Arc<dyn crate::executor::EventSink> {
        self.reporter.emitter.sink()
    }

    /// The gate for the calls `requested_by` makes inside this one: nested in this call's
    /// (the same grants; the person's approval of this call does not extend to what it calls).
    pub(crate) fn nested_gate(&self, requested_by: RequestedBy) -> ConsentGate {
        self.gate.nested(requested_by)
    }

    /// Where this call's forms go, for the calls it makes itself.
    pub(crate) fn live_forms(&self) -> Option<&Arc<crate::interactions::LiveForms>> {
        self.reporter.emitter.live_forms()
    }

    /// See [`CallReporter::ask_form`].
    pub async fn ask_form(
        &self,
        form: tessera_protocol::easyflow::FormRequestPayload,
    ) -> Result<crate::interactions::LiveReply, crate::interactions::LiveFormError> {
        self.reporter.ask_form(form).await
    }

    /// See [`CallReporter::withdraw_forms`].
    pub fn withdraw_forms(&self, reason: &str) {
        self.reporter.withdraw_forms(reason);
    }

    /// Reports progress (`tool/tool_progress`).
    pub fn progress(&self, progress: f64, total: Option<f64>, message: Option<&str>) {
        self.reporter.progress(progress, total, message);
    }

    /// Reports agent `agent`'s turn (`workflow/status`, node kind agent, with its name, turn
    /// and max_turns).
    pub fn agent_turn(&self, agent: &str, turn: u64, max_turns: u64) {
        self.reporter.emitter.agent_status(
            &self.call_id,
            agent,
            crate::executor::events::AgentChange::Turn { turn, max_turns },
        );
    }
}

/// Reports on one running call and asks the person on its behalf. Cheap to clone; it cannot
/// run a tool.
#[derive(Clone)]
pub struct CallReporter {
    call_id: String,
    emitter: Arc<Emitter>,
}

impl CallReporter {
    pub fn call_id(&self) -> &str {
        &self.call_id
    }

    pub fn conversation_id(&self) -> &str {
        self.emitter.conversation_id()
    }

    /// Shows `form` to the person on this call's behalf (an MCP server's elicitation) and waits
    /// for the answer; the run goes on meanwhile. A schema outside the form subset, or a run
    /// that cannot ask the person, is an error for whoever asked.
    pub async fn ask_form(
        &self,
        form: tessera_protocol::easyflow::FormRequestPayload,
    ) -> Result<crate::interactions::LiveReply, crate::interactions::LiveFormError> {
        let forms = self
            .emitter
            .live_forms()
            .ok_or(crate::interactions::LiveFormError::NobodyToAsk)?;
        let emitter = Arc::clone(&self.emitter);
        forms
            .ask(
                self.conversation_id(),
                self.emitter.run_id(),
                &self.call_id,
                form,
                move |body| emitter.emit(body),
            )
            .await
    }

    /// Withdraws the forms this call asked for and still waits for (the call is ending
    /// without them); nothing when there are none.
    pub fn withdraw_forms(&self, reason: &str) {
        if let Some(forms) = self.emitter.live_forms() {
            forms.withdraw_call(&self.call_id, reason);
        }
    }

    /// Reports progress (`tool/tool_progress`).
    pub fn progress(&self, progress: f64, total: Option<f64>, message: Option<&str>) {
        self.emitter
            .tool_progress(&self.call_id, progress, total, message);
    }
}

/// A shared handler.
pub type SharedHandler = Arc<dyn ToolHandler>;
