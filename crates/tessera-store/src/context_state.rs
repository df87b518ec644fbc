//! MCP-CP context state (seed 000 §8): per context (the conversation of the same id) a state
//! object (currentTopic, userPreferences, activeTools, customState), a history of MCP-CP
//! messages, a version bumped by every update and a change log. `CONTEXT_UPDATE` operations
//! apply here; one that names an expected version fails, changing nothing, when another update
//! came first (§8.3).

use rusqlite::{params, Connection, Row};
use serde_json::{Map, Value};
use tessera_protocol::mcp_cp::{
    ContextOperation, ContextState, ContextUpdate, HistoryFilter, McpContext, Message,
};
use tessera_protocol::wire::{JsonObject, Timestamp};

use crate::error::{Result, StoreError};
use crate::rows::{self, FromRow};
use crate::state_path;
use crate::tx::{ReadTx, WriteTx};
use crate::{clock, conversations, sql, Store};

pub(crate) const SCHEMA_V3: &str = "
CREATE TABLE contexts (
    conversation_id TEXT PRIMARY KEY NOT NULL REFERENCES conversations (id) ON DELETE CASCADE,
    created_at      TEXT NOT NULL,
    updated_at      TEXT NOT NULL,
    version         INTEGER NOT NULL,
    state_json      TEXT NOT NULL,
    metadata_json   TEXT
) STRICT;
CREATE TABLE context_messages (
    pk              INTEGER PRIMARY KEY,
    conversation_id TEXT NOT NULL REFERENCES contexts (conversation_id) ON DELETE CASCADE,
    message_id      TEXT NOT NULL,
    message_type    TEXT NOT NULL,
    sender_type     TEXT,
    timestamp       TEXT,
    timestamp_ms    INTEGER,
    message_json    TEXT NOT NULL
) STRICT;
CREATE INDEX context_messages_by_context ON context_messages (conversation_id, pk);
CREATE TABLE context_changes (
    conversation_id TEXT NOT NULL REFERENCES contexts (conversation_id) ON DELETE CASCADE,
    version         INTEGER NOT NULL,
    operation_json  TEXT NOT NULL,
    at              TEXT NOT NULL,
    PRIMARY KEY (conversation_id, version)
) STRICT;
";

/// One entry of the change log.
#[derive(Clone, Debug, PartialEq)]
pub struct ContextChange {
    /// The version this change produced.
    pub version: u64,
    pub operation: ContextUpdate,
    pub at: Timestamp,
}

/// What an update did.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ContextUpdateOutcome {
    pub version: u64,
    /// Messages removed from the MCP-CP history by `CLEAR_HISTORY`.
    pub removed_messages: usize,
    /// Conversation messages `CLEAR_HISTORY` took out of what the model reads
    /// ([`crate::history_clearing`]).
    pub cleared_messages: usize,
}

/// A row of `version, operation_json, at`.
impl FromRow for ContextChange {
    fn from_row(row: &Row<'_>) -> Result<Self> {
        Ok(ContextChange {
            version: sql::to_u64("context version", row.get(0)?)?,
            operation: sql::parse("context operation", &row.get::<_, String>(1)?)?,
            at: Timestamp::new(row.get::<_, String>(2)?),
        })
    }
}

/// Version and state of a context, creating an empty one (version 0) on first use.
fn load_or_create(conn: &Connection, context_id: &str) -> Result<(u64, JsonObject)> {
    let row: Option<(i64, String)> = rows::optional(
        conn,
        "SELECT version, state_json FROM contexts WHERE conversation_id = ?1",
        [context_id],
    )?;
    if let Some((version, state)) = row {
        return Ok((
            sql::to_u64("context version", version)?,
            sql::parse("context state", &state)?,
        ));
    }
    conversations::ensure_exists(conn, context_id)?;
    let now = clock::now();
    conn.prepare_cached(
        "INSERT INTO contexts (conversation_id, created_at, updated_at, version, state_json)
         VALUES (?1, ?2, ?2, 0, '{}')",
    )?
    .execute(params![context_id, now.as_str()])?;
    Ok((0, Map::new()))
}

