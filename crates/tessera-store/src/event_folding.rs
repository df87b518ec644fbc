//! Folding a finished run's streamed pieces. While a run streams, every `llm/thinking` and
//! `llm/message` delta is its own event. When the run ends, each stream of deltas (same type,
//! `message_id` and `index`) becomes one whole-message event (`content`, the last
//! `signature`) that keeps the first delta's seq and records the seqs it replaces in
//! `meta.replaces: {from, to}`; the deltas are deleted. Events between them keep their seqs,
//! so a client resuming at any seq still receives everything after it.
//!
//! The writer folds a run's streams as it writes their deltas ([`RunFolds`]), so folding at
//! the end reads nothing back unless the run began before this process (or a write of it was
//! rolled back).

use std::collections::HashMap;

use rusqlite::params;
use serde_json::json;
use tessera_protocol::easyflow::{Event, EventBody, LlmMessagePayload, LlmThinkingPayload};
use tessera_protocol::wire::Timestamp;

use crate::error::Result;
use crate::events::{is_delta, SeqRange, StoredEvent};
use crate::tx::WriteTx;
use crate::{delta_batches, rows, sql, Store};

/// One stream of deltas being folded: what its whole-message event needs (the deltas are
/// read one at a time, never all held: a long answer has a million of them).
struct Stream {
    from: u64,
    to: u64,
    /// The first delta: the folded event keeps its fields.
    first: Event,
    content: String,
    /// The last signature given (thinking).
    signature: Option<String>,
    /// The last delta's `meta.ts`.
    last_ts: Option<Timestamp>,
    /// The last delta's `index`: a run resumed later numbers its pieces on from it.
    last_index: Option<u64>,
}

type StreamKey = (String, Option<String>, Option<u64>);

/// A delta's stream: its type, message and block. Events stored before the block moved into
/// the payload carried it as `index`.
fn key(event: &Event) -> StreamKey {
    (
        event.body.event_type().to_owned(),
        event.message_id.clone(),
        stream_block(event),
    )
}

/// The block part of a delta's [`key`].
fn stream_block(event: &Event) -> Option<u64> {
    let block = match &event.body {
        EventBody::LlmThinking(p) => p.block,
        EventBody::LlmMessage(p) => p.block,
        _ => None,
    };
    block.or(event.index)
}

/// Whether deltas `a` and `b` are of one stream: their [`key`]s compared without copying.
fn same_stream(a: &Event, b: &Event) -> bool {
    a.body.event_type() == b.body.event_type()
        && a.message_id == b.message_id
        && stream_block(a) == stream_block(b)
}

/// Whether `event` is a whole `llm/thinking` or `llm/message` event (it ends the stream of
/// deltas before it).
fn is_whole_text(event: &Event) -> bool {
    matches!(
        event.body,
        EventBody::LlmThinking(_) | EventBody::LlmMessage(_)
    ) && !is_delta(event)
}

impl Stream {
    fn start(seq: u64, event: &Event) -> Self {
        let mut stream = Self {
            from: seq,
            to: seq,
            first: event.clone(),
            content: String::new(),
            signature: None,
            last_ts: None,
            last_index: None,
        };
        stream.push(seq, event);
        stream
    }

    fn push(&mut self, seq: u64, event: &Event) {
        self.push_piece(seq, event);
        self.last_ts = event.meta.as_ref().and_then(|m| m.ts.clone());
    }

    /// A delta's text and place, without its time (the last of a stretch gives that).
    fn push_piece(&mut self, seq: u64, event: &Event) {
        self.to = seq;
        self.last_index = event.index.or(self.last_index);
        match &event.body {
            EventBody::LlmThinking(piece) => {
                self.content
                    .push_str(piece.delta.as_deref().unwrap_or_default());
                if piece.signature.is_some() {
                    self.signature.clone_from(&piece.signature);
                }
            }
            EventBody::LlmMessage(piece) => {
                self.content
                    .push_str(piece.delta.as_deref().unwrap_or_default());
            }
            _ => {}
        }
    }

    fn folded(self) -> Option<Event> {
        let (from, to) = (self.from, self.to);
        let mut event = self.first;
        event.body = match event.body {
            EventBody::LlmThinking(p) => EventBody::LlmThinking(LlmThinkingPayload {
                delta: None,
                content: Some(self.content),
                signature: self.signature,
                block: p.block,
                extra: p.extra,
            }),
            EventBody::LlmMessage(p) => EventBody::LlmMessage(LlmMessagePayload {
                delta: None,
                content: Some(self.content),
                block: p.block,
                extra: p.extra,
            }),
            _ => return None,
        };
        let meta = event.meta.get_or_insert_with(Default::default);
        meta.seq = Some(from);
        // When the folded stretch began, too: how long a model thought is shown from it.
        if let Some(started) = meta.ts.clone() {
            meta.extra
                .insert("started_ts".into(), json!(started.as_str()));
        }
        if let Some(ts) = self.last_ts {
            meta.ts = Some(ts);
        }
        meta.extra
            .insert("replaces".into(), json!({ "from": from, "to": to }));
        if let Some(last) = self.last_index {
            meta.extra.insert("last_index".into(), json!(last));
        }
        Some(event)
    }
}

