//! Model calls and what they cost (seed 004 `session.model_usage`).
//!
//! Since schema version 4 two fields of a record's `extra` also have columns of their own, so
//! spending can be added up by time without reading JSON: `started_at` (normalised to UTC
//! milliseconds, `2026-01-20T10:00:00.123Z`, which sorts as it reads) and `cost_usd` (from
//! `estimated_cost_usd`). `extra` keeps both as written, so exports round-trip unchanged.

use rusqlite::{params, Connection, Row};
use tessera_protocol::context_doc::ModelUsage;

use crate::error::{Result, StoreError};
use crate::rows::{self, FromRow};
use crate::tx::{ReadTx, WriteTx};
use crate::{clock, conversations, sql, Store};

pub(crate) const SCHEMA_V1: &str = "
CREATE TABLE model_usage (
    pk                     INTEGER PRIMARY KEY,
    conversation_id        TEXT NOT NULL REFERENCES conversations (id) ON DELETE CASCADE,
    model_usage_id         TEXT NOT NULL,
    task_id                TEXT,
    stage                  TEXT,
    provider               TEXT,
    model                  TEXT,
    params_json            TEXT,
    prompt_tokens          INTEGER,
    completion_tokens      INTEGER,
    total_tokens           INTEGER,
    first_token_latency_ms INTEGER,
    latency_ms             INTEGER,
    status                 TEXT,
    error                  TEXT,
    extra_json             TEXT,
    UNIQUE (conversation_id, model_usage_id)
) STRICT;
";

pub(crate) const SCHEMA_V4: &str = "
ALTER TABLE model_usage ADD COLUMN started_at TEXT;
ALTER TABLE model_usage ADD COLUMN cost_usd REAL;
CREATE INDEX model_usage_started_at ON model_usage (started_at);
";

/// The names of the `extra` fields the columns are filled from (written by the providers'
/// call records).
const EXTRA_STARTED_AT: &str = "started_at";
const EXTRA_COST_USD: &str = "estimated_cost_usd";

/// The `started_at` column of a record: its start, normalised; `None` when absent or not a
/// timestamp (it then counts toward no day).
fn started_at_column(extra: &serde_json::Map<String, serde_json::Value>) -> Option<String> {
    let text = extra.get(EXTRA_STARTED_AT)?.as_str()?;
    clock::parse_millis(text).map(clock::format_millis)
}

/// The `cost_usd` column of a record: its estimated cost, when it is a finite number.
fn cost_column(extra: &serde_json::Map<String, serde_json::Value>) -> Option<f64> {
    extra
        .get(EXTRA_COST_USD)?
        .as_f64()
        .filter(|cost| cost.is_finite())
}

/// Fills the new columns of records written before version 4.
pub(crate) fn backfill_v4(conn: &Connection) -> Result<()> {
    let rows: Vec<(i64, String)> = rows::all(
        conn,
        "SELECT pk, extra_json FROM model_usage WHERE extra_json IS NOT NULL",
        [],
    )?;
    let mut update =
        conn.prepare("UPDATE model_usage SET started_at = ?2, cost_usd = ?3 WHERE pk = ?1")?;
    for (pk, text) in rows {
        // A record whose extra cannot be read is left for `model_usage` to report.
        let Ok(extra) = serde_json::from_str::<serde_json::Map<String, serde_json::Value>>(&text)
        else {
            continue;
        };
        update.execute(params![pk, started_at_column(&extra), cost_column(&extra)])?;
    }
    Ok(())
}

const COLUMNS: &str = "model_usage_id, task_id, stage, provider, model, params_json, \
    prompt_tokens, completion_tokens, total_tokens, first_token_latency_ms, latency_ms, status, \
    error, extra_json";

impl FromRow for ModelUsage {
    fn from_row(row: &Row<'_>) -> Result<Self> {
        Ok(ModelUsage {
            model_usage_id: row.get(0)?,
            task_id: row.get(1)?,
            stage: sql::opt_enum("usage stage", row.get(2)?)?,
            provider: row.get(3)?,
            model: row.get(4)?,
            params: sql::opt_parse("usage params", row.get(5)?)?,
            prompt_tokens: sql::opt_u64("prompt_tokens", row.get(6)?)?,
            completion_tokens: sql::opt_u64("completion_tokens", row.get(7)?)?,
            total_tokens: sql::opt_u64("total_tokens", row.get(8)?)?,
            first_token_latency_ms: sql::opt_u64("first_token_latency_ms", row.get(9)?)?,
            latency_ms: sql::opt_u64("latency_ms", row.get(10)?)?,
            status: sql::opt_enum("usage status", row.get(11)?)?,
            error: row.get(12)?,
            extra: sql::parse_extra(row.get(13)?)?,
        })
    }
}

