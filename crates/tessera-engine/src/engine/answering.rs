//! The engine's side of forms and consent: answering (then resuming the run when nothing else
//! of it waits), listing what waits, expiring what waited too long, and closing runs that wait
//! when the person cancels them or moves on.

use std::sync::Arc;

use tessera_store::interactions::Interaction;

use super::{Engine, EngineError, ModelChoice};
use crate::interactions::{
    answer_interaction, cancel_interaction, expires_at, Answer, AnswerError, Answered,
};
use crate::turn::close::{close_run, CloseReason};
use crate::turn::resume::{ready_to_resume, resume_turn, standing, ResumeInput, RunStanding};

impl Engine {
    /// Takes the person's answer to a form or consent request. Field errors leave the run
    /// waiting; the same answer again returns the same result; once nothing else of the run
    /// waits, the run resumes.
    pub fn answer(&self, interaction_id: &str, answer: &Answer) -> Result<Answered, AnswerError> {
        let answered = self.answer_held(interaction_id, answer)?;
        if let Some(run) = answered.interaction.run_id.clone() {
            let conversation = answered.interaction.conversation_id.clone();
            if let Err(error) = self.resume_if_ready(&conversation, &run) {
                tracing::warn!(%error, run = %run, "the answered run could not resume");
            }
        }
        Ok(answered)
    }

    /// Takes the answer as [`Engine::answer`] does, but leaves the run suspended: for a command
    /// that runs its one turn itself (`tessera chat`) and resumes it with
    /// [`crate::turn::resume::resume_turn`] once it has every answer.
    pub fn answer_held(
        &self,
        interaction_id: &str,
        answer: &Answer,
    ) -> Result<Answered, AnswerError> {
        let answered = answer_interaction(&self.store, interaction_id, answer)?;
        if let Some(event) = &answered.event {
            self.bus
                .publish(&answered.interaction.conversation_id, event.clone());
        }
        // A running tool (an MCP server) waiting for this form goes on at once.
        self.live_forms.deliver(&answered.interaction);
        Ok(answered)
    }

    /// Forms and consent requests waiting for the person (of one conversation, or all).
    pub fn pending_interactions(
        &self,
        conversation_id: Option<&str>,
    ) -> Result<Vec<Interaction>, EngineError> {
        Ok(self.store.pending_interactions(conversation_id)?)
    }

    /// Resumes run `run_id` when it is suspended and nothing of it waits any more.
    pub(super) fn resume_if_ready(
        &self,
        conversation_id: &str,
        run_id: &str,
    ) -> Result<bool, EngineError> {
        if crate::sync::lock(&self.runs).contains_key(run_id) {
            return Ok(false);
        }
        let events = self.store.run_events(conversation_id, run_id)?;
        if standing(&events) != RunStanding::Suspended
            || !ready_to_resume(&self.store.run_interactions(conversation_id, run_id)?)
        {
            return Ok(false);
        }
        let model = self.model().ok_or(EngineError::NoModel)?;
        let (options, model_name) =
            super::profile_run::options_for_resume(&self.store, &model, &events);
        let (conversation, run) = (conversation_id.to_owned(), run_id.to_owned());
        let spawned = self.spawn_run(
            conversation_id,
            run_id,
            model,
            move |engine, model: Arc<ModelChoice>, cancel, emit| {
                Box::pin(async move {
                    // The tools a client of the conversation announced, and the sources'.
                    let mut options = options;
                    engine.run_tools(&conversation, &mut options).await;
                    resume_turn(
                        &engine.store,
                        &model.client,
                        ResumeInput {
                            conversation_id: &conversation,
                            run_id: &run,
                            model: &model_name,
                            options: &options,
                        },
                        cancel,
                        |event| emit.publish(event),
                    )
                    .await
                })
            },
        );
        match spawned {
            // Another answer resumed it a moment ago.
            Err(EngineError::AlreadyRunning(_)) => Ok(false),
            Err(other) => Err(other),
            Ok(()) => Ok(true),
        }
    }

    /// Arms the expiry of run `run_id`'s pending interactions.
    pub(super) fn arm_expiry(&self, conversation_id: &str, run_id: &str) {
        let pending = match self.store.run_interactions(conversation_id, run_id) {
            Ok(all) => all,
            Err(error) => {
                tracing::warn!(%error, run = %run_id, "cannot read the run's interactions");
                return;
            }
        };
        for interaction in pending {
            if interaction.state != tessera_store::InteractionState::Pending {
                continue;
            }
            let Some(at) = expires_at(&interaction) else {
                continue;
            };
            let engine = self.clone();
            tokio::spawn(async move {
                let wait = at.duration_since(jiff::Timestamp::now());
                if let Ok(wait) = std::time::Duration::try_from(wait) {
                    tokio::time::sleep(wait).await;
                }
                engine.expire(&interaction);
            });
        }
    }

    /// Cancels an interaction that waited too long; the run resumes without its answer.
    fn expire(&self, interaction: &Interaction) {
        match cancel_interaction(&self.store, interaction, "expired") {
            Ok(Some((_, event))) => self.bus.publish(&interaction.conversation_id, event),
            Ok(None) => return,
            Err(error) => {
                tracing::warn!(%error, "cannot expire an interaction");
                return;
            }
        }
        if let Some(run) = &interaction.run_id {
            if let Err(error) = self.resume_if_ready(&interaction.conversation_id, run) {
                tracing::warn!(%error, run = %run, "the run could not resume after an expiry");
            }
        }
    }

    /// Closes the runs of a conversation that wait for the person.
    pub(super) fn close_waiting_runs(
        &self,
        conversation_id: &str,
        reason: CloseReason,
    ) -> Result<(), EngineError> {
        let mut runs: Vec<String> = self
            .store
            .pending_interactions(Some(conversation_id))?
            .into_iter()
            .filter_map(|i| i.run_id)
            .collect();
        runs.dedup();
        for run in runs {
            self.close_suspended(conversation_id, &run, reason)?;
        }
        Ok(())
    }

    /// Closes run `run_id` if it waits for the person; whether it did.
    pub(super) fn close_waiting_run(
        &self,
        run_id: &str,
        reason: CloseReason,
    ) -> Result<bool, EngineError> {
        // A waiting run usually has a pending interaction, which names its conversation; only
        // one whose answers all came (and that could not resume yet) needs the event log.
        let pending = self
            .store
            .pending_interactions(None)?
            .into_iter()
            .find(|i| i.run_id.as_deref() == Some(run_id))
            .map(|i| i.conversation_id);
        let conversation = match pending {
            Some(c) => Some(c),
            None => self
                .store
                .unfinished_runs()?
                .into_iter()
                .find(|(_, run)| run == run_id)
                .map(|(c, _)| c),
        };
        let Some(conversation) = conversation else {
            return Ok(false);
        };
        self.close_suspended(&conversation, run_id, reason)
    }

    fn close_suspended(
        &self,
        conversation_id: &str,
        run_id: &str,
        reason: CloseReason,
    ) -> Result<bool, EngineError> {
        let events = self.store.run_events(conversation_id, run_id)?;
        if standing(&events) != RunStanding::Suspended {
            return Ok(false);
        }
        for event in close_run(&self.store, conversation_id, run_id, reason)? {
            self.bus.publish(conversation_id, event);
        }
        Ok(true)
    }
}
