//! Events for every state change, as easyflow-chat envelopes (docs/design.md "Event types"), sent
//! to an [`EventSink`]: the CLI prints them, the coordinator persists and fans them out.

use std::sync::{Arc, Mutex};

use serde_json::{Number, Value};
use tessera_protocol::easyflow::{
    Event, EventBody, EventMeta, NodeKind, QueueDrainedPayload, SystemErrorPayload,
    ToolCallPayload, ToolProgressPayload, ToolQueuedPayload, ToolResultPayload, ToolStartedPayload,
    WorkflowGraphPayload, WorkflowState, WorkflowStatusPayload,
};
use tessera_protocol::mcp_cp::Runtime;
use tessera_protocol::vocabulary::ToolOutcome;
use tessera_protocol::wire::{JsonObject, Timestamp};
use tokio::sync::mpsc;

/// What a `tool/tool_call` event says about the call beside its arguments: what it waits
/// for, where it runs, and what a client shows with it (seed 000 §4.5.3).
pub(crate) struct CallShown<'a> {
    pub depends_on: Vec<String>,
    pub runtime: Runtime,
    pub user_prompt: Option<&'a str>,
    pub ui_settings: Option<&'a JsonObject>,
}

/// What happened to an agent node.
pub(crate) enum AgentChange {
    Started,
    Turn {
        turn: u64,
        max_turns: u64,
    },
    Ended {
        success: bool,
        reason: Option<String>,
        duration_ms: Option<u64>,
    },
}

/// The agent a tool name runs (a specialist's `invoke_<name>`), or the tool's name.
pub(crate) fn agent_of(tool: &str) -> &str {
    tool.strip_prefix(crate::specialist_report::TOOL_PREFIX)
        .unwrap_or(tool)
}

/// Where events go. `emit` must not block for long: it is called from the executor's tasks.
pub trait EventSink: Send + Sync {
    fn emit(&self, event: Event);

    /// Returns once every event emitted so far is where it goes (a sink that stores events
    /// may queue them; one that passes them on forwards this to where they go).
    fn settle(&self) {}
}

impl<F: Fn(Event) + Send + Sync> EventSink for F {
    fn emit(&self, event: Event) {
        self(event)
    }
}

/// Keeps every event in memory (tests, the CLI).
#[derive(Debug, Default)]
pub struct CollectingSink(Mutex<Vec<Event>>);

impl CollectingSink {
    pub fn new() -> Self {
        Self::default()
    }

    /// The events so far, in order.
    pub fn events(&self) -> Vec<Event> {
        crate::sync::lock(&self.0).clone()
    }
}

impl EventSink for CollectingSink {
    fn emit(&self, event: Event) {
        crate::sync::lock(&self.0).push(event);
    }
}

/// Sends every event down a channel (a subscriber, a writer task).
#[derive(Debug, Clone)]
pub(crate) struct ChannelSink(pub mpsc::UnboundedSender<Event>);

impl EventSink for ChannelSink {
    fn emit(&self, event: Event) {
        // A receiver that went away does not stop the run.
        let _ = self.0.send(event);
    }
}

/// Drops every event.
#[derive(Debug, Default, Clone, Copy)]
pub struct NullSink;

impl EventSink for NullSink {
    fn emit(&self, _event: Event) {}
}

/// Builds envelopes (conversation, run id, a strictly increasing `meta.seq`, `meta.ts`) and
/// hands them to the sink in seq order.
pub(crate) struct Emitter {
    sink: Arc<dyn EventSink>,
    conversation_id: String,
    run_id: Option<String>,
    seq: Mutex<u64>,
    /// Where a running tool's forms go, when the person can be asked.
    live_forms: Option<Arc<crate::interactions::LiveForms>>,
}

fn now() -> Option<Timestamp> {
    time::OffsetDateTime::now_utc()
        .format(&time::format_description::well_known::Rfc3339)
        .ok()
        .map(Timestamp::new)
}

fn number(x: f64) -> Number {
    Number::from_f64(x).unwrap_or_else(|| Number::from(0))
}

impl Emitter {
    pub(crate) fn new(
        sink: Arc<dyn EventSink>,
        conversation_id: String,
        run_id: Option<String>,
        live_forms: Option<Arc<crate::interactions::LiveForms>>,
    ) -> Self {
        Self {
            sink,
            conversation_id,
            run_id,
            seq: Mutex::new(0),
            live_forms,
        }
    }

    pub(crate) fn live_forms(&self) -> Option<&Arc<crate::interactions::LiveForms>> {
        self.live_forms.as_ref()
    }

    /// The conversation the events belong to (tools read it through [`ToolContext`]).
    ///
    /// [`ToolContext`]: crate::tools::ToolContext
    pub(crate) fn conversation_id(&self) -> &str {
        &self.conversation_id
    }

    pub(crate) fn run_id(&self) -> Option<&str> {
        self.run_id.as_deref()
    }

    /// Where the events go (a tool that runs a set of its own sends that set's events there).
    pub(crate) fn sink(&self) -> Arc<dyn EventSink> {
        Arc::clone(&self.sink)
    }

    pub(crate) fn emit(&self, body: EventBody) {
        let mut event = Event::new(self.conversation_id.clone(), body);
        // The lock keeps seq order and delivery order the same.
        let mut seq = crate::sync::lock(&self.seq);
        *seq += 1;
        event.meta = Some(EventMeta {
            run_id: self.run_id.clone(),
            seq: Some(*seq),
            ts: now(),
            ..EventMeta::default()
        });
        self.sink.emit(event);
    }

