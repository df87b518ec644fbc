//! What a provider's answer may make Tessera hold. A model server is outside the process: a
//! broken or hostile one could send a line that never ends, an event that never closes, a
//! million tool calls or one call's arguments without end. Past these limits the answer fails
//! with an error naming the limit; what arrived before stays shown and stored.

use bytes::Bytes;
use futures_util::{Stream, TryStreamExt};

/// The longest line of an event stream (one `data:` line holds one chunk, a few KB).
pub const MAX_LINE_BYTES: usize = 8 * 1024 * 1024;
/// The most an event may hold before the blank line that ends it.
pub const MAX_EVENT_BYTES: usize = 16 * 1024 * 1024;
/// Tool calls in one answer.
pub const MAX_TOOL_CALLS: usize = 256;
/// One tool call's arguments, as streamed JSON text.
pub const MAX_ARGUMENT_BYTES: usize = 4 * 1024 * 1024;

/// Why a streamed body stopped.
#[derive(Debug, thiserror::Error)]
pub enum BodyError {
    #[error(transparent)]
    Http(#[from] reqwest::Error),
    #[error("a line of the event stream passed {MAX_LINE_BYTES} bytes without ending")]
    LineTooLong,
    #[error("an event of the stream passed {MAX_EVENT_BYTES} bytes without ending")]
    EventTooLong,
}

/// A response's body as the event-stream parser reads it ([`crate::sse::SseStream`], which
/// holds the line and event limits as it finds each line).
pub fn body_for_events<S>(
    body: S,
) -> futures_util::stream::MapErr<S, fn(reqwest::Error) -> BodyError>
where
    S: Stream<Item = Result<Bytes, reqwest::Error>>,
{
    body.map_err(BodyError::Http as fn(reqwest::Error) -> BodyError)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use super::*;
    use serde_json::json;

    fn openai_chunk(calls: serde_json::Value) -> String {
        json!({"id": "c", "choices": [{"index": 0, "delta": {"tool_calls": calls}}]}).to_string()
    }

    #[test]
    fn a_hostile_openai_answer_cannot_swell_the_decoder() {
        let mut out = Vec::new();
        // An index at the end of u32 with no index after it: no overflow.
        let mut d = crate::openai::Decoder::new("p");
        d.feed(&openai_chunk(json!([{"index": u32::MAX, "id": "a", "function": {"name": "f", "arguments": "{}"}}])), &mut out).unwrap();
        d.feed(
            &openai_chunk(json!([{"id": "b", "function": {"name": "g", "arguments": "{}"}}])),
            &mut out,
        )
        .unwrap();
        // More calls than one answer may hold.
        let mut d = crate::openai::Decoder::new("p");
        let refused = (0..=MAX_TOOL_CALLS as u32)
            .map(|i| {
                d.feed(
                    &openai_chunk(
                        json!([{"index": i, "id": format!("c{i}"), "function": {"name": "f"}}]),
                    ),
                    &mut out,
                )
            })
            .find_map(Result::err)
            .expect("refused");
        assert!(
            refused.to_string().contains("more than 256 tool calls"),
            "{refused}"
        );
        // One call's arguments without end.
        let mut d = crate::openai::Decoder::new("p");
        let piece = "x".repeat(1024 * 1024);
        let refused = (0..5)
            .map(|_| {
                d.feed(
                    &openai_chunk(
                        json!([{"index": 0, "id": "a", "function": {"arguments": piece}}]),
                    ),
                    &mut out,
                )
            })
            .find_map(Result::err)
            .expect("refused");
        assert!(
            refused.to_string().contains("passed 4194304 bytes"),
            "{refused}"
        );
    }

    #[test]
    fn a_hostile_anthropic_answer_cannot_swell_the_decoder() {
        let mut out = Vec::new();
        let mut d = crate::anthropic::Decoder::new("p");
        let refused = (0..=MAX_TOOL_CALLS)
            .map(|i| {
                d.feed(
                    &json!({"type": "content_block_start", "index": i,
                            "content_block": {"type": "tool_use", "id": format!("t{i}"), "name": "f", "input": {}}})
                    .to_string(),
                    &mut out,
                )
            })
            .find_map(Result::err)
            .expect("refused");
        assert!(refused.to_string().contains("more than 256"), "{refused}");
    }
}
