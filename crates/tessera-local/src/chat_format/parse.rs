//! Tool calls read out of a model's text while it streams.
//!
//! Text reaches the person as it arrives; only a tail that could still turn into a call
//! marker is held back (the marker's first bytes, plus the ASCII whitespace just before them,
//! which is dropped when a call does follow, as llama.cpp's `[\n\s]*<tool_call>` patterns
//! drop it). Once a marker is seen, the call's JSON is buffered and scanned until it is
//! complete, then checked with serde_json.
//!
//! Nothing the model wrote is lost. Whenever a would-be call turns out not to be one (prose
//! that mentions `<tool_call>`, JSON that does not parse, a call with no name), its text is
//! passed on as [`Parsed::Text`], and the rest is scanned again as ordinary text. The only
//! error is an output that ends in the middle of a call's JSON; the error carries that text.
//!
//! The outcome depends only on the whole text, never on how it was split into pieces: the
//! tests check every split point.

use super::call_payload::{
    arguments_object, array_calls, generate_call_id, object_call, ParsedCall,
};
use super::family::{ToolFamily, HERMES_CLOSE, MISTRAL_ARGS, MISTRAL_CALL_ID};
use super::json_scan::{JsonScanner, Scan};

/// At most this much whitespace before a marker is held back (and dropped if a call
/// follows), so a run of blank output cannot make every push rescan it.
const MAX_DROPPED_WHITESPACE: usize = 256;

/// A piece of the model's output, in order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Parsed {
    /// Text for the person, as it arrives. Consecutive pieces may be joined by the reader.
    Text(String),
    /// A complete tool call.
    ToolCall {
        /// 0 for the first call of this output, then 1, 2, …
        index: usize,
        /// The model's own id when it wrote one (Mistral), else `call_` and 24 alphanumerics.
        id: String,
        /// The function's name.
        name: String,
        /// Compact JSON text of an object.
        arguments: String,
    },
}

/// The output ended where it could not have ended.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ParseError {
    /// The output stopped inside a call's JSON (often: the token limit was reached). `raw`
    /// holds that text from the marker on, so it can still be shown.
    #[error("the output ended inside a tool call ({} bytes never completed)", raw.len())]
    UnterminatedToolCall {
        /// The unfinished call as the model wrote it.
        raw: String,
    },
}

/// Reads one model output, piece by piece, for one [`ToolFamily`]: the family of the
/// template the prompt was rendered with ([`super::ChatTemplate::family`]). A request that
/// offered no tools needs no parser; its output is all text.
#[derive(Debug)]
pub struct ToolCallParser {
    family: ToolFamily,
    /// Input not yet classified as text or call.
    pending: String,
    mode: Mode,
    calls_emitted: usize,
    /// The first bytes of a UTF-8 character split across [`ToolCallParser::push_bytes`] calls.
    utf8_tail: Vec<u8>,
}

#[derive(Debug)]
enum Mode {
    Text {
        /// A call just ended: separators (whitespace, and `;` for Llama) are dropped if only
        /// more calls or the end follow.
        after_call: bool,
        /// Nothing but whitespace so far: Llama's bare-JSON call may start here.
        answer_start: bool,
    },
    Call(CallState),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Shape {
    /// `<tool_call>{…}</tool_call>`
    Tagged,
    /// Llama's `{…}`, optionally after `<|python_tag|>`.
    Bare,
    /// `[TOOL_CALLS][…]` or `[TOOL_CALLS]name[ARGS]{…}`.
    Mistral,
}

#[derive(Debug)]
struct CallState {
    /// Everything since the call began (the whitespace before the marker, the marker, the
    /// body so far), to give back verbatim if it is not a call after all.
    raw: String,
    /// Where the body starts in `raw`, just past the marker.
    body_start: usize,
    /// How far `raw` has been examined.
    pos: usize,
    shape: Shape,
    phase: Phase,
    /// Mistral Small 3.2's `name[CALL_ID]id[ARGS]`.
    name: Option<String>,
    id: Option<String>,
}

#[derive(Debug)]
enum Phase {
    Start,
    Name { start: usize },
    CallId { start: usize },
    ArgsStart,
    Json { start: usize, scanner: JsonScanner },
    AfterJson { start: usize, end: usize },
}

enum Outcome {
    NeedMore,
    /// Not a call: the marker is text, the body is scanned again as text.
    NotACall,
    /// A complete envelope whose contents are not a valid call: `raw[..consumed]` is text.
    Malformed {
        consumed: usize,
    },
    Done {
        consumed: usize,
        calls: Vec<ParsedCall>,
    },
    Unterminated,
}

impl ToolCallParser {
    /// A parser for one output of a model of `family`.
    pub fn new(family: ToolFamily) -> Self {
        ToolCallParser {
            family,
            pending: String::new(),
            mode: Mode::Text {
                after_call: false,
                answer_start: true,
            },
            calls_emitted: 0,
            utf8_tail: Vec::new(),
        }
    }