pub(crate) fn list(conn: &Connection, conversation_id: &str) -> Result<Vec<ModelUsage>> {
    rows::all(
        conn,
        &format!("SELECT {COLUMNS} FROM model_usage WHERE conversation_id = ?1 ORDER BY pk"),
        [conversation_id],
    )
}

pub(crate) fn upsert(conn: &Connection, conversation_id: &str, usage: &ModelUsage) -> Result<()> {
    conn.prepare_cached(
        "INSERT INTO model_usage (conversation_id, model_usage_id, task_id, stage, provider,
             model, params_json, prompt_tokens, completion_tokens, total_tokens,
             first_token_latency_ms, latency_ms, status, error, extra_json, started_at,
             cost_usd)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17)
         ON CONFLICT (conversation_id, model_usage_id) DO UPDATE SET
             task_id = excluded.task_id, stage = excluded.stage, provider = excluded.provider,
             model = excluded.model, params_json = excluded.params_json,
             prompt_tokens = excluded.prompt_tokens,
             completion_tokens = excluded.completion_tokens,
             total_tokens = excluded.total_tokens,
             first_token_latency_ms = excluded.first_token_latency_ms,
             latency_ms = excluded.latency_ms, status = excluded.status,
             error = excluded.error, extra_json = excluded.extra_json,
             started_at = excluded.started_at, cost_usd = excluded.cost_usd",
    )?
    .execute(params![
        conversation_id,
        usage.model_usage_id,
        usage.task_id,
        usage
            .stage
            .as_ref()
            .map(|s| sql::enum_text("usage stage", s))
            .transpose()?,
        usage.provider,
        usage.model,
        sql::opt_json("usage params", usage.params.as_ref())?,
        sql::opt_i64("prompt_tokens", usage.prompt_tokens)?,
        sql::opt_i64("completion_tokens", usage.completion_tokens)?,
        sql::opt_i64("total_tokens", usage.total_tokens)?,
        sql::opt_i64("first_token_latency_ms", usage.first_token_latency_ms)?,
        sql::opt_i64("latency_ms", usage.latency_ms)?,
        usage
            .status
            .as_ref()
            .map(|s| sql::enum_text("usage status", s))
            .transpose()?,
        usage.error,
        sql::extra_json(&usage.extra)?,
        started_at_column(&usage.extra),
        cost_column(&usage.extra),
    ])?;
    Ok(())
}

impl ReadTx<'_> {
    /// Model calls in the order they were first written.
    pub fn model_usage(&self, conversation_id: &str) -> Result<Vec<ModelUsage>> {
        list(self.conn, conversation_id)
    }

    /// The estimated cost in USD of the model calls of every conversation that started at or
    /// after `since` (RFC 3339, any offset). Calls of unknown price or start add nothing.
    pub fn spend_since(&self, since: &str) -> Result<f64> {
        let millis = clock::parse_millis(since)
            .ok_or_else(|| StoreError::InvalidTimestamp(since.to_owned()))?;
        let total: Option<f64> = rows::one(
            self.conn,
            "SELECT sum(cost_usd) FROM model_usage WHERE started_at >= ?1",
            [clock::format_millis(millis)],
        )?;
        Ok(total.unwrap_or(0.0))
    }

    /// The estimated cost in USD of one conversation's model calls (0 for an unknown one).
    pub fn conversation_spend(&self, conversation_id: &str) -> Result<f64> {
        let total: Option<f64> = rows::one(
            self.conn,
            "SELECT sum(cost_usd) FROM model_usage WHERE conversation_id = ?1",
            [conversation_id],
        )?;
        Ok(total.unwrap_or(0.0))
    }
}

impl WriteTx<'_> {
    /// Writes a model call record, replacing the one with the same id.
    pub fn put_model_usage(&mut self, conversation_id: &str, usage: &ModelUsage) -> Result<()> {
        conversations::ensure_exists(self.conn, conversation_id)?;
        upsert(self.conn, conversation_id, usage)?;
        conversations::touch(self.conn, conversation_id)
    }
}

impl Store {
    /// Writes a model call record; see [`WriteTx::put_model_usage`].
    pub fn put_model_usage(&self, conversation_id: &str, usage: ModelUsage) -> Result<()> {
        let conversation_id = conversation_id.to_owned();
        self.write(move |tx| tx.put_model_usage(&conversation_id, &usage))
    }

    /// Model calls.
    pub fn model_usage(&self, conversation_id: &str) -> Result<Vec<ModelUsage>> {
        self.read(|r| r.model_usage(conversation_id))
    }

    /// Spending across conversations since `since`; see [`ReadTx::spend_since`].
    pub fn spend_since(&self, since: &str) -> Result<f64> {
        self.read(|r| r.spend_since(since))
    }

    /// One conversation's spending; see [`ReadTx::conversation_spend`].
    pub fn conversation_spend(&self, conversation_id: &str) -> Result<f64> {
        self.read(|r| r.conversation_spend(conversation_id))
    }
}
