//! Evidences (seed 004 `evidences`): every citable source, with the attachment files it
//! references.

use std::sync::atomic::AtomicBool;

use rusqlite::{params, Connection, Row};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use tessera_protocol::context_doc::{Evidence, EvidenceRef};

use crate::attachments::{self, AttachmentRef};
use crate::error::{Entity, Result, StoreError};
use crate::rows::{self, FromRow};
use crate::tx::{ReadTx, WriteTx};
use crate::{conversations, refs, search_backlog, sql, Store};

pub(crate) const SCHEMA_V1: &str = "
CREATE TABLE evidences (
    pk              INTEGER PRIMARY KEY,
    conversation_id TEXT NOT NULL REFERENCES conversations (id) ON DELETE CASCADE,
    evidence_id     TEXT NOT NULL,
    evidence_type   TEXT NOT NULL,
    source_json     TEXT NOT NULL,
    -- NULL: no content; the JSON text 'null': content that is null
    content_json    TEXT,
    -- the number as written (0.92 stays 0.92)
    confidence      TEXT,
    metadata_json   TEXT,
    links_json      TEXT,
    extra_json      TEXT,
    UNIQUE (conversation_id, evidence_id)
) STRICT;
CREATE TABLE evidence_attachments (
    evidence_pk INTEGER NOT NULL REFERENCES evidences (pk) ON DELETE CASCADE,
    position    INTEGER NOT NULL,
    sha256      TEXT NOT NULL REFERENCES attachments (sha256),
    mime_type   TEXT,
    file_name   TEXT,
    PRIMARY KEY (evidence_pk, position)
) STRICT;
CREATE INDEX evidence_attachments_by_file ON evidence_attachments (sha256);
";

/// A stored evidence with the attachment files it references.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct StoredEvidence {
    pub evidence: Evidence,
    pub attachments: Vec<AttachmentRef>,
}

const COLUMNS: &str = "pk, evidence_id, evidence_type, source_json, content_json, confidence, \
                       metadata_json, links_json, extra_json";

/// An evidence's row; its attachments are another table's ([`EvidenceRow::stored`]).
struct EvidenceRow {
    pk: i64,
    evidence: Evidence,
}

impl FromRow for EvidenceRow {
    fn from_row(row: &Row<'_>) -> Result<Self> {
        Ok(Self {
            pk: row.get(0)?,
            evidence: Evidence {
                evidence_id: row.get(1)?,
                evidence_type: sql::parse_enum("evidence type", &row.get::<_, String>(2)?)?,
                source: sql::parse("evidence source", &row.get::<_, String>(3)?)?,
                content: sql::opt_parse("evidence content", row.get(4)?)?,
                confidence: sql::opt_parse("evidence confidence", row.get(5)?)?,
                metadata: sql::opt_parse("evidence metadata", row.get(6)?)?,
                links: sql::opt_parse("evidence links", row.get(7)?)?,
                extra: sql::parse_extra(row.get(8)?)?,
            },
        })
    }
}

impl EvidenceRow {
    /// The evidence with the attachment files it references.
    fn stored(self, conn: &Connection) -> Result<StoredEvidence> {
        Ok(StoredEvidence {
            attachments: attachments::of_evidence(conn, self.pk)?,
            evidence: self.evidence,
        })
    }
}

/// The content of an evidence: `None` when there is no such evidence, `Some(None)` when it has
/// no content.
pub(crate) fn content(
    conn: &Connection,
    conversation_id: &str,
    evidence_id: &str,
) -> Result<Option<Option<Value>>> {
    let text: Option<Option<String>> = rows::optional(
        conn,
        "SELECT content_json FROM evidences WHERE conversation_id = ?1 AND evidence_id = ?2",
        [conversation_id, evidence_id],
    )?;
    text.map(|t| sql::opt_parse("evidence content", t))
        .transpose()
}

pub(crate) fn get(
    conn: &Connection,
    conversation_id: &str,
    evidence_id: &str,
) -> Result<Option<StoredEvidence>> {
    rows::optional::<EvidenceRow>(
        conn,
        &format!("SELECT {COLUMNS} FROM evidences WHERE conversation_id = ?1 AND evidence_id = ?2"),
        [conversation_id, evidence_id],
    )?
    .map(|row| row.stored(conn))
    .transpose()
}

