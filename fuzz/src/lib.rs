//! One entry point per parser of outside input. Each takes whatever bytes a fuzzer (or a
//! corpus file) gives and must neither panic, nor overflow the stack, nor hang: a bad input is
//! an error value, never a crash. The fuzz targets in `fuzz_targets/` call these; the replay
//! test in `tests/replay.rs` runs every corpus file through them on stable.

use serde_json::{json, Value};

/// The targets, by name (the corpus folder and the binary share it).
pub const TARGETS: &[(&str, fn(&[u8]))] = &[
    ("condition", condition),
    ("reference", reference),
    ("selector", selector),
    ("state_path", state_path),
    ("validate", validate),
    ("openai_stream", openai_stream),
    ("anthropic_stream", anthropic_stream),
    ("form", form),
    ("mcp_config", mcp_config),
    ("calculator", calculator),
    ("pdf", pdf),
    ("office", office),
    ("html", html),
    ("provider_body", provider_body),
];

fn text(data: &[u8]) -> Option<&str> {
    std::str::from_utf8(data).ok()
}

/// The input split at its first line: a head (an expression, a path…) and a JSON body.
fn head_and_json(data: &[u8]) -> Option<(&str, Value)> {
    let text = text(data)?;
    let (head, body) = text.split_once('\n').unwrap_or((text, "null"));
    let value = serde_json::from_str(body).unwrap_or(Value::Null);
    Some((head, value))
}

/// The condition language (seed 000 §6.2): parsed, then evaluated against the JSON after the
/// first line.
pub fn condition(data: &[u8]) {
    let Some((expr, context)) = head_and_json(data) else {
        return;
    };
    if let Ok(parsed) = tessera_scheduler::Condition::parse(expr) {
        let _ = parsed.evaluate(&context);
        let _ = parsed.to_string();
    }
}

/// `${…}` references: found in any JSON, and substituted from a source that has every id.
pub fn reference(data: &[u8]) {
    struct Everything(Value);
    impl tessera_scheduler::ReferenceSource for Everything {
        fn entry(&self, _root: &str, _id: &str) -> Result<&Value, tessera_scheduler::NoEntry> {
            Ok(&self.0)
        }
    }
    let Some(text) = text(data) else { return };
    let value = serde_json::from_str(text).unwrap_or_else(|_| Value::String(text.to_owned()));
    let _ = tessera_scheduler::reference::find_references(&value, "parameters");
    let source =
        Everything(json!({"result": {"items": [1, "two", {"x": null}]}, "status": "SUCCESS"}));
    let _ = tessera_scheduler::reference::substitute(&value, "parameters", &source);
}

/// Evidence selectors (seed 004), against the JSON after the first line.
pub fn selector(data: &[u8]) {
    let Some((selector, content)) = head_and_json(data) else {
        return;
    };
    let _ = tessera_store::selector::select(selector, &content);
}

/// State paths: a `CONTEXT_UPDATE` path set in a state, and dotted paths of the scheduler.
pub fn state_path(data: &[u8]) {
    let Some((path, value)) = head_and_json(data) else {
        return;
    };
    let mut state = serde_json::Map::new();
    if tessera_store::state_path::set(&mut state, path, value).is_ok() {
        // What was stored reads back.
        let written = serde_json::to_string(&state).unwrap_or_default();
        assert!(
            serde_json::from_str::<Value>(&written).is_ok(),
            "stored state unreadable"
        );
    }
    let _ = tessera_scheduler::path::Path::parse(path);
}

/// `tessera validate` of each document kind.
pub fn validate(data: &[u8]) {
    let Some(text) = text(data) else { return };
    for kind in tessera_protocol::validate::DocumentKind::ALL {
        let _ = tessera_protocol::validate::validate_str(kind, text);
    }
}

/// Feeds each line of `text` (one SSE `data` payload per line) to `feed` until one fails.
fn feed_lines<E>(text: &str, mut feed: impl FnMut(&str) -> Result<(), E>) {
    for line in text.lines() {
        if feed(line).is_err() {
            break;
        }
    }
}

/// The OpenAI-compatible stream decoder: the payloads, then the end; and the whole-answer
/// decoder.
pub fn openai_stream(data: &[u8]) {
    let Some(text) = text(data) else { return };
    let mut decoder = tessera_providers::openai::Decoder::new("fuzz");
    let mut out = Vec::new();
    feed_lines(text, |line| decoder.feed(line, &mut out));
    let _ = decoder.feed("[DONE]", &mut out);
    if let Ok(value) = serde_json::from_str::<Value>(text) {
        let _ = tessera_providers::openai::decode_response("fuzz", &value);
    }
}

