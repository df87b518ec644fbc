//! The conversation list and one conversation: list and search, show (the branch shown and
//! where it branches), rename, pin, archive, delete, export and import.

use std::collections::{BTreeMap, HashMap, HashSet};

use serde_json::Value;
use tessera_protocol::Problem;
use tessera_store::conversations::Conversation;
pub use tessera_store::conversations::ConversationFilter;
use tessera_store::import::ImportReport;
use tessera_store::{ReadTx, StoreError, StoredMessage};

use crate::views::conversations::{
    ConversationDeleted, ConversationDetail, ConversationEdit, ConversationSummary, ExportFormat,
};
use crate::{App, CoreError};

/// What an import did: the conversation written, or every problem found (nothing written).
pub type ImportOutcome = Result<ImportReport, Vec<Problem>>;

impl App {
    /// Fails with [`CoreError::NoConversation`] unless conversation `id` exists.
    pub fn require_conversation(&self, id: &str) -> Result<Conversation, CoreError> {
        self.engine
            .store()
            .conversation(id)?
            .ok_or_else(|| CoreError::NoConversation(id.to_owned()))
    }

    /// Whether conversation `id` exists.
    pub fn has_conversation(&self, id: &str) -> Result<bool, CoreError> {
        Ok(self.engine.store().conversation(id)?.is_some())
    }

    /// Creates conversation `id` when it does not exist yet, titled by `title`'s first line.
    pub fn ensure_conversation(&self, id: &str, title: &str) -> Result<(), CoreError> {
        let store = self.engine.store();
        if !store.conversation_exists(id)? {
            tessera_engine::conversation_start::start_conversation(store, Some(id), title)?;
        }
        Ok(())
    }

    /// Refuses ([`CoreError::RunInProgress`]) what cannot be done while a run answers in
    /// conversation `id`; `doing` says what was asked.
    pub fn refuse_while_running(&self, id: &str, doing: &str) -> Result<(), CoreError> {
        match self
            .engine
            .running()
            .into_iter()
            .find(|r| r.conversation_id == id)
        {
            Some(run) => Err(CoreError::RunInProgress {
                conversation: id.to_owned(),
                run_id: run.run_id,
                doing: doing.to_owned(),
            }),
            None => Ok(()),
        }
    }

    /// Pinned first, then the most recently updated; with `search`, only the conversations
    /// whose title or messages hold every word of it, each with the newest match.
    pub fn conversations(
        &self,
        filter: &ConversationFilter,
        search: Option<&str>,
    ) -> Result<Vec<ConversationSummary>, CoreError> {
        if search.is_some() {
            self.engine.store().catch_up_search_index()?;
        }
        Ok(self.engine.store().read(|r| match search {
            None => r
                .conversations(filter)?
                .into_iter()
                .map(|c| listed_row(r, c))
                .collect::<tessera_store::Result<Vec<_>>>(),
            Some(q) => r
                .search_conversations(q, filter)?
                .into_iter()
                .map(|found| {
                    Ok(ConversationSummary {
                        found: Some(found.message),
                        ..listed_row(r, found.conversation)?
                    })
                })
                .collect(),
        })?)
    }

    /// The conversation and the messages of the branch shown, with where it branches.
    pub fn conversation_detail(&self, id: &str) -> Result<ConversationDetail, CoreError> {
        let found = self.engine.store().read(|r| {
            let Some(conversation) = r.conversation(id)? else {
                return Ok(None);
            };
            Ok(Some((
                conversation,
                r.active_branch(id)?,
                r.message_links(id)?,
                r.conversation_model(id)?,
                r.waits_for_person(id)?,
            )))
        })?;
        let (conversation, messages, links, model, waits) =
            found.ok_or_else(|| CoreError::NoConversation(id.to_owned()))?;
        let count = messages.len() as u64;
        let (siblings, off_branch) = branching(&messages, &links);
        Ok(ConversationDetail {
            conversation: listed(conversation, count, waits),
            messages,
            siblings,
            off_branch,
            model,
        })
    }

    /// Renames, pins or archives conversation `id`.
    pub fn edit_conversation(
        &self,
        id: &str,
        edit: ConversationEdit,
    ) -> Result<ConversationSummary, CoreError> {
        self.require_conversation(id)?;
        let store = self.engine.store();
        let conversation = store.update_conversation(id, edit.into())?;
        Ok(store.read(|r| listed_row(r, conversation))?)
    }

    /// Deletes conversation `id` everywhere (rows, search index, event log, attachments no
    /// other conversation uses). Refused while a run answers in it, so no run writes into
    /// nothing.
    pub fn delete_conversation(&self, id: &str) -> Result<ConversationDeleted, CoreError> {
        self.require_conversation(id)?;
        self.refuse_while_running(id, "deleting it")?;
        let report = self.engine.store().delete_conversation(id)?;
        Ok(ConversationDeleted {
            deleted: id.to_owned(),
            attachments_removed: report.attachments_removed.len() as u64,
        })
    }