    pub(crate) fn tool_queued(&self, id: &str, name: &str, position: usize) {
        self.emit(EventBody::ToolQueued(ToolQueuedPayload {
            tool_call_id: id.to_owned(),
            name: name.to_owned(),
            position: position as u64,
            extra: JsonObject::new(),
        }));
    }

    pub(crate) fn tool_call(
        &self,
        id: &str,
        name: &str,
        arguments: Value,
        spec: &crate::tools::ToolSpec,
        shown: CallShown<'_>,
    ) {
        let CallShown {
            depends_on,
            runtime,
            ..
        } = shown;
        // An MCP server's calls are recorded as such (seed 004 provider kind `mcp`, its URI).
        let mcp = spec.kind == crate::tools::ToolKind::Mcp;
        self.emit(EventBody::ToolCall(ToolCallPayload {
            tool_call_id: id.to_owned(),
            name: name.to_owned(),
            arguments,
            depends_on: Some(depends_on),
            runtime: Some(runtime),
            provider: Some(spec.provider.clone()),
            provider_kind: mcp.then(|| "mcp".to_owned()),
            provider_uri: spec.provider_uri.clone().filter(|_| mcp),
            agent_says: shown.user_prompt.map(str::to_owned),
            ui_settings: shown.ui_settings.cloned(),
            task_id: None,
            extra: JsonObject::new(),
        }));
    }

    pub(crate) fn tool_started(&self, id: &str) {
        self.emit(EventBody::ToolStarted(ToolStartedPayload {
            tool_call_id: id.to_owned(),
            extra: JsonObject::new(),
        }));
    }

    pub(crate) fn tool_progress(
        &self,
        id: &str,
        progress: f64,
        total: Option<f64>,
        message: Option<&str>,
    ) {
        self.emit(EventBody::ToolProgress(ToolProgressPayload {
            tool_call_id: id.to_owned(),
            progress: number(progress),
            total: total.map(number),
            message: message.map(str::to_owned),
            extra: JsonObject::new(),
        }));
    }

    pub(crate) fn tool_result(
        &self,
        id: &str,
        outcome: ToolOutcome,
        result: Option<Value>,
        error: Option<Value>,
        duration_ms: u64,
        extra: JsonObject,
    ) {
        self.emit(EventBody::ToolResult(ToolResultPayload {
            tool_call_id: id.to_owned(),
            status: outcome.to_event_status(),
            result,
            error,
            duration_ms: Some(duration_ms),
            extra,
        }));
    }

    pub(crate) fn queue_drained(&self) {
        self.emit(EventBody::QueueDrained(QueueDrainedPayload::default()));
    }

    pub(crate) fn workflow_status(
        &self,
        node_id: &str,
        kind: NodeKind,
        state: WorkflowState,
        reason: Option<String>,
        turn: Option<(u64, u64)>,
    ) {
        self.emit(EventBody::WorkflowStatus(WorkflowStatusPayload {
            node_id: node_id.to_owned(),
            state,
            node_kind: Some(kind),
            reason,
            turn: turn.map(|t| t.0),
            max_turns: turn.map(|t| t.1),
            agent_name: None,
            duration_ms: None,
            extra: JsonObject::new(),
        }));
    }

    /// An agent node's `workflow/status` (seed 001 §3's agent_started, agent_progress,
    /// agent_completed): its agent's name always, turn and max turns while it runs, its
    /// duration when it ends.
    pub(crate) fn agent_status(&self, id: &str, agent: &str, change: AgentChange) {
        let (state, reason, turn, duration_ms) = match change {
            AgentChange::Started => (WorkflowState::Start, None, None, None),
            AgentChange::Turn { turn, max_turns } => {
                (WorkflowState::Start, None, Some((turn, max_turns)), None)
            }
            AgentChange::Ended {
                success,
                reason,
                duration_ms,
            } => (
                if success {
                    WorkflowState::End
                } else {
                    WorkflowState::Failed
                },
                reason,
                None,
                duration_ms,
            ),
        };
        self.emit(EventBody::WorkflowStatus(WorkflowStatusPayload {
            node_id: id.to_owned(),
            state,
            node_kind: Some(NodeKind::Agent),
            reason,
            turn: turn.map(|t| t.0),
            max_turns: turn.map(|t| t.1),
            agent_name: Some(agent.to_owned()),
            duration_ms,
            extra: JsonObject::new(),
        }));
    }

    pub(crate) fn workflow_graph(&self, nodes: Vec<Value>, edges: Vec<Value>) {
        self.emit(EventBody::WorkflowGraph(WorkflowGraphPayload {
            nodes,
            edges,
            extra: JsonObject::new(),
        }));
    }

    /// A recoverable failure, a retry coming (`system/error`, `retryable: true`).
    pub(crate) fn retrying(
        &self,
        id: &str,
        code: &str,
        message: &str,
        attempt: u32,
        backoff_ms: u64,
    ) {
        let mut detail = JsonObject::new();
        detail.insert("tool_call_id".into(), Value::String(id.to_owned()));
        detail.insert("next_attempt".into(), Value::from(attempt));
        detail.insert("backoff_ms".into(), Value::from(backoff_ms));
        self.emit(EventBody::SystemError(SystemErrorPayload {
            code: code.to_owned(),
            message: message.to_owned(),
            retryable: Some(true),
            detail: Some(Value::Object(detail)),
            extra: JsonObject::new(),
        }));
    }
}
