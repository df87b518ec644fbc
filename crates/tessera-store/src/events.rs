//! The event log: every easyflow event of a conversation with its `meta.seq` (strictly
//! increasing per conversation, the SSE `id:`), written in the same transaction as the state
//! change it reports. Reading from a seq gives what a reconnecting client missed; see
//! [`crate::event_folding`] for what happens to streamed deltas when a run ends.

use std::sync::{Arc, OnceLock};

use rusqlite::{params, Connection};
use serde::{Deserialize, Serialize};
use tessera_protocol::easyflow::{Event, EventBody};

use crate::error::{Entity, Result, StoreError};
use crate::rows;
use crate::tx::{ReadTx, WriteTx};
use crate::{clock, delta_batches, sql, Store};

pub(crate) const SCHEMA_V1: &str = "
CREATE TABLE events (
    pk              INTEGER PRIMARY KEY,
    conversation_id TEXT NOT NULL REFERENCES conversations (id) ON DELETE CASCADE,
    seq             INTEGER NOT NULL,
    run_id          TEXT,
    domain          TEXT NOT NULL,
    event_type      TEXT NOT NULL,
    -- an llm/thinking or llm/message piece (payload.delta), folded when its run ends
    is_delta        INTEGER NOT NULL DEFAULT 0,
    -- a folded event replaces the seqs seq..=folded_to
    folded_to       INTEGER,
    event_json      TEXT NOT NULL,
    UNIQUE (conversation_id, seq)
) STRICT;
CREATE INDEX events_by_run ON events (conversation_id, run_id, seq);
CREATE INDEX events_folded ON events (conversation_id, folded_to) WHERE folded_to IS NOT NULL;
";

/// Deltas written together share a row: see [`crate::delta_batches`].
pub(crate) const SCHEMA_V7: &str = "
ALTER TABLE events ADD COLUMN batch_to INTEGER;
CREATE INDEX events_batched ON events (conversation_id, batch_to) WHERE batch_to IS NOT NULL;
";

/// A range of seqs, both ends included.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SeqRange {
    pub from: u64,
    pub to: u64,
}

/// An event as stored: its seq and run, and for a folded event the seqs it replaces.
#[derive(Clone)]
pub struct StoredEvent {
    pub seq: u64,
    pub run_id: Option<String>,
    pub replaces: Option<SeqRange>,
    pub event: Box<Event>,
    /// The event as JSON text: the text in the log when the event has a row of its own, so an
    /// event is serialised once however many streams send it. A delta sharing a row is
    /// serialised when first asked for (a command-line chat never asks).
    json: OnceLock<Arc<str>>,
}

/// Compared and shown by content: the JSON text is only another form of `event`.
impl PartialEq for StoredEvent {
    fn eq(&self, other: &Self) -> bool {
        self.seq == other.seq
            && self.run_id == other.run_id
            && self.replaces == other.replaces
            && self.event == other.event
    }
}

impl std::fmt::Debug for StoredEvent {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("StoredEvent")
            .field("seq", &self.seq)
            .field("run_id", &self.run_id)
            .field("replaces", &self.replaces)
            .field("event", &self.event)
            .finish_non_exhaustive()
    }
}

impl StoredEvent {
    pub(crate) fn new(
        seq: u64,
        run_id: Option<String>,
        replaces: Option<SeqRange>,
        event: impl Into<Box<Event>>,
        json: Option<Arc<str>>,
    ) -> Self {
        Self {
            seq,
            run_id,
            replaces,
            event: event.into(),
            json: json.map(OnceLock::from).unwrap_or_default(),
        }
    }

    /// The event as JSON text: the text in the log, shared (no copy). Meant for sending the
    /// event as it is stored; after a change to `event`, serialise `event` instead.
    pub fn json(&self) -> Arc<str> {
        Arc::clone(self.json.get_or_init(|| {
            serde_json::to_string(&*self.event)
                .unwrap_or_else(|error| {
                    // Not reachable: an event is maps with text keys and plain values.
                    tracing::error!(%error, seq = self.seq, "cannot serialise an event");
                    String::new()
                })
                .into()
        }))
    }
}

pub(crate) fn is_delta(event: &Event) -> bool {
    match &event.body {
        EventBody::LlmThinking(p) => p.delta.is_some(),
        EventBody::LlmMessage(p) => p.delta.is_some(),
        _ => false,
    }
}