/// A run's streams as its events go by, in seq order.
#[derive(Default)]
struct Streams {
    open: HashMap<StreamKey, Stream>,
    finished: Vec<Stream>,
}

impl Streams {
    fn see(&mut self, seq: u64, event: &Event) {
        if is_delta(event) {
            let stream_key = key(event);
            match self.open.get_mut(&stream_key) {
                Some(stream) => stream.push(seq, event),
                None => {
                    self.open.insert(stream_key, Stream::start(seq, event));
                }
            }
        } else if is_whole_text(event) {
            if let Some(stream) = self.open.remove(&key(event)) {
                self.finished.push(stream);
            }
        }
    }

    /// [`Streams::see`] for the events of one row, in seq order. The deltas of one stream
    /// next to each other (a whole row, mostly) are looked up and timed once, not per delta.
    fn see_all(&mut self, stored: &[StoredEvent]) {
        let mut start = 0;
        while let Some(first) = stored.get(start) {
            if !is_delta(&first.event) {
                self.see(first.seq, &first.event);
                start += 1;
                continue;
            }
            let mut end = start + 1;
            while stored
                .get(end)
                .is_some_and(|s| is_delta(&s.event) && same_stream(&first.event, &s.event))
            {
                end += 1;
            }
            let stretch = &stored[start..end];
            let stream = match self.open.entry(key(&first.event)) {
                std::collections::hash_map::Entry::Occupied(open) => open.into_mut(),
                std::collections::hash_map::Entry::Vacant(new) => {
                    new.insert(Stream::start(first.seq, &first.event))
                }
            };
            // `start` took the first delta if it began the stream; pushing it again would
            // repeat its text.
            let rest = if stream.from == first.seq {
                &stretch[1..]
            } else {
                stretch
            };
            for s in rest {
                stream.push_piece(s.seq, &s.event);
            }
            if let Some(last) = stretch.last() {
                stream.last_ts = last.event.meta.as_ref().and_then(|m| m.ts.clone());
            }
            start = end;
        }
    }

    fn into_streams(self) -> Vec<Stream> {
        let mut all = self.finished;
        all.extend(self.open.into_values());
        all.sort_by_key(|s| s.from);
        all
    }
}

/// A run being written: its streams so far, and the rows its deltas are in.
#[derive(Default)]
struct RunFold {
    streams: Streams,
    rows: Vec<i64>,
}

/// Runs whose deltas this writer stored, folded as they are written, so folding a run reads
/// nothing back (reading and parsing every delta again was a third of a long answer's cost).
/// Whatever the writer did not see (a run begun before the process started, a write rolled
/// back) is found out when the run folds: its rows then differ, and the log is read instead.
#[derive(Default)]
pub(crate) struct RunFolds {
    runs: HashMap<(String, String), RunFold>,
}

impl std::fmt::Debug for RunFolds {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RunFolds")
            .field("runs", &self.runs.len())
            .finish()
    }
}

/// Runs kept at once (each holds its text so far); beyond it a run is read back to fold.
const MAX_RUNS: usize = 64;

impl RunFolds {
    /// A row of `conversation_id`'s log was inserted, holding `stored`.
    pub(crate) fn saw_row(&mut self, conversation_id: &str, pk: i64, stored: &[StoredEvent]) {
        let Some(first) = stored.first() else {
            return;
        };
        let Some(run_id) = &first.run_id else {
            return;
        };
        if !stored
            .iter()
            .any(|s| is_delta(&s.event) || is_whole_text(&s.event))
        {
            return;
        }
        let run_key = (conversation_id.to_owned(), run_id.clone());
        if !self.runs.contains_key(&run_key) {
            if self.runs.len() >= MAX_RUNS || !is_delta(&first.event) {
                return;
            }
            self.runs.insert(run_key.clone(), RunFold::default());
        }
        let Some(run) = self.runs.get_mut(&run_key) else {
            return;
        };
        if is_delta(&first.event) {
            run.rows.push(pk);
        }
        run.streams.see_all(stored);
    }

    /// Forgets every run: a write was rolled back, so what was seen may not be in the log.
    pub(crate) fn forget_all(&mut self) {
        self.runs.clear();
    }

    fn take(&mut self, conversation_id: &str, run_id: &str) -> Option<RunFold> {
        self.runs
            .remove(&(conversation_id.to_owned(), run_id.to_owned()))
    }
}