fn add_message(conn: &Connection, context_id: &str, message: &Message) -> Result<()> {
    if message.context_id != context_id {
        return Err(StoreError::InvalidContextUpdate(format!(
            "ADD_MESSAGE carries a message of context {:?}, not {context_id:?}",
            message.context_id
        )));
    }
    let sender = sql::enum_text("sender type", &message.sender.sender_type)?;
    conn.prepare_cached(
        "INSERT INTO context_messages (conversation_id, message_id, message_type, sender_type,
             timestamp, timestamp_ms, message_json)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
    )?
    .execute(params![
        context_id,
        message.message_id,
        message.message_type().as_str(),
        sender,
        message.timestamp.as_str(),
        clock::parse_millis(message.timestamp.as_str()),
        sql::json("context message", message)?,
    ])?;
    Ok(())
}

/// The sender type a `CLEAR_HISTORY` role names: seed-004 roles or MCP-CP sender types.
fn sender_for_role(role: &str) -> String {
    match role.to_ascii_lowercase().as_str() {
        "user" => "USER".into(),
        "assistant" | "model" => "MODEL".into(),
        "system" => "SYSTEM".into(),
        "tool" => "TOOL".into(),
        other => other.to_ascii_uppercase(),
    }
}

fn clear_history(
    conn: &Connection,
    context_id: &str,
    filter: Option<&HistoryFilter>,
) -> Result<usize> {
    let before = crate::history_clearing::before_millis(filter)?;
    let sender = filter.and_then(|f| f.role.as_deref()).map(sender_for_role);
    let message_type = filter.and_then(|f| f.message_type.clone());
    let removed = conn
        .prepare_cached(
            "DELETE FROM context_messages WHERE conversation_id = ?1
                 AND (?2 IS NULL OR timestamp_ms < ?2)
                 AND (?3 IS NULL OR sender_type = ?3)
                 AND (?4 IS NULL OR upper(message_type) = upper(?4))",
        )?
        .execute(params![context_id, before, sender, message_type])?;
    Ok(removed)
}

fn update_state(state: &mut JsonObject, update: &ContextUpdate) -> Result<()> {
    let (Some(path), Some(value)) = (&update.path, &update.value) else {
        return Err(StoreError::InvalidContextUpdate(
            "UPDATE_STATE needs `path` and `value`".into(),
        ));
    };
    let mut next = state.clone();
    state_path::set(&mut next, path, value.clone()).map_err(|e| StoreError::StatePath {
        path: path.clone(),
        reason: e.to_string(),
    })?;
    serde_json::from_value::<ContextState>(Value::Object(next.clone())).map_err(|e| {
        StoreError::StatePath {
            path: path.clone(),
            reason: format!("the state would no longer be valid: {e}"),
        }
    })?;
    *state = next;
    Ok(())
}

impl ReadTx<'_> {
    /// The context as seed 000 §8.1 shows it, for every conversation (None: no conversation
    /// `context_id`): its messages ([`crate::context_history`]), and its state, version 0 and
    /// an empty state until the first update. It was created with its conversation.
    pub fn context(&self, context_id: &str) -> Result<Option<McpContext>> {
        let Some(conversation) = conversations::get(self.conn, context_id)? else {
            return Ok(None);
        };
        let row: Option<(String, i64, String, Option<String>)> = rows::optional(
            self.conn,
            "SELECT updated_at, version, state_json, metadata_json FROM contexts
             WHERE conversation_id = ?1",
            [context_id],
        )?;
        let messages = crate::context_history::history(self, &conversation)?;
        let mut last_update_time = conversation.updated_at.clone();
        let (version, state, metadata) = match row {
            Some((updated_at, version, state, metadata)) => {
                // A message joining touches the conversation, an update the context: the
                // later of the two is the context's last change.
                if clock::parse_millis(&updated_at) > clock::parse_millis(last_update_time.as_str())
                {
                    last_update_time = Timestamp::new(updated_at);
                }
                (
                    sql::to_u64("context version", version)?,
                    sql::parse("context state", &state)?,
                    sql::opt_parse("context metadata", metadata)?,
                )
            }
            None => (0, ContextState::default(), None),
        };
        Ok(Some(McpContext {
            context_id: context_id.to_owned(),
            creation_time: conversation.created_at,
            last_update_time,
            messages,
            state,
            metadata,
            version: Some(version),
            extra: JsonObject::new(),
        }))
    }

    /// The context's state alone (None before the first update), without reading its history.
    pub fn context_state(&self, context_id: &str) -> Result<Option<ContextState>> {
        let state: Option<String> = rows::optional(
            self.conn,
            "SELECT state_json FROM contexts WHERE conversation_id = ?1",
            [context_id],
        )?;
        state.map(|s| sql::parse("context state", &s)).transpose()
    }

    /// The change log after `after_version`, oldest first.
    pub fn context_changes(
        &self,
        context_id: &str,
        after_version: u64,
    ) -> Result<Vec<ContextChange>> {
        rows::all(
            self.conn,
            "SELECT version, operation_json, at FROM context_changes
             WHERE conversation_id = ?1 AND version > ?2 ORDER BY version",
            params![context_id, sql::to_i64("context version", after_version)?],
        )
    }
}

