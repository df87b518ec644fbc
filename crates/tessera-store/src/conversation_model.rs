//! The provider and model a person picked for one conversation: its next runs use them instead
//! of the default provider's. Kept beside the conversation (a column of its row), so it goes
//! when the conversation does.

use rusqlite::params;
use serde::{Deserialize, Serialize};

use crate::conversations::ensure_exists;
use crate::error::{Entity, Result, StoreError};
use crate::tx::{ReadTx, WriteTx};
use crate::Store;
use crate::{rows, sql};

pub(crate) const SCHEMA_V6: &str = "
ALTER TABLE conversations ADD COLUMN model_json TEXT;
";

/// A provider (saved, or a preset) and one of its models.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, ts_rs::TS)]
pub struct ConversationModel {
    pub provider: String,
    pub model: String,
}

impl ReadTx<'_> {
    /// The model conversation `id` was set to, if any.
    pub fn conversation_model(&self, id: &str) -> Result<Option<ConversationModel>> {
        let found: Option<Option<String>> = rows::optional(
            self.conn,
            "SELECT model_json FROM conversations WHERE id = ?1",
            [id],
        )?;
        match found {
            None => Err(StoreError::NotFound {
                entity: Entity::Conversation,
                conversation_id: None,
                id: id.to_owned(),
            }),
            Some(json) => sql::opt_parse("conversation model", json),
        }
    }
}

impl WriteTx<'_> {
    /// Sets (or with None clears) the model of conversation `id`.
    pub fn set_conversation_model(
        &mut self,
        id: &str,
        model: Option<&ConversationModel>,
    ) -> Result<()> {
        ensure_exists(self.conn, id)?;
        self.conn
            .prepare_cached("UPDATE conversations SET model_json = ?2 WHERE id = ?1")?
            .execute(params![id, sql::opt_json("conversation model", model)?])?;
        Ok(())
    }
}

impl Store {
    /// See [`ReadTx::conversation_model`].
    pub fn conversation_model(&self, id: &str) -> Result<Option<ConversationModel>> {
        self.read(|r| r.conversation_model(id))
    }

    /// See [`WriteTx::set_conversation_model`].
    pub fn set_conversation_model(&self, id: &str, model: Option<ConversationModel>) -> Result<()> {
        let id = id.to_owned();
        self.write(move |tx| tx.set_conversation_model(&id, model.as_ref()))
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use crate::conversations::NewConversation;

    #[test]
    fn a_conversation_remembers_its_model_until_it_is_cleared_or_deleted() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(dir.path()).unwrap();
        let c = store
            .create_conversation(NewConversation {
                title: "t".into(),
                ..NewConversation::default()
            })
            .unwrap();
        assert_eq!(store.conversation_model(&c.id).unwrap(), None);
        let pick = ConversationModel {
            provider: "deepseek".into(),
            model: "deepseek-chat".into(),
        };
        store
            .set_conversation_model(&c.id, Some(pick.clone()))
            .unwrap();
        drop(store);
        let store = Store::open(dir.path()).unwrap();
        assert_eq!(store.conversation_model(&c.id).unwrap(), Some(pick));
        store.set_conversation_model(&c.id, None).unwrap();
        assert_eq!(store.conversation_model(&c.id).unwrap(), None);
        assert!(matches!(
            store.set_conversation_model("nope", None),
            Err(StoreError::NotFound { .. })
        ));
        assert!(matches!(
            store.conversation_model("nope"),
            Err(StoreError::NotFound { .. })
        ));
    }
}
