//! Interactions that suspend a run: forms and consent requests, pending until answered or
//! cancelled, kept so a run can resume after a restart.

use rusqlite::{params, Connection, Row};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use tessera_protocol::wire::Timestamp;

use crate::error::{Entity, Result, StoreError};
use crate::rows::{self, FromRow};
use crate::tx::{ReadTx, WriteTx};
use crate::{clock, conversations, ids, sql, Store};

pub(crate) const SCHEMA_V3: &str = "
CREATE TABLE interactions (
    pk              INTEGER PRIMARY KEY,
    conversation_id TEXT NOT NULL REFERENCES conversations (id) ON DELETE CASCADE,
    interaction_id  TEXT NOT NULL,
    run_id          TEXT,
    kind            TEXT NOT NULL CHECK (kind IN ('form', 'consent')),
    state           TEXT NOT NULL CHECK (state IN ('pending', 'answered', 'cancelled')),
    -- the form_request / consent_request payload
    request_json    TEXT NOT NULL,
    -- the answer, or why it was cancelled
    answer_json     TEXT,
    created_at      TEXT NOT NULL,
    updated_at      TEXT NOT NULL,
    UNIQUE (conversation_id, interaction_id)
) STRICT;
CREATE INDEX interactions_pending ON interactions (conversation_id) WHERE state = 'pending';
";

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
#[serde(rename_all = "snake_case")]
pub enum InteractionKind {
    Form,
    Consent,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
#[serde(rename_all = "snake_case")]
pub enum InteractionState {
    Pending,
    Answered,
    Cancelled,
}

impl InteractionState {
    fn as_str(self) -> &'static str {
        match self {
            InteractionState::Pending => "pending",
            InteractionState::Answered => "answered",
            InteractionState::Cancelled => "cancelled",
        }
    }
}

/// A form or consent request and, once there is one, its answer.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Interaction {
    pub interaction_id: String,
    pub conversation_id: String,
    pub run_id: Option<String>,
    pub kind: InteractionKind,
    pub state: InteractionState,
    pub request: Value,
    pub answer: Option<Value>,
    pub created_at: Timestamp,
    pub updated_at: Timestamp,
}

/// A request to persist before it is shown.
#[derive(Clone, Debug)]
pub struct NewInteraction {
    /// The form_id or consent_id; generated when absent.
    pub interaction_id: Option<String>,
    pub run_id: Option<String>,
    pub kind: InteractionKind,
    pub request: Value,
}

const COLUMNS: &str = "interaction_id, conversation_id, run_id, kind, state, request_json, \
                       answer_json, created_at, updated_at";

impl FromRow for Interaction {
    fn from_row(row: &Row<'_>) -> Result<Self> {
        Ok(Interaction {
            interaction_id: row.get(0)?,
            conversation_id: row.get(1)?,
            run_id: row.get(2)?,
            kind: sql::parse_enum("interaction kind", &row.get::<_, String>(3)?)?,
            state: sql::parse_enum("interaction state", &row.get::<_, String>(4)?)?,
            request: sql::parse("interaction request", &row.get::<_, String>(5)?)?,
            answer: sql::opt_parse("interaction answer", row.get(6)?)?,
            created_at: Timestamp::new(row.get::<_, String>(7)?),
            updated_at: Timestamp::new(row.get::<_, String>(8)?),
        })
    }
}

fn get(conn: &Connection, conversation_id: &str, id: &str) -> Result<Interaction> {
    rows::all::<Interaction>(
        conn,
        &format!(
            "SELECT {COLUMNS} FROM interactions WHERE conversation_id = ?1 AND interaction_id = ?2"
        ),
        [conversation_id, id],
    )?
    .pop()
    .ok_or_else(|| StoreError::not_found(Entity::Interaction, conversation_id, id))
}

impl ReadTx<'_> {
    /// One interaction.
    pub fn interaction(&self, conversation_id: &str, id: &str) -> Result<Option<Interaction>> {
        match get(self.conn, conversation_id, id) {
            Ok(found) => Ok(Some(found)),
            Err(StoreError::NotFound { .. }) => Ok(None),
            Err(other) => Err(other),
        }
    }

    /// An interaction by its id alone (ids are UUIDs, unique across conversations).
    pub fn find_interaction(&self, id: &str) -> Result<Option<Interaction>> {
        Ok(rows::all::<Interaction>(
            self.conn,
            &format!("SELECT {COLUMNS} FROM interactions WHERE interaction_id = ?1 ORDER BY pk"),
            [id],
        )?
        .pop())
    }

    /// A run's interactions, oldest first.
    pub fn run_interactions(
        &self,
        conversation_id: &str,
        run_id: &str,
    ) -> Result<Vec<Interaction>> {
        rows::all(
            self.conn,
            &format!(
                "SELECT {COLUMNS} FROM interactions WHERE conversation_id = ?1 AND run_id = ?2
                 ORDER BY pk"
            ),
            [conversation_id, run_id],
        )
    }

    /// Interactions still waiting for an answer (of one conversation, or all), oldest first:
    /// what to show again after a restart.
    pub fn pending_interactions(&self, conversation_id: Option<&str>) -> Result<Vec<Interaction>> {
        rows::all(
            self.conn,
            &format!(
                "SELECT {COLUMNS} FROM interactions
                 WHERE state = 'pending' AND (?1 IS NULL OR conversation_id = ?1) ORDER BY pk"
            ),
            [conversation_id],
        )
    }
}

