//! Stored events as SSE: `id:` is the event's seq (so `Last-Event-ID` resumes exactly), the
//! event name `message`, `done` for `system/done`, and `error` only for a run's fatal error
//! (`system/error` that is not retryable), after which the client ends the stream.
//!
//! Events that are ready together (a run streaming faster than the client reads, a replay from
//! the log) go out as one body frame: one write for the server and one read for the client
//! instead of one per event. Nothing waits to be grouped: a frame holds only what was there.

use std::fmt::Write as _;
use std::time::Duration;

use axum::body::Body;
use axum::http::header;
use axum::response::{IntoResponse, Response};
use bytes::{BufMut, Bytes, BytesMut};
use futures_util::{stream, FutureExt};
use tessera_app::StoredEvent;
use tessera_app::Subscription;
use tessera_protocol::easyflow::EventBody;

/// A comment sent when nothing else was for this long, so proxies and clients keep an idle
/// stream open (axum's default).
const KEEP_ALIVE: Duration = Duration::from_secs(15);
const KEEP_ALIVE_TEXT: &[u8] = b": \n\n";
/// A frame stops taking ready events at this size (a replay of a long log is sent in pieces).
const FRAME_BYTES: usize = 64 * 1024;

/// How an event ends a stream that follows one run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ends {
    No,
    /// `done`, or a fatal `error`.
    Yes,
}

/// Appends the SSE form of a stored event to `out`: its `id:`, its event name and its JSON
/// text as stored (shared by every stream that sends it, not serialised again).
pub fn encode(event: &StoredEvent, out: &mut BytesMut) -> Ends {
    let (name, ends) = match &event.event.body {
        EventBody::Done(_) => ("done", Ends::Yes),
        EventBody::SystemError(p) if p.retryable != Some(true) => ("error", Ends::Yes),
        _ => ("message", Ends::No),
    };
    let data = event.json();
    out.reserve(data.len() + 40);
    // Writing into a BytesMut cannot fail.
    let _ = write!(out, "id: {}\nevent: {name}\n", event.seq);
    // Stored JSON holds no line break (serde escapes them in strings); were there one, a line
    // of its own keeps the frame well formed, and JSON reads the same either way.
    for line in data.split(['\n', '\r']) {
        out.put_slice(b"data: ");
        out.put_slice(line.as_bytes());
        out.put_u8(b'\n');
    }
    out.put_u8(b'\n');
    ends
}

/// Where a stream stands between frames.
struct Following {
    sub: Subscription,
    /// The run whose end ends the stream (None: every run's end does).
    run: Option<String>,
}

impl Following {
    /// Whether `event` ends the stream: its run's `done` or fatal error (following one run,
    /// another run's end in the same conversation, a tool call request's say, does not).
    fn ends_with(&self, event: &StoredEvent, ends: Ends) -> bool {
        ends == Ends::Yes && (self.run.is_none() || event.run_id == self.run)
    }

    /// The next frame: the next event (or a keep-alive comment after a quiet while) and every
    /// event ready after it; None at the end of the stream (the stream's end marks the frame
    /// before it the last).
    async fn next_frame(mut self) -> Option<(Bytes, Option<Self>)> {
        let first = match tokio::time::timeout(KEEP_ALIVE, self.sub.next_shared()).await {
            Err(_) => return Some((Bytes::from_static(KEEP_ALIVE_TEXT), Some(self))),
            Ok(Ok(Some(event))) => event,
            Ok(Ok(None)) => return None,
            Ok(Err(error)) => {
                tracing::warn!(%error, "cannot read events from the store");
                return None;
            }
        };
        let mut frame = BytesMut::new();
        let ends = encode(&first, &mut frame);
        if self.ends_with(&first, ends) {
            return Some((frame.freeze(), None));
        }
        while frame.len() < FRAME_BYTES {
            // Only what is there now: a wait would hold back what the frame has.
            let next = match self.sub.next_shared().now_or_never() {
                None => break,
                Some(Ok(Some(event))) => event,
                Some(Ok(None)) => return Some((frame.freeze(), None)),
                Some(Err(error)) => {
                    tracing::warn!(%error, "cannot read events from the store");
                    return Some((frame.freeze(), None));
                }
            };
            let ends = encode(&next, &mut frame);
            if self.ends_with(&next, ends) {
                return Some((frame.freeze(), None));
            }
        }
        Some((frame.freeze(), Some(self)))
    }
}

/// The SSE response for a subscription, ending after `done` or a fatal error (of run `run`
/// when one is named).
pub(crate) fn stream_response(sub: Subscription, run: Option<String>) -> Response {
    let frames = stream::unfold(Some(Following { sub, run }), |state| async move {
        let (frame, next) = state?.next_frame().await?;
        Some((Ok::<_, std::convert::Infallible>(frame), next))
    });
    (
        [
            (header::CONTENT_TYPE, "text/event-stream"),
            (header::CACHE_CONTROL, "no-cache"),
            // Seed 002 §2 (HTTP/1.1; HTTP/2 has no such header and hyper leaves it out there).
            (header::CONNECTION, "keep-alive"),
        ],
        Body::from_stream(frames),
    )
        .into_response()
}

#[cfg(test)]
mod tests {
    use super::*;
    use tessera_protocol::easyflow::{DonePayload, Event, LlmMessagePayload};
    use tessera_store::Store;

    fn frame_of(events: &[StoredEvent]) -> (String, Vec<Ends>) {
        let mut out = BytesMut::new();
        let ends = events.iter().map(|e| encode(e, &mut out)).collect();
        (String::from_utf8_lossy(&out).into_owned(), ends)
    }

    #[test]
    fn events_are_encoded_with_their_seq_name_and_stored_text() {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let store = Store::open(dir.path()).unwrap_or_else(|e| panic!("{e}"));
        let conversation = store
            .create_conversation(Default::default())
            .unwrap_or_else(|e| panic!("{e}"));
        let id = conversation.id.clone();
        let delta = Event::new(
            id.clone(),
            EventBody::LlmMessage(LlmMessagePayload {
                delta: Some("a\nb".into()),
                ..Default::default()
            }),
        );
        let done = Event::new(id.clone(), EventBody::Done(DonePayload::default()));
        let stored: Vec<StoredEvent> = [delta, done]
            .into_iter()
            .map(|e| store.append_event(&id, e).unwrap_or_else(|e| panic!("{e}")))
            .collect();
        let (text, ends) = frame_of(&stored);
        assert_eq!(ends, vec![Ends::No, Ends::Yes]);
        let blocks: Vec<&str> = text.split_terminator("\n\n").collect();
        assert_eq!(blocks.len(), 2, "{text}");
        for (block, event) in blocks.iter().zip(&stored) {
            let lines: Vec<&str> = block.lines().collect();
            assert_eq!(lines[0], format!("id: {}", event.seq));
            let data = lines[2].strip_prefix("data: ").unwrap_or_default();
            assert_eq!(
                lines.len(),
                3,
                "one data line: the text's newline is escaped"
            );
            assert_eq!(data, &*event.json());
        }
        assert!(blocks[0].contains("\nevent: message\n"));
        assert!(blocks[1].contains("\nevent: done\n"));
    }
}
