//! The rolling summary (seed 004 `session.summary`) that stands in for older messages; its
//! `message_index_range` counts positions on the active branch.

use rusqlite::{params, Connection, Row};
use tessera_protocol::context_doc::Summary;
use tessera_protocol::wire::Timestamp;

use crate::error::Result;
use crate::rows::{self, FromRow};
use crate::tx::{ReadTx, WriteTx};
use crate::{conversations, sql, Store};

pub(crate) const SCHEMA_V1: &str = "
CREATE TABLE summaries (
    conversation_id TEXT PRIMARY KEY NOT NULL REFERENCES conversations (id) ON DELETE CASCADE,
    content         TEXT,
    updated_at      TEXT,
    -- {from, to}: the message indexes covered
    range_json      TEXT,
    range_from      INTEGER GENERATED ALWAYS AS (json_extract(range_json, '$.from')) VIRTUAL,
    range_to        INTEGER GENERATED ALWAYS AS (json_extract(range_json, '$.to')) VIRTUAL,
    extra_json      TEXT
) STRICT;
";

/// A row of `content, updated_at, range_json, extra_json`.
impl FromRow for Summary {
    fn from_row(row: &Row<'_>) -> Result<Self> {
        Ok(Summary {
            content: row.get(0)?,
            updated_at: row.get::<_, Option<String>>(1)?.map(Timestamp::new),
            message_index_range: sql::opt_parse("summary range", row.get(2)?)?,
            extra: sql::parse_extra(row.get(3)?)?,
        })
    }
}

pub(crate) fn get(conn: &Connection, conversation_id: &str) -> Result<Option<Summary>> {
    rows::optional(
        conn,
        "SELECT content, updated_at, range_json, extra_json FROM summaries
         WHERE conversation_id = ?1",
        [conversation_id],
    )
}

pub(crate) fn set(conn: &Connection, conversation_id: &str, summary: &Summary) -> Result<()> {
    conn.prepare_cached(
        "INSERT INTO summaries (conversation_id, content, updated_at, range_json, extra_json)
         VALUES (?1, ?2, ?3, ?4, ?5)
         ON CONFLICT (conversation_id) DO UPDATE SET content = excluded.content,
             updated_at = excluded.updated_at, range_json = excluded.range_json,
             extra_json = excluded.extra_json",
    )?
    .execute(params![
        conversation_id,
        summary.content,
        summary.updated_at.as_ref().map(Timestamp::as_str),
        sql::opt_json("summary range", summary.message_index_range.as_ref())?,
        sql::extra_json(&summary.extra)?,
    ])?;
    Ok(())
}

impl ReadTx<'_> {
    /// The rolling summary, if one was written.
    pub fn summary(&self, conversation_id: &str) -> Result<Option<Summary>> {
        get(self.conn, conversation_id)
    }
}

impl WriteTx<'_> {
    /// Replaces the rolling summary.
    pub fn set_summary(&mut self, conversation_id: &str, summary: &Summary) -> Result<()> {
        conversations::ensure_exists(self.conn, conversation_id)?;
        set(self.conn, conversation_id, summary)?;
        conversations::touch(self.conn, conversation_id)
    }
}

impl Store {
    /// Replaces the rolling summary.
    pub fn set_summary(&self, conversation_id: &str, summary: Summary) -> Result<()> {
        let conversation_id = conversation_id.to_owned();
        self.write(move |tx| tx.set_summary(&conversation_id, &summary))
    }

    /// The rolling summary.
    pub fn summary(&self, conversation_id: &str) -> Result<Option<Summary>> {
        self.read(|r| r.summary(conversation_id))
    }
}
