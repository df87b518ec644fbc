//! The conversation list (seed 004's session, plus what the app shows: title, pinned,
//! archived) and deleting a conversation everywhere.

use rusqlite::{params, Row};
use serde::{Deserialize, Serialize};
use tessera_protocol::context_doc::Actor;
use tessera_protocol::wire::{JsonObject, Timestamp};

use crate::error::{Entity, Result, StoreError};
use crate::rows::{self, FromRow};
use crate::sql;
use crate::tx::{AfterCommit, ReadTx, WriteTx};
use crate::{attachments, clock, ids, Store};

pub(crate) const SCHEMA_V1: &str = "
CREATE TABLE conversations (
    id              TEXT PRIMARY KEY NOT NULL,
    title           TEXT NOT NULL DEFAULT '',
    created_at      TEXT NOT NULL,
    updated_at      TEXT NOT NULL,
    -- updated_at as milliseconds, so the list sorts right whatever offset a timestamp has
    updated_ms      INTEGER NOT NULL,
    pinned          INTEGER NOT NULL DEFAULT 0,
    archived        INTEGER NOT NULL DEFAULT 0,
    active_leaf_id  TEXT,
    locale          TEXT,
    actor_json      TEXT,
    -- unknown fields of an imported document, kept for its export
    doc_extra_json  TEXT,
    -- events get strictly increasing seqs even after folding deleted the newest ones
    next_event_seq  INTEGER NOT NULL DEFAULT 1
) STRICT;
CREATE INDEX conversations_by_recency ON conversations (archived, pinned DESC, updated_ms DESC);
";

/// A conversation as the list shows it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct Conversation {
    pub id: String,
    pub title: String,
    pub created_at: Timestamp,
    pub updated_at: Timestamp,
    pub pinned: bool,
    pub archived: bool,
    /// The leaf of the branch shown; `None` until the first message.
    pub active_leaf_id: Option<String>,
    pub locale: Option<String>,
    /// Seed 004 `meta.actor`: whom the conversation serves and which agent answers.
    pub actor: Option<Actor>,
    /// The project it belongs to, if any.
    #[serde(default)]
    pub project_id: Option<String>,
}

/// A conversation to create. `id` and `created_at` are generated when absent.
#[derive(Clone, Debug, Default)]
pub struct NewConversation {
    pub id: Option<String>,
    pub title: String,
    pub locale: Option<String>,
    pub actor: Option<Actor>,
    pub created_at: Option<Timestamp>,
    /// The project's id.
    pub project_id: Option<String>,
}

/// Changes to a conversation's list attributes; `None` leaves a field as it is.
#[derive(Clone, Debug, Default)]
pub struct ConversationPatch {
    pub title: Option<String>,
    pub pinned: Option<bool>,
    pub archived: Option<bool>,
    pub locale: Option<Option<String>>,
    pub actor: Option<Option<Actor>>,
}

/// Which conversations to list: pinned first, then the most recently updated.
#[derive(Clone, Debug, Default)]
pub struct ConversationFilter {
    /// `Some(false)`: only active ones; `Some(true)`: only archived ones; `None`: all.
    pub archived: Option<bool>,
    pub limit: Option<usize>,
    pub offset: usize,
}

/// What deleting a conversation removed besides its rows.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct DeleteReport {
    /// Attachment files no other evidence referenced, deleted after the commit.
    pub attachments_removed: Vec<String>,
}

/// Fields of an imported document this version does not model, by where they were.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub(crate) struct DocExtras {
    #[serde(default, skip_serializing_if = "JsonObject::is_empty")]
    pub doc: JsonObject,
    #[serde(default, skip_serializing_if = "JsonObject::is_empty")]
    pub meta: JsonObject,
    #[serde(default, skip_serializing_if = "JsonObject::is_empty")]
    pub session: JsonObject,
    #[serde(default, skip_serializing_if = "JsonObject::is_empty")]
    pub task_state: JsonObject,
    #[serde(default, skip_serializing_if = "JsonObject::is_empty")]
    pub todo_list: JsonObject,
    #[serde(default, skip_serializing_if = "JsonObject::is_empty")]
    pub tool_state: JsonObject,
}

