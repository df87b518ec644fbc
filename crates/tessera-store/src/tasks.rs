//! The to-do list (seed 004 `session.task_state.todo_list.tasks`).

use rusqlite::{params, Connection, Row};
use tessera_protocol::context_doc::Task;

use crate::error::Result;
use crate::rows::{self, FromRow};
use crate::tx::{ReadTx, WriteTx};
use crate::{conversations, sql, Store};

pub(crate) const SCHEMA_V1: &str = "
CREATE TABLE tasks (
    pk                       INTEGER PRIMARY KEY,
    conversation_id          TEXT NOT NULL REFERENCES conversations (id) ON DELETE CASCADE,
    task_id                  TEXT NOT NULL,
    name                     TEXT,
    depends_on_json          TEXT,
    status                   TEXT,
    result_evidence_ids_json TEXT,
    error                    TEXT,
    extra_json               TEXT,
    UNIQUE (conversation_id, task_id)
) STRICT;
";

const COLUMNS: &str =
    "task_id, name, depends_on_json, status, result_evidence_ids_json, error, extra_json";

impl FromRow for Task {
    fn from_row(row: &Row<'_>) -> Result<Self> {
        Ok(Task {
            task_id: row.get(0)?,
            name: row.get(1)?,
            depends_on: sql::opt_parse("task depends_on", row.get(2)?)?,
            status: sql::opt_enum("task status", row.get(3)?)?,
            result_evidence_ids: sql::opt_parse("task result_evidence_ids", row.get(4)?)?,
            error: row.get(5)?,
            extra: sql::parse_extra(row.get(6)?)?,
        })
    }
}

pub(crate) fn list(conn: &Connection, conversation_id: &str) -> Result<Vec<Task>> {
    rows::all(
        conn,
        &format!("SELECT {COLUMNS} FROM tasks WHERE conversation_id = ?1 ORDER BY pk"),
        [conversation_id],
    )
}

pub(crate) fn upsert(conn: &Connection, conversation_id: &str, task: &Task) -> Result<()> {
    conn.prepare_cached(
        "INSERT INTO tasks (conversation_id, task_id, name, depends_on_json, status,
             result_evidence_ids_json, error, extra_json)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)
         ON CONFLICT (conversation_id, task_id) DO UPDATE SET
             name = excluded.name, depends_on_json = excluded.depends_on_json,
             status = excluded.status, result_evidence_ids_json = excluded.result_evidence_ids_json,
             error = excluded.error, extra_json = excluded.extra_json",
    )?
    .execute(params![
        conversation_id,
        task.task_id,
        task.name,
        sql::opt_json("task depends_on", task.depends_on.as_ref())?,
        task.status.map(|s| s.as_str()),
        sql::opt_json(
            "task result_evidence_ids",
            task.result_evidence_ids.as_ref()
        )?,
        task.error,
        sql::extra_json(&task.extra)?,
    ])?;
    Ok(())
}

impl ReadTx<'_> {
    /// The to-do list in the order tasks were first written.
    pub fn tasks(&self, conversation_id: &str) -> Result<Vec<Task>> {
        list(self.conn, conversation_id)
    }

    /// One task.
    pub fn task(&self, conversation_id: &str, task_id: &str) -> Result<Option<Task>> {
        rows::optional(
            self.conn,
            &format!("SELECT {COLUMNS} FROM tasks WHERE conversation_id = ?1 AND task_id = ?2"),
            [conversation_id, task_id],
        )
    }
}

impl WriteTx<'_> {
    /// Writes a task, replacing the one with the same id (a status change keeps its place).
    pub fn put_task(&mut self, conversation_id: &str, task: &Task) -> Result<()> {
        conversations::ensure_exists(self.conn, conversation_id)?;
        upsert(self.conn, conversation_id, task)?;
        conversations::touch(self.conn, conversation_id)
    }
}

impl Store {
    /// Writes a task; see [`WriteTx::put_task`].
    pub fn put_task(&self, conversation_id: &str, task: Task) -> Result<()> {
        let conversation_id = conversation_id.to_owned();
        self.write(move |tx| tx.put_task(&conversation_id, &task))
    }

    /// The to-do list.
    pub fn tasks(&self, conversation_id: &str) -> Result<Vec<Task>> {
        self.read(|r| r.tasks(conversation_id))
    }
}
