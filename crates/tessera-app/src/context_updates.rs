//! CONTEXT_UPDATE (seed 000 §8.2) applied to a conversation: the context's state and history
//! change, versioned, in one transaction with the conversation message an added text becomes.

use serde_json::json;
use tessera_protocol::context_doc::{Author, AuthorKind};
use tessera_protocol::mcp_cp::{ContextOperation, McpContext, Message, MessageContent, SenderType};
use tessera_protocol::request::Role;
use tessera_protocol::wire::JsonObject;
use tessera_store::{text_message, ContextUpdateOutcome, NewMessage};

use crate::{App, CoreError};

/// What an update did, and the context after it.
#[derive(Debug)]
pub struct ContextUpdated {
    pub outcome: ContextUpdateOutcome,
    pub context: Option<McpContext>,
}

/// The conversation message an added MCP-CP message becomes, for the types that carry text.
fn as_conversation_message(message: &Message) -> Option<NewMessage> {
    let (role, text) = match &message.content {
        MessageContent::UserInput(c) => (Role::User, c.text.clone()),
        MessageContent::ModelResponse(c) => (Role::Assistant, c.text.clone()),
        MessageContent::SystemMessage(c) => (Role::System, c.text.clone()),
        _ => return None,
    };
    let mut session = text_message(role, text);
    session.author = Some(Author {
        kind: match message.sender.sender_type {
            SenderType::User => AuthorKind::User,
            SenderType::Model => AuthorKind::Agent,
            SenderType::Tool => AuthorKind::Tool,
            SenderType::System => AuthorKind::System,
        },
        id: Some(message.sender.id.clone()),
        extra: JsonObject::new(),
    });
    session.at = Some(message.timestamp.clone());
    session
        .extra
        .insert("mcp_message_id".into(), json!(message.message_id));
    Some(NewMessage::new(session))
}

impl App {
    /// Applies the CONTEXT_UPDATE `message` to its conversation (created when new). An added
    /// USER_INPUT, MODEL_RESPONSE or SYSTEM_MESSAGE also joins the conversation's messages, so
    /// the model reads it next; that is refused while a run answers there. A version that is
    /// not the expected one, or a bad path or value, changes nothing.
    pub async fn apply_context_update(
        &self,
        message: &Message,
    ) -> Result<ContextUpdated, CoreError> {
        let MessageContent::ContextUpdate(update) = &message.content else {
            return Err(CoreError::Internal("not a CONTEXT_UPDATE".into()));
        };
        let conversation = message.context_id.clone();
        let joins = update
            .message
            .as_deref()
            .filter(|_| update.operation == ContextOperation::AddMessage)
            .and_then(as_conversation_message);
        if joins.is_some()
            && self
                .engine
                .running()
                .iter()
                .any(|r| r.conversation_id == conversation)
        {
            return Err(CoreError::AddWhileRunning(conversation));
        }
        self.ensure_conversation(&conversation, "Context")?;
        let (update, conv) = (update.clone(), conversation.clone());
        let store = self.engine.store().clone();
        let outcome = tokio::task::spawn_blocking(move || {
            store.write(move |tx| {
                let outcome = tx.apply_context_update(&conv, &update)?;
                if let Some(new) = joins {
                    tx.append_message(&conv, new)?;
                }
                Ok(outcome)
            })
        })
        .await
        .map_err(|err| CoreError::Internal(format!("the update could not be applied: {err}")))??;
        let context = self.engine.store().context(&conversation)?;
        Ok(ContextUpdated { outcome, context })
    }
}
