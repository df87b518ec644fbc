//! The branches of a conversation's tree of messages: which message an answer-again answers,
//! and showing another branch.

use tessera_engine::engine::{EngineError, StartedRun, Subscription};
use tessera_protocol::request::Role;

use crate::views::conversations::ConversationDetail;
use crate::{App, CoreError};

impl App {
    /// Answers again the person's message `named` (an answer names the message it answered;
    /// none: the last one of the branch shown): the branch shown is cut back to it and the new
    /// answer follows it on a branch of its own, the earlier answers kept beside it. Refused
    /// while a run answers in the conversation. The run and its events, followed from before
    /// it started, and the message it answers.
    pub async fn regenerate(
        &self,
        id: &str,
        named: Option<&str>,
    ) -> Result<(StartedRun, Subscription, String), CoreError> {
        self.require_conversation(id)?;
        self.refuse_while_running(id, "answering a message again")?;
        let question = self.question_to_answer(id, named)?;
        self.engine.prepare_model(id, None).await?;
        let (run, sub) = self.start_followed(id, || self.engine.regenerate(id, &question))?;
        Ok((run, sub, question))
    }

    /// The person's message a regeneration answers again: the one named, or the one the
    /// answer named answered; none named, the last one of the branch shown.
    pub fn question_to_answer(&self, id: &str, named: Option<&str>) -> Result<String, CoreError> {
        let no_message = |message: &str| {
            CoreError::Engine(EngineError::NoMessage {
                conversation: id.to_owned(),
                message: message.to_owned(),
            })
        };
        self.engine.store().read(|r| {
            let mut at = match named {
                Some(m) => match r.message(id, m)? {
                    Some(message) => Some(message),
                    None => return Ok(Err(no_message(m))),
                },
                None => r.active_branch_tail(id, 1)?.pop(),
            };
            // Back from an answer (or, unnamed, from whatever ends the branch) to the question.
            while let Some(m) = at {
                match m.message.role {
                    Role::User => return Ok(Ok(m.id)),
                    Role::Assistant => {}
                    _ if named.is_none() => {}
                    _ => return Ok(Err(CoreError::NotAQuestion(m.id))),
                }
                at = match &m.parent_id {
                    Some(parent) => r.message(id, parent)?,
                    None => None,
                };
            }
            Ok(Err(CoreError::NothingToRegenerate(id.to_owned())))
        })?
    }

    /// Shows the branch through `message` (to its newest leaf). Refused while a run answers
    /// in the conversation.
    pub fn switch_branch(&self, id: &str, message: &str) -> Result<ConversationDetail, CoreError> {
        self.require_conversation(id)?;
        self.refuse_while_running(id, "showing another branch")?;
        let store = self.engine.store();
        if store.message(id, message)?.is_none() {
            return Err(CoreError::Engine(EngineError::NoMessage {
                conversation: id.to_owned(),
                message: message.to_owned(),
            }));
        }
        store.switch_branch(id, message)?;
        self.conversation_detail(id)
    }
}
