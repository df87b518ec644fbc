//! One turn outside the engine's runs, for a command that answers and exits (`tessera chat`):
//! recorded in the data folder like any conversation, its events handed to the caller as they
//! are stored. A form or consent request suspends it as it does a run; the command asks the
//! person, answers with [`App::answer_held`] and goes on with [`App::resume_one_turn`].

use tessera_engine::interactions::{Answer, AnswerError, Answered};
use tessera_engine::turn::resume::{resume_turn, ResumeInput};
use tessera_engine::turn::{run_turn, TurnError, TurnInput, TurnOutcome};
use tessera_providers::ProviderClient;
use tessera_store::Interaction;
use tokio_util::sync::CancellationToken;

use crate::{App, StoredEvent};

impl App {
    pub async fn run_one_turn(
        &self,
        client: &ProviderClient,
        input: TurnInput<'_>,
        cancel: CancellationToken,
        on_event: impl FnMut(StoredEvent) + Send,
    ) -> Result<TurnOutcome, TurnError> {
        run_turn(self.engine.store(), client, input, cancel, on_event).await
    }

    /// What run `run_id` of a one-shot turn waits for, oldest first.
    pub fn waiting_in_turn(
        &self,
        conversation_id: &str,
        run_id: &str,
    ) -> Result<Vec<Interaction>, crate::CoreError> {
        let all = self.engine.pending_interactions(Some(conversation_id))?;
        Ok(all
            .into_iter()
            .filter(|i| i.run_id.as_deref() == Some(run_id))
            .collect())
    }

    /// Answers a form or consent request of a one-shot turn without resuming it: the command
    /// resumes it with [`App::resume_one_turn`]. Blocks on the store.
    pub fn answer_held(&self, id: &str, answer: &Answer) -> Result<Answered, AnswerError> {
        self.engine.answer_held(id, answer)
    }

    /// Goes on with a one-shot turn once everything it asked is answered.
    pub async fn resume_one_turn(
        &self,
        client: &ProviderClient,
        input: ResumeInput<'_>,
        cancel: CancellationToken,
        on_event: impl FnMut(StoredEvent) + Send,
    ) -> Result<TurnOutcome, TurnError> {
        resume_turn(self.engine.store(), client, input, cancel, on_event).await
    }
}
