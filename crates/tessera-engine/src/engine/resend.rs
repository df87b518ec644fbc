//! A USER_INPUT sent again under the same `messageId` (seed 000 §3.1: 消息唯一标识, 用于跟踪和
//! 引用): the same message is answered as the first time (the run that answered it, followed
//! from its first event), never twice; another message under an id already used is refused.

use super::{Engine, EngineError, StartedRun, UserMessage};
use crate::turn::USER_MESSAGE_KEY;

/// What a message id a client sends stands for in its conversation.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SaidBefore {
    /// Not used yet: the message is new.
    New,
    /// The same message was sent and run `run` answered it (or answers it now); its events
    /// start at `first_seq`.
    Answered { run: StartedRun, first_seq: u64 },
    /// The same message was stored but no run answered it (the process stopped first).
    Unanswered,
}

impl Engine {
    /// What `said` (with its client id) is to the conversation: new, or sent before. Another
    /// message under the same id is [`EngineError::MessageIdInUse`].
    pub fn said_before(
        &self,
        conversation_id: &str,
        said: &UserMessage,
    ) -> Result<SaidBefore, EngineError> {
        let Some(id) = said.id.as_deref() else {
            return Ok(SaidBefore::New);
        };
        let Some(stored) = self.store.message(conversation_id, id)? else {
            return Ok(SaidBefore::New);
        };
        let stored_files: Vec<String> = crate::attachments::of_message(&stored.message.extra)
            .into_iter()
            .map(|a| a.sha256)
            .collect();
        let files: Vec<&str> = said.attachments.iter().map(|a| a.sha256.as_str()).collect();
        let same = stored.message.role == tessera_protocol::request::Role::User
            && stored.message.content == said.text
            && stored_files == files;
        if !same {
            return Err(EngineError::MessageIdInUse {
                conversation: conversation_id.to_owned(),
                message: id.to_owned(),
            });
        }
        let answered = self
            .store
            .read(|r| r.run_with_status(conversation_id, USER_MESSAGE_KEY, id))?;
        Ok(match answered {
            Some((run_id, first_seq)) => SaidBefore::Answered {
                run: StartedRun {
                    conversation_id: conversation_id.to_owned(),
                    run_id,
                },
                first_seq,
            },
            None => SaidBefore::Unanswered,
        })
    }
}
