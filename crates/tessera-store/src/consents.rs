//! Consent grants for tools: once (one use, in one conversation), for a conversation, or
//! always; revocable.

use rusqlite::{params, Connection, Row};
use serde::{Deserialize, Serialize};
use tessera_protocol::wire::Timestamp;

use crate::error::{Entity, Result, StoreError};
use crate::rows::{self, FromRow};
use crate::tx::{ReadTx, WriteTx};
use crate::{clock, conversations, ids, sql, Store};

pub(crate) const SCHEMA_V3: &str = "
CREATE TABLE consent_grants (
    pk              INTEGER PRIMARY KEY,
    grant_id        TEXT NOT NULL UNIQUE,
    tool            TEXT NOT NULL,
    scope           TEXT NOT NULL CHECK (scope IN ('once', 'conversation', 'always')),
    conversation_id TEXT REFERENCES conversations (id) ON DELETE CASCADE,
    created_at      TEXT NOT NULL,
    revoked_at      TEXT,
    -- the last use; a once grant is spent by its first
    used_at         TEXT,
    CHECK ((scope = 'always') = (conversation_id IS NULL))
) STRICT;
CREATE INDEX consent_grants_by_tool ON consent_grants (tool, conversation_id);
";

pub use tessera_protocol::views::ConsentScope;

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ConsentGrant {
    pub grant_id: String,
    pub tool: String,
    pub scope: ConsentScope,
    /// Set for `once` and `conversation`, absent for `always`.
    pub conversation_id: Option<String>,
    pub created_at: Timestamp,
    pub revoked_at: Option<Timestamp>,
    /// The last use (a `once` grant is spent by its first).
    pub used_at: Option<Timestamp>,
}

const COLUMNS: &str = "grant_id, tool, scope, conversation_id, created_at, revoked_at, used_at";

impl FromRow for ConsentGrant {
    fn from_row(row: &Row<'_>) -> Result<Self> {
        Ok(ConsentGrant {
            grant_id: row.get(0)?,
            tool: row.get(1)?,
            scope: sql::parse_enum("consent scope", &row.get::<_, String>(2)?)?,
            conversation_id: row.get(3)?,
            created_at: Timestamp::new(row.get::<_, String>(4)?),
            revoked_at: row.get::<_, Option<String>>(5)?.map(Timestamp::new),
            used_at: row.get::<_, Option<String>>(6)?.map(Timestamp::new),
        })
    }
}

/// The grant that lets `tool` run in `conversation_id` now: always, then for the
/// conversation, then an unspent once grant.
fn active(conn: &Connection, tool: &str, conversation_id: &str) -> Result<Option<ConsentGrant>> {
    Ok(rows::all::<ConsentGrant>(
        conn,
        &format!(
            "SELECT {COLUMNS} FROM consent_grants
             WHERE tool = ?1 AND revoked_at IS NULL AND (
                 scope = 'always'
                 OR (scope = 'conversation' AND conversation_id = ?2)
                 OR (scope = 'once' AND conversation_id = ?2 AND used_at IS NULL))
             ORDER BY CASE scope WHEN 'always' THEN 0 WHEN 'conversation' THEN 1 ELSE 2 END, pk
             LIMIT 1"
        ),
        [tool, conversation_id],
    )?
    .pop())
}

impl ReadTx<'_> {
    /// Grants, newest first (revoked ones only when asked).
    pub fn consent_grants(&self, include_revoked: bool) -> Result<Vec<ConsentGrant>> {
        rows::all(
            self.conn,
            &format!(
                "SELECT {COLUMNS} FROM consent_grants WHERE ?1 OR revoked_at IS NULL ORDER BY pk DESC"
            ),
            [include_revoked],
        )
    }

    /// One grant, revoked or not.
    pub fn consent_grant(&self, grant_id: &str) -> Result<Option<ConsentGrant>> {
        Ok(rows::all::<ConsentGrant>(
            self.conn,
            &format!("SELECT {COLUMNS} FROM consent_grants WHERE grant_id = ?1"),
            [grant_id],
        )?
        .pop())
    }

    /// The grant that would let `tool` run in `conversation_id` now, without spending it.
    pub fn active_consent(
        &self,
        tool: &str,
        conversation_id: &str,
    ) -> Result<Option<ConsentGrant>> {
        active(self.conn, tool, conversation_id)
    }
}