pub(crate) fn list(conn: &Connection, conversation_id: &str) -> Result<Vec<StoredEvidence>> {
    rows::all::<EvidenceRow>(
        conn,
        &format!("SELECT {COLUMNS} FROM evidences WHERE conversation_id = ?1 ORDER BY pk"),
        [conversation_id],
    )?
    .into_iter()
    .map(|row| row.stored(conn))
    .collect()
}

/// The text the search index holds for an evidence: a string content as it is, the strings
/// inside structured content one per line.
pub(crate) fn search_text(content: Option<&Value>) -> String {
    fn strings(value: &Value, out: &mut Vec<String>) {
        match value {
            Value::String(s) => out.push(s.clone()),
            Value::Array(items) => items.iter().for_each(|v| strings(v, out)),
            Value::Object(map) => map.values().for_each(|v| strings(v, out)),
            Value::Number(n) => out.push(n.to_string()),
            Value::Bool(_) | Value::Null => {}
        }
    }
    let mut out = Vec::new();
    if let Some(content) = content {
        strings(content, &mut out);
    }
    out.join("\n")
}

/// Inserts or replaces an evidence (keeping its place in the order) and its attachment refs;
/// its text is indexed now, or listed to be indexed `later` (given the writer's flag).
pub(crate) fn upsert(
    conn: &Connection,
    conversation_id: &str,
    evidence: &Evidence,
    attachment_refs: &[AttachmentRef],
    later: Option<&AtomicBool>,
) -> Result<()> {
    let indexed = !copies_stored_message(
        conn,
        conversation_id,
        evidence.source.uri.as_deref(),
        evidence.content.as_ref(),
    )?;
    upsert_indexed(
        conn,
        conversation_id,
        evidence,
        attachment_refs,
        indexed,
        later,
    )
}

/// Whether an evidence (its source's URI and its content) is a copy of a stored message: the
/// URI names the message as the engine names an answer it keeps as evidence
/// (`tessera://conversations/{conversation}/messages/{message}`), and the content is that
/// message's text, exactly. The message's own index rows find it, so its text is not indexed
/// again (a long answer indexed twice cost as much as storing its every piece).
pub(crate) fn copies_stored_message(
    conn: &Connection,
    conversation_id: &str,
    source_uri: Option<&str>,
    content: Option<&Value>,
) -> Result<bool> {
    let message = source_uri
        .and_then(|uri| uri.strip_prefix("tessera://conversations/"))
        .and_then(|rest| rest.strip_prefix(conversation_id))
        .and_then(|rest| rest.strip_prefix("/messages/"))
        .filter(|message| !message.is_empty() && !message.contains('/'));
    let (Some(message), Some(Value::String(text))) = (message, content) else {
        return Ok(false);
    };
    let same: Option<bool> = rows::optional(
        conn,
        "SELECT content = ?3 FROM messages WHERE conversation_id = ?1 AND id = ?2",
        params![conversation_id, message, text],
    )?;
    Ok(same == Some(true))
}

/// [`upsert`], with its text in the search index or (`indexed` false) out of it.
fn upsert_indexed(
    conn: &Connection,
    conversation_id: &str,
    evidence: &Evidence,
    attachment_refs: &[AttachmentRef],
    indexed: bool,
    later: Option<&AtomicBool>,
) -> Result<()> {
    conn.prepare_cached(
        "INSERT INTO evidences (conversation_id, evidence_id, evidence_type, source_json,
                 content_json, confidence, metadata_json, links_json, extra_json)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)
             ON CONFLICT (conversation_id, evidence_id) DO UPDATE SET
                 evidence_type = excluded.evidence_type, source_json = excluded.source_json,
                 content_json = excluded.content_json, confidence = excluded.confidence,
                 metadata_json = excluded.metadata_json, links_json = excluded.links_json,
                 extra_json = excluded.extra_json",
    )?
    .execute(params![
        conversation_id,
        evidence.evidence_id,
        sql::enum_text("evidence type", &evidence.evidence_type)?,
        sql::json("evidence source", &evidence.source)?,
        sql::opt_json("evidence content", evidence.content.as_ref())?,
        evidence.confidence.as_ref().map(ToString::to_string),
        sql::opt_json("evidence metadata", evidence.metadata.as_ref())?,
        sql::opt_json("evidence links", evidence.links.as_ref())?,
        sql::extra_json(&evidence.extra)?,
    ])?;
    // Looked up rather than returned: `RETURNING` builds a temporary table for its answer.
    let pk: i64 = rows::one(
        conn,
        "SELECT pk FROM evidences WHERE conversation_id = ?1 AND evidence_id = ?2",
        params![conversation_id, evidence.evidence_id],
    )?;
    let text = indexed.then(|| search_text(evidence.content.as_ref()));
    search_backlog::index_evidence(conn, pk, text.as_deref(), later)?;
    attachments::set_for_evidence(conn, pk, attachment_refs)
}

