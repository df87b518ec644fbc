//! The event-stream framing of a provider's answer (the WHATWG `text/event-stream` rules): lines
//! end with `\n`, `\r\n` or `\r`; `data:` lines join with `\n`; a blank line ends an event;
//! comments (`:`) and the other fields are skipped, since the wires carry everything in `data`.
//!
//! Each event is cut out of the bytes received by moving an offset; the bytes behind it are
//! dropped once they are half the buffer, so a burst of many events in one chunk (a fast local
//! model, a provider catching up after a stall) costs time in proportion to its size. (The
//! `eventsource-stream` crate used before copied the rest of its buffer after every event:
//! 20,000 deltas arriving at once took 94 µs each.)

use std::pin::Pin;
use std::task::{Context, Poll};

use bytes::Bytes;
use futures_util::{Stream, StreamExt};

use crate::limits::{BodyError, MAX_EVENT_BYTES, MAX_LINE_BYTES};

/// One event's `data`, its lines joined with `\n`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SseEvent {
    pub data: String,
}

/// Why the stream of events stopped.
#[derive(Debug, thiserror::Error)]
pub enum SseError {
    #[error(transparent)]
    Body(#[from] BodyError),
    #[error("an event's data is not UTF-8")]
    Utf8,
}

/// The events of `body`, in order.
pub struct SseStream<S> {
    body: S,
    buffer: Vec<u8>,
    /// Where the bytes not yet read start in `buffer`.
    at: usize,
    /// The data of the event being read.
    data: Vec<u8>,
    /// Bytes of the lines the event being read has had so far (each with its ending): with the
    /// line not yet ended, what the limits count. Counted here, where each line is found
    /// anyway, rather than in a second pass over every byte.
    event_bytes: usize,
    has_data: bool,
    /// A line ended with `\r`: a `\n` right after it belongs to the same ending.
    after_cr: bool,
    /// Whether the first bytes were seen (a byte-order mark there is skipped).
    started: bool,
    ended: bool,
    /// At the end of the body, an event not closed by a blank line is closed (kept).
    close_at_end: bool,
}

impl<S> SseStream<S> {
    pub fn new(body: S) -> Self {
        Self {
            body,
            buffer: Vec::new(),
            at: 0,
            data: Vec::new(),
            event_bytes: 0,
            has_data: false,
            after_cr: false,
            started: false,
            ended: false,
            close_at_end: false,
        }
    }

    /// Keeps an event the body ends without a blank line (some servers close that way), as if
    /// the body had ended with one.
    pub fn keeping_an_unended_last_event(mut self) -> Self {
        self.close_at_end = true;
        self
    }

    fn push(&mut self, chunk: &[u8]) {
        let mut chunk = chunk;
        if !self.started && !chunk.is_empty() {
            self.started = true;
            chunk = chunk.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(chunk);
        }
        if self.at > 0 && self.at * 2 >= self.buffer.len() {
            self.buffer.drain(..self.at);
            self.at = 0;
        }
        self.buffer.extend_from_slice(chunk);
    }

