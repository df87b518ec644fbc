//! Messages as a tree: each has a parent, so edit-and-resend and regenerate add siblings and
//! keep the old branch; a conversation shows one branch, the path from the root to its active
//! leaf.

use rusqlite::{params, Connection, Row};
use serde::{Deserialize, Serialize};
use tessera_protocol::context_doc::SessionMessage;
use tessera_protocol::request::Role;
use tessera_protocol::wire::{JsonObject, Timestamp};

use crate::error::{Entity, Result, StoreError};
use crate::rows::{self, FromRow};
use crate::tx::{ReadTx, WriteTx};
use crate::{clock, conversations, ids, refs, search_backlog, sql, Store};

pub(crate) const SCHEMA_V1: &str = "
CREATE TABLE messages (
    pk              INTEGER PRIMARY KEY,
    conversation_id TEXT NOT NULL REFERENCES conversations (id) ON DELETE CASCADE,
    id              TEXT NOT NULL,
    parent_id       TEXT,
    -- position on its branch: the root is 0 (seed 004 message_index_range counts these)
    depth           INTEGER NOT NULL,
    role            TEXT NOT NULL,
    author_json     TEXT,
    content         TEXT NOT NULL,
    at              TEXT,
    refs_json       TEXT,
    extra_json      TEXT,
    UNIQUE (conversation_id, id),
    -- no cascade here: a long chain would cascade deeper than SQLite's trigger depth; the
    -- conversation's cascade removes the whole tree in one statement
    FOREIGN KEY (conversation_id, parent_id) REFERENCES messages (conversation_id, id)
) STRICT;
CREATE INDEX messages_by_parent ON messages (conversation_id, parent_id);
";

/// A stored message: the seed-004 message with its place in the tree.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct StoredMessage {
    pub id: String,
    pub conversation_id: String,
    pub parent_id: Option<String>,
    /// Position on its branch, the root being 0.
    pub depth: u64,
    pub message: SessionMessage,
}

/// Where a new message goes in the tree.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub enum Parent {
    /// After the active leaf (a new root when the conversation is empty).
    #[default]
    ActiveLeaf,
    /// A new root.
    Root,
    /// After this message.
    Message(String),
    /// Beside this message (same parent): edit-and-resend a user message, regenerate an
    /// answer. The old branch stays.
    SiblingOf(String),
}

/// A message to append.
#[derive(Clone, Debug)]
pub struct NewMessage {
    /// Generated when absent.
    pub id: Option<String>,
    pub parent: Parent,
    /// Whether the new message becomes the active leaf (the branch shown).
    pub activate: bool,
    /// `at` is set to now when absent.
    pub message: SessionMessage,
}

impl NewMessage {
    /// After the active leaf, becoming the active leaf.
    pub fn new(message: SessionMessage) -> Self {
        Self {
            id: None,
            parent: Parent::ActiveLeaf,
            activate: true,
            message,
        }
    }

    pub fn with_parent(mut self, parent: Parent) -> Self {
        self.parent = parent;
        self
    }

    pub fn with_id(mut self, id: impl Into<String>) -> Self {
        self.id = Some(id.into());
        self
    }
}

/// A seed-004 message with only a role and content.
pub fn text_message(role: Role, content: impl Into<String>) -> SessionMessage {
    SessionMessage {
        role,
        content: content.into(),
        author: None,
        at: None,
        refs: None,
        extra: JsonObject::new(),
    }
}

const COLUMNS: &str =
    "m.id, m.conversation_id, m.parent_id, m.depth, m.role, m.author_json, m.content, m.at, \
     m.refs_json, m.extra_json";

impl FromRow for StoredMessage {
    fn from_row(row: &Row<'_>) -> Result<Self> {
        Ok(StoredMessage {
            id: row.get(0)?,
            conversation_id: row.get(1)?,
            parent_id: row.get(2)?,
            depth: sql::to_u64("message depth", row.get(3)?)?,
            message: SessionMessage {
                role: Role::from_wire(&row.get::<_, String>(4)?),
                author: sql::opt_parse("message author", row.get(5)?)?,
                content: row.get(6)?,
                at: row.get::<_, Option<String>>(7)?.map(Timestamp::new),
                refs: sql::opt_parse("message refs", row.get(8)?)?,
                extra: sql::parse_extra(row.get(9)?)?,
            },
        })
    }
}

pub(crate) fn get(
    conn: &Connection,
    conversation_id: &str,
    id: &str,
) -> Result<Option<StoredMessage>> {
    rows::optional(
        conn,
        &format!("SELECT {COLUMNS} FROM messages m WHERE m.conversation_id = ?1 AND m.id = ?2"),
        [conversation_id, id],
    )
}

fn depth_and_parent(
    conn: &Connection,
    conversation_id: &str,
    id: &str,
) -> Result<(i64, Option<String>)> {
    rows::optional(
        conn,
        "SELECT depth, parent_id FROM messages WHERE conversation_id = ?1 AND id = ?2",
        [conversation_id, id],
    )?
    .ok_or_else(|| StoreError::not_found(Entity::Message, conversation_id, id))
}