impl WriteTx<'_> {
    /// Folds the deltas of `run_id` into whole-message events; returns the ranges replaced.
    /// Call it when the run ends, in the same write as the run's last event.
    pub fn fold_run(&mut self, conversation_id: &str, run_id: &str) -> Result<Vec<SeqRange>> {
        let rows = self.delta_rows(conversation_id, run_id)?;
        let seen = self.ctx.run_folds().take(conversation_id, run_id);
        let streams = match seen {
            Some(run) if run.rows == rows => run.streams,
            _ => self.read_streams(conversation_id, run_id)?,
        };
        // The rows `delta_rows` listed, in one statement.
        let deleted = self
            .conn
            .prepare_cached(
                "DELETE FROM events
                 WHERE conversation_id = ?1 AND run_id = ?2 AND domain = 'llm'
                     AND event_type IN ('thinking', 'message') AND folded_to IS NULL
                     AND is_delta = 1",
            )?
            .execute([conversation_id, run_id])?;
        if deleted != rows.len() {
            return Err(crate::error::StoreError::Corrupt {
                what: "event log",
                message: format!(
                    "folding run {run_id} deleted {deleted} rows of deltas, not {}",
                    rows.len()
                ),
            });
        }
        let mut ranges = Vec::new();
        for stream in streams.into_streams() {
            let (from, to) = (stream.from, stream.to);
            let Some(event) = stream.folded() else {
                continue;
            };
            self.conn
                .prepare_cached(
                    "INSERT INTO events (conversation_id, seq, run_id, domain, event_type,
                         is_delta, folded_to, event_json)
                     VALUES (?1, ?2, ?3, ?4, ?5, 0, ?6, ?7)",
                )?
                .execute(params![
                    conversation_id,
                    sql::to_i64("event seq", from)?,
                    run_id,
                    event.body.domain().as_str(),
                    event.body.event_type(),
                    sql::to_i64("event seq", to)?,
                    sql::json("event", &event)?,
                ])?;
            ranges.push(SeqRange { from, to });
        }
        Ok(ranges)
    }

    /// The rows holding `run_id`'s deltas not folded yet, in the order they were written.
    fn delta_rows(&self, conversation_id: &str, run_id: &str) -> Result<Vec<i64>> {
        rows::all(
            self.conn,
            "SELECT pk FROM events
             WHERE conversation_id = ?1 AND run_id = ?2 AND domain = 'llm'
                 AND event_type IN ('thinking', 'message') AND folded_to IS NULL
                 AND is_delta = 1
             ORDER BY pk",
            [conversation_id, run_id],
        )
    }

    /// `run_id`'s streams, read back from the log one event at a time.
    fn read_streams(&self, conversation_id: &str, run_id: &str) -> Result<Streams> {
        let mut streams = Streams::default();
        let mut batch = Vec::new();
        rows::for_each(
            self.conn,
            "SELECT seq, batch_to, event_json FROM events
             WHERE conversation_id = ?1 AND run_id = ?2 AND domain = 'llm'
                 AND event_type IN ('thinking', 'message') AND folded_to IS NULL
             ORDER BY seq",
            [conversation_id, run_id],
            |(seq, batch_to, json): (i64, Option<i64>, String)| {
                let seq = sql::to_u64("event seq", seq)?;
                if batch_to.is_some() {
                    batch.clear();
                    delta_batches::read_row(conversation_id, Some(run_id), &json, 0, &mut batch)?;
                    for stored in &batch {
                        streams.see(stored.seq, &stored.event);
                    }
                } else {
                    let event: Event = sql::parse("event", &json)?;
                    streams.see(seq, &event);
                }
                Ok(())
            },
        )?;
        Ok(streams)
    }
}

impl Store {
    /// Folds a finished run's deltas; see [`WriteTx::fold_run`]. A long run has a great many
    /// of them: this is a [`Store::write_alone`].
    pub fn fold_run(&self, conversation_id: &str, run_id: &str) -> Result<Vec<SeqRange>> {
        let (c, r) = (conversation_id.to_owned(), run_id.to_owned());
        self.write_alone(move |tx| tx.fold_run(&c, &r))
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use tessera_protocol::easyflow::{EventMeta, LlmMessagePayload};

    use super::*;
    use crate::NewConversation;

    #[test]
    fn a_run_with_more_deltas_than_one_delete_batch_folds_into_one_event() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(dir.path()).unwrap();
        let c = store
            .create_conversation(NewConversation {
                title: "fold".into(),
                ..Default::default()
            })
            .unwrap()
            .id;
        let n = 8199;
        let events: Vec<Event> = (0..n)
            .map(|i| {
                let mut event = Event::new(
                    &c,
                    EventBody::LlmMessage(LlmMessagePayload {
                        delta: Some(format!("{i} ")),
                        ..Default::default()
                    }),
                );
                event.message_id = Some("m1".into());
                event.meta = Some(EventMeta {
                    run_id: Some("r1".into()),
                    ..Default::default()
                });
                event
            })
            .collect();
        let conversation = c.clone();
        store
            .write(move |tx| tx.append_events(&conversation, events))
            .unwrap();
        let ranges = store.fold_run(&c, "r1").unwrap();
        assert_eq!(
            ranges,
            [SeqRange {
                from: 1,
                to: n as u64
            }]
        );
        let left = store.events_after(&c, None, None).unwrap();
        assert_eq!(left.len(), 1, "every other delta deleted");
        let expected: String = (0..n).map(|i| format!("{i} ")).collect();
        match &left[0].event.body {
            EventBody::LlmMessage(p) => assert_eq!(p.content.as_deref(), Some(&*expected)),
            other => panic!("{other:?}"),
        }
    }
}