impl DocExtras {
    fn is_empty(&self) -> bool {
        self == &DocExtras::default()
    }
}

/// How many conversations [`Store::conversation_exists`] remembers.
const KNOWN_CONVERSATIONS: usize = 4096;

pub(crate) const COLUMNS: &str =
    "id, title, created_at, updated_at, pinned, archived, active_leaf_id, locale, actor_json, project_id";

/// A row of [`COLUMNS`].
impl FromRow for Conversation {
    fn from_row(row: &Row<'_>) -> Result<Self> {
        Ok(Conversation {
            id: row.get(0)?,
            title: row.get(1)?,
            created_at: Timestamp::new(row.get::<_, String>(2)?),
            updated_at: Timestamp::new(row.get::<_, String>(3)?),
            pinned: row.get(4)?,
            archived: row.get(5)?,
            active_leaf_id: row.get(6)?,
            locale: row.get(7)?,
            actor: sql::opt_parse("conversation actor", row.get(8)?)?,
            project_id: row.get(9)?,
        })
    }
}

fn millis_of(at: &Timestamp) -> i64 {
    clock::parse_millis(at.as_str()).unwrap_or(0)
}

pub(crate) fn get(conn: &rusqlite::Connection, id: &str) -> Result<Option<Conversation>> {
    rows::optional(
        conn,
        &format!("SELECT {COLUMNS} FROM conversations WHERE id = ?1"),
        [id],
    )
}

pub(crate) fn require(conn: &rusqlite::Connection, id: &str) -> Result<Conversation> {
    get(conn, id)?.ok_or_else(|| StoreError::NotFound {
        entity: Entity::Conversation,
        conversation_id: None,
        id: id.to_owned(),
    })
}

/// Fails unless the conversation exists (cheaper than [`require`]).
pub(crate) fn ensure_exists(conn: &rusqlite::Connection, id: &str) -> Result<()> {
    let found = rows::exists(conn, "SELECT 1 FROM conversations WHERE id = ?1", [id])?;
    found.then_some(()).ok_or_else(|| StoreError::NotFound {
        entity: Entity::Conversation,
        conversation_id: None,
        id: id.to_owned(),
    })
}

pub(crate) fn active_leaf(conn: &rusqlite::Connection, id: &str) -> Result<Option<String>> {
    let leaf: Option<Option<String>> = rows::optional(
        conn,
        "SELECT active_leaf_id FROM conversations WHERE id = ?1",
        [id],
    )?;
    leaf.ok_or_else(|| StoreError::NotFound {
        entity: Entity::Conversation,
        conversation_id: None,
        id: id.to_owned(),
    })
}

pub(crate) fn set_active_leaf(
    conn: &rusqlite::Connection,
    id: &str,
    leaf: Option<&str>,
) -> Result<()> {
    conn.prepare_cached("UPDATE conversations SET active_leaf_id = ?2 WHERE id = ?1")?
        .execute(params![id, leaf])?;
    Ok(())
}

/// Marks the conversation as changed now (it moves up the list).
pub(crate) fn touch(conn: &rusqlite::Connection, id: &str) -> Result<()> {
    let now = clock::now();
    conn.prepare_cached("UPDATE conversations SET updated_at = ?2, updated_ms = ?3 WHERE id = ?1")?
        .execute(params![id, now.as_str(), millis_of(&now)])?;
    Ok(())
}

pub(crate) fn doc_extras(conn: &rusqlite::Connection, id: &str) -> Result<DocExtras> {
    let text: Option<String> = rows::optional::<Option<String>>(
        conn,
        "SELECT doc_extra_json FROM conversations WHERE id = ?1",
        [id],
    )?
    .flatten();
    Ok(sql::opt_parse("document extras", text)?.unwrap_or_default())
}

