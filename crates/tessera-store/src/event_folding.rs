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

use crate::error::Result;
use crate::events::{is_delta, SeqRange};
use crate::tx::WriteTx;
use crate::{sql, Store};

/// One stream of deltas being folded.
struct Stream {
    pks: Vec<i64>,
    seqs: Vec<u64>,
    events: Vec<Event>,
}

type StreamKey = (String, Option<String>, Option<u64>);

fn key(event: &Event) -> StreamKey {
    (
        event.body.event_type().to_owned(),
        event.message_id.clone(),
        event.index,
    )
}

fn folded(stream: &Stream) -> Option<Event> {
    let first = stream.events.first()?;
    let last = stream.events.last()?;
    let (from, to) = (*stream.seqs.first()?, *stream.seqs.last()?);
    let mut event = first.clone();
    event.body = match &first.body {
        EventBody::LlmThinking(p) => {
            let mut content = String::new();
            let mut signature = None;
            for e in &stream.events {
                if let EventBody::LlmThinking(piece) = &e.body {
                    content.push_str(piece.delta.as_deref().unwrap_or_default());
                    signature = piece.signature.clone().or(signature);
                }
            }
            EventBody::LlmThinking(LlmThinkingPayload {
                delta: None,
                content: Some(content),
                signature,
                extra: p.extra.clone(),
            })
        }
        EventBody::LlmMessage(p) => {
            let content: String = stream
                .events
                .iter()
                .filter_map(|e| match &e.body {
                    EventBody::LlmMessage(piece) => piece.delta.as_deref(),
                    _ => None,
                })
                .collect();
            EventBody::LlmMessage(LlmMessagePayload {
                delta: None,
                content: Some(content),
                extra: p.extra.clone(),
            })
        }
        _ => return None,
    };
    let meta = event.meta.get_or_insert_with(Default::default);
    meta.seq = Some(from);
    if let Some(ts) = last.meta.as_ref().and_then(|m| m.ts.clone()) {
        meta.ts = Some(ts);
    }
    meta.extra
        .insert("replaces".into(), json!({ "from": from, "to": to }));
    Some(event)
}

impl WriteTx<'_> {
    /// Folds the deltas of `run_id` into whole-message events; returns the ranges replaced.
    /// Call it when the run ends, in the same write as the run's last event.
    pub fn fold_run(&mut self, conversation_id: &str, run_id: &str) -> Result<Vec<SeqRange>> {
        let rows = self
            .conn
            .prepare_cached(
                "SELECT pk, seq, event_json FROM events
                 WHERE conversation_id = ?1 AND run_id = ?2 AND domain = 'llm'
                     AND event_type IN ('thinking', 'message') AND folded_to IS NULL
                 ORDER BY seq",
            )?
            .query_map([conversation_id, run_id], |row| {
                Ok((
                    row.get::<_, i64>(0)?,
                    row.get::<_, i64>(1)?,
                    row.get::<_, String>(2)?,
                ))
            })?
            .collect::<rusqlite::Result<Vec<_>>>()?;
        let mut open: HashMap<StreamKey, Stream> = HashMap::new();
        let mut finished: Vec<Stream> = Vec::new();
        for (pk, seq, json) in rows {
            let event: Event = sql::parse("event", &json)?;
            let stream_key = key(&event);
            if is_delta(&event) {
                let stream = open.entry(stream_key).or_insert_with(|| Stream {
                    pks: Vec::new(),
                    seqs: Vec::new(),
                    events: Vec::new(),
                });
                stream.pks.push(pk);
                stream.seqs.push(sql::to_u64("event seq", seq)?);
                stream.events.push(event);
            } else if let Some(stream) = open.remove(&stream_key) {
                // A whole-message event ends the stream before it.
                finished.push(stream);
            }
        }
        finished.extend(open.into_values());
        finished.sort_by_key(|s| s.seqs.first().copied());

        let mut ranges = Vec::with_capacity(finished.len());
        for stream in &finished {
            let (Some(event), Some(&first_pk), Some(&from), Some(&to)) = (
                folded(stream),
                stream.pks.first(),
                stream.seqs.first(),
                stream.seqs.last(),
            ) else {
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
            let mut delete = self
                .conn
                .prepare_cached("DELETE FROM events WHERE pk = ?1")?;
            for pk in &stream.pks[1..] {
                delete.execute([pk])?;
            }
            ranges.push(SeqRange { from, to });
        }
        Ok(ranges)
    }
}

impl Store {
    /// Folds a finished run's deltas; see [`WriteTx::fold_run`].
    pub fn fold_run(&self, conversation_id: &str, run_id: &str) -> Result<Vec<SeqRange>> {
        let (c, r) = (conversation_id.to_owned(), run_id.to_owned());
        self.write(move |tx| tx.fold_run(&c, &r))
    }
}