impl ReadTx<'_> {
    /// One evidence.
    pub fn evidence(
        &self,
        conversation_id: &str,
        evidence_id: &str,
    ) -> Result<Option<StoredEvidence>> {
        get(self.conn, conversation_id, evidence_id)
    }

    /// The conversation's evidences in the order they were first written.
    pub fn evidences(&self, conversation_id: &str) -> Result<Vec<StoredEvidence>> {
        list(self.conn, conversation_id)
    }

    /// What a ref points at: the evidence content, narrowed by the ref's selector.
    pub fn resolve_ref(&self, conversation_id: &str, r: &EvidenceRef) -> Result<Value> {
        let content = content(self.conn, conversation_id, &r.evidence_id)?.ok_or_else(|| {
            StoreError::not_found(Entity::Evidence, conversation_id, &r.evidence_id)
        })?;
        let invalid = |source| StoreError::InvalidRef {
            evidence_id: r.evidence_id.clone(),
            source,
        };
        refs::check(r, content.as_ref()).map_err(invalid)?;
        match (&r.selector, content) {
            (Some(selector), Some(content)) => {
                crate::selector::select(selector, &content).map_err(invalid)
            }
            (_, content) => Ok(content.unwrap_or(Value::Null)),
        }
    }
}

impl WriteTx<'_> {
    /// Writes an evidence (replacing one with the same id) with the attachments it references
    /// (each must have been stored with [`Store::put_attachment`]).
    pub fn put_evidence(
        &mut self,
        conversation_id: &str,
        evidence: &Evidence,
        attachment_refs: &[AttachmentRef],
    ) -> Result<()> {
        conversations::ensure_exists(self.conn, conversation_id)?;
        upsert(
            self.conn,
            conversation_id,
            evidence,
            attachment_refs,
            Some(&self.ctx.search_backlog),
        )?;
        for r in attachment_refs {
            self.ctx.pins.unpin(&r.sha256);
        }
        conversations::touch(self.conn, conversation_id)
    }

    /// Writes an evidence whose text is a stored message's (an answer, a person's message,
    /// kept as evidence to be cited) without indexing that text again: the message's own
    /// entries in the search index find it. A long answer was indexed twice, which cost as
    /// much as storing its every streamed piece.
    pub fn put_message_evidence(
        &mut self,
        conversation_id: &str,
        evidence: &Evidence,
    ) -> Result<()> {
        conversations::ensure_exists(self.conn, conversation_id)?;
        upsert_indexed(self.conn, conversation_id, evidence, &[], false, None)?;
        conversations::touch(self.conn, conversation_id)
    }
}

impl Store {
    /// Writes an evidence; see [`WriteTx::put_evidence`].
    pub fn put_evidence(
        &self,
        conversation_id: &str,
        evidence: Evidence,
        attachment_refs: Vec<AttachmentRef>,
    ) -> Result<()> {
        let conversation_id = conversation_id.to_owned();
        self.write(move |tx| tx.put_evidence(&conversation_id, &evidence, &attachment_refs))
    }

    /// One evidence.
    pub fn evidence(
        &self,
        conversation_id: &str,
        evidence_id: &str,
    ) -> Result<Option<StoredEvidence>> {
        self.read(|r| r.evidence(conversation_id, evidence_id))
    }

    /// The conversation's evidences.
    pub fn evidences(&self, conversation_id: &str) -> Result<Vec<StoredEvidence>> {
        self.read(|r| r.evidences(conversation_id))
    }
}