/// Gives out the conversation's next `n` seqs; the first of them. Read, then written: an
/// `UPDATE … RETURNING` builds a temporary table for its answer, which cost more than the
/// update itself (this runs for every write of events).
fn next_seqs(conn: &Connection, conversation_id: &str, n: u64) -> Result<u64> {
    let next: i64 = rows::optional(
        conn,
        "SELECT next_event_seq FROM conversations WHERE id = ?1",
        [conversation_id],
    )?
    .ok_or_else(|| StoreError::NotFound {
        entity: Entity::Conversation,
        conversation_id: None,
        id: conversation_id.to_owned(),
    })?;
    let after = next
        .checked_add(sql::to_i64("event count", n)?)
        .ok_or_else(|| StoreError::Corrupt {
            what: "event seq",
            message: format!("{next} + {n} is out of range"),
        })?;
    conn.prepare_cached("UPDATE conversations SET next_event_seq = ?2 WHERE id = ?1")?
        .execute(params![conversation_id, after])?;
    sql::to_u64("event seq", next)
}

/// A row of the log as read: `(seq, run_id, folded_to, batch_to, event_json)`.
type LogRow = (i64, Option<String>, Option<i64>, Option<i64>, String);

const ROW_COLUMNS: &str = "seq, run_id, folded_to, batch_to, event_json";

/// The events of `rows` after seq `after`, in order: a batch row gives each of its deltas.
fn decode(conversation_id: &str, rows: Vec<LogRow>, after: u64) -> Result<Vec<StoredEvent>> {
    let mut out = Vec::with_capacity(rows.len());
    for (seq, run_id, folded_to, batch_to, json) in rows {
        if batch_to.is_some() {
            delta_batches::read_row(conversation_id, run_id.as_deref(), &json, after, &mut out)?;
            continue;
        }
        let seq = sql::to_u64("event seq", seq)?;
        let event: Event = sql::parse("event", &json)?;
        let replaces =
            sql::opt_u64("folded range", folded_to)?.map(|to| SeqRange { from: seq, to });
        // A subscriber catching up sends the text as stored instead of serialising it again.
        out.push(StoredEvent::new(
            seq,
            run_id,
            replaces,
            event,
            Some(json.into()),
        ));
    }
    Ok(out)
}

impl ReadTx<'_> {
    /// The events a client that has seen everything up to `after` is missing, oldest first
    /// (`None`: from the start). When `after` falls inside a folded range, the folded event
    /// comes first, so the client can replace the partial text it had.
    pub fn events_after(
        &self,
        conversation_id: &str,
        after: Option<u64>,
        limit: Option<usize>,
    ) -> Result<Vec<StoredEvent>> {
        let after_seq = after.unwrap_or(0);
        let after = sql::to_i64("event seq", after_seq)?;
        // Rows, not events: a batch row holds many, so the events are cut to `limit` after.
        let row_limit = limit.map_or(-1, |l| i64::try_from(l).unwrap_or(i64::MAX));
        let rows: Vec<LogRow> = rows::all(
            self.conn,
            &format!(
                "SELECT {ROW_COLUMNS} FROM events
                 WHERE conversation_id = ?1 AND folded_to IS NOT NULL AND folded_to > ?2
                     AND seq <= ?2
                 UNION ALL
                 SELECT {ROW_COLUMNS} FROM events
                 WHERE conversation_id = ?1 AND batch_to IS NOT NULL AND batch_to > ?2
                     AND seq <= ?2
                 UNION ALL
                 SELECT {ROW_COLUMNS} FROM events
                 WHERE conversation_id = ?1 AND seq > ?2
                 ORDER BY seq LIMIT ?3"
            ),
            params![conversation_id, after, row_limit],
        )?;
        let mut events = decode(conversation_id, rows, after_seq)?;
        if let Some(limit) = limit {
            events.truncate(limit);
        }
        Ok(events)
    }

    /// One run's events, oldest first (deltas not yet folded included).
    pub fn run_events(&self, conversation_id: &str, run_id: &str) -> Result<Vec<StoredEvent>> {
        let rows: Vec<LogRow> = rows::all(
            self.conn,
            &format!(
                "SELECT {ROW_COLUMNS} FROM events
                 WHERE conversation_id = ?1 AND run_id = ?2 ORDER BY seq"
            ),
            params![conversation_id, run_id],
        )?;
        decode(conversation_id, rows, 0)
    }

    /// The newest run of the conversation whose `system/status` payload has `key` equal to
    /// `value` (a run naming the message it answers), with the seq of its first event.
    pub fn run_with_status(
        &self,
        conversation_id: &str,
        key: &str,
        value: &str,
    ) -> Result<Option<(String, u64)>> {
        let run: Option<String> = rows::optional(
            self.conn,
            "SELECT run_id FROM events
             WHERE conversation_id = ?1 AND domain = 'system' AND event_type = 'status'
               AND run_id IS NOT NULL
               AND json_extract(event_json, '$.payload.' || ?2) = ?3
             ORDER BY seq DESC LIMIT 1",
            params![conversation_id, key, value],
        )?;
        let Some(run) = run else {
            return Ok(None);
        };
        let first: i64 = rows::one(
            self.conn,
            "SELECT MIN(seq) FROM events WHERE conversation_id = ?1 AND run_id = ?2",
            params![conversation_id, run],
        )?;
        Ok(Some((run, crate::sql::to_u64("event seq", first)?)))
    }

    /// Runs that have events but no `system/done`: suspended ones, and ones the process was
    /// killed in the middle of. `(conversation_id, run_id)`, oldest first.
    pub fn unfinished_runs(&self) -> Result<Vec<(String, String)>> {
        rows::all(
            self.conn,
            "SELECT conversation_id, run_id FROM events WHERE run_id IS NOT NULL
             GROUP BY conversation_id, run_id
             HAVING SUM(domain = 'system' AND event_type = 'done') = 0
             ORDER BY MIN(pk)",
            [],
        )
    }

    /// The newest seq given out in the conversation (0 before the first event).
    pub fn last_event_seq(&self, conversation_id: &str) -> Result<u64> {
        let next: i64 = rows::optional(
            self.conn,
            "SELECT next_event_seq FROM conversations WHERE id = ?1",
            [conversation_id],
        )?
        .ok_or_else(|| StoreError::NotFound {
            entity: Entity::Conversation,
            conversation_id: None,
            id: conversation_id.to_owned(),
        })?;
        sql::to_u64("event seq", next - 1)
    }
}

