//! Recorded tool, skill and function calls (seed 004 `session.tool_state.tool_calls`).

use rusqlite::{params, Connection, Row};
use serde_json::Value;
use tessera_protocol::context_doc::ToolCallRecord;
use tessera_protocol::wire::Timestamp;

use crate::error::Result;
use crate::rows::{self, FromRow};
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

/// A recorded call as the store keeps it: the seed-004 record, and what Tessera knows of the
/// call beyond it. In a context document (export, import) and in the `extra_json` column those
/// are keys of the record's `extra`, as they always were ([`ToolCallRow::into_record`]); here
/// they are fields, and `record.extra` holds only the fields nobody here knows.
#[derive(Clone, Debug, PartialEq)]
pub struct ToolCallRow {
    pub record: ToolCallRecord,
    /// What the call answered, as its `tool/tool_result` event carried it.
    pub result: Option<Value>,
    /// Why it did not succeed (`{code, message, details?}`), as the event carried it.
    pub error: Option<Value>,
    /// A front-end call's client, in its own words (seed 000 `clientInfo`).
    pub client_info: Option<Value>,
    /// The run that made the call: providers reuse call ids such as `call_1` across runs.
    pub run_id: Option<String>,
}

/// The keys of `extra` the fields of [`ToolCallRow`] are written under, in the order written.
const RESULT_KEY: &str = "result";
const ERROR_KEY: &str = "error";
const CLIENT_INFO_KEY: &str = "client_info";
const RUN_ID_KEY: &str = "run_id";

impl ToolCallRow {
    /// The seed-004 record, with this row's fields back under their keys of `extra`.
    pub fn into_record(self) -> ToolCallRecord {
        let mut record = self.record;
        let known = [
            (RESULT_KEY, self.result),
            (ERROR_KEY, self.error),
            (CLIENT_INFO_KEY, self.client_info),
            (RUN_ID_KEY, self.run_id.map(Value::String)),
        ];
        for (key, value) in known {
            if let Some(value) = value {
                record.extra.insert(key.into(), value);
            }
        }
        record
    }
}

/// A record read from a document (or from the `extra_json` column): the keys this store knows
/// are taken out of its `extra` (a `run_id` that is not a string stays there).
impl From<ToolCallRecord> for ToolCallRow {
    fn from(mut record: ToolCallRecord) -> Self {
        let result = record.extra.shift_remove(RESULT_KEY);
        let error = record.extra.shift_remove(ERROR_KEY);
        let client_info = record.extra.shift_remove(CLIENT_INFO_KEY);
        let run_id = match record.extra.get(RUN_ID_KEY) {
            Some(Value::String(run_id)) => Some(run_id.clone()),
            _ => None,
        };
        if run_id.is_some() {
            record.extra.shift_remove(RUN_ID_KEY);
        }
        Self {
            record,
            result,
            error,
            client_info,
            run_id,
        }
    }
}

impl FromRow for ToolCallRow {
    fn from_row(row: &Row<'_>) -> Result<Self> {
        let record = ToolCallRecord {
            tool_call_id: row.get(0)?,
            task_id: row.get(1)?,
            tool: row.get(2)?,
            provider: sql::opt_parse("tool call provider", row.get(3)?)?,
            call_type: sql::opt_enum("tool call type", row.get(4)?)?,
            called_at: row.get::<_, Option<String>>(5)?.map(Timestamp::new),
            args_digest: sql::opt_parse("tool call args_digest", row.get(6)?)?,
            status: sql::opt_enum("tool call status", row.get(7)?)?,
            duration_ms: sql::opt_u64("tool call duration_ms", row.get(8)?)?,
            result_evidence_ids: sql::opt_parse("tool call result_evidence_ids", row.get(9)?)?,
            extra: sql::parse_extra(row.get(10)?)?,
        };
        Ok(Self::from(record))
    }
}