impl WriteTx<'_> {
    /// Applies a `CONTEXT_UPDATE` to the context `context_id` (a conversation id): checks
    /// `expectedVersion`, applies the operation, bumps the version and logs the change.
    pub fn apply_context_update(
        &mut self,
        context_id: &str,
        update: &ContextUpdate,
    ) -> Result<ContextUpdateOutcome> {
        let (current, mut state) = load_or_create(self.conn, context_id)?;
        if let Some(expected) = update.expected_version {
            if expected != current {
                return Err(StoreError::VersionConflict {
                    context_id: context_id.to_owned(),
                    expected,
                    current,
                });
            }
        }
        let mut removed_messages = 0;
        let mut cleared_messages = 0;
        match update.operation {
            ContextOperation::AddMessage => {
                let Some(message) = &update.message else {
                    return Err(StoreError::InvalidContextUpdate(
                        "ADD_MESSAGE needs `message`".into(),
                    ));
                };
                add_message(self.conn, context_id, message)?;
            }
            ContextOperation::UpdateState => update_state(&mut state, update)?,
            ContextOperation::ClearHistory => {
                removed_messages = clear_history(self.conn, context_id, update.filter.as_ref())?;
                cleared_messages = crate::history_clearing::clear_messages(
                    self.conn,
                    context_id,
                    update.filter.as_ref(),
                    current + 1,
                )?;
            }
        }
        let version = current + 1;
        let now = clock::now();
        self.conn
            .prepare_cached(
                "UPDATE contexts SET version = ?2, state_json = ?3, updated_at = ?4
                 WHERE conversation_id = ?1",
            )?
            .execute(params![
                context_id,
                sql::to_i64("context version", version)?,
                sql::json("context state", &state)?,
                now.as_str()
            ])?;
        self.conn
            .prepare_cached(
                "INSERT INTO context_changes (conversation_id, version, operation_json, at)
                 VALUES (?1, ?2, ?3, ?4)",
            )?
            .execute(params![
                context_id,
                sql::to_i64("context version", version)?,
                sql::json("context operation", update)?,
                now.as_str()
            ])?;
        Ok(ContextUpdateOutcome {
            version,
            removed_messages,
            cleared_messages,
        })
    }
}

impl Store {
    /// Applies a `CONTEXT_UPDATE`; see [`WriteTx::apply_context_update`].
    pub fn apply_context_update(
        &self,
        context_id: &str,
        update: ContextUpdate,
    ) -> Result<ContextUpdateOutcome> {
        let c = context_id.to_owned();
        self.write(move |tx| tx.apply_context_update(&c, &update))
    }

    /// The context state and history.
    pub fn context(&self, context_id: &str) -> Result<Option<McpContext>> {
        self.read(|r| r.context(context_id))
    }

    /// The context's state alone; see [`ReadTx::context_state`].
    pub fn context_state(&self, context_id: &str) -> Result<Option<ContextState>> {
        self.read(|r| r.context_state(context_id))
    }

    /// The context and its whole change log, read together.
    pub fn context_view(&self, context_id: &str) -> Result<tessera_protocol::views::ContextView> {
        self.read(|r| {
            Ok(tessera_protocol::views::ContextView {
                context: r.context(context_id)?,
                changes: r
                    .context_changes(context_id, 0)?
                    .into_iter()
                    .map(|c| tessera_protocol::views::ContextChangeView {
                        version: c.version,
                        operation: c.operation,
                        at: c.at,
                    })
                    .collect(),
            })
        })
    }

    /// The change log after a version.
    pub fn context_changes(
        &self,
        context_id: &str,
        after_version: u64,
    ) -> Result<Vec<ContextChange>> {
        self.read(|r| r.context_changes(context_id, after_version))
    }
}
