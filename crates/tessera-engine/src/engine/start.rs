//! Starting a run for what the person said: after the branch shown, after a message of their
//! choice (an edit), or again for a message they sent (regenerate).

use tessera_protocol::easyflow::SystemState;

use super::error::EngineError;
use super::handle::Engine;
use super::profile_run;
use super::runs::StartedRun;
use super::user_message::{Placement, UserMessage};
use crate::ids::new_id;
use crate::turn::close::CloseReason;
use crate::turn::{run_turn, TurnInput};

impl Engine {
    /// Starts answering `text` in `conversation` (a new one when None), after the branch
    /// shown. Returns at once; the run's events follow on [`Engine::subscribe`]. A run of the
    /// conversation still waiting for a form or a consent is closed first: the person moved on.
    pub fn start_run(
        &self,
        conversation: Option<&str>,
        text: &str,
    ) -> Result<StartedRun, EngineError> {
        self.launch(conversation, UserMessage::text(text), Placement::Next)
    }

    /// [`Engine::start_run`] for what the person said: the text, what they attached to it (read
    /// and stored by `crate::attachments::ingest`: the model gets them with the text) and the
    /// id the client gave the message.
    pub fn start_run_with(
        &self,
        conversation: Option<&str>,
        said: UserMessage,
    ) -> Result<StartedRun, EngineError> {
        self.launch(conversation, said, Placement::Next)
    }

    /// [`Engine::start_run`] for `text` said after message `parent` of `conversation` (None:
    /// as its first message), on a new branch that is then shown; the branch it leaves stays.
    /// Editing a message and resending it is this, after that message's parent.
    pub fn start_run_after(
        &self,
        conversation: &str,
        parent: Option<&str>,
        said: UserMessage,
    ) -> Result<StartedRun, EngineError> {
        if let Some(parent) = parent {
            self.require_message(conversation, parent)?;
        }
        self.launch(
            Some(conversation),
            said,
            Placement::After(parent.map(str::to_owned)),
        )
    }

    /// Answers the person's message `message_id` of `conversation` again (regenerate): the
    /// branch shown is cut back to it and the new answer follows it, beside the earlier ones,
    /// which stay (a branch switch shows them again).
    pub fn regenerate(
        &self,
        conversation: &str,
        message_id: &str,
    ) -> Result<StartedRun, EngineError> {
        let message = self.require_message(conversation, message_id)?;
        if message.message.role != tessera_protocol::request::Role::User {
            return Err(EngineError::NotUserMessage(message_id.to_owned()));
        }
        // Its attachments are on the stored message: the prompt reads them from there.
        self.launch(
            Some(conversation),
            UserMessage::text(&message.message.content),
            Placement::Again(message_id.to_owned()),
        )
    }

    fn require_message(
        &self,
        conversation: &str,
        message_id: &str,
    ) -> Result<tessera_store::StoredMessage, EngineError> {
        if self.store.conversation(conversation)?.is_none() {
            return Err(EngineError::NoConversation(conversation.to_owned()));
        }
        self.store
            .message(conversation, message_id)?
            .ok_or_else(|| EngineError::NoMessage {
                conversation: conversation.to_owned(),
                message: message_id.to_owned(),
            })
    }

    fn launch(
        &self,
        conversation: Option<&str>,
        said: UserMessage,
        placement: Placement,
    ) -> Result<StartedRun, EngineError> {
        let UserMessage {
            text,
            attachments,
            id: message_id,
            debug,
            overrides,
        } = said;
        let default = self.model().ok_or(EngineError::NoModel)?;
        // Before anything is stored or closed: a message that cannot fit starts no run.
        self.check_message_fits(conversation, None, &text, overrides.max_tokens)?;
        let mut own = None;
        let conversation_id = match conversation {
            Some(id) => {
                if self.store.conversation(id)?.is_none() {
                    return Err(EngineError::NoConversation(id.to_owned()));
                }
                own = self.store.conversation_model(id)?;
                self.close_waiting_runs(id, CloseReason::Superseded)?;
                id.to_owned()
            }
            None => crate::conversation_start::start_conversation(&self.store, None, &text)?,
        };
        // The person's pick names the model too: a profile's own model is for the default
        // provider, and may not exist at the one picked.
        let (model, picked) = self.choice_for(own.as_ref(), default);
        let run_id = new_id();
        let (conversation, run) = (conversation_id.clone(), run_id.clone());
        self.spawn_run(
            &conversation_id,
            &run_id,
            model,
            move |engine, model, cancel, emit| {
                Box::pin(async move {
                    let (mut options, mut model_name) = profile_run::options_for(
                        &engine.store,
                        &model,
                        &conversation,
                        &text,
                        &cancel,
                    )
                    .await;
                    if picked {
                        model_name.clone_from(&model.model);
                    }
                    options.debug = debug;
                    engine.run_tools(&conversation, &mut options).await;
                    overrides.apply(&mut options);
                    let outcome = run_turn(
                        &engine.store,
                        &model.client,
                        TurnInput {
                            conversation: Some(&conversation),
                            text: &text,
                            said: placement.said(),
                            model: &model_name,
                            options: &options,
                            run_id: Some(&run),
                            attachments: &attachments,
                            message_id: message_id.as_deref(),
                        },
                        cancel.clone(),
                        |event| emit.publish(event),
                    )
                    .await?;
                    if outcome.state == SystemState::Completed {
                        profile_run::summarize_if_due(
                            &engine.store,
                            &model,
                            &conversation,
                            &cancel,
                        )
                        .await;
                    }
                    Ok(outcome)
                })
            },
        )?;
        Ok(StartedRun {
            conversation_id,
            run_id,
        })
    }
}