/// The path from the root to `leaf`, at most `limit` messages counted from the leaf, in order.
pub(crate) fn branch(
    conn: &Connection,
    conversation_id: &str,
    leaf: &str,
    limit: Option<u64>,
) -> Result<Vec<StoredMessage>> {
    let limit = i64::try_from(limit.unwrap_or(u64::MAX)).unwrap_or(i64::MAX);
    rows::all(
        conn,
        &format!(
            "WITH RECURSIVE branch (pk, parent_id, n) AS (
             SELECT pk, parent_id, 1 FROM messages WHERE conversation_id = ?1 AND id = ?2
             UNION ALL
             SELECT m.pk, m.parent_id, b.n + 1 FROM branch b
             JOIN messages m ON m.conversation_id = ?1 AND m.id = b.parent_id
             WHERE b.n < ?3
         )
         SELECT {COLUMNS} FROM branch b JOIN messages m ON m.pk = b.pk ORDER BY b.n DESC"
        ),
        params![conversation_id, leaf, limit],
    )
}

/// Inserts a message exactly as given (the parent must exist already); indexes it for search.
pub(crate) fn insert(tx: &WriteTx<'_>, stored: &StoredMessage) -> Result<()> {
    let m = &stored.message;
    tx.conn
        .prepare_cached(
            "INSERT INTO messages (conversation_id, id, parent_id, depth, role, author_json,
                 content, at, refs_json, extra_json)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)",
        )?
        .execute(params![
            stored.conversation_id,
            stored.id,
            stored.parent_id,
            sql::to_i64("message depth", stored.depth)?,
            m.role.as_str(),
            sql::opt_json("message author", m.author.as_ref())?,
            m.content,
            m.at.as_ref().map(Timestamp::as_str),
            sql::opt_json("message refs", m.refs.as_ref())?,
            sql::extra_json(&m.extra)?,
        ])?;
    // The row just inserted (`RETURNING` would build a temporary table for its answer).
    let pk = tx.conn.last_insert_rowid();
    search_backlog::index_message(tx, pk, &m.content)
}

impl ReadTx<'_> {
    /// One message.
    pub fn message(&self, conversation_id: &str, id: &str) -> Result<Option<StoredMessage>> {
        get(self.conn, conversation_id, id)
    }

    /// The branch shown: root to active leaf.
    pub fn active_branch(&self, conversation_id: &str) -> Result<Vec<StoredMessage>> {
        self.active_branch_tail(conversation_id, u64::MAX)
    }

    /// The newest `count` messages of the branch shown, oldest first.
    pub fn active_branch_tail(
        &self,
        conversation_id: &str,
        count: u64,
    ) -> Result<Vec<StoredMessage>> {
        match conversations::active_leaf(self.conn, conversation_id)? {
            Some(leaf) => branch(self.conn, conversation_id, &leaf, Some(count)),
            None => Ok(Vec::new()),
        }
    }

    /// The path from the root to any message.
    pub fn branch_to(&self, conversation_id: &str, message_id: &str) -> Result<Vec<StoredMessage>> {
        let path = branch(self.conn, conversation_id, message_id, None)?;
        if path.is_empty() {
            return Err(StoreError::not_found(
                Entity::Message,
                conversation_id,
                message_id,
            ));
        }
        Ok(path)
    }

    /// The children of a message (`None`: the roots), oldest first.
    pub fn children(
        &self,
        conversation_id: &str,
        parent_id: Option<&str>,
    ) -> Result<Vec<StoredMessage>> {
        rows::all(
            self.conn,
            &format!(
                "SELECT {COLUMNS} FROM messages m
                 WHERE m.conversation_id = ?1 AND m.parent_id IS ?2 ORDER BY m.pk"
            ),
            params![conversation_id, parent_id],
        )
    }

    /// The ids of a message and its siblings, oldest first (for "2 of 3" navigation).
    pub fn sibling_ids(&self, conversation_id: &str, id: &str) -> Result<Vec<String>> {
        let (_, parent) = depth_and_parent(self.conn, conversation_id, id)?;
        rows::all(
            self.conn,
            "SELECT id FROM messages WHERE conversation_id = ?1 AND parent_id IS ?2 ORDER BY pk",
            params![conversation_id, parent],
        )
    }

    /// The shape of the tree: each message's id and parent id, in the order written (cheaper
    /// than [`ReadTx::message_tree`] when the contents are not needed).
    pub fn message_links(&self, conversation_id: &str) -> Result<Vec<(String, Option<String>)>> {
        rows::all(
            self.conn,
            "SELECT id, parent_id FROM messages WHERE conversation_id = ?1 ORDER BY pk",
            [conversation_id],
        )
    }

    /// Every message of the conversation, every branch, in the order written.
    pub fn message_tree(&self, conversation_id: &str) -> Result<Vec<StoredMessage>> {
        rows::all(
            self.conn,
            &format!("SELECT {COLUMNS} FROM messages m WHERE m.conversation_id = ?1 ORDER BY m.pk"),
            [conversation_id],
        )
    }
}