impl WriteTx<'_> {
    /// Grants consent. `once` and `conversation` need a conversation; `always` takes none.
    pub fn grant_consent(
        &mut self,
        tool: &str,
        scope: ConsentScope,
        conversation_id: Option<&str>,
    ) -> Result<ConsentGrant> {
        match (scope, conversation_id) {
            (ConsentScope::Always, Some(_)) => {
                return Err(StoreError::InvalidConsentScope {
                    scope: scope.as_str(),
                    reason: "applies everywhere and takes no conversation",
                })
            }
            (ConsentScope::Once | ConsentScope::Conversation, None) => {
                return Err(StoreError::InvalidConsentScope {
                    scope: scope.as_str(),
                    reason: "needs the conversation it applies to",
                })
            }
            (_, Some(id)) => conversations::ensure_exists(self.conn, id)?,
            (_, None) => {}
        }
        let grant = ConsentGrant {
            grant_id: ids::new_id(),
            tool: tool.to_owned(),
            scope,
            conversation_id: conversation_id.map(str::to_owned),
            created_at: clock::now(),
            revoked_at: None,
            used_at: None,
        };
        self.conn
            .prepare_cached(
                "INSERT INTO consent_grants (grant_id, tool, scope, conversation_id, created_at)
                 VALUES (?1, ?2, ?3, ?4, ?5)",
            )?
            .execute(params![
                grant.grant_id,
                grant.tool,
                scope.as_str(),
                grant.conversation_id,
                grant.created_at.as_str()
            ])?;
        Ok(grant)
    }

    /// Revokes a grant; returns whether it was active.
    pub fn revoke_consent(&mut self, grant_id: &str) -> Result<bool> {
        let n = self
            .conn
            .prepare_cached(
                "UPDATE consent_grants SET revoked_at = ?2 WHERE grant_id = ?1 AND revoked_at IS NULL",
            )?
            .execute(params![grant_id, clock::now().as_str()])?;
        if n == 0 {
            let exists = !rows::all::<ConsentGrant>(
                self.conn,
                &format!("SELECT {COLUMNS} FROM consent_grants WHERE grant_id = ?1"),
                [grant_id],
            )?
            .is_empty();
            if !exists {
                return Err(StoreError::NotFound {
                    entity: Entity::ConsentGrant,
                    conversation_id: None,
                    id: grant_id.to_owned(),
                });
            }
        }
        Ok(n > 0)
    }

    /// Revokes every active grant of a tool whose name starts with `prefix` (an MCP server's
    /// `name__`, when what the name stands for changed); how many.
    pub fn revoke_consents_of_tools(&mut self, prefix: &str) -> Result<usize> {
        Ok(self
            .conn
            .prepare_cached(
                "UPDATE consent_grants SET revoked_at = ?2
                 WHERE revoked_at IS NULL AND substr(tool, 1, length(?1)) = ?1",
            )?
            .execute(params![prefix, clock::now().as_str()])?)
    }

    /// Finds the grant that lets `tool` run in `conversation_id` and records the use (which
    /// spends a once grant). `None`: the person must be asked.
    pub fn use_consent(
        &mut self,
        tool: &str,
        conversation_id: &str,
    ) -> Result<Option<ConsentGrant>> {
        let Some(mut grant) = active(self.conn, tool, conversation_id)? else {
            return Ok(None);
        };
        // Every use is recorded, so the permissions page can say when a grant last applied.
        let now = clock::now();
        self.conn
            .prepare_cached("UPDATE consent_grants SET used_at = ?2 WHERE grant_id = ?1")?
            .execute(params![grant.grant_id, now.as_str()])?;
        grant.used_at = Some(now);
        Ok(Some(grant))
    }
}

impl WriteTx<'_> {
    /// Records that a call of `tool` in `conversation_id` ran under a standing grant (always,
    /// or for this conversation) that the person's own answer made, without spending any
    /// `once` grant: the permissions page then says it was used. Whether one was found.
    pub fn note_consent_used(&mut self, tool: &str, conversation_id: &str) -> Result<bool> {
        let changed = self
            .conn
            .prepare_cached(
                "UPDATE consent_grants SET used_at = ?3
                 WHERE tool = ?1 AND revoked_at IS NULL AND (
                     scope = 'always' OR (scope = 'conversation' AND conversation_id = ?2))",
            )?
            .execute(params![tool, conversation_id, clock::now().as_str()])?;
        Ok(changed > 0)
    }
}

impl Store {
    /// See [`WriteTx::note_consent_used`].
    pub fn note_consent_used(&self, tool: &str, conversation_id: &str) -> Result<bool> {
        let (t, c) = (tool.to_owned(), conversation_id.to_owned());
        self.write(move |tx| tx.note_consent_used(&t, &c))
    }

    /// Grants consent; see [`WriteTx::grant_consent`].
    pub fn grant_consent(
        &self,
        tool: &str,
        scope: ConsentScope,
        conversation_id: Option<&str>,
    ) -> Result<ConsentGrant> {
        let (t, c) = (tool.to_owned(), conversation_id.map(str::to_owned));
        self.write(move |tx| tx.grant_consent(&t, scope, c.as_deref()))
    }

    /// Revokes a grant.
    pub fn revoke_consent(&self, grant_id: &str) -> Result<bool> {
        let g = grant_id.to_owned();
        self.write(move |tx| tx.revoke_consent(&g))
    }

    /// See [`WriteTx::revoke_consents_of_tools`].
    pub fn revoke_consents_of_tools(&self, prefix: &str) -> Result<usize> {
        let p = prefix.to_owned();
        self.write(move |tx| tx.revoke_consents_of_tools(&p))
    }

    /// Finds and, for once grants, spends consent; see [`WriteTx::use_consent`].
    pub fn use_consent(&self, tool: &str, conversation_id: &str) -> Result<Option<ConsentGrant>> {
        let (t, c) = (tool.to_owned(), conversation_id.to_owned());
        self.write(move |tx| tx.use_consent(&t, &c))
    }

    /// One grant, revoked or not.
    pub fn consent_grant(&self, grant_id: &str) -> Result<Option<ConsentGrant>> {
        self.read(|r| r.consent_grant(grant_id))
    }

    /// Grants, newest first.
    pub fn consent_grants(&self, include_revoked: bool) -> Result<Vec<ConsentGrant>> {
        self.read(|r| r.consent_grants(include_revoked))
    }
}