/// The Anthropic stream decoder, the same way.
pub fn anthropic_stream(data: &[u8]) {
    let Some(text) = text(data) else { return };
    let mut decoder = tessera_providers::anthropic::Decoder::new("fuzz");
    let mut out = Vec::new();
    feed_lines(text, |line| decoder.feed(line, &mut out));
    if let Ok(value) = serde_json::from_str::<Value>(text) {
        let _ = tessera_providers::anthropic::decode_response("fuzz", &value);
    }
}

/// Form schemas (the elicitation subset) and the values given for them: the first line is the
/// schema, the rest the answer.
pub fn form(data: &[u8]) {
    let Some(text) = text(data) else { return };
    let (schema, values) = text.split_once('\n').unwrap_or((text, "{}"));
    let Ok(schema) = serde_json::from_str::<Value>(schema) else {
        return;
    };
    if let Ok(form) = tessera_engine::forms::check_form_schema(&schema) {
        let values = serde_json::from_str(values).unwrap_or(Value::Null);
        let _ = tessera_engine::forms::validate_values(&form, &values);
    }
}

/// A pasted MCP configuration (`{"mcpServers": …}`), and what is split out of it as secrets.
pub fn mcp_config(data: &[u8]) {
    let Ok(document) = serde_json::from_slice::<Value>(data) else {
        return;
    };
    if let Ok(mut servers) = tessera_mcp::config::parse_document(&document) {
        for server in &mut servers {
            let _ = server.uri();
            let _ = tessera_mcp::config::split_secrets(server);
            let _ = tessera_mcp::config::to_document_entry(server);
        }
    }
}

/// The calculator's expressions.
pub fn calculator(data: &[u8]) {
    if let Some(text) = text(data) {
        let _ = tessera_engine::builtin_tools::calc::evaluate(text);
    }
}

/// Small limits, so that the fuzzer reaches them: what a file may inflate to and produce.
fn extract_limits() -> tessera_extract::Limits {
    tessera_extract::Limits {
        max_extracted_bytes: 1 << 20,
        max_inflated_bytes: 16 << 20,
        max_pages: 200,
        ..tessera_extract::Limits::default()
    }
}

/// The PDF reader (attachments, the file picker, a project's folders).
pub fn pdf(data: &[u8]) {
    let _ = tessera_extract::extract(tessera_extract::Format::Pdf, data, &extract_limits());
}

/// The DOCX and ODT readers (their zip reader and XML): the first byte picks which.
pub fn office(data: &[u8]) {
    let Some((&first, file)) = data.split_first() else {
        return;
    };
    let format = if first % 2 == 0 {
        tessera_extract::Format::Docx
    } else {
        tessera_extract::Format::Odt
    };
    let _ = tessera_extract::extract(format, file, &extract_limits());
}

/// The HTML reader, which blanks tags and keeps the source lines.
pub fn html(data: &[u8]) {
    let _ = tessera_extract::extract(tessera_extract::Format::Html, data, &extract_limits());
}

/// A provider's body as it arrives, in chunks of the size the first byte gives: through the
/// event-stream splitter into both decoders, and read whole under a limit as a non-streamed
/// answer. The streams are ready at once, so nothing needs an executor.
pub fn provider_body(data: &[u8]) {
    use futures_util::{FutureExt, StreamExt};
    use tessera_providers::limits::BodyError;
    let Some((&first, body)) = data.split_first() else {
        return;
    };
    let size = usize::from(first).max(1);
    let chunks = || {
        futures_util::stream::iter(
            body.chunks(size)
                .map(|c| Ok::<_, BodyError>(bytes::Bytes::copy_from_slice(c)))
                .collect::<Vec<_>>(),
        )
    };
    let mut events =
        tessera_providers::sse::SseStream::new(chunks()).keeping_an_unended_last_event();
    let mut openai = tessera_providers::openai::Decoder::new("fuzz");
    let mut anthropic = tessera_providers::anthropic::Decoder::new("fuzz");
    let mut out = Vec::new();
    while let Some(Some(Ok(event))) = events.next().now_or_never() {
        let _ = openai.feed(&event.data, &mut out);
        let _ = anthropic.feed(&event.data, &mut out);
    }
    let whole = tessera_providers::limits::read_whole(chunks(), 4096, "the answer").now_or_never();
    if let Some(Ok(bytes)) = whole {
        if let Ok(value) = serde_json::from_slice::<Value>(&bytes) {
            let _ = tessera_providers::openai::decode_response("fuzz", &value);
            let _ = tessera_providers::anthropic::decode_response("fuzz", &value);
        }
    }
}
