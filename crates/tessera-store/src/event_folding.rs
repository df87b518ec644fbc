//! Folding a finished run's streamed pieces. While a run streams, every `llm/thinking` and
//! `llm/message` delta is its own event. When the run ends, each stream of deltas (same type,
//! `message_id` and `index`) becomes one whole-message event (`content`, the last
//! `signature`) that keeps the first delta's seq and records the seqs it replaces in
//! `meta.replaces: {from, to}`; the other deltas are deleted. Events between them keep their
//! seqs, so a client resuming at any seq still receives everything after it.

use std::collections::HashMap;

use rusqlite::params;
use serde_json::json;
use tessera_protocol::easyflow::{Event, EventBody, LlmMessagePayload, LlmThinkingPayload};
use tessera_protocol::wire::Timestamp;

use crate::error::Result;
use crate::events::{is_delta, SeqRange};
use crate::tx::WriteTx;
use crate::{sql, Store};

/// One stream of deltas being folded: what its whole-message event needs (the deltas are
/// read one at a time, never all held: a long answer has a million of them).
struct Stream {
    first_pk: i64,
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

/// Deltas deleted per statement when a run is folded.
const DELETE_BATCH: i64 = 4096;

/// A delta's stream: its type, message and block. Events stored before the block moved into
/// the payload carried it as `index`.
fn key(event: &Event) -> StreamKey {
    let block = match &event.body {
        EventBody::LlmThinking(p) => p.block,
        EventBody::LlmMessage(p) => p.block,
        _ => None,
    };
    (
        event.body.event_type().to_owned(),
        event.message_id.clone(),
        block.or(event.index),
    )
}

impl Stream {
    fn start(pk: i64, seq: u64, event: Event) -> Self {
        let mut stream = Self {
            first_pk: pk,
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

    fn push(&mut self, seq: u64, event: Event) {
        self.to = seq;
        self.last_index = event.index.or(self.last_index);
        self.last_ts = event.meta.and_then(|m| m.ts);
        match event.body {
            EventBody::LlmThinking(piece) => {
                self.content
                    .push_str(piece.delta.as_deref().unwrap_or_default());
                if piece.signature.is_some() {
                    self.signature = piece.signature;
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

impl WriteTx<'_> {
    /// Folds the deltas of `run_id` into whole-message events; returns the ranges replaced.
    /// Call it when the run ends, in the same write as the run's last event.
    pub fn fold_run(&mut self, conversation_id: &str, run_id: &str) -> Result<Vec<SeqRange>> {
        let mut open: HashMap<StreamKey, Stream> = HashMap::new();
        let mut finished: Vec<Stream> = Vec::new();
        {
            let mut select = self.conn.prepare_cached(
                "SELECT pk, seq, event_json FROM events
                 WHERE conversation_id = ?1 AND run_id = ?2 AND domain = 'llm'
                     AND event_type IN ('thinking', 'message') AND folded_to IS NULL
                 ORDER BY seq",
            )?;
            let mut rows = select.query([conversation_id, run_id])?;
            while let Some(row) = rows.next()? {
                let pk: i64 = row.get(0)?;
                let seq = sql::to_u64("event seq", row.get(1)?)?;
                let json: &str = row.get_ref(2)?.as_str().map_err(rusqlite::Error::from)?;
                let event: Event = sql::parse("event", json)?;
                let stream_key = key(&event);
                if is_delta(&event) {
                    match open.get_mut(&stream_key) {
                        Some(stream) => stream.push(seq, event),
                        None => {
                            open.insert(stream_key, Stream::start(pk, seq, event));
                        }
                    }
                } else if let Some(stream) = open.remove(&stream_key) {
                    // A whole-message event ends the stream before it.
                    finished.push(stream);
                }
            }
        }
        finished.extend(open.into_values());
        finished.sort_by_key(|s| s.from);

        let mut ranges = Vec::with_capacity(finished.len());
        for stream in finished {
            let (first_pk, from, to) = (stream.first_pk, stream.from, stream.to);
            let Some(event) = stream.folded() else {
                continue;
            };
            self.conn
                .prepare_cached(
                    "UPDATE events SET event_json = ?2, is_delta = 0, folded_to = ?3 WHERE pk = ?1",
                )?
                .execute(params![
                    first_pk,
                    sql::json("event", &event)?,
                    sql::to_i64("event seq", to)?
                ])?;
            ranges.push(SeqRange { from, to });
        }
        // Every other delta of the run now lies inside a folded range. Deleted a batch at a
        // time: one DELETE of them all first collects every rowid in memory (~24 MB for a
        // million deltas, which the process then keeps as free heap).
        let mut delete = self.conn.prepare_cached(
            "DELETE FROM events WHERE pk IN (
                 SELECT pk FROM events
                 WHERE conversation_id = ?1 AND run_id = ?2 AND domain = 'llm'
                     AND event_type IN ('thinking', 'message') AND folded_to IS NULL
                     AND is_delta = 1
                 LIMIT ?3)",
        )?;
        while delete.execute(params![conversation_id, run_id, DELETE_BATCH])? > 0 {}
        Ok(ranges)
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
        let n = DELETE_BATCH as usize * 2 + 7;
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
