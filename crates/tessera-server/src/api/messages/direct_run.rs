//! A TOOL_CALL_REQUEST or an INSTRUCTION set run for a client, outside any model run, as a run
//! of its own on the conversation's event stream: `system/status running`, the executor's
//! events, the terminal status and `done`, all under one run id, stored before they are
//! published (so `GET /v1/conversations/{id}/events` shows them like a model run's).
//!
//! Calls that need the person's consent (USER_CONSENT, ALWAYS_ASK) run only when a stored grant
//! allows them; otherwise they end `denied` with `PERMISSION_DENIED`: a client message cannot
//! stand in for the person's answer.

use std::collections::HashSet;
use std::sync::{Arc, Mutex};

use axum::http::StatusCode;
use tessera_engine::engine::{Engine, ExternalRun};
use tessera_engine::executor::{EventSink, Executor, ExecutorOptions};
use tessera_engine::interactions::consent::allowed_without_asking;
use tessera_engine::tools::{ToolFailure, ToolRegistry};
use tessera_protocol::easyflow::{
    DonePayload, Event, EventBody, EventMeta, SystemState, SystemStatusPayload, ToolResultStatus,
};
use tessera_protocol::mcp_cp::PermissionLevel;
use tessera_protocol::wire::JsonObject;
use tokio_util::sync::CancellationToken;

use super::super::ApiError;

/// The error code of a call refused for want of consent.
pub(super) const PERMISSION_DENIED: &str = "PERMISSION_DENIED";

/// One direct run: its id, where its events go, and its place among the engine's runs (so
/// `POST /v1/runs/{id}/cancel` reaches it).
pub(super) struct DirectRun {
    pub run_id: String,
    pub conversation_id: String,
    sink: Arc<dyn EventSink>,
    cancel: CancellationToken,
    /// Taken when the run ends.
    listed: Option<ExternalRun>,
}

impl DirectRun {
    /// Starts the run: `system/status running` is stored and published.
    pub fn begin(
        engine: &Engine,
        conversation_id: &str,
        denied: Arc<Denied>,
    ) -> Result<Self, ApiError> {
        let run_id = uuid::Uuid::now_v7().to_string();
        let listed = engine
            .register_run(conversation_id, &run_id)
            .map_err(|err| {
                ApiError::new(
                    StatusCode::SERVICE_UNAVAILABLE,
                    "UNAVAILABLE",
                    err.to_string(),
                )
            })?;
        let run = Self {
            run_id,
            cancel: listed.cancel_token().clone(),
            listed: Some(listed),
            conversation_id: conversation_id.to_owned(),
            sink: Arc::new(DeniedSink {
                inner: engine.event_sink(conversation_id),
                denied,
                // A client groups a run's events by message: one id for the whole direct run,
                // so its tool cards and plan show together, like a model run's.
                message_id: uuid::Uuid::now_v7().to_string(),
            }),
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
            ExecutorOptions::new(self.conversation_id.clone()).run_id(self.run_id.clone()),
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
            extra,
            ..EventMeta::default()
        });
        self.sink.emit(event);
    }
}

/// The calls refused for want of consent.
#[derive(Default)]
pub(super) struct Denied(Mutex<HashSet<String>>);

impl Denied {
    pub fn contains(&self, call_id: &str) -> bool {
        self.0.lock().is_ok_and(|d| d.contains(call_id))
    }

    fn insert(&self, call_id: &str) {
        if let Ok(mut d) = self.0.lock() {
            d.insert(call_id.to_owned());
        }
    }
}

/// Marks the results of refused calls `denied` (the executor only knows `error`), and gives
/// every event the run's message id.
struct DeniedSink {
    inner: Arc<dyn EventSink>,
    denied: Arc<Denied>,
    message_id: String,
}

impl EventSink for DeniedSink {
    fn emit(&self, mut event: Event) {
        if event.message_id.is_none() {
            event.message_id = Some(self.message_id.clone());
        }
        if let EventBody::ToolResult(p) = &mut event.body {
            let refused = p
                .error
                .as_ref()
                .and_then(|e| e.get("code"))
                .is_some_and(|c| c == PERMISSION_DENIED);
            if refused && self.denied.contains(&p.tool_call_id) {
                p.status = ToolResultStatus::Denied;
            }
        }
        self.inner.emit(event);
    }
}

/// The tools of a direct run in `conversation` (the engine's, and its client's), gated by
/// [`consent_gated`], with where the refused calls are recorded.
pub(super) fn gated_tools(
    engine: &Engine,
    conversation: &str,
) -> Result<(Arc<ToolRegistry>, Arc<Denied>), ApiError> {
    let base = engine
        .tools_for(conversation)
        .unwrap_or_else(|| Arc::new(ToolRegistry::new()));
    let denied = Arc::new(Denied::default());
    let registry = consent_gated(engine, conversation, &base, denied.clone())?;
    Ok((registry, denied))
}

/// The registry of a direct run: every call of a tool that needs consent is checked against
/// the stored grants as it is about to run (a `once` grant is spent by the call it lets
/// through); a call without one is refused and recorded in `denied`.
pub(super) fn consent_gated(
    engine: &Engine,
    conversation_id: &str,
    registry: &ToolRegistry,
    denied: Arc<Denied>,
) -> Result<Arc<ToolRegistry>, ApiError> {
    let store = engine.store().clone();
    let conversation = conversation_id.to_owned();
    let gate: tessera_engine::tools::registry::Gate = Arc::new(move |spec, call_id| {
        if spec.permission == PermissionLevel::None {
            return None;
        }
        match allowed_without_asking(&store, spec, &conversation) {
            Ok(true) => None,
            Ok(false) => {
                denied.insert(call_id);
                Some(ToolFailure::new(
                    PERMISSION_DENIED,
                    format!(
                        "`{}` needs the person's consent ({}), and none was given for this \
                         conversation; ask in a conversation turn, where the person can answer",
                        spec.name,
                        match spec.permission {
                            PermissionLevel::AlwaysAsk => "ALWAYS_ASK",
                            _ => "USER_CONSENT",
                        }
                    ),
                ))
            }
            Err(error) => {
                denied.insert(call_id);
                Some(ToolFailure::new(
                    PERMISSION_DENIED,
                    format!("the consent of `{}` could not be read: {error}", spec.name),
                ))
            }
        }
    });
    registry.gated(gate).map(Arc::new).map_err(|err| {
        ApiError::new(
            StatusCode::INTERNAL_SERVER_ERROR,
            "INTERNAL",
            format!("the tools could not be prepared: {err}"),
        )
    })
}
