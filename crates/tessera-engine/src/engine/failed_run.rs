//! A message too long for the model is refused before its run starts; a run whose turn stops on
//! an error still ends as a failed run does (`system/error`, `failed`, `done`), so no client
//! waits for ever on a stream that stopped at `initializing`.

use tessera_store::StoreError;

use super::{ConversationModel, Engine, EngineError};
use crate::turn::close::fail_run;
use crate::turn::fits::check_message_fits;
use crate::turn::TurnError;

impl Engine {
    /// Refuses `text` when it cannot fit, even alone, the window of the model that would
    /// answer it in `conversation`: `pick` when the person picks one now (`Some(None)`: the
    /// default), else the conversation's own, else the default. `max_tokens` is what the
    /// request keeps for the answer, when it says.
    pub fn check_message_fits(
        &self,
        conversation: Option<&str>,
        pick: Option<Option<&ConversationModel>>,
        text: &str,
        max_tokens: Option<u32>,
    ) -> Result<(), EngineError> {
        let Some(default) = self.model() else {
            // Starting the run says there is no model.
            return Ok(());
        };
        let own = match (pick, conversation) {
            (Some(pick), _) => pick.cloned(),
            (None, Some(id)) => match self.store.conversation_model(id) {
                Ok(own) => own,
                Err(StoreError::NotFound { .. }) => None,
                Err(other) => return Err(other.into()),
            },
            (None, None) => None,
        };
        let choice = match &own {
            None => default,
            Some(pick) => match crate::sync::lock(&self.picked).get(pick).cloned() {
                Some(choice) => choice,
                // Not readied yet: the run checks again as it starts, with the model it gets.
                None => return Ok(()),
            },
        };
        let max_tokens = max_tokens.or(choice.options.max_tokens);
        check_message_fits(choice.client.config(), &choice.model, text, max_tokens)
            .map_err(EngineError::from)
    }

    /// Ends run `run` of `conversation`, whose turn returned `error` without ending it, and
    /// publishes what that wrote.
    pub(super) fn end_failed_run(&self, conversation: &str, run: &str, error: &TurnError) {
        match fail_run(&self.store, conversation, run, error) {
            Ok(events) => {
                for event in events {
                    self.bus.publish(conversation, event);
                }
            }
            Err(err) => {
                tracing::error!(error = %err, run = %run, "a failed run could not be ended")
            }
        }
    }
}
