//! A TOOL_CALL_REQUEST or an INSTRUCTION set run for a client, outside any model run, as a run
//! of its own on the conversation's event stream: `system/status running`, the executor's
//! events, the terminal status and `done`, all under one run id, stored before they are
//! published (so `GET /v1/conversations/{id}/events` shows them like a model run's).
//!
//! The engine's consent gate decides every call: one that needs the person's consent
//! (USER_CONSENT, ALWAYS_ASK) runs only when a stored grant allows it; otherwise it ends
//! `denied` with `PERMISSION_DENIED`: a client message cannot stand in for the person's answer.

use std::sync::Arc;

use tessera_engine::engine::{Engine, ExternalRun};
use tessera_engine::executor::{EventSink, Executor, ExecutorOptions};
use tessera_engine::tools::{ConsentGate, ToolRegistry};
use tessera_protocol::easyflow::{
    DonePayload, Event, EventBody, EventMeta, SystemState, SystemStatusPayload,
};
use tessera_protocol::wire::JsonObject;
use tokio_util::sync::CancellationToken;

use crate::CoreError;

/// One direct run: its id, where its events go, and its place among the engine's runs (so
/// `POST /v1/runs/{id}/cancel` reaches it).
pub(crate) struct DirectRun {
    pub run_id: String,
    pub conversation_id: String,
    sink: Arc<dyn EventSink>,
    gate: Arc<ConsentGate>,
    cancel: CancellationToken,
    /// Taken when the run ends.
    listed: Option<ExternalRun>,
    /// For the `done`'s `latency_ms` (seed 002 §13).
    started: std::time::Instant,
}

impl DirectRun {
    /// Starts the run: `system/status running` is stored and published.
    pub fn begin(engine: &Engine, conversation_id: &str) -> Result<Self, CoreError> {
        let run_id = uuid::Uuid::now_v7().to_string();
        let listed = engine
            .register_run(conversation_id, &run_id)
            .map_err(|err| CoreError::Unavailable(err.to_string()))?;
        let run = Self {
            started: std::time::Instant::now(),
            run_id,
            cancel: listed.cancel_token().clone(),
            listed: Some(listed),
            conversation_id: conversation_id.to_owned(),
            sink: Arc::new(MessageIdSink {
                inner: engine.event_sink(conversation_id),
                // A client groups a run's events by message: one id for the whole direct run,
                // so its tool cards and plan show together, like a model run's.
                message_id: uuid::Uuid::now_v7().to_string(),
            }),
            gate: engine.consent_gate(conversation_id),
        };
        run.status(SystemState::Running);
        Ok(run)
    }

    /// Cancelled when the run is.
    pub fn cancel_token(&self) -> CancellationToken {
        self.cancel.clone()
    }

    fn emit(&self, body: EventBody) {
        let mut event = Event::new(self.conversation_id.clone(), body);
        event.meta = Some(EventMeta {
            run_id: Some(self.run_id.clone()),
            ..EventMeta::default()
        });
        self.sink.emit(event);
    }

    fn status(&self, state: SystemState) {
        self.emit(EventBody::SystemStatus(SystemStatusPayload {
            state,
            profile: None,
            user_message_id: None,
            debug: None,
            extra: JsonObject::new(),
        }));
    }

    /// The executor over `registry`, its events in this run.
    pub fn executor(
        &self,
        registry: Arc<ToolRegistry>,
        sink: Option<Arc<dyn EventSink>>,
    ) -> Executor {
        Executor::new(
            registry,
            sink.unwrap_or_else(|| self.sink.clone()),
            ExecutorOptions::new(self.conversation_id.clone())
                .consent(self.gate.clone())
                .run_id(self.run_id.clone()),
        )
    }

    /// The sink of this run's events (to wrap, e.g. with the task list).
    pub fn sink(&self) -> Arc<dyn EventSink> {
        self.sink.clone()
    }

    /// Ends the run: its terminal status, then `done`. From then on it cannot be cancelled.
    pub fn end(mut self, state: SystemState) {
        drop(self.listed.take());
        let state = if state == SystemState::Completed && self.cancel.is_cancelled() {
            SystemState::Cancelled
        } else {
            state
        };
        self.status(state);
        let mut extra = JsonObject::new();
        extra.insert("state".into(), serde_json::json!(state.as_str()));
        let mut event = Event::new(
            self.conversation_id.clone(),
            EventBody::Done(DonePayload {
                extra: JsonObject::new(),
            }),
        );
        event.meta = Some(EventMeta {
            run_id: Some(self.run_id.clone()),
            // Seed 002 §13 and §16 rule 3 (no field of `done` is left out): the token figures
            // beside the latency, 0 as no model was called.
            prompt_tokens: Some(0),
            completion_tokens: Some(0),
            latency_ms: Some(u64::try_from(self.started.elapsed().as_millis()).unwrap_or(u64::MAX)),
            extra,
            ..EventMeta::default()
        });
        self.sink.emit(event);
        // The client's answer, and what it reads next, come after the run is stored.
        self.sink.settle();
    }
}

/// Gives every event the run's message id.
struct MessageIdSink {
    inner: Arc<dyn EventSink>,
    message_id: String,
}

impl EventSink for MessageIdSink {
    fn settle(&self) {
        self.inner.settle();
    }

    fn emit(&self, mut event: Event) {
        if event.message_id.is_none() {
            event.message_id = Some(self.message_id.clone());
        }
        self.inner.emit(event);
    }
}
