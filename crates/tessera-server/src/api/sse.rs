//! Stored events as SSE: `id:` is the event's seq (so `Last-Event-ID` resumes exactly), the
//! event name `message`, `done` for `system/done`, and `error` only for a run's fatal error
//! (`system/error` that is not retryable), after which the client ends the stream.

use std::convert::Infallible;

use axum::response::sse::Event as SseEvent;
use tessera_protocol::easyflow::EventBody;
use tessera_store::StoredEvent;

/// How an event ends a stream that follows one run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ends {
    No,
    /// `done`, or a fatal `error`.
    Yes,
}

/// The SSE form of a stored event.
pub fn to_sse(event: &StoredEvent) -> (Result<SseEvent, Infallible>, Ends) {
    let (name, ends) = match &event.event.body {
        EventBody::Done(_) => ("done", Ends::Yes),
        EventBody::SystemError(p) if p.retryable != Some(true) => ("error", Ends::Yes),
        _ => ("message", Ends::No),
    };
    // The event's text in the log, shared by every stream that sends it (not serialised again).
    let data = event.json();
    (
        Ok(SseEvent::default()
            .id(event.seq.to_string())
            .event(name)
            .data(&*data)),
        ends,
    )
}
