//! The one way the engine records events: [`EventLog`], a conversation's log in the store.
//!
//! - Each event is appended in a transaction with what it changes: a `tool_call` /
//!   `tool_result` also writes the call's record (seed 004 `tool_calls`), so the results of an
//!   ASYNC request are in the store when they arrive, and a successful result becomes an
//!   evidence the answer can cite (`crate::executor::result_evidence`).
//! - Immediate ([`EventLog::append`], `EventLog::append_with`): the call returns the event as
//!   stored, with its seq, once it has committed.
//! - Batched ([`EventLog::prepare`], `EventLog::append_prepared_then`): a run's streamed
//!   deltas, and the events of tool calls running at once, are queued, committed together by
//!   the writer thread, and handed back in order once committed.
//! - Published: an event reaches subscribers only as stored, after its commit. The turn hands
//!   its events on itself (its recorder keeps streamed and immediate ones in order); work
//!   outside a model run uses the log as its [`EventSink`], which publishes each event after
//!   its commit ([`EventLog::published`]).
//!
//! The transactions that answer or withdraw an interaction append its event in the same
//! transaction as the interaction's change (`interactions::answer`): one commit for both.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use tessera_protocol::context_doc::{
    Evidence, ProviderKind, ToolCallKind, ToolCallRecord, ToolProvider,
};
use tessera_protocol::easyflow::{Event, EventBody};
use tessera_protocol::vocabulary::ToolOutcome;
use tessera_protocol::wire::JsonObject;
use tessera_store::{AttachmentRef, Store, StoredEvent, ToolCallRow, WriteTx};

use crate::executor::events::EventSink;
use crate::executor::outcome::CLIENT_INFO_NOTE;
use crate::executor::result_evidence::evidence_of;
use crate::tools::images::attachment_refs;

/// Where a published log hands each event once it has committed (the conversation's bus).
pub(crate) type Publish = Arc<dyn Fn(StoredEvent) + Send + Sync>;

/// What a call's event changes beside the log: its record, and the evidence of its result.
type CallWrite = (ToolCallRow, Option<Evidence>, Vec<AttachmentRef>);

/// An event ready to be written in a batch ([`EventLog::prepare`]): the call it reports is
/// already known to the log, so a later event of the same call finds it before this one is
/// committed.
pub struct Prepared {
    /// Boxed: an event is nearly a kilobyte, and a batch moves hundreds of them.
    event: Box<Event>,
    /// Boxed: most events are deltas with no call, and a batch holds hundreds of them.
    call: Option<Box<CallWrite>>,
}

/// A conversation's event log in the store, with the records of the calls it has seen.
pub struct EventLog {
    store: Arc<Store>,
    conversation_id: String,
    calls: Mutex<HashMap<String, ToolCallRow>>,
    publish: Option<Publish>,
}

impl EventLog {
    /// A log whose events are handed back to the caller only (the caller publishes them).
    pub fn new(store: Arc<Store>, conversation_id: impl Into<String>) -> Self {
        Self {
            store,
            conversation_id: conversation_id.into(),
            calls: Mutex::new(HashMap::new()),
            publish: None,
        }
    }

    /// A log that, as an [`EventSink`], publishes each event with `publish` after its commit.
    pub fn published(
        store: Arc<Store>,
        conversation_id: impl Into<String>,
        publish: Publish,
    ) -> Self {
        Self {
            publish: Some(publish),
            ..Self::new(store, conversation_id)
        }
    }

    /// The conversation whose log this is.
    pub fn conversation_id(&self) -> &str {
        &self.conversation_id
    }

    /// The provider of call `call_id`'s tool (`builtin`, `specialist`, an MCP server…).
    pub(crate) fn provider_of(&self, call_id: &str) -> Option<String> {
        let calls = crate::sync::lock(&self.calls);
        calls
            .get(call_id)
            .and_then(|r| r.record.provider.as_ref())
            .and_then(|p| p.name.clone())
    }

    fn record(&self, event: &Event) -> Option<CallWrite> {
        // Most events are streamed deltas: they update no record, and take no lock.
        if !matches!(
            event.body,
            EventBody::ToolCall(_) | EventBody::ToolResult(_)
        ) {
            return None;
        }
        let mut calls = crate::sync::lock(&self.calls);
        let mut row = self.record_of(&mut calls, event)?;
        let run_id = event.meta.as_ref().and_then(|m| m.run_id.as_deref());
        // Which run made the call: after a restart, the run is rebuilt from its own calls only
        // (providers reuse ids such as `call_1` across runs).
        if let Some(run_id) = run_id {
            row.run_id = Some(run_id.to_owned());
        }
        let mut evidence = None;
        let mut attachments = Vec::new();
        if let EventBody::ToolResult(p) = &event.body {
            if let (Some(result), ToolOutcome::Success) =
                (&p.result, ToolOutcome::from_event_status(p.status))
            {
                let found = evidence_of(
                    row.record.tool.as_deref(),
                    row.record.provider.as_ref().and_then(|p| p.name.as_deref()),
                    &p.tool_call_id,
                    run_id,
                    result,
                );
                row.record.result_evidence_ids = Some(found.ids);
                if found.new.is_some() {
                    attachments = attachment_refs(&self.store, result);
                }
                evidence = found.new;
            }
        }
        Some((row, evidence, attachments))
    }