    /// Conversation `id` as a document: the seed-004 context document, the MCP-CP messages,
    /// or (as a JSON string) the branch shown as a Markdown transcript.
    pub fn export_conversation(&self, id: &str, format: ExportFormat) -> Result<Value, CoreError> {
        self.require_conversation(id)?;
        let store = self.engine.store();
        Ok(match format {
            ExportFormat::Context => store.export_document_json(id)?,
            ExportFormat::Messages => serde_json::to_value(store.export_mcp_messages(id)?)?,
            ExportFormat::Markdown => Value::String(store.export_markdown(id)?),
        })
    }

    /// Imports a context document (an object with `schema_version`) or a list of MCP-CP
    /// messages as a new conversation; `source` names where it came from in the error for any
    /// other shape. Every problem is found before anything is written.
    pub fn import_conversation(
        &self,
        value: &Value,
        source: &str,
    ) -> Result<ImportOutcome, CoreError> {
        self.import_conversation_as(value, source, false)
    }

    /// [`App::import_conversation`]; a document whose conversation is stored already is
    /// [`CoreError::ConversationExists`] unless `as_copy`, which imports it under a new
    /// conversation id (the ids inside a conversation are its own), leaving the stored one as
    /// it is.
    pub fn import_conversation_as(
        &self,
        value: &Value,
        source: &str,
        as_copy: bool,
    ) -> Result<ImportOutcome, CoreError> {
        let store = self.engine.store();
        let mut value = value.clone();
        if as_copy {
            give_new_conversation_id(&mut value, &uuid::Uuid::now_v7().to_string());
        } else if let Some(id) = conversation_id_of(&value) {
            if let Some(stored) = store.conversation(id)? {
                return Err(CoreError::ConversationExists {
                    id: stored.id,
                    title: stored.title,
                });
            }
        }
        let result = match &value {
            Value::Object(map) if map.contains_key("schema_version") => {
                store.import_document(&value)
            }
            Value::Array(list) => store.import_mcp_messages(list),
            _ => return Err(CoreError::UnknownShape(source.to_owned())),
        };
        match result {
            Ok(report) => Ok(Ok(report)),
            Err(StoreError::InvalidDocument { problems }) => Ok(Err(problems)),
            Err(other) => Err(other.into()),
        }
    }
}

/// The conversation an import names: a context document's session id, or the `contextId` of
/// the first of a list of MCP-CP messages.
fn conversation_id_of(value: &Value) -> Option<&str> {
    match value {
        Value::Object(map) => {
            let session = map.get("session")?;
            session
                .get("session_id")
                .or_else(|| session.get("id"))
                .and_then(Value::as_str)
        }
        Value::Array(list) => list.first()?.get("contextId")?.as_str(),
        _ => None,
    }
}

/// Puts `id` wherever an import reads its conversation's id.
fn give_new_conversation_id(value: &mut Value, id: &str) {
    match value {
        Value::Object(map) => {
            if let Some(Value::Object(session)) = map.get_mut("session") {
                session.insert("session_id".into(), Value::String(id.to_owned()));
                if session.contains_key("id") {
                    session.insert("id".into(), Value::String(id.to_owned()));
                }
            }
        }
        Value::Array(list) => {
            for message in list.iter_mut().filter_map(Value::as_object_mut) {
                if message.contains_key("contextId") {
                    message.insert("contextId".into(), Value::String(id.to_owned()));
                }
            }
        }
        _ => {}
    }
}

fn listed(conversation: Conversation, message_count: u64, waits: bool) -> ConversationSummary {
    ConversationSummary {
        conversation,
        message_count,
        waits_for_person: waits,
        found: None,
    }
}

/// The conversation as the list shows it; `message_count` is the length of the branch shown
/// (the active leaf's depth: one indexed lookup), `waits_for_person` another indexed lookup.
fn listed_row(
    r: &ReadTx<'_>,
    conversation: Conversation,
) -> tessera_store::Result<ConversationSummary> {
    let count = match &conversation.active_leaf_id {
        Some(leaf) => r
            .message(&conversation.id, leaf)?
            .map_or(0, |m| m.depth + 1),
        None => 0,
    };
    let waits = r.waits_for_person(&conversation.id)?;
    Ok(listed(conversation, count, waits))
}

/// For the branch `shown`, given the tree's `(id, parent)` links in the order written: each
/// shown message's siblings (only those that have some) and the messages off the branch.
fn branching(
    shown: &[StoredMessage],
    links: &[(String, Option<String>)],
) -> (BTreeMap<String, Vec<String>>, Vec<String>) {
    let mut children: HashMap<Option<&str>, Vec<&str>> = HashMap::new();
    for (id, parent) in links {
        children.entry(parent.as_deref()).or_default().push(id);
    }
    let mut siblings = BTreeMap::new();
    for m in shown {
        if let Some(ids) = children
            .get(&m.parent_id.as_deref())
            .filter(|ids| ids.len() > 1)
        {
            siblings.insert(
                m.id.clone(),
                ids.iter().map(|id| (*id).to_owned()).collect(),
            );
        }
    }
    let on: HashSet<&str> = shown.iter().map(|m| m.id.as_str()).collect();
    let off = links
        .iter()
        .filter(|(id, _)| !on.contains(id.as_str()))
        .map(|(id, _)| id.clone())
        .collect();
    (siblings, off)
}
