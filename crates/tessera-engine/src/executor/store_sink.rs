//! Events into the local store: each event is appended to the conversation's event log, and
//! each `tool_call` / `tool_result` also updates the call's record (seed 004 `tool_calls`), so
//! the results of an ASYNC request are in the store when they arrive. A successful result
//! becomes an evidence the answer can cite ([`super::result_evidence`]).

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use tessera_protocol::context_doc::{
    Evidence, ProviderKind, ToolCallKind, ToolCallRecord, ToolProvider,
};
use tessera_protocol::easyflow::{Event, EventBody};
use tessera_protocol::vocabulary::ToolOutcome;
use tessera_protocol::wire::JsonObject;
use tessera_store::{AttachmentRef, Store};

use super::events::EventSink;
use super::result_evidence::evidence_of;
use crate::tools::images::attachment_refs;

/// The key of a call record's `extra` that names the run it belongs to.
pub const RUN_ID_KEY: &str = "run_id";

/// Writes events and call records to a [`Store`]. Each `emit` is one small write; failures are
/// logged, never raised into the run.
pub struct StoreSink {
    store: Arc<Store>,
    conversation_id: String,
    calls: Mutex<HashMap<String, ToolCallRecord>>,
}

impl StoreSink {
    pub fn new(store: Arc<Store>, conversation_id: impl Into<String>) -> Self {
        Self {
            store,
            conversation_id: conversation_id.into(),
            calls: Mutex::new(HashMap::new()),
        }
    }

    /// The tool of call `call_id`, while the call runs.
    pub fn tool_of(&self, call_id: &str) -> Option<String> {
        let calls = crate::sync::lock(&self.calls);
        calls.get(call_id).and_then(|r| r.tool.clone())
    }

    /// The provider of call `call_id`'s tool (`builtin`, `specialist`, an MCP server…).
    pub fn provider_of(&self, call_id: &str) -> Option<String> {
        let calls = crate::sync::lock(&self.calls);
        calls
            .get(call_id)
            .and_then(|r| r.provider.as_ref())
            .and_then(|p| p.name.clone())
    }

    fn record(
        &self,
        event: &Event,
    ) -> Option<(ToolCallRecord, Option<Evidence>, Vec<AttachmentRef>)> {
        let mut calls = crate::sync::lock(&self.calls);
        let mut record = self.record_of(&mut calls, event)?;
        let run_id = event.meta.as_ref().and_then(|m| m.run_id.as_deref());
        // Which run made the call: after a restart, the run is rebuilt from its own calls only
        // (providers reuse ids such as `call_1` across runs).
        if let Some(run_id) = run_id {
            record.extra.insert(
                RUN_ID_KEY.into(),
                serde_json::Value::String(run_id.to_owned()),
            );
        }
        let mut evidence = None;
        let mut attachments = Vec::new();
        if let EventBody::ToolResult(p) = &event.body {
            if let (Some(result), ToolOutcome::Success) =
                (&p.result, ToolOutcome::from_event_status(p.status))
            {
                let found = evidence_of(
                    record.tool.as_deref(),
                    record.provider.as_ref().and_then(|p| p.name.as_deref()),
                    &p.tool_call_id,
                    run_id,
                    result,
                );
                record.result_evidence_ids = Some(found.ids);
                if found.new.is_some() {
                    attachments = attachment_refs(&self.store, result);
                }
                evidence = found.new;
            }
        }
        Some((record, evidence, attachments))
    }

    fn record_of(
        &self,
        calls: &mut HashMap<String, ToolCallRecord>,
        event: &Event,
    ) -> Option<ToolCallRecord> {
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
                let record = ToolCallRecord {
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
                };
                calls.insert(p.tool_call_id.clone(), record.clone());
                Some(record)
            }
            EventBody::ToolResult(p) => {
                let mut record = calls.remove(&p.tool_call_id).unwrap_or(ToolCallRecord {
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
                });
                record.status = Some(ToolOutcome::from_event_status(p.status).to_context_doc());
                record.duration_ms = p.duration_ms;
                if let Some(result) = &p.result {
                    record.extra.insert("result".into(), result.clone());
                }
                if let Some(error) = &p.error {
                    record.extra.insert("error".into(), error.clone());
                }
                if let Some(info) = p.extra.get(super::outcome::CLIENT_INFO_NOTE) {
                    record
                        .extra
                        .insert(super::outcome::CLIENT_INFO_NOTE.into(), info.clone());
                }
                Some(record)
            }
            _ => None,
        }
    }
}

impl StoreSink {
    /// Writes `event` (and the call record it updates) and returns it as stored, with its seq.
    pub fn persist(&self, event: Event) -> tessera_store::Result<tessera_store::StoredEvent> {
        let record = self.record(&event);
        let conversation_id = self.conversation_id.clone();
        self.store.write(move |tx| {
            if let Some((record, evidence, attachments)) = &record {
                if let Some(evidence) = evidence {
                    tx.put_evidence(&conversation_id, evidence, attachments)?;
                }
                tx.put_tool_call(&conversation_id, record)?;
            }
            tx.append_event(&conversation_id, event)
        })
    }
}

impl EventSink for StoreSink {
    fn emit(&self, event: Event) {
        if let Err(error) = self.persist(event) {
            tracing::warn!(%error, "could not write an executor event to the store");
        }
    }
}
