//! Context blocks (seed 004 `context_blocks`): the units the prompt is assembled from, with
//! priority, token estimate, refs and an optional expiry.

use rusqlite::{params, Connection, Row};
use tessera_protocol::context_doc::ContextBlock;
use tessera_protocol::wire::Timestamp;

use crate::error::Result;
use crate::rows::{self, FromRow};
use crate::tx::{ReadTx, WriteTx};
use crate::{clock, conversations, refs, sql, Store};

pub(crate) const SCHEMA_V1: &str = "
CREATE TABLE context_blocks (
    pk              INTEGER PRIMARY KEY,
    conversation_id TEXT NOT NULL REFERENCES conversations (id) ON DELETE CASCADE,
    block_id        TEXT NOT NULL,
    block_type      TEXT NOT NULL,
    priority        TEXT NOT NULL,
    token_estimate  INTEGER,
    content         TEXT,
    refs_json       TEXT,
    expires_at      TEXT,
    -- expires_at as milliseconds, to filter expired blocks whatever the offset
    expires_ms      INTEGER,
    extra_json      TEXT,
    UNIQUE (conversation_id, block_id)
) STRICT;
";

const COLUMNS: &str =
    "block_id, block_type, priority, token_estimate, content, refs_json, expires_at, extra_json";

impl FromRow for ContextBlock {
    fn from_row(row: &Row<'_>) -> Result<Self> {
        Ok(ContextBlock {
            block_id: row.get(0)?,
            block_type: sql::parse_enum("block type", &row.get::<_, String>(1)?)?,
            priority: sql::parse_enum("block priority", &row.get::<_, String>(2)?)?,
            token_estimate: sql::opt_u64("block token_estimate", row.get(3)?)?,
            content: row.get(4)?,
            refs: sql::opt_parse("block refs", row.get(5)?)?,
            expires_at: row.get::<_, Option<String>>(6)?.map(Timestamp::new),
            extra: sql::parse_extra(row.get(7)?)?,
        })
    }
}

pub(crate) fn list(conn: &Connection, conversation_id: &str) -> Result<Vec<ContextBlock>> {
    rows::all(
        conn,
        &format!("SELECT {COLUMNS} FROM context_blocks WHERE conversation_id = ?1 ORDER BY pk"),
        [conversation_id],
    )
}

pub(crate) fn upsert(conn: &Connection, conversation_id: &str, block: &ContextBlock) -> Result<()> {
    let expires_ms = block
        .expires_at
        .as_ref()
        .and_then(|at| clock::parse_millis(at.as_str()));
    conn.prepare_cached(
        "INSERT INTO context_blocks (conversation_id, block_id, block_type, priority,
             token_estimate, content, refs_json, expires_at, expires_ms, extra_json)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)
         ON CONFLICT (conversation_id, block_id) DO UPDATE SET
             block_type = excluded.block_type, priority = excluded.priority,
             token_estimate = excluded.token_estimate, content = excluded.content,
             refs_json = excluded.refs_json, expires_at = excluded.expires_at,
             expires_ms = excluded.expires_ms, extra_json = excluded.extra_json",
    )?
    .execute(params![
        conversation_id,
        block.block_id,
        sql::enum_text("block type", &block.block_type)?,
        sql::enum_text("block priority", &block.priority)?,
        sql::opt_i64("block token_estimate", block.token_estimate)?,
        block.content,
        sql::opt_json("block refs", block.refs.as_ref())?,
        block.expires_at.as_ref().map(Timestamp::as_str),
        expires_ms,
        sql::extra_json(&block.extra)?,
    ])?;
    Ok(())
}

impl ReadTx<'_> {
    /// Every block, expired ones included, in the order first written.
    pub fn context_blocks(&self, conversation_id: &str) -> Result<Vec<ContextBlock>> {
        list(self.conn, conversation_id)
    }

    /// The blocks not expired now.
    pub fn live_context_blocks(&self, conversation_id: &str) -> Result<Vec<ContextBlock>> {
        rows::all(
            self.conn,
            &format!(
                "SELECT {COLUMNS} FROM context_blocks
                 WHERE conversation_id = ?1 AND (expires_ms IS NULL OR expires_ms > ?2)
                 ORDER BY pk"
            ),
            params![conversation_id, clock::now_millis()],
        )
    }

    /// One block.
    pub fn context_block(
        &self,
        conversation_id: &str,
        block_id: &str,
    ) -> Result<Option<ContextBlock>> {
        rows::optional(
            self.conn,
            &format!(
                "SELECT {COLUMNS} FROM context_blocks WHERE conversation_id = ?1 AND block_id = ?2"
            ),
            [conversation_id, block_id],
        )
    }
}

impl WriteTx<'_> {
    /// Writes a block, replacing the one with the same id. Its refs must name evidences of
    /// this conversation, and their selectors must select something.
    pub fn put_context_block(&mut self, conversation_id: &str, block: &ContextBlock) -> Result<()> {
        conversations::ensure_exists(self.conn, conversation_id)?;
        if let Some(list) = &block.refs {
            refs::validate(self.conn, conversation_id, list)?;
        }
        upsert(self.conn, conversation_id, block)?;
        conversations::touch(self.conn, conversation_id)
    }

    /// Removes a block; returns whether there was one.
    pub fn delete_context_block(&mut self, conversation_id: &str, block_id: &str) -> Result<bool> {
        let n = self
            .conn
            .prepare_cached(
                "DELETE FROM context_blocks WHERE conversation_id = ?1 AND block_id = ?2",
            )?
            .execute([conversation_id, block_id])?;
        Ok(n > 0)
    }
}

impl Store {
    /// Writes a block; see [`WriteTx::put_context_block`].
    pub fn put_context_block(&self, conversation_id: &str, block: ContextBlock) -> Result<()> {
        let conversation_id = conversation_id.to_owned();
        self.write(move |tx| tx.put_context_block(&conversation_id, &block))
    }

    /// Every block of the conversation.
    pub fn context_blocks(&self, conversation_id: &str) -> Result<Vec<ContextBlock>> {
        self.read(|r| r.context_blocks(conversation_id))
    }
}