    /// Feeds the next piece of text; returns what can be shown or acted on now.
    pub fn push(&mut self, text: &str) -> Vec<Parsed> {
        let mut out = Vec::new();
        if !self.utf8_tail.is_empty() {
            // Mixing byte and text pieces mid-character: keep what there is, visibly.
            let tail = std::mem::take(&mut self.utf8_tail);
            self.pending.push_str(&String::from_utf8_lossy(&tail));
        }
        self.pending.push_str(text);
        // Only `finish` can report an unterminated call.
        let _ = self.run(&mut out, false);
        out
    }

    /// Feeds raw bytes as a tokenizer produces them, where one token may end halfway
    /// through a UTF-8 character; the incomplete character waits for the next piece.
    /// Invalid bytes become U+FFFD.
    pub fn push_bytes(&mut self, bytes: &[u8]) -> Vec<Parsed> {
        self.utf8_tail.extend_from_slice(bytes);
        let text = take_complete_utf8(&mut self.utf8_tail);
        let mut out = Vec::new();
        self.pending.push_str(&text);
        let _ = self.run(&mut out, false);
        out
    }

    /// Ends the output: flushes held-back text and a call whose closing tag never came
    /// (a stop word may have swallowed it). Errors only if the output stopped inside a
    /// call's JSON.
    pub fn finish(mut self) -> Result<Vec<Parsed>, ParseError> {
        let tail = std::mem::take(&mut self.utf8_tail);
        self.pending.push_str(&String::from_utf8_lossy(&tail));
        let mut out = Vec::new();
        self.run(&mut out, true)?;
        Ok(out)
    }

    fn run(&mut self, out: &mut Vec<Parsed>, at_end: bool) -> Result<(), ParseError> {
        loop {
            let progressed = match self.mode {
                Mode::Text {
                    after_call,
                    answer_start,
                } => self.step_text(out, at_end, after_call, answer_start),
                Mode::Call(_) => self.step_call(out, at_end)?,
            };
            if !progressed {
                return Ok(());
            }
        }
    }

    /// One step in prose. Returns whether the state changed and another step may help.
    fn step_text(
        &mut self,
        out: &mut Vec<Parsed>,
        at_end: bool,
        after_call: bool,
        answer_start: bool,
    ) -> bool {
        let marker = self.family.marker();
        let llama = self.family == ToolFamily::Llama3;
        if after_call || (answer_start && llama) {
            let separators = self
                .pending
                .bytes()
                .take_while(|&b| is_ascii_space(b) || (after_call && llama && b == b';'))
                .count();
            if separators > MAX_DROPPED_WHITESPACE {
                self.set_text_mode();
                return true;
            }
            let rest = &self.pending[separators..];
            if rest.is_empty() {
                if at_end {
                    if !after_call {
                        emit_text(out, &self.pending);
                    }
                    self.pending.clear();
                }
                return false;
            }
            let shape = if llama && rest.starts_with('{') {
                Some((Shape::Bare, 0))
            } else if rest.starts_with(marker) {
                Some((self.marker_shape(), marker.len()))
            } else {
                None
            };
            if let Some((shape, marker_len)) = shape {
                self.begin_call(shape, separators + marker_len);
                return true;
            }
            if marker.starts_with(rest) && !at_end {
                return false;
            }
            self.set_text_mode();
            return true;
        }

        if let Some(found) = self.pending.find(marker) {
            let lead = whitespace_run_before(&self.pending, found);
            emit_text(out, &self.pending[..lead]);
            self.pending.drain(..lead);
            let body_start = found - lead + marker.len();
            self.begin_call(self.marker_shape(), body_start);
            return true;
        }
        if at_end {
            emit_text(out, &self.pending);
            self.pending.clear();
            return false;
        }
        let hold = held_back_from(&self.pending, marker);
        emit_text(out, &self.pending[..hold]);
        self.pending.drain(..hold);
        false
    }