pub(crate) fn list(conn: &Connection, conversation_id: &str) -> Result<Vec<ToolCallRow>> {
    rows::all(
        conn,
        &format!("SELECT {COLUMNS} FROM tool_calls WHERE conversation_id = ?1 ORDER BY pk"),
        [conversation_id],
    )
}

pub(crate) fn upsert(conn: &Connection, conversation_id: &str, row: &ToolCallRow) -> Result<()> {
    let call = &row.clone().into_record();
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
    pub fn tool_calls(&self, conversation_id: &str) -> Result<Vec<ToolCallRow>> {
        list(self.conn, conversation_id)
    }

    /// One recorded call.
    pub fn tool_call(
        &self,
        conversation_id: &str,
        tool_call_id: &str,
    ) -> Result<Option<ToolCallRow>> {
        rows::optional(
            self.conn,
            &format!(
                "SELECT {COLUMNS} FROM tool_calls WHERE conversation_id = ?1 AND tool_call_id = ?2"
            ),
            [conversation_id, tool_call_id],
        )
    }
}

impl WriteTx<'_> {
    /// Writes a call record, replacing the one with the same id (its outcome arrives later).
    pub fn put_tool_call(&mut self, conversation_id: &str, call: &ToolCallRow) -> Result<()> {
        conversations::ensure_exists(self.conn, conversation_id)?;
        upsert(self.conn, conversation_id, call)?;
        conversations::touch(self.conn, conversation_id)
    }
}

impl Store {
    /// Writes a call record; see [`WriteTx::put_tool_call`].
    pub fn put_tool_call(&self, conversation_id: &str, call: impl Into<ToolCallRow>) -> Result<()> {
        let (conversation_id, call) = (conversation_id.to_owned(), call.into());
        self.write(move |tx| tx.put_tool_call(&conversation_id, &call))
    }

    /// Recorded calls.
    pub fn tool_calls(&self, conversation_id: &str) -> Result<Vec<ToolCallRow>> {
        self.read(|r| r.tool_calls(conversation_id))
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn record(extra: Value) -> ToolCallRecord {
        ToolCallRecord {
            tool_call_id: "call_1".into(),
            task_id: None,
            tool: Some("search".into()),
            provider: None,
            call_type: None,
            called_at: None,
            args_digest: None,
            status: None,
            duration_ms: None,
            result_evidence_ids: None,
            extra: extra.as_object().cloned().unwrap_or_default(),
        }
    }

    #[test]
    fn the_keys_the_store_knows_become_fields_and_go_back_under_the_same_keys() {
        let written = record(json!({
            "result": {"hits": 2}, "error": null, "client_info": {"browser": "x"},
            "run_id": "run_1", "theirs": 1
        }));
        let row = ToolCallRow::from(written.clone());
        assert_eq!(row.result, Some(json!({"hits": 2})));
        assert_eq!(row.error, Some(Value::Null));
        assert_eq!(row.client_info, Some(json!({"browser": "x"})));
        assert_eq!(row.run_id.as_deref(), Some("run_1"));
        assert_eq!(
            Value::Object(row.record.extra.clone()),
            json!({"theirs": 1})
        );
        assert_eq!(row.into_record(), written);
    }

    #[test]
    fn what_the_engine_writes_is_stored_in_the_order_it_always_was() {
        let row = ToolCallRow {
            result: Some(json!("ok")),
            error: None,
            client_info: Some(json!({})),
            run_id: Some("run_1".into()),
            ..ToolCallRow::from(record(json!({})))
        };
        let extra = serde_json::to_string(&row.into_record().extra).unwrap_or_default();
        assert_eq!(
            extra,
            r#"{"result":"ok","client_info":{},"run_id":"run_1"}"#
        );
    }

    #[test]
    fn a_run_id_that_is_not_a_string_is_left_as_it_came() {
        let written = record(json!({"run_id": 7}));
        let row = ToolCallRow::from(written.clone());
        assert_eq!(row.run_id, None);
        assert_eq!(row.into_record(), written);
    }
}
