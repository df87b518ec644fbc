//! Streamed deltas written together share one row of the event log. A model streams thousands
//! of `llm/thinking` and `llm/message` pieces; one row each made the writer's inserts (and the
//! deletes when the run folds them) most of a turn's cost. The deltas of one write that follow
//! each other in the same run, with the same envelope, are stored as one row instead: `seq` is
//! the first one's, `batch_to` the last one's, and `event_json` holds the envelope once and
//! each delta's own fields:
//!
//! ```json
//! {"protocol":"easyflow-chat","version":"1.1","message_id":"m1",
//!  "deltas":[[7,"2026-11-27T10:00:00.001Z",0,"message",{"delta":"Hel","block":0}], …]}
//! ```
//!
//! (`[seq, ts, index, type, payload]`; the conversation and run are the row's columns.)
//! Reading gives the events back one by one, equal to what was appended, so a client never
//! sees the row. A delta with anything more (meta figures, unknown fields) has a row of its
//! own.

use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;
use tessera_protocol::easyflow::{
    Event, EventBody, EventMeta, LlmMessagePayload, LlmThinkingPayload,
};
use tessera_protocol::wire::Timestamp;

use crate::error::{Result, StoreError};
use crate::events::{is_delta, StoredEvent};
use crate::sql;

/// A delta a shared row can hold: besides its payload, only its seq, time, index and run.
fn is_plain_delta(stored: &StoredEvent) -> bool {
    let event = &stored.event;
    is_delta(event)
        && stored.run_id.is_some()
        && event.extra.is_empty()
        && event.meta.as_ref().is_some_and(|m| {
            m.ts.is_some()
                && m.prompt_tokens.is_none()
                && m.completion_tokens.is_none()
                && m.latency_ms.is_none()
                && m.first_token_latency_ms.is_none()
                && m.usage.is_none()
                && m.extra.is_empty()
        })
}

fn same_envelope(a: &StoredEvent, b: &StoredEvent) -> bool {
    a.run_id == b.run_id
        && a.event.protocol == b.event.protocol
        && a.event.version == b.event.version
        && a.event.message_id == b.event.message_id
}

/// Stretches of `events` (by index) to store as one row each: plain deltas of one run and
/// envelope next to each other share a row; any other event is a row of its own.
pub(crate) fn stretches(events: &[StoredEvent]) -> Vec<std::ops::Range<usize>> {
    let mut out: Vec<std::ops::Range<usize>> = Vec::new();
    let mut start = 0;
    while start < events.len() {
        let first = &events[start];
        let mut end = start + 1;
        if is_plain_delta(first) {
            while end < events.len()
                && is_plain_delta(&events[end])
                && same_envelope(first, &events[end])
            {
                end += 1;
            }
        }
        out.push(start..end);
        start = end;
    }
    out
}

#[derive(Serialize, Deserialize)]
struct Row<'a, D> {
    #[serde(borrow)]
    protocol: &'a str,
    #[serde(borrow)]
    version: &'a str,
    #[serde(borrow)]
    message_id: Option<&'a str>,
    deltas: Vec<D>,
}

#[derive(Serialize)]
#[serde(untagged)]
enum PayloadRef<'a> {
    Thinking(&'a LlmThinkingPayload),
    Message(&'a LlmMessagePayload),
}

/// `[seq, ts, index, type, payload]`, as written.
type ItemOut<'a> = (u64, &'a str, Option<u64>, &'a str, PayloadRef<'a>);
/// `[seq, ts, index, type, payload]`, as read.
type ItemIn<'a> = (u64, &'a str, Option<u64>, &'a str, &'a RawValue);

/// The row text of deltas that share a row ([`stretches`]).
pub(crate) fn row_json(stored: &[StoredEvent]) -> Result<String> {
    let first = stored
        .first()
        .ok_or_else(|| corrupt("a shared row with no delta"))?;
    let mut deltas = Vec::with_capacity(stored.len());
    for s in stored {
        let payload = match &s.event.body {
            EventBody::LlmThinking(p) => PayloadRef::Thinking(p),
            EventBody::LlmMessage(p) => PayloadRef::Message(p),
            _ => return Err(corrupt("a shared row holds deltas only")),
        };
        let ts = s.event.meta.as_ref().and_then(|m| m.ts.as_ref());
        deltas.push((
            s.seq,
            ts.map_or("", |t| t.as_str()),
            s.event.index,
            s.event.body.event_type(),
            payload,
        ));
    }
    let row: Row<'_, ItemOut<'_>> = Row {
        protocol: &first.event.protocol,
        version: &first.event.version,
        message_id: first.event.message_id.as_deref(),
        deltas,
    };
    sql::json("event batch", &row)
}

/// The events of a shared row after seq `after`, in order, appended to `out`.
pub(crate) fn read_row(
    conversation_id: &str,
    run_id: Option<&str>,
    json: &str,
    after: u64,
    out: &mut Vec<StoredEvent>,
) -> Result<()> {
    let row: Row<'_, ItemIn<'_>> = sql::parse_borrowed("event batch", json)?;
    for (seq, ts, index, event_type, payload) in row.deltas {
        if seq <= after {
            continue;
        }
        let body = match event_type {
            "thinking" => EventBody::LlmThinking(sql::parse("event payload", payload.get())?),
            "message" => EventBody::LlmMessage(sql::parse("event payload", payload.get())?),
            other => return Err(corrupt(&format!("a shared row holds a {other} event"))),
        };
        let mut event = Event::new(conversation_id, body);
        event.protocol = row.protocol.to_owned();
        event.version = row.version.to_owned();
        event.message_id = row.message_id.map(str::to_owned);
        event.index = index;
        event.meta = Some(EventMeta {
            run_id: run_id.map(str::to_owned),
            seq: Some(seq),
            ts: Some(Timestamp::new(ts.to_owned())),
            ..EventMeta::default()
        });
        out.push(StoredEvent::new(
            seq,
            run_id.map(str::to_owned),
            None,
            event,
            None,
        ));
    }
    Ok(())
}

fn corrupt(message: &str) -> StoreError {
    StoreError::Corrupt {
        what: "event batch",
        message: message.to_owned(),
    }
}