/// Inserts a conversation row exactly as given (import keeps times and the active leaf).
pub(crate) fn insert(
    conn: &rusqlite::Connection,
    conversation: &Conversation,
    extras: &DocExtras,
) -> Result<()> {
    if get(conn, &conversation.id)?.is_some() {
        return Err(StoreError::AlreadyExists {
            entity: Entity::Conversation,
            conversation_id: None,
            id: conversation.id.clone(),
        });
    }
    let extras = if extras.is_empty() {
        None
    } else {
        Some(sql::json("document extras", extras)?)
    };
    conn.prepare_cached(
        "INSERT INTO conversations (id, title, created_at, updated_at, updated_ms, pinned,
             archived, active_leaf_id, locale, actor_json, doc_extra_json, project_id)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12)",
    )?
    .execute(params![
        conversation.id,
        conversation.title,
        conversation.created_at.as_str(),
        conversation.updated_at.as_str(),
        millis_of(&conversation.updated_at),
        conversation.pinned,
        conversation.archived,
        conversation.active_leaf_id,
        conversation.locale,
        sql::opt_json("conversation actor", conversation.actor.as_ref())?,
        extras,
        conversation.project_id,
    ])?;
    Ok(())
}

/// Restores `updated_at` after an import wrote everything else (writes touch it).
pub(crate) fn set_times(conn: &rusqlite::Connection, conversation: &Conversation) -> Result<()> {
    conn.prepare_cached(
        "UPDATE conversations SET updated_at = ?2, updated_ms = ?3, active_leaf_id = ?4
         WHERE id = ?1",
    )?
    .execute(params![
        conversation.id,
        conversation.updated_at.as_str(),
        millis_of(&conversation.updated_at),
        conversation.active_leaf_id,
    ])?;
    Ok(())
}

impl ReadTx<'_> {
    /// One conversation.
    pub fn conversation(&self, id: &str) -> Result<Option<Conversation>> {
        get(self.conn, id)
    }

    /// Conversations, pinned first, then the most recently updated.
    pub fn conversations(&self, filter: &ConversationFilter) -> Result<Vec<Conversation>> {
        let limit = filter
            .limit
            .map_or(-1, |l| i64::try_from(l).unwrap_or(i64::MAX));
        let offset = i64::try_from(filter.offset).unwrap_or(i64::MAX);
        rows::all(
            self.conn,
            &format!(
                "SELECT {COLUMNS} FROM conversations
                 WHERE ?1 IS NULL OR archived = ?1
                 ORDER BY pinned DESC, updated_ms DESC, id
                 LIMIT ?2 OFFSET ?3"
            ),
            params![filter.archived, limit, offset],
        )
    }
}

