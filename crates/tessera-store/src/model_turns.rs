//! Each model turn exactly as the provider received and returned it (request messages,
//! response with reasoning, signatures and full tool arguments, as JSON), so a run can be
//! rebuilt after a restart, and the assembler's explanation of how the prompt was built.

use rusqlite::{params, Row};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use tessera_protocol::wire::Timestamp;

use crate::error::{Entity, Result, StoreError};
use crate::rows::{self, FromRow};
use crate::tx::{ReadTx, WriteTx};
use crate::{clock, conversations, ids, sql, Store};

pub(crate) const SCHEMA_V3: &str = "
CREATE TABLE model_turns (
    pk              INTEGER PRIMARY KEY,
    conversation_id TEXT NOT NULL REFERENCES conversations (id) ON DELETE CASCADE,
    turn_id         TEXT NOT NULL,
    run_id          TEXT,
    -- the assistant message the turn produced, once known
    message_id      TEXT,
    provider        TEXT NOT NULL,
    model           TEXT NOT NULL,
    request_json    TEXT NOT NULL,
    response_json   TEXT,
    -- the assembler's explanation: blocks and evidences used, budget, what was trimmed
    assembly_json   TEXT,
    started_at      TEXT NOT NULL,
    finished_at     TEXT,
    UNIQUE (conversation_id, turn_id)
) STRICT;
CREATE INDEX model_turns_by_run ON model_turns (conversation_id, run_id, pk);
";

/// One model call as sent and as answered.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ModelTurn {
    pub turn_id: String,
    pub conversation_id: String,
    pub run_id: Option<String>,
    pub message_id: Option<String>,
    pub provider: String,
    pub model: String,
    /// The request as the provider received it.
    pub request: Value,
    /// The response as the provider returned it; `None` while the turn runs (or if it died).
    pub response: Option<Value>,
    pub assembly: Option<Value>,
    pub started_at: Timestamp,
    pub finished_at: Option<Timestamp>,
}

/// A turn about to be sent.
#[derive(Clone, Debug)]
pub struct NewModelTurn {
    /// Generated when absent.
    pub turn_id: Option<String>,
    pub run_id: Option<String>,
    pub provider: String,
    pub model: String,
    pub request: Value,
    pub assembly: Option<Value>,
}

const COLUMNS: &str = "turn_id, conversation_id, run_id, message_id, provider, model, \
                       request_json, response_json, assembly_json, started_at, finished_at";

impl FromRow for ModelTurn {
    fn from_row(row: &Row<'_>) -> Result<Self> {
        Ok(ModelTurn {
            turn_id: row.get(0)?,
            conversation_id: row.get(1)?,
            run_id: row.get(2)?,
            message_id: row.get(3)?,
            provider: row.get(4)?,
            model: row.get(5)?,
            request: sql::parse("model turn request", &row.get::<_, String>(6)?)?,
            response: sql::opt_parse("model turn response", row.get(7)?)?,
            assembly: sql::opt_parse("assembly explanation", row.get(8)?)?,
            started_at: Timestamp::new(row.get::<_, String>(9)?),
            finished_at: row.get::<_, Option<String>>(10)?.map(Timestamp::new),
        })
    }
}

fn updated(n: usize, conversation_id: &str, turn_id: &str) -> Result<()> {
    if n == 0 {
        Err(StoreError::not_found(
            Entity::ModelTurn,
            conversation_id,
            turn_id,
        ))
    } else {
        Ok(())
    }
}

impl ReadTx<'_> {
    /// One turn.
    pub fn model_turn(&self, conversation_id: &str, turn_id: &str) -> Result<Option<ModelTurn>> {
        rows::optional(
            self.conn,
            &format!(
                "SELECT {COLUMNS} FROM model_turns WHERE conversation_id = ?1 AND turn_id = ?2"
            ),
            [conversation_id, turn_id],
        )
    }

    /// The turns of a conversation (or of one run), in the order sent.
    pub fn model_turns(
        &self,
        conversation_id: &str,
        run_id: Option<&str>,
    ) -> Result<Vec<ModelTurn>> {
        rows::all(
            self.conn,
            &format!(
                "SELECT {COLUMNS} FROM model_turns
                 WHERE conversation_id = ?1 AND (?2 IS NULL OR run_id = ?2) ORDER BY pk"
            ),
            params![conversation_id, run_id],
        )
    }

    /// The turns of one run, whatever its conversation, in the order sent.
    pub fn run_model_turns(&self, run_id: &str) -> Result<Vec<ModelTurn>> {
        rows::all(
            self.conn,
            &format!("SELECT {COLUMNS} FROM model_turns WHERE run_id = ?1 ORDER BY pk"),
            [run_id],
        )
    }

    /// The assembler's explanation of a turn.
    pub fn turn_assembly(&self, conversation_id: &str, turn_id: &str) -> Result<Option<Value>> {
        let text: Option<Option<String>> = rows::optional(
            self.conn,
            "SELECT assembly_json FROM model_turns WHERE conversation_id = ?1 AND turn_id = ?2",
            [conversation_id, turn_id],
        )?;
        match text {
            None => Err(StoreError::not_found(
                Entity::ModelTurn,
                conversation_id,
                turn_id,
            )),
            Some(text) => sql::opt_parse("assembly explanation", text),
        }
    }
}

