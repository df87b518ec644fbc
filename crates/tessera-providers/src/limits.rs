//! What a provider's answer may make Tessera hold. A model server is outside the process: a
//! broken or hostile one could send a line that never ends, an event that never closes, a
//! million tool calls or one call's arguments without end. Past these limits the answer fails
//! with an error naming the limit; what arrived before stays shown and stored. Bodies read
//! whole (an answer that is not an event stream, a model list, an error) go through
//! [`read_whole`] or [`read_start`], never `Response::bytes`/`text`, which hold whatever is sent.

use bytes::Bytes;
use futures_util::{Stream, StreamExt, TryStreamExt};

/// The longest line of an event stream (one `data:` line holds one chunk, a few KB).
pub const MAX_LINE_BYTES: usize = 8 * 1024 * 1024;
/// The most an event may hold before the blank line that ends it.
pub const MAX_EVENT_BYTES: usize = 16 * 1024 * 1024;
/// Tool calls in one answer.
pub const MAX_TOOL_CALLS: usize = 256;
/// One tool call's arguments, as streamed JSON text.
pub const MAX_ARGUMENT_BYTES: usize = 4 * 1024 * 1024;

/// A whole answer that is not an event stream (a server that ignores `stream: true`): as much
/// as one event may hold.
pub const MAX_ANSWER_BYTES: usize = MAX_EVENT_BYTES;
/// A list of models (OpenRouter's, the longest known, is about 2 MB with its details).
pub const MAX_MODEL_LIST_BYTES: usize = 8 * 1024 * 1024;
/// Embeddings for one batch of inputs (8,192 floats as text are ~150 KB a vector).
pub const MAX_EMBEDDINGS_BYTES: usize = 64 * 1024 * 1024;
/// What is kept of an error's body: its start, for the message shown; the rest is never read.
pub const MAX_ERROR_BYTES: usize = 64 * 1024;

/// A body read whole passed its limit.
#[derive(Debug, thiserror::Error)]
#[error("{what} passed {}, the most Tessera reads of one", size_words(*limit))]
pub struct TooLarge {
    /// What was being read ("the answer", "the model list").
    pub what: &'static str,
    pub limit: usize,
}

/// Why a body read whole was not read.
#[derive(Debug, thiserror::Error)]
pub enum WholeBodyError<E> {
    #[error(transparent)]
    TooLarge(TooLarge),
    #[error(transparent)]
    Transport(E),
}

/// `bytes` in the largest whole unit and exactly: `16 MiB (16777216 bytes)`.
fn size_words(bytes: usize) -> String {
    match bytes {
        b if b >= 1 << 20 && b % (1 << 20) == 0 => format!("{} MiB ({b} bytes)", b >> 20),
        b if b >= 1 << 10 && b % (1 << 10) == 0 => format!("{} KiB ({b} bytes)", b >> 10),
        b => format!("{b} bytes"),
    }
}

/// A response's whole body, refused past `limit` bytes without holding more than that: an
/// announced length past it is refused before any byte is read.
pub async fn read_response(
    response: reqwest::Response,
    limit: usize,
    what: &'static str,
) -> Result<Vec<u8>, WholeBodyError<reqwest::Error>> {
    if response
        .content_length()
        .is_some_and(|announced| announced > limit as u64)
    {
        return Err(WholeBodyError::TooLarge(TooLarge { what, limit }));
    }
    read_whole(response.bytes_stream(), limit, what).await
}

/// Every chunk of `body` joined, refused as soon as they pass `limit` bytes.
pub async fn read_whole<S, E>(
    body: S,
    limit: usize,
    what: &'static str,
) -> Result<Vec<u8>, WholeBodyError<E>>
where
    S: Stream<Item = Result<Bytes, E>>,
{
    let mut body = std::pin::pin!(body);
    let mut out = Vec::new();
    while let Some(chunk) = body.next().await {
        let chunk = chunk.map_err(WholeBodyError::Transport)?;
        if chunk.len() > limit - out.len() {
            return Err(WholeBodyError::TooLarge(TooLarge { what, limit }));
        }
        out.extend_from_slice(&chunk);
    }
    Ok(out)
}

/// The first `limit` bytes of a response's body (an error's, read for its message) as text;
/// the rest is left unread, and a body that breaks off gives what came before.
pub async fn read_start(response: reqwest::Response, limit: usize) -> String {
    let mut body = std::pin::pin!(response.bytes_stream());
    let mut out = Vec::new();
    while out.len() < limit {
        match body.next().await {
            Some(Ok(chunk)) => {
                let room = limit - out.len();
                out.extend_from_slice(&chunk[..chunk.len().min(room)]);
            }
            Some(Err(_)) | None => break,
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

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

    fn chunks(sizes: &[usize]) -> impl Stream<Item = Result<Bytes, std::io::Error>> {
        let chunks: Vec<_> = sizes
            .iter()
            .map(|&n| Ok(Bytes::from(vec![b' '; n])))
            .collect();
        futures_util::stream::iter(chunks)
    }

    #[tokio::test]
    async fn a_body_read_whole_stops_at_its_limit() {
        let read = read_whole(chunks(&[3, 4, 3]), 10, "the answer")
            .await
            .unwrap();
        assert_eq!(read.len(), 10);
        let Err(WholeBodyError::TooLarge(err)) =
            read_whole(chunks(&[3, 4, 4]), 10, "the answer").await
        else {
            panic!("taken")
        };
        assert_eq!(
            err.to_string(),
            "the answer passed 10 bytes, the most Tessera reads of one"
        );
        let err = TooLarge {
            what: "the model list",
            limit: MAX_MODEL_LIST_BYTES,
        };
        assert_eq!(
            err.to_string(),
            "the model list passed 8 MiB (8388608 bytes), the most Tessera reads of one"
        );
        assert_eq!(size_words(MAX_ERROR_BYTES), "64 KiB (65536 bytes)");
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