impl WriteTx<'_> {
    /// Creates a conversation.
    pub fn create_conversation(&mut self, new: NewConversation) -> Result<Conversation> {
        let now = clock::now();
        let created_at = new.created_at.unwrap_or(now);
        let conversation = Conversation {
            id: new.id.unwrap_or_else(ids::new_id),
            title: new.title,
            updated_at: created_at.clone(),
            created_at,
            pinned: false,
            archived: false,
            active_leaf_id: None,
            locale: new.locale,
            actor: new.actor,
            project_id: new.project_id,
        };
        insert(self.conn, &conversation, &DocExtras::default())?;
        Ok(conversation)
    }

    /// Changes a conversation's title, pin, archive flag, locale or actor.
    pub fn update_conversation(
        &mut self,
        id: &str,
        patch: ConversationPatch,
    ) -> Result<Conversation> {
        let mut conversation = require(self.conn, id)?;
        if let Some(title) = patch.title {
            conversation.title = title;
        }
        if let Some(pinned) = patch.pinned {
            conversation.pinned = pinned;
        }
        if let Some(archived) = patch.archived {
            conversation.archived = archived;
        }
        if let Some(locale) = patch.locale {
            conversation.locale = locale;
        }
        if let Some(actor) = patch.actor {
            conversation.actor = actor;
        }
        conversation.updated_at = clock::now();
        self.conn
            .prepare_cached(
                "UPDATE conversations SET title = ?2, pinned = ?3, archived = ?4, locale = ?5,
                     actor_json = ?6, updated_at = ?7, updated_ms = ?8
                 WHERE id = ?1",
            )?
            .execute(params![
                id,
                conversation.title,
                conversation.pinned,
                conversation.archived,
                conversation.locale,
                sql::opt_json("conversation actor", conversation.actor.as_ref())?,
                conversation.updated_at.as_str(),
                millis_of(&conversation.updated_at),
            ])?;
        Ok(conversation)
    }

    /// Deletes a conversation everywhere: its rows (foreign keys cascade to messages,
    /// evidences, blocks, tasks, tool calls, usage, summary, events, model turns,
    /// interactions, consent grants and context state), its search index entries (triggers),
    /// and, after the commit, the attachment files no other evidence references.
    pub fn delete_conversation(&mut self, id: &str) -> Result<DeleteReport> {
        ensure_exists(self.conn, id)?;
        let candidates = attachments::referenced_by_conversation(self.conn, id)?;
        self.conn
            .prepare_cached("DELETE FROM conversations WHERE id = ?1")?
            .execute([id])?;
        let attachments_removed = attachments::release_unreferenced(self, &candidates)?;
        self.after_commit
            .push(AfterCommit::ConversationGone(id.to_owned()));
        Ok(DeleteReport {
            attachments_removed,
        })
    }
}

impl Store {
    /// Creates a conversation.
    pub fn create_conversation(&self, new: NewConversation) -> Result<Conversation> {
        self.write(move |tx| tx.create_conversation(new))
    }

    /// Whether the conversation exists, known without a read once seen (a direct tool call
    /// asks before each call, and a read after the writer's last commit costs a tenth of the
    /// call's own work). One deleted is asked about again from its commit on.
    pub fn conversation_exists(&self, id: &str) -> Result<bool> {
        let known = &self.writer_context().known_conversations;
        let deletions = {
            let known = known.lock().unwrap_or_else(|e| e.into_inner());
            if known.ids.contains(id) {
                return Ok(true);
            }
            known.deletions
        };
        let exists = self.read(|r| Ok(ensure_exists(r.conn, id).is_ok()))?;
        let mut known = known.lock().unwrap_or_else(|e| e.into_inner());
        // A deletion committed since the read began: what it saw may be gone; read next time.
        if exists && known.deletions == deletions {
            // Bounded: a process that touches many conversations reads some of them again.
            if known.ids.len() >= KNOWN_CONVERSATIONS {
                known.ids.clear();
            }
            known.ids.insert(id.to_owned());
        }
        Ok(exists)
    }

    /// One conversation.
    pub fn conversation(&self, id: &str) -> Result<Option<Conversation>> {
        self.read(|r| r.conversation(id))
    }

    /// The conversation list.
    pub fn conversations(&self, filter: &ConversationFilter) -> Result<Vec<Conversation>> {
        self.read(|r| r.conversations(filter))
    }

    /// Changes a conversation's list attributes.
    pub fn update_conversation(&self, id: &str, patch: ConversationPatch) -> Result<Conversation> {
        let id = id.to_owned();
        self.write(move |tx| tx.update_conversation(&id, patch))
    }

    /// Deletes a conversation everywhere; see [`WriteTx::delete_conversation`].
    pub fn delete_conversation(&self, id: &str) -> Result<DeleteReport> {
        let id = id.to_owned();
        self.write(move |tx| tx.delete_conversation(&id))
    }
}