impl WriteTx<'_> {
    /// Appends an event: gives it the conversation's next seq (`meta.seq`), stamps `meta.ts`
    /// when absent, and returns it as stored. Its `conversation_id` must be this one.
    pub fn append_event(&mut self, conversation_id: &str, event: Event) -> Result<StoredEvent> {
        let mut stored = self.append_events(conversation_id, vec![event])?;
        stored.pop().ok_or(StoreError::Corrupt {
            what: "event",
            message: "an appended event was not kept".into(),
        })
    }

    /// Appends events in their order, with consecutive seqs; see [`WriteTx::append_event`].
    /// Deltas of one run next to each other share a row ([`crate::delta_batches`]).
    pub fn append_events(
        &mut self,
        conversation_id: &str,
        mut events: Vec<impl Into<Box<Event>>>,
    ) -> Result<Vec<StoredEvent>> {
        if events.is_empty() {
            return Ok(Vec::new());
        }
        let mut events: Vec<Box<Event>> = events.drain(..).map(Into::into).collect();
        for event in &events {
            check_conversation(conversation_id, event)?;
        }
        let first = next_seqs(self.conn, conversation_id, events.len() as u64)?;
        let now = clock::now();
        let mut stored = Vec::with_capacity(events.len());
        for (seq, mut event) in (first..).zip(events.drain(..)) {
            let meta = event.meta.get_or_insert_with(Default::default);
            meta.seq = Some(seq);
            if meta.ts.is_none() {
                meta.ts = Some(now.clone());
            }
            let run_id = meta.run_id.clone();
            stored.push(StoredEvent::new(seq, run_id, None, event, None));
        }
        let ranges = delta_batches::stretches(&stored);
        for range in ranges {
            let row = &stored[range];
            let pk = match row {
                [one] => {
                    let json = sql::json("event", &*one.event)?;
                    let pk = self.insert_row(conversation_id, one, None, &json)?;
                    // Sent as it is stored.
                    let _ = one.json.set(json.into());
                    pk
                }
                [.., last] => {
                    let json = delta_batches::row_json(row)?;
                    self.insert_row(conversation_id, &row[0], Some(last.seq), &json)?
                }
                [] => continue,
            };
            self.ctx.run_folds().saw_row(conversation_id, pk, row);
        }
        Ok(stored)
    }

    /// Inserts one row: event `first`, or the deltas from it to seq `batch_to` sharing the row.
    fn insert_row(
        &mut self,
        conversation_id: &str,
        first: &StoredEvent,
        batch_to: Option<u64>,
        json: &str,
    ) -> Result<i64> {
        self.conn
            .prepare_cached(
                "INSERT INTO events (conversation_id, seq, run_id, domain, event_type, is_delta,
                     batch_to, event_json)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
            )?
            .execute(params![
                conversation_id,
                sql::to_i64("event seq", first.seq)?,
                first.run_id,
                first.event.body.domain().as_str(),
                first.event.body.event_type(),
                is_delta(&first.event),
                sql::opt_i64("event seq", batch_to)?,
                json,
            ])?;
        Ok(self.conn.last_insert_rowid())
    }
}

