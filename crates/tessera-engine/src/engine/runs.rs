//! The runs going on: each listed with its cancel token while it runs (a run the engine
//! started, or one a caller runs and registers), its events published as they are stored.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use tessera_protocol::easyflow::{EventBody, SystemState};
use tokio_util::sync::CancellationToken;

use super::bus::EventBus;
use super::error::EngineError;
use super::handle::{cached_pages_of, Engine, ModelChoice, RunEntry};
use crate::turn::close::CloseReason;
use crate::turn::{TurnError, TurnOutcome};

/// A run's work, as [`Engine::spawn_run`] takes it.
pub(super) type TurnFuture =
    std::pin::Pin<Box<dyn std::future::Future<Output = Result<TurnOutcome, TurnError>> + Send>>;

/// Passes a run's stored events to the bus; from its `done` on, the run can no longer be
/// cancelled.
pub(super) struct Publisher {
    bus: Arc<EventBus>,
    runs: Arc<Mutex<HashMap<String, RunEntry>>>,
    conversation: String,
    run: String,
    stretch: u64,
}

impl Publisher {
    pub(super) fn publish(&self, event: tessera_store::StoredEvent) {
        // From its `done`, or its suspension, the run is no longer running here: a cancel then
        // closes what is stored, and an answer may resume it.
        let stops = match &event.event.body {
            EventBody::Done(_) => true,
            EventBody::SystemStatus(s) => s.state == SystemState::Suspended,
            _ => false,
        };
        if stops {
            forget(&self.runs, &self.run, self.stretch);
        }
        self.bus.publish(&self.conversation, event);
    }
}

/// A run that was started.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StartedRun {
    pub conversation_id: String,
    pub run_id: String,
}

/// Removes run `run` from `runs` if the entry is still the one of `stretch`.
fn forget(runs: &Mutex<HashMap<String, RunEntry>>, run: &str, stretch: u64) {
    {
        let mut runs = crate::sync::lock(runs);
        if runs.get(run).is_some_and(|e| e.stretch == stretch) {
            runs.remove(run);
        }
    }
}

static STRETCHES: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);

/// A run the engine did not start itself (a client's direct tool calls or instruction set),
/// listed with the engine's runs while this lives, so [`Engine::cancel`] (and quitting) reach it.
pub struct ExternalRun {
    runs: Arc<Mutex<HashMap<String, RunEntry>>>,
    run_id: String,
    stretch: u64,
    cancel: CancellationToken,
}

impl ExternalRun {
    /// Cancelled when someone cancels the run.
    pub fn cancel_token(&self) -> &CancellationToken {
        &self.cancel
    }
}

impl Drop for ExternalRun {
    fn drop(&mut self) {
        forget(&self.runs, &self.run_id, self.stretch);
    }
}

impl Engine {
    /// Lists run `run_id`, which the caller runs, among the engine's runs until the returned
    /// guard is dropped.
    pub fn register_run(
        &self,
        conversation_id: &str,
        run_id: &str,
    ) -> Result<ExternalRun, EngineError> {
        let (cancel, stretch) = self.list_run(conversation_id, run_id)?;
        Ok(ExternalRun {
            runs: self.runs.clone(),
            run_id: run_id.to_owned(),
            stretch,
            cancel,
        })
    }

    /// Puts a run in the list of those going on: its cancel token and stretch.
    fn list_run(
        &self,
        conversation_id: &str,
        run_id: &str,
    ) -> Result<(CancellationToken, u64), EngineError> {
        let cancel = CancellationToken::new();
        let stretch = STRETCHES.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let mut runs = crate::sync::lock(&self.runs);
        if runs.contains_key(run_id) {
            return Err(EngineError::AlreadyRunning(run_id.to_owned()));
        }
        runs.insert(
            run_id.to_owned(),
            RunEntry {
                conversation_id: conversation_id.to_owned(),
                cancel: cancel.clone(),
                stretch,
            },
        );
        Ok((cancel, stretch))
    }