    fn record_of(
        &self,
        calls: &mut HashMap<String, ToolCallRow>,
        event: &Event,
    ) -> Option<ToolCallRow> {
        match &event.body {
            EventBody::ToolCall(p) => {
                let provider = p.provider.as_deref().map(|name| ToolProvider {
                    kind: Some(match (name, p.provider_kind.as_deref()) {
                        (_, Some("mcp")) => ProviderKind::Mcp,
                        ("builtin", _) => ProviderKind::Builtin,
                        _ => ProviderKind::Other,
                    }),
                    name: Some(name.to_owned()),
                    uri: p.provider_uri.clone(),
                    ..ToolProvider::default()
                });
                let row = ToolCallRow::from(ToolCallRecord {
                    tool_call_id: p.tool_call_id.clone(),
                    task_id: p.task_id.clone(),
                    tool: Some(p.name.clone()),
                    provider,
                    call_type: Some(ToolCallKind::Tool),
                    called_at: event.meta.as_ref().and_then(|m| m.ts.clone()),
                    args_digest: Some(p.arguments.clone()),
                    status: None,
                    duration_ms: None,
                    result_evidence_ids: None,
                    extra: JsonObject::new(),
                });
                calls.insert(p.tool_call_id.clone(), row.clone());
                Some(row)
            }
            EventBody::ToolResult(p) => {
                let mut row = calls.remove(&p.tool_call_id).unwrap_or_else(|| {
                    ToolCallRow::from(ToolCallRecord {
                        tool_call_id: p.tool_call_id.clone(),
                        task_id: None,
                        tool: None,
                        provider: None,
                        call_type: Some(ToolCallKind::Tool),
                        called_at: None,
                        args_digest: None,
                        status: None,
                        duration_ms: None,
                        result_evidence_ids: None,
                        extra: JsonObject::new(),
                    })
                });
                row.record.status = Some(ToolOutcome::from_event_status(p.status).to_context_doc());
                row.record.duration_ms = p.duration_ms;
                row.result.clone_from(&p.result);
                row.error.clone_from(&p.error);
                row.client_info = p.extra.get(CLIENT_INFO_NOTE).cloned();
                Some(row)
            }
            _ => None,
        }
    }
}

impl EventLog {
    /// Appends `event` (and the call record it updates) and returns it as stored, with its
    /// seq, once committed.
    pub fn append(&self, event: Event) -> tessera_store::Result<StoredEvent> {
        self.append_with(event, |_| Ok(()))
    }

    /// Appends `event` in one transaction with `change`, the state change it reports (an
    /// interaction it shows); neither is kept without the other.
    pub(crate) fn append_with(
        &self,
        event: Event,
        change: impl FnOnce(&mut WriteTx<'_>) -> tessera_store::Result<()> + Send + 'static,
    ) -> tessera_store::Result<StoredEvent> {
        let record = self.record(&event);
        let conversation_id = self.conversation_id.clone();
        self.store.write(move |tx| {
            change(tx)?;
            if let Some((record, evidence, attachments)) = &record {
                if let Some(evidence) = evidence {
                    tx.put_evidence(&conversation_id, evidence, attachments)?;
                }
                tx.put_tool_call(&conversation_id, record)?;
            }
            tx.append_event(&conversation_id, event)
        })
    }

    /// `event` with the call record it updates, for `EventLog::append_prepared_then`.
    pub fn prepare(&self, event: Event) -> Prepared {
        let call = self.record(&event).map(Box::new);
        Prepared {
            event: Box::new(event),
            call,
        }
    }

    /// Queues events (streamed deltas, tool events) and returns at once; `then` gets them as
    /// stored, with consecutive seqs, once they have committed with the call records they
    /// update (or the error: then none was kept). Batches queued one after another commit in
    /// that order, and concurrent writers' batches share commits (the store's writer groups
    /// them).
    pub(crate) fn append_prepared_then(
        &self,
        batch: Vec<Prepared>,
        then: impl FnOnce(tessera_store::Result<Vec<StoredEvent>>) + Send + 'static,
    ) {
        let conversation_id = self.conversation_id.clone();
        self.store.write_then(
            move |tx| {
                let mut events = Vec::with_capacity(batch.len());
                for Prepared { event, call } in batch {
                    if let Some((record, evidence, attachments)) = call.as_deref() {
                        if let Some(evidence) = evidence {
                            tx.put_evidence(&conversation_id, evidence, attachments)?;
                        }
                        tx.put_tool_call(&conversation_id, record)?;
                    }
                    events.push(event);
                }
                tx.append_events(&conversation_id, events)
            },
            then,
        );
    }
}

/// As a sink, the log queues each event and returns at once: the events of calls running at
/// once share commits. Each is published after its commit, in the order emitted (the writer
/// commits in that order). [`EventSink::settle`] waits for them all.
impl EventSink for EventLog {
    fn emit(&self, event: Event) {
        let publish = self.publish.clone();
        self.append_prepared_then(vec![self.prepare(event)], move |stored| match stored {
            Ok(stored) => {
                if let Some(publish) = publish {
                    stored.into_iter().for_each(|event| publish(event));
                }
            }
            Err(error) => tracing::warn!(%error, "could not store an event"),
        });
    }

    fn settle(&self) {
        // The writer runs writes in the order queued: an empty one commits after them all.
        let store = &self.store;
        if let Err(error) = crate::sync::blocking(|| store.write(|_| Ok(()))) {
            tracing::warn!(%error, "could not wait for the events to be stored");
        }
    }
}