    /// The next whole event in the buffer, if one is there.
    fn next_event(&mut self) -> Option<Result<SseEvent, SseError>> {
        loop {
            if self.after_cr {
                match self.buffer.get(self.at) {
                    None => return None,
                    Some(b'\n') => self.at += 1,
                    Some(_) => {}
                }
                self.after_cr = false;
            }
            let rest = &self.buffer[self.at..];
            let end = memchr::memchr2(b'\n', b'\r', rest)?;
            self.after_cr = rest[end] == b'\r';
            let (start, line_end) = (self.at, self.at + end);
            self.at = line_end + 1;
            let line = &self.buffer[start..line_end];
            if line.is_empty() {
                self.event_bytes = 0;
                if !self.has_data {
                    continue;
                }
                self.has_data = false;
                let data = std::mem::take(&mut self.data);
                return Some(
                    String::from_utf8(data)
                        .map(|data| SseEvent { data })
                        .map_err(|_| SseError::Utf8),
                );
            }
            self.event_bytes += line.len() + 1;
            if line[0] == b':' {
                continue;
            }
            let (field, value) = match memchr::memchr(b':', line) {
                Some(colon) => {
                    let value = &line[colon + 1..];
                    (&line[..colon], value.strip_prefix(b" ").unwrap_or(value))
                }
                None => (line, &b""[..]),
            };
            if field == b"data" {
                if self.has_data {
                    self.data.push(b'\n');
                }
                self.data.extend_from_slice(value);
                self.has_data = true;
            }
        }
    }
}

impl<S> Stream for SseStream<S>
where
    S: Stream<Item = Result<Bytes, BodyError>> + Unpin,
{
    type Item = Result<SseEvent, SseError>;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        loop {
            if let Some(event) = self.next_event() {
                return Poll::Ready(Some(event));
            }
            if self.ended {
                // An event the body did not close with a blank line is dropped, as the
                // standard says, unless the caller asked to keep it.
                return Poll::Ready(None);
            }
            // What is held until more comes: a line not yet ended, an event not yet closed.
            let line = self.buffer.len() - self.at;
            let limit = if line > MAX_LINE_BYTES {
                Some(BodyError::LineTooLong)
            } else if self.event_bytes + line > MAX_EVENT_BYTES {
                Some(BodyError::EventTooLong)
            } else {
                None
            };
            if let Some(error) = limit {
                self.ended = true;
                return Poll::Ready(Some(Err(error.into())));
            }
            match self.body.poll_next_unpin(cx) {
                Poll::Pending => return Poll::Pending,
                Poll::Ready(Some(Ok(chunk))) => self.push(&chunk),
                Poll::Ready(Some(Err(error))) => {
                    self.ended = true;
                    return Poll::Ready(Some(Err(error.into())));
                }
                Poll::Ready(None) if self.close_at_end => {
                    // The body is not polled again once it has ended.
                    self.ended = true;
                    self.push(b"\n\n");
                }
                Poll::Ready(None) => self.ended = true,
            }
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use super::*;

    /// The data of every event of `chunks`.
    fn events(chunks: &[&[u8]]) -> Vec<String> {
        events_with(chunks, false)
    }

    /// The same, keeping an event the body ends without a blank line when `keep`.
    fn events_with(chunks: &[&[u8]], keep: bool) -> Vec<String> {
        events_of(
            futures_util::stream::iter(
                chunks
                    .iter()
                    .map(|c| Ok::<_, BodyError>(Bytes::copy_from_slice(c)))
                    .collect::<Vec<_>>(),
            ),
            keep,
        )
    }

    /// The data of every event of `body`; asked again after its end, the stream still ends.
    fn events_of<S>(body: S, keep: bool) -> Vec<String>
    where
        S: Stream<Item = Result<Bytes, BodyError>> + Unpin,
    {
        let mut stream = SseStream::new(body);
        if keep {
            stream = stream.keeping_an_unended_last_event();
        }
        block_on(async move {
            let mut out = Vec::new();
            while let Some(event) = stream.next().await {
                out.push(event.unwrap().data);
            }
            assert!(stream.next().await.is_none());
            out
        })
    }

    fn block_on<F: std::future::Future>(future: F) -> F::Output {
        tokio::runtime::Builder::new_current_thread()
            .build()
            .unwrap()
            .block_on(future)
    }

    #[test]
    fn events_end_at_blank_lines_whatever_the_line_endings_and_chunks() {
        let wire = b"data: a\n\ndata: b\r\n\r\ndata: c\r\rdata:d\n\n";
        let whole = events(&[wire]);
        assert_eq!(whole, ["a", "b", "c", "d"]);
        // Cut at every byte: the same events.
        for cut in 0..wire.len() {
            assert_eq!(events(&[&wire[..cut], &wire[cut..]]), whole, "cut at {cut}");
        }
        // One byte at a time.
        let bytes: Vec<&[u8]> = wire.chunks(1).collect();
        assert_eq!(events(&bytes), whole);
    }

    #[test]
    fn data_lines_join_and_other_lines_are_skipped() {
        let wire = b"\xEF\xBB\xBF: a comment\nevent: message_start\nid: 7\nretry: 10\ndata: {\"a\":\ndata:  1}\n\n\n\nevent: ping\n\ndata\n\n";
        assert_eq!(events(&[wire]), ["{\"a\":\n 1}", ""]);
    }

    #[test]
    fn an_event_not_closed_before_the_end_is_dropped() {
        assert_eq!(events(&[b"data: whole\n\ndata: cut"]), ["whole"]);
    }

    #[test]
    fn an_event_not_closed_before_the_end_is_kept_when_asked() {
        let keep = |chunks: &[&[u8]]| events_with(chunks, true);
        assert_eq!(keep(&[b"data: whole\n\ndata: cut"]), ["whole", "cut"]);
        assert_eq!(keep(&[b"data: a\n", b"data: b"]), ["a\nb"]);
        // A last line that ended with its line ending but no blank line after it.
        assert_eq!(keep(&[b"data: cr\r"]), ["cr"]);
        // Nothing is made up where every event was closed, or where there was none.
        assert_eq!(keep(&[b"data: one\n\n"]), ["one"]);
        assert!(keep(&[b": only a comment"]).is_empty());
        assert!(keep(&[]).is_empty());
    }

    /// The events of `chunks`, then the error that ended them, if one did.
    fn until_error(chunks: Vec<Vec<u8>>) -> (usize, Option<SseError>) {
        let body = futures_util::stream::iter(
            chunks
                .into_iter()
                .map(|c| Ok::<_, BodyError>(Bytes::from(c))),
        );
        let mut stream = SseStream::new(body);
        block_on(async move {
            let mut events = 0;
            while let Some(event) = stream.next().await {
                match event {
                    Ok(_) => events += 1,
                    Err(error) => return (events, Some(error)),
                }
            }
            (events, None)
        })
    }

    #[test]
    fn a_body_that_has_ended_is_not_polled_again() {
        /// Gives its chunks, then the end once: polled after that, it panics.
        struct EndsOnce(Vec<Bytes>, bool);
        impl Stream for EndsOnce {
            type Item = Result<Bytes, BodyError>;
            fn poll_next(
                mut self: Pin<&mut Self>,
                _: &mut Context<'_>,
            ) -> Poll<Option<Self::Item>> {
                assert!(!self.1, "polled after its end");
                if self.0.is_empty() {
                    self.1 = true;
                    return Poll::Ready(None);
                }
                Poll::Ready(Some(Ok(self.0.remove(0))))
            }
        }
        for keep in [false, true] {
            let body = EndsOnce(vec![Bytes::from_static(b"data: a\n\ndata: b")], false);
            let want = if keep { vec!["a", "b"] } else { vec!["a"] };
            assert_eq!(events_of(body, keep), want);
        }
    }

    #[test]
    fn ordinary_events_pass_and_endless_ones_stop() {
        let one = b"data: {\"x\": 1}\n\n".to_vec();
        assert_eq!(until_error(vec![one; 10_000]).0, 10_000);
        // A line split over chunks, with CRLF endings; comment lines between events.
        let split = vec![
            b"data: ab".to_vec(),
            b"cd\r\n\r\n".to_vec(),
            b": ping\n\n".to_vec(),
        ];
        assert!(matches!(until_error(split), (1, None)));
        // A line that never ends: stopped once it passes its limit, the events before it kept.
        let mut chunks = vec![b"data: before\n\ndata: ".to_vec()];
        chunks.extend((0..9).map(|_| vec![b'x'; 1024 * 1024]));
        let (events, ended) = until_error(chunks);
        assert_eq!(events, 1);
        assert!(
            matches!(ended, Some(SseError::Body(BodyError::LineTooLong))),
            "{ended:?}"
        );
        // Lines that never make an event end, data or not.
        for start in [&b"data: "[..], b": "] {
            let line = [start, &vec![b'x'; 1024 * 1024 - 1 - start.len()], b"\n"].concat();
            let (_, ended) = until_error(vec![line; 17]);
            assert!(
                matches!(ended, Some(SseError::Body(BodyError::EventTooLong))),
                "{ended:?}"
            );
        }
        // The same lines closed by blank lines are ordinary events.
        let line = [&b"data: "[..], &vec![b'x'; 1024 * 1024], b"\n\n"].concat();
        assert!(matches!(until_error(vec![line; 17]), (17, None)));
    }

    #[test]
    fn data_that_is_not_utf8_is_an_error() {
        let body = futures_util::stream::iter(vec![Ok::<_, BodyError>(Bytes::from_static(
            b"data: \xff\n\n",
        ))]);
        let first = block_on(async { SseStream::new(body).next().await });
        assert!(matches!(first, Some(Err(SseError::Utf8))));
    }

    #[test]
    fn many_events_in_one_chunk_are_read_in_linear_time() {
        // 200,000 events at once: quadratic copying would move about 2 TB.
        let one = b"data: {\"choices\":[{\"delta\":{\"content\":\" w\"}}]}\n\n";
        let chunk: Vec<u8> = one
            .iter()
            .copied()
            .cycle()
            .take(one.len() * 200_000)
            .collect();
        let got = events(&[&chunk]);
        assert_eq!(got.len(), 200_000);
    }
}