    /// Runs `turn` in the background as run `run_id`: cancellable while it runs, its events
    /// published as they are stored, its interactions armed to expire when it suspends.
    pub(super) fn spawn_run<F>(
        &self,
        conversation_id: &str,
        run_id: &str,
        model: Arc<ModelChoice>,
        turn: F,
    ) -> Result<(), EngineError>
    where
        F: FnOnce(Engine, Arc<ModelChoice>, CancellationToken, Publisher) -> TurnFuture
            + Send
            + 'static,
    {
        let (cancel, stretch) = self.list_run(conversation_id, run_id)?;
        let engine = self.clone();
        let publisher = Publisher {
            bus: self.bus.clone(),
            runs: self.runs.clone(),
            conversation: conversation_id.to_owned(),
            run: run_id.to_owned(),
            stretch,
        };
        let (conversation, run) = (conversation_id.to_owned(), run_id.to_owned());
        tokio::spawn(async move {
            let outcome = turn(engine.clone(), model, cancel, publisher).await;
            forget(&engine.runs, &run, stretch);
            match outcome {
                Ok(outcome) if outcome.state == SystemState::Suspended => {
                    engine.arm_expiry(&conversation, &run);
                    // An answer that came between the request and the suspension found the
                    // run still running and could not resume it: resume it now. Only answers
                    // count: interactions cancelled by closing the run (a new message, a
                    // cancel) must not bring it back.
                    let answered = engine
                        .store
                        .run_interactions(&conversation, &run)
                        .is_ok_and(|all| {
                            !all.is_empty()
                                && all
                                    .iter()
                                    .all(|i| i.state == tessera_store::InteractionState::Answered)
                        });
                    if answered {
                        if let Err(error) = engine.resume_if_ready(&conversation, &run) {
                            tracing::warn!(%error, run = %run, "could not resume a run answered while it suspended");
                        }
                    }
                }
                Ok(_) => {}
                Err(error) => {
                    tracing::error!(%error, run = %run, "a run stopped on an error");
                    engine.end_failed_run(&conversation, &run, &error);
                }
            }
            // A run's answer, its events and their copies on the way out were freed by now.
            crate::heap::release_freed_memory_soon(cached_pages_of(&engine.store));
        });
        Ok(())
    }

    /// Cancels a run: one that is running stops at once (keeping its partial answer); one that
    /// waits for the person is closed (its forms and consent requests withdrawn). False when
    /// the run is neither (finished, or unknown).
    pub fn cancel(&self, run_id: &str) -> bool {
        let running = crate::sync::lock(&self.runs)
            .get(run_id)
            .map(|r| r.cancel.cancel())
            .is_some();
        if running {
            return true;
        }
        match self.close_waiting_run(run_id, CloseReason::Cancelled) {
            Ok(closed) => closed,
            Err(error) => {
                tracing::warn!(%error, run = %run_id, "cannot cancel a waiting run");
                false
            }
        }
    }

    /// The runs going on, with their conversations.
    pub fn running(&self) -> Vec<StartedRun> {
        crate::sync::lock(&self.runs)
            .iter()
            .map(|(run_id, entry)| StartedRun {
                conversation_id: entry.conversation_id.clone(),
                run_id: run_id.clone(),
            })
            .collect()
    }

    /// Where work outside a model run (a TOOL_CALL_REQUEST, an INSTRUCTION set) sends its
    /// events: stored like a run's, then published to the conversation's subscribers.
    pub fn event_sink(&self, conversation_id: &str) -> Arc<dyn crate::executor::EventSink> {
        let (bus, conversation) = (self.bus.clone(), conversation_id.to_owned());
        Arc::new(crate::event_log::EventLog::published(
            self.store.clone(),
            conversation_id,
            Arc::new(move |stored| bus.publish(&conversation, stored)),
        ))
    }
}