fn check_conversation(conversation_id: &str, event: &Event) -> Result<()> {
    if event.conversation_id == conversation_id {
        Ok(())
    } else {
        Err(StoreError::EventConversationMismatch {
            expected: conversation_id.to_owned(),
            found: event.conversation_id.clone(),
        })
    }
}

impl Store {
    /// Appends one event; see [`WriteTx::append_event`]. To write an event with the state
    /// change it reports, use [`Store::write`] and call both on the same [`WriteTx`].
    pub fn append_event(&self, conversation_id: &str, event: Event) -> Result<StoredEvent> {
        let conversation_id = conversation_id.to_owned();
        self.write(move |tx| tx.append_event(&conversation_id, event))
    }

    /// Queues events and returns at once; `on_commit` gets them as stored, with consecutive
    /// seqs in their order, once they have committed (or the error: then none was kept).
    /// Events queued by one caller, call after call, get their seqs and commit in the order
    /// they were queued. See [`Store::write_then`].
    pub fn append_events_then(
        &self,
        conversation_id: &str,
        events: Vec<Event>,
        on_commit: impl FnOnce(Result<Vec<StoredEvent>>) + Send + 'static,
    ) {
        let conversation_id = conversation_id.to_owned();
        self.write_then(
            move |tx| tx.append_events(&conversation_id, events),
            on_commit,
        );
    }

    /// See [`ReadTx::run_events`].
    pub fn run_events(&self, conversation_id: &str, run_id: &str) -> Result<Vec<StoredEvent>> {
        self.read(|r| r.run_events(conversation_id, run_id))
    }

    /// See [`ReadTx::unfinished_runs`].
    pub fn unfinished_runs(&self) -> Result<Vec<(String, String)>> {
        self.read(|r| r.unfinished_runs())
    }

    /// See [`ReadTx::events_after`].
    pub fn events_after(
        &self,
        conversation_id: &str,
        after: Option<u64>,
        limit: Option<usize>,
    ) -> Result<Vec<StoredEvent>> {
        self.read(|r| r.events_after(conversation_id, after, limit))
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use tessera_protocol::easyflow::{EventMeta, LlmMessagePayload};

    use super::*;
    use crate::NewConversation;

    fn delta(conversation: &str, text: &str) -> Event {
        let mut event = Event::new(
            conversation,
            EventBody::LlmMessage(LlmMessagePayload {
                delta: Some(text.into()),
                ..Default::default()
            }),
        );
        event.message_id = Some("m1".into());
        event.meta = Some(EventMeta {
            run_id: Some("r1".into()),
            ..Default::default()
        });
        event
    }

    #[test]
    fn the_json_text_is_the_event_as_serialised_whether_appended_or_read_back() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(dir.path()).unwrap();
        let c = store
            .create_conversation(NewConversation {
                title: "json".into(),
                ..Default::default()
            })
            .unwrap()
            .id;
        let texts = ["plain ", "quote \" and \\ back\nslash ", "中文 ✓ "];
        let appended: Vec<StoredEvent> = texts
            .iter()
            .map(|t| store.append_event(&c, delta(&c, t)).unwrap())
            .collect();
        for stored in &appended {
            // Sent as it would have been serialised for each stream (seq and ts included).
            assert_eq!(
                &*stored.json(),
                serde_json::to_string(&stored.event).unwrap()
            );
        }
        let read = store.events_after(&c, None, None).unwrap();
        assert_eq!(read, appended);
        for (read, appended) in read.iter().zip(&appended) {
            assert_eq!(read.json(), appended.json());
        }
    }
}