    fn marker_shape(&self) -> Shape {
        match self.family {
            ToolFamily::Hermes | ToolFamily::Generic => Shape::Tagged,
            ToolFamily::Llama3 => Shape::Bare,
            ToolFamily::Mistral => Shape::Mistral,
        }
    }

    fn set_text_mode(&mut self) {
        self.mode = Mode::Text {
            after_call: false,
            answer_start: false,
        };
    }

    /// Starts a call from everything pending: leading whitespace and marker, then the body
    /// from `body_start` on.
    fn begin_call(&mut self, shape: Shape, body_start: usize) {
        let raw = std::mem::take(&mut self.pending);
        self.mode = Mode::Call(CallState {
            raw,
            body_start,
            pos: body_start,
            shape,
            phase: Phase::Start,
            name: None,
            id: None,
        });
    }

    fn step_call(&mut self, out: &mut Vec<Parsed>, at_end: bool) -> Result<bool, ParseError> {
        let Mode::Call(call) = &mut self.mode else {
            return Ok(false);
        };
        call.raw.push_str(&self.pending);
        self.pending.clear();
        match advance(call, at_end) {
            Outcome::NeedMore => Ok(false),
            Outcome::Unterminated => Err(ParseError::UnterminatedToolCall {
                raw: std::mem::take(&mut call.raw),
            }),
            Outcome::NotACall => {
                let body = call.raw.split_off(call.body_start);
                emit_text(out, &call.raw);
                self.pending = body;
                self.set_text_mode();
                Ok(true)
            }
            Outcome::Malformed { consumed } => {
                let rest = call.raw.split_off(consumed);
                emit_text(out, &call.raw);
                self.pending = rest;
                self.set_text_mode();
                Ok(true)
            }
            Outcome::Done { consumed, calls } => {
                self.pending = call.raw.split_off(consumed);
                for call in calls {
                    out.push(Parsed::ToolCall {
                        index: self.calls_emitted,
                        id: call.id.unwrap_or_else(generate_call_id),
                        name: call.name,
                        arguments: call.arguments,
                    });
                    self.calls_emitted += 1;
                }
                self.mode = Mode::Text {
                    after_call: true,
                    answer_start: false,
                };
                Ok(true)
            }
        }
    }
}

/// Moves a call's scan forward over whatever `raw` now holds.
fn advance(call: &mut CallState, at_end: bool) -> Outcome {
    let wait = if at_end {
        Outcome::NotACall
    } else {
        Outcome::NeedMore
    };
    loop {
        let bytes = call.raw.as_bytes();
        match &mut call.phase {
            Phase::Start | Phase::ArgsStart => {
                let after_args = matches!(call.phase, Phase::ArgsStart);
                call.pos = skip_spaces(bytes, call.pos);
                let Some(&first) = bytes.get(call.pos) else {
                    return wait;
                };
                call.phase = match (call.shape, first) {
                    (_, b'{') => Phase::Json {
                        start: call.pos,
                        scanner: JsonScanner::default(),
                    },
                    (Shape::Mistral, b'[') if !after_args => Phase::Json {
                        start: call.pos,
                        scanner: JsonScanner::default(),
                    },
                    (Shape::Mistral, b) if !after_args && is_name_byte(b) => {
                        Phase::Name { start: call.pos }
                    }
                    _ => return Outcome::NotACall,
                };
            }
            Phase::Name { start } | Phase::CallId { start } => {
                let start = *start;
                let reading_name = matches!(call.phase, Phase::Name { .. });
                while bytes.get(call.pos).is_some_and(|&b| is_name_byte(b)) {
                    call.pos += 1;
                }
                let rest = &call.raw[call.pos..];
                if rest.is_empty() {
                    return wait;
                }
                let word = call.raw[start..call.pos].to_owned();
                if rest.starts_with(MISTRAL_ARGS) {
                    call.pos += MISTRAL_ARGS.len();
                    call.phase = Phase::ArgsStart;
                } else if reading_name && rest.starts_with(MISTRAL_CALL_ID) {
                    call.pos += MISTRAL_CALL_ID.len();
                    call.phase = Phase::CallId { start: call.pos };
                } else if MISTRAL_ARGS.starts_with(rest)
                    || (reading_name && MISTRAL_CALL_ID.starts_with(rest))
                {
                    return wait;
                } else {
                    return Outcome::NotACall;
                }
                if reading_name {
                    call.name = Some(word);
                } else {
                    call.id = Some(word);
                }
            }
            Phase::Json { start, scanner } => {
                let start = *start;
                let (scan, resume) = scanner.scan(&call.raw[start..], call.pos - start);
                call.pos = start + resume;
                match scan {
                    Scan::NeedMore if at_end => return Outcome::Unterminated,
                    Scan::NeedMore => return Outcome::NeedMore,
                    Scan::Invalid => return Outcome::NotACall,
                    Scan::Complete(end) => {
                        call.phase = Phase::AfterJson {
                            start,
                            end: start + end,
                        };
                    }
                }
            }
            Phase::AfterJson { start, end } => {
                let (start, end) = (*start, *end);
                let consumed = if call.shape == Shape::Tagged {
                    call.pos = skip_spaces(bytes, call.pos);
                    let rest = &call.raw[call.pos..];
                    if rest.starts_with(HERMES_CLOSE) {
                        call.pos + HERMES_CLOSE.len()
                    } else if HERMES_CLOSE.starts_with(rest) {
                        // Missing closing tag at the very end: accept the complete JSON.
                        if !at_end {
                            return Outcome::NeedMore;
                        }
                        call.raw.len()
                    } else {
                        return Outcome::NotACall;
                    }
                } else {
                    end
                };
                return match calls_from(call, &call.raw[start..end]) {
                    Some(calls) => Outcome::Done { consumed, calls },
                    None => Outcome::Malformed { consumed },
                };
            }
        }
    }
}

fn calls_from(call: &CallState, json: &str) -> Option<Vec<ParsedCall>> {
    match (call.shape, &call.name) {
        (Shape::Mistral, Some(name)) => Some(vec![ParsedCall {
            id: call.id.clone().filter(|id| !id.is_empty()),
            name: name.clone(),
            arguments: arguments_object(json)?,
        }]),
        // Some Mistral fine-tunes write a single object instead of a list.
        (Shape::Mistral, None) => array_calls(json)
            .or_else(|| object_call(json, &["arguments", "parameters"]).map(|call| vec![call])),
        (Shape::Tagged, _) => Some(vec![object_call(json, &["arguments", "parameters"])?]),
        (Shape::Bare, _) => Some(vec![object_call(json, &["parameters", "arguments"])?]),
    }
}

fn emit_text(out: &mut Vec<Parsed>, text: &str) {
    if text.is_empty() {
        return;
    }
    if let Some(Parsed::Text(last)) = out.last_mut() {
        last.push_str(text);
    } else {
        out.push(Parsed::Text(text.to_owned()));
    }
}

fn is_ascii_space(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\n' | b'\r')
}

fn skip_spaces(bytes: &[u8], mut pos: usize) -> usize {
    while bytes.get(pos).is_some_and(|&b| is_ascii_space(b)) {
        pos += 1;
    }
    pos
}

/// Function names and ids in Mistral's `name[ARGS]` form.
fn is_name_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.')
}