impl WriteTx<'_> {
    /// Records a turn as it is sent.
    pub fn start_model_turn(
        &mut self,
        conversation_id: &str,
        new: NewModelTurn,
    ) -> Result<ModelTurn> {
        conversations::ensure_exists(self.conn, conversation_id)?;
        let turn = ModelTurn {
            turn_id: new.turn_id.unwrap_or_else(ids::new_id),
            conversation_id: conversation_id.to_owned(),
            run_id: new.run_id,
            message_id: None,
            provider: new.provider,
            model: new.model,
            request: new.request,
            response: None,
            assembly: new.assembly,
            started_at: clock::now(),
            finished_at: None,
        };
        let inserted = self
            .conn
            .prepare_cached(
                "INSERT INTO model_turns (conversation_id, turn_id, run_id, provider, model,
                     request_json, assembly_json, started_at)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)
                 ON CONFLICT (conversation_id, turn_id) DO NOTHING",
            )?
            .execute(params![
                conversation_id,
                turn.turn_id,
                turn.run_id,
                turn.provider,
                turn.model,
                sql::json("model turn request", &turn.request)?,
                sql::opt_json("assembly explanation", turn.assembly.as_ref())?,
                turn.started_at.as_str(),
            ])?;
        if inserted == 0 {
            return Err(StoreError::exists(
                Entity::ModelTurn,
                conversation_id,
                &turn.turn_id,
            ));
        }
        Ok(turn)
    }

    /// Records what the provider returned (and the message it became, if any).
    pub fn finish_model_turn(
        &mut self,
        conversation_id: &str,
        turn_id: &str,
        response: &Value,
        message_id: Option<&str>,
    ) -> Result<()> {
        let n = self
            .conn
            .prepare_cached(
                "UPDATE model_turns SET response_json = ?3, message_id = COALESCE(?4, message_id),
                     finished_at = ?5
                 WHERE conversation_id = ?1 AND turn_id = ?2",
            )?
            .execute(params![
                conversation_id,
                turn_id,
                sql::json("model turn response", response)?,
                message_id,
                clock::now().as_str()
            ])?;
        updated(n, conversation_id, turn_id)
    }

    /// Stores the assembler's explanation of a turn.
    pub fn set_turn_assembly(
        &mut self,
        conversation_id: &str,
        turn_id: &str,
        assembly: &Value,
    ) -> Result<()> {
        let n = self
            .conn
            .prepare_cached(
                "UPDATE model_turns SET assembly_json = ?3 WHERE conversation_id = ?1 AND turn_id = ?2",
            )?
            .execute(params![conversation_id, turn_id, sql::json("assembly explanation", assembly)?])?;
        updated(n, conversation_id, turn_id)
    }
}

impl Store {
    /// Records a turn as it is sent.
    pub fn start_model_turn(&self, conversation_id: &str, new: NewModelTurn) -> Result<ModelTurn> {
        let c = conversation_id.to_owned();
        self.write(move |tx| tx.start_model_turn(&c, new))
    }

    /// Records what the provider returned.
    pub fn finish_model_turn(
        &self,
        conversation_id: &str,
        turn_id: &str,
        response: Value,
        message_id: Option<String>,
    ) -> Result<()> {
        let (c, t) = (conversation_id.to_owned(), turn_id.to_owned());
        self.write(move |tx| tx.finish_model_turn(&c, &t, &response, message_id.as_deref()))
    }

    /// Stores the assembler's explanation of a turn.
    pub fn set_turn_assembly(
        &self,
        conversation_id: &str,
        turn_id: &str,
        assembly: Value,
    ) -> Result<()> {
        let (c, t) = (conversation_id.to_owned(), turn_id.to_owned());
        self.write(move |tx| tx.set_turn_assembly(&c, &t, &assembly))
    }

    /// The turns of a conversation or run.
    pub fn model_turns(
        &self,
        conversation_id: &str,
        run_id: Option<&str>,
    ) -> Result<Vec<ModelTurn>> {
        self.read(|r| r.model_turns(conversation_id, run_id))
    }

    /// The turns of one run.
    pub fn run_model_turns(&self, run_id: &str) -> Result<Vec<ModelTurn>> {
        self.read(|r| r.run_model_turns(run_id))
    }

    /// The assembler's explanation of a turn.
    pub fn turn_assembly(&self, conversation_id: &str, turn_id: &str) -> Result<Option<Value>> {
        self.read(|r| r.turn_assembly(conversation_id, turn_id))
    }
}