impl ReadTx<'_> {
    /// Whether something in conversation `conversation_id` waits for the person's answer (one
    /// lookup in the index of pending interactions: the conversation list asks it per row).
    pub fn waits_for_person(&self, conversation_id: &str) -> Result<bool> {
        rows::one(
            self.conn,
            "SELECT EXISTS (SELECT 1 FROM interactions
                            WHERE conversation_id = ?1 AND state = 'pending')",
            [conversation_id],
        )
    }
}

impl WriteTx<'_> {
    /// Persists a pending interaction.
    pub fn create_interaction(
        &mut self,
        conversation_id: &str,
        new: NewInteraction,
    ) -> Result<Interaction> {
        conversations::ensure_exists(self.conn, conversation_id)?;
        let now = clock::now();
        let interaction = Interaction {
            interaction_id: new.interaction_id.unwrap_or_else(ids::new_id),
            conversation_id: conversation_id.to_owned(),
            run_id: new.run_id,
            kind: new.kind,
            state: InteractionState::Pending,
            request: new.request,
            answer: None,
            created_at: now.clone(),
            updated_at: now,
        };
        let inserted = self
            .conn
            .prepare_cached(
                "INSERT INTO interactions (conversation_id, interaction_id, run_id, kind, state,
                     request_json, created_at, updated_at)
                 VALUES (?1, ?2, ?3, ?4, 'pending', ?5, ?6, ?6)
                 ON CONFLICT (conversation_id, interaction_id) DO NOTHING",
            )?
            .execute(params![
                conversation_id,
                interaction.interaction_id,
                interaction.run_id,
                sql::enum_text("interaction kind", &interaction.kind)?,
                sql::json("interaction request", &interaction.request)?,
                interaction.created_at.as_str(),
            ])?;
        if inserted == 0 {
            return Err(StoreError::exists(
                Entity::Interaction,
                conversation_id,
                &interaction.interaction_id,
            ));
        }
        Ok(interaction)
    }

    fn close_interaction(
        &mut self,
        conversation_id: &str,
        id: &str,
        state: InteractionState,
        answer: Option<&Value>,
    ) -> Result<Interaction> {
        let current = get(self.conn, conversation_id, id)?;
        if current.state != InteractionState::Pending {
            return Err(StoreError::InteractionNotPending {
                id: id.to_owned(),
                state: current.state.as_str(),
            });
        }
        self.conn
            .prepare_cached(
                "UPDATE interactions SET state = ?3, answer_json = ?4, updated_at = ?5
                 WHERE conversation_id = ?1 AND interaction_id = ?2",
            )?
            .execute(params![
                conversation_id,
                id,
                state.as_str(),
                sql::opt_json("interaction answer", answer)?,
                clock::now().as_str()
            ])?;
        get(self.conn, conversation_id, id)
    }

    /// Records the answer to a pending interaction (an error if it is no longer pending).
    pub fn answer_interaction(
        &mut self,
        conversation_id: &str,
        id: &str,
        answer: &Value,
    ) -> Result<Interaction> {
        self.close_interaction(
            conversation_id,
            id,
            InteractionState::Answered,
            Some(answer),
        )
    }

    /// Cancels a pending interaction, with an optional reason.
    pub fn cancel_interaction(
        &mut self,
        conversation_id: &str,
        id: &str,
        reason: Option<&Value>,
    ) -> Result<Interaction> {
        self.close_interaction(conversation_id, id, InteractionState::Cancelled, reason)
    }
}

impl Store {
    /// Persists a pending interaction.
    pub fn create_interaction(
        &self,
        conversation_id: &str,
        new: NewInteraction,
    ) -> Result<Interaction> {
        let c = conversation_id.to_owned();
        self.write(move |tx| tx.create_interaction(&c, new))
    }

    /// Records the answer to a pending interaction.
    pub fn answer_interaction(
        &self,
        conversation_id: &str,
        id: &str,
        answer: Value,
    ) -> Result<Interaction> {
        let (c, i) = (conversation_id.to_owned(), id.to_owned());
        self.write(move |tx| tx.answer_interaction(&c, &i, &answer))
    }

    /// Cancels a pending interaction.
    pub fn cancel_interaction(
        &self,
        conversation_id: &str,
        id: &str,
        reason: Option<Value>,
    ) -> Result<Interaction> {
        let (c, i) = (conversation_id.to_owned(), id.to_owned());
        self.write(move |tx| tx.cancel_interaction(&c, &i, reason.as_ref()))
    }

    /// One interaction.
    pub fn interaction(&self, conversation_id: &str, id: &str) -> Result<Option<Interaction>> {
        self.read(|r| r.interaction(conversation_id, id))
    }

    /// See [`ReadTx::find_interaction`].
    pub fn find_interaction(&self, id: &str) -> Result<Option<Interaction>> {
        self.read(|r| r.find_interaction(id))
    }

    /// See [`ReadTx::run_interactions`].
    pub fn run_interactions(
        &self,
        conversation_id: &str,
        run_id: &str,
    ) -> Result<Vec<Interaction>> {
        self.read(|r| r.run_interactions(conversation_id, run_id))
    }

    /// Pending interactions.
    pub fn pending_interactions(&self, conversation_id: Option<&str>) -> Result<Vec<Interaction>> {
        self.read(|r| r.pending_interactions(conversation_id))
    }
}
