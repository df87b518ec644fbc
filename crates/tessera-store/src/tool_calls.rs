//! Recorded tool, skill and function calls (seed 004 `session.tool_state.tool_calls`).

use rusqlite::{params, Connection, OptionalExtension, Row};
use tessera_protocol::context_doc::ToolCallRecord;
use tessera_protocol::wire::Timestamp;

use crate::error::Result;
use crate::tx::{ReadTx, WriteTx};
use crate::{conversations, sql, Store};

pub(crate) const SCHEMA_V1: &str = "
CREATE TABLE tool_calls (
    pk                       INTEGER PRIMARY KEY,
    conversation_id          TEXT NOT NULL REFERENCES conversations (id) ON DELETE CASCADE,
    tool_call_id             TEXT NOT NULL,
    task_id                  TEXT,
    tool                     TEXT,
    -- {kind: builtin|mcp|other, name, uri}
    provider_json            TEXT,
    provider_kind            TEXT GENERATED ALWAYS AS (json_extract(provider_json, '$.kind')) VIRTUAL,
    call_type                TEXT,
    called_at                TEXT,
    args_digest_json         TEXT,
    status                   TEXT,
    duration_ms              INTEGER,
    result_evidence_ids_json TEXT,
    extra_json               TEXT,
    UNIQUE (conversation_id, tool_call_id)
) STRICT;
";

const COLUMNS: &str = "tool_call_id, task_id, tool, provider_json, call_type, called_at, \
                       args_digest_json, status, duration_ms, result_evidence_ids_json, extra_json";

type RawRow = (
    String,
    Option<String>,
    Option<String>,
    Option<String>,
    Option<String>,
    Option<String>,
    Option<String>,
    Option<String>,
    Option<i64>,
    Option<String>,
    Option<String>,
);

fn raw(row: &Row<'_>) -> rusqlite::Result<RawRow> {
    Ok((
        row.get(0)?,
        row.get(1)?,
        row.get(2)?,
        row.get(3)?,
        row.get(4)?,
        row.get(5)?,
        row.get(6)?,
        row.get(7)?,
        row.get(8)?,
        row.get(9)?,
        row.get(10)?,
    ))
}

fn decode(raw: RawRow) -> Result<ToolCallRecord> {
    let (id, task_id, tool, provider, call_type, called_at, args, status, duration, results, extra) =
        raw;
    Ok(ToolCallRecord {
        tool_call_id: id,
        task_id,
        tool,
        provider: sql::opt_parse("tool call provider", provider)?,
        call_type: sql::opt_enum("tool call type", call_type)?,
        called_at: called_at.map(Timestamp::new),
        args_digest: sql::opt_parse("tool call args_digest", args)?,
        status: sql::opt_enum("tool call status", status)?,
        duration_ms: sql::opt_u64("tool call duration_ms", duration)?,
        result_evidence_ids: sql::opt_parse("tool call result_evidence_ids", results)?,
        extra: sql::parse_extra(extra)?,
    })
}

pub(crate) fn list(conn: &Connection, conversation_id: &str) -> Result<Vec<ToolCallRecord>> {
    let rows = conn
        .prepare_cached(&format!(
            "SELECT {COLUMNS} FROM tool_calls WHERE conversation_id = ?1 ORDER BY pk"
        ))?
        .query_map([conversation_id], raw)?
        .collect::<rusqlite::Result<Vec<_>>>()?;
    rows.into_iter().map(decode).collect()
}

pub(crate) fn upsert(
    conn: &Connection,
    conversation_id: &str,
    call: &ToolCallRecord,
) -> Result<()> {
    conn.prepare_cached(
        "INSERT INTO tool_calls (conversation_id, tool_call_id, task_id, tool, provider_json,
             call_type, called_at, args_digest_json, status, duration_ms,
             result_evidence_ids_json, extra_json)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12)
         ON CONFLICT (conversation_id, tool_call_id) DO UPDATE SET
             task_id = excluded.task_id, tool = excluded.tool,
             provider_json = excluded.provider_json, call_type = excluded.call_type,
             called_at = excluded.called_at, args_digest_json = excluded.args_digest_json,
             status = excluded.status, duration_ms = excluded.duration_ms,
             result_evidence_ids_json = excluded.result_evidence_ids_json,
             extra_json = excluded.extra_json",
    )?
    .execute(params![
        conversation_id,
        call.tool_call_id,
        call.task_id,
        call.tool,
        sql::opt_json("tool call provider", call.provider.as_ref())?,
        call.call_type
            .as_ref()
            .map(|t| sql::enum_text("tool call type", t))
            .transpose()?,
        call.called_at.as_ref().map(Timestamp::as_str),
        sql::opt_json("tool call args_digest", call.args_digest.as_ref())?,
        call.status.map(|s| s.as_str()),
        sql::opt_i64("tool call duration_ms", call.duration_ms)?,
        sql::opt_json(
            "tool call result_evidence_ids",
            call.result_evidence_ids.as_ref()
        )?,
        sql::extra_json(&call.extra)?,
    ])?;
    Ok(())
}

impl ReadTx<'_> {
    /// Recorded calls in the order they were first written.
    pub fn tool_calls(&self, conversation_id: &str) -> Result<Vec<ToolCallRecord>> {
        list(self.conn, conversation_id)
    }

    /// One recorded call.
    pub fn tool_call(
        &self,
        conversation_id: &str,
        tool_call_id: &str,
    ) -> Result<Option<ToolCallRecord>> {
        let row = self
            .conn
            .prepare_cached(&format!(
                "SELECT {COLUMNS} FROM tool_calls WHERE conversation_id = ?1 AND tool_call_id = ?2"
            ))?
            .query_row([conversation_id, tool_call_id], raw)
            .optional()?;
        row.map(decode).transpose()
    }
}

impl WriteTx<'_> {
    /// Writes a call record, replacing the one with the same id (its outcome arrives later).
    pub fn put_tool_call(&mut self, conversation_id: &str, call: &ToolCallRecord) -> Result<()> {
        conversations::ensure_exists(self.conn, conversation_id)?;
        upsert(self.conn, conversation_id, call)?;
        conversations::touch(self.conn, conversation_id)
    }
}

impl Store {
    /// Writes a call record; see [`WriteTx::put_tool_call`].
    pub fn put_tool_call(&self, conversation_id: &str, call: ToolCallRecord) -> Result<()> {
        let conversation_id = conversation_id.to_owned();
        self.write(move |tx| tx.put_tool_call(&conversation_id, &call))
    }

    /// Recorded calls.
    pub fn tool_calls(&self, conversation_id: &str) -> Result<Vec<ToolCallRecord>> {
        self.read(|r| r.tool_calls(conversation_id))
    }
}