impl WriteTx<'_> {
    /// Appends a message where `new.parent` says; it becomes the active leaf unless
    /// `new.activate` is false. Its refs must name evidences of this conversation, and their
    /// selectors must select something.
    pub fn append_message(
        &mut self,
        conversation_id: &str,
        new: NewMessage,
    ) -> Result<StoredMessage> {
        let leaf = conversations::active_leaf(self.conn, conversation_id)?;
        let parent_id = match new.parent {
            Parent::ActiveLeaf => leaf,
            Parent::Root => None,
            Parent::Message(id) => Some(id),
            Parent::SiblingOf(id) => depth_and_parent(self.conn, conversation_id, &id)?.1,
        };
        let depth = match &parent_id {
            Some(parent) => depth_and_parent(self.conn, conversation_id, parent)?.0 + 1,
            None => 0,
        };
        let id = new.id.unwrap_or_else(ids::new_id);
        if new_id_taken(self.conn, conversation_id, &id)? {
            return Err(StoreError::exists(Entity::Message, conversation_id, &id));
        }
        let mut message = new.message;
        if message.at.is_none() {
            message.at = Some(clock::now());
        }
        if let Some(list) = &message.refs {
            refs::validate(self.conn, conversation_id, list)?;
        }
        let stored = StoredMessage {
            id,
            conversation_id: conversation_id.to_owned(),
            parent_id,
            depth: sql::to_u64("message depth", depth)?,
            message,
        };
        insert(self, &stored)?;
        if new.activate {
            conversations::set_active_leaf(self.conn, conversation_id, Some(&stored.id))?;
        }
        conversations::touch(self.conn, conversation_id)?;
        Ok(stored)
    }

    /// Shows the branch through `message_id`: its newest descendant leaf (or the message
    /// itself if it has no children) becomes the active leaf, which is returned.
    pub fn switch_branch(&mut self, conversation_id: &str, message_id: &str) -> Result<String> {
        depth_and_parent(self.conn, conversation_id, message_id)?;
        let mut leaf = message_id.to_owned();
        while let Some(child) = rows::optional::<String>(
            self.conn,
            "SELECT id FROM messages WHERE conversation_id = ?1 AND parent_id = ?2
             ORDER BY pk DESC LIMIT 1",
            [conversation_id, leaf.as_str()],
        )? {
            leaf = child;
        }
        conversations::set_active_leaf(self.conn, conversation_id, Some(&leaf))?;
        conversations::touch(self.conn, conversation_id)?;
        Ok(leaf)
    }

    /// Shows the branch that ends at `message_id` (its descendants, if any, stay in the tree
    /// off the branch shown): what a regenerated answer is then appended after.
    pub fn show_branch_to(&mut self, conversation_id: &str, message_id: &str) -> Result<()> {
        depth_and_parent(self.conn, conversation_id, message_id)?;
        conversations::set_active_leaf(self.conn, conversation_id, Some(message_id))?;
        conversations::touch(self.conn, conversation_id)
    }
}

fn new_id_taken(conn: &Connection, conversation_id: &str, id: &str) -> Result<bool> {
    rows::exists(
        conn,
        "SELECT 1 FROM messages WHERE conversation_id = ?1 AND id = ?2",
        [conversation_id, id],
    )
}

impl Store {
    /// Appends a message; see [`WriteTx::append_message`].
    pub fn append_message(&self, conversation_id: &str, new: NewMessage) -> Result<StoredMessage> {
        let conversation_id = conversation_id.to_owned();
        self.write(move |tx| tx.append_message(&conversation_id, new))
    }

    /// Switches the branch shown; see [`WriteTx::switch_branch`].
    pub fn switch_branch(&self, conversation_id: &str, message_id: &str) -> Result<String> {
        let (c, m) = (conversation_id.to_owned(), message_id.to_owned());
        self.write(move |tx| tx.switch_branch(&c, &m))
    }

    /// Shows the branch that ends at a message; see [`WriteTx::show_branch_to`].
    pub fn show_branch_to(&self, conversation_id: &str, message_id: &str) -> Result<()> {
        let (c, m) = (conversation_id.to_owned(), message_id.to_owned());
        self.write(move |tx| tx.show_branch_to(&c, &m))
    }

    /// The branch shown, root to active leaf.
    pub fn active_branch(&self, conversation_id: &str) -> Result<Vec<StoredMessage>> {
        self.read(|r| r.active_branch(conversation_id))
    }

    /// The newest `count` messages of the branch shown, oldest first.
    pub fn active_branch_tail(
        &self,
        conversation_id: &str,
        count: u64,
    ) -> Result<Vec<StoredMessage>> {
        self.read(|r| r.active_branch_tail(conversation_id, count))
    }

    /// One message.
    pub fn message(&self, conversation_id: &str, id: &str) -> Result<Option<StoredMessage>> {
        self.read(|r| r.message(conversation_id, id))
    }
}