/// Start of the whitespace (at most [`MAX_DROPPED_WHITESPACE`] bytes) that ends at `end`.
fn whitespace_run_before(text: &str, end: usize) -> usize {
    let bytes = text.as_bytes();
    let mut start = end;
    while start > 0 && end - start < MAX_DROPPED_WHITESPACE && is_ascii_space(bytes[start - 1]) {
        start -= 1;
    }
    start
}

/// Where the tail that must wait begins: the longest proper prefix of `marker` that `text`
/// ends with, and the whitespace before it. Markers are ASCII, so this is a char boundary.
fn held_back_from(text: &str, marker: &str) -> usize {
    let partial = (1..marker.len())
        .rev()
        .find(|&k| text.ends_with(&marker[..k]))
        .unwrap_or(0);
    whitespace_run_before(text, text.len() - partial)
}

/// Takes the longest valid UTF-8 prefix out of `buffer`, leaving an incomplete last
/// character behind; invalid sequences become U+FFFD.
fn take_complete_utf8(buffer: &mut Vec<u8>) -> String {
    let mut text = String::new();
    let mut start = 0;
    while start < buffer.len() {
        match std::str::from_utf8(&buffer[start..]) {
            Ok(valid) => {
                text.push_str(valid);
                start = buffer.len();
            }
            Err(err) => {
                let valid_end = start + err.valid_up_to();
                text.push_str(std::str::from_utf8(&buffer[start..valid_end]).unwrap_or_default());
                match err.error_len() {
                    Some(bad) => {
                        text.push(char::REPLACEMENT_CHARACTER);
                        start = valid_end + bad;
                    }
                    None => {
                        start = valid_end;
                        break;
                    }
                }
            }
        }
    }
    buffer.drain(..start);
    text
}
