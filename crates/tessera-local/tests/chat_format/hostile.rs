//! Output and input no model should produce: absurd nesting, megabytes, half a call.

use std::time::{Duration, Instant};

use serde_json::json;
use tessera_local::chat_format::{
    ChatTemplate, ParseError, Parsed, TemplateError, ToolCallParser, ToolFamily,
};

use crate::{fixture, normalise, parse_pieces, parse_whole, text};

const FIVE_MB: usize = 5 * 1024 * 1024;

fn nested(depth: usize) -> String {
    format!("{}1{}", "[".repeat(depth), "]".repeat(depth))
}

#[test]
fn ten_thousand_levels_of_nesting_are_text_not_a_crash() {
    let deep = nested(10_000);
    // serde_json's recursion limit (128) is what would stop this if the scanner did not.
    let err = serde_json::from_str::<serde_json::Value>(&deep).unwrap_err();
    assert!(err.to_string().contains("recursion limit"), "{err}");

    let outputs = [
        (
            ToolFamily::Hermes,
            format!(
                "<tool_call>\n{{\"name\": \"f\", \"arguments\": {{\"x\": {deep}}}}}\n</tool_call>"
            ),
        ),
        (
            ToolFamily::Llama3,
            format!("{{\"name\": \"f\", \"parameters\": {{\"x\": {deep}}}}}"),
        ),
        (
            ToolFamily::Mistral,
            format!("[TOOL_CALLS][{{\"name\": \"f\", \"arguments\": {{\"x\": {deep}}}}}]"),
        ),
        (
            ToolFamily::Mistral,
            format!("[TOOL_CALLS]f[ARGS]{{\"x\": {deep}}}"),
        ),
    ];
    for (family, output) in outputs {
        let parsed = parse_whole(family, &output).unwrap();
        assert_eq!(parsed, vec![text(&output)], "{family:?}");
        // The same in small pieces.
        let pieces: Vec<&str> = output
            .as_bytes()
            .chunks(7)
            .map(|c| std::str::from_utf8(c).unwrap())
            .collect();
        assert_eq!(parse_pieces(family, &pieces).unwrap(), vec![text(&output)]);
    }
}

#[test]
fn nesting_just_inside_the_limit_is_still_a_call() {
    // 120 levels inside the arguments object plus the call object itself.
    let deep = nested(120);
    let output =
        format!("<tool_call>{{\"name\": \"f\", \"arguments\": {{\"x\": {deep}}}}}</tool_call>");
    let parsed = parse_whole(ToolFamily::Hermes, &output).unwrap();
    match parsed.as_slice() {
        [Parsed::ToolCall { arguments, .. }] => {
            assert_eq!(arguments, &format!("{{\"x\":{deep}}}"))
        }
        other => panic!("{other:?}"),
    }
}

fn assert_quick(started: Instant, what: &str) {
    // Generous for an unoptimised build on a slow machine; a quadratic path takes minutes.
    assert!(
        started.elapsed() < Duration::from_secs(60),
        "{what} took {:?}",
        started.elapsed()
    );
}

#[test]
fn five_megabytes_of_prose_stream_through() {
    let line = "The quick brown fox jumps over the lazy dog; 中文 😀 <b>tags</b> [brackets]\n";
    let output: String = line.repeat(FIVE_MB / line.len() + 1);
    for family in [ToolFamily::Hermes, ToolFamily::Llama3, ToolFamily::Mistral] {
        let started = Instant::now();
        assert_eq!(parse_whole(family, &output).unwrap(), vec![text(&output)]);
        let mut parser = ToolCallParser::new(family);
        let mut items = Vec::new();
        let mut streamed = 0;
        for chunk in output.as_bytes().chunks(4096) {
            let out = parser.push_bytes(chunk);
            streamed += out.len();
            items.extend(out);
        }
        items.extend(parser.finish().unwrap());
        assert!(streamed > 1000, "text must stream, not wait for the end");
        assert_eq!(normalise(items), vec![text(&output)]);
        assert_quick(started, "5 MB of prose");
    }
}

#[test]
fn five_megabytes_of_whitespace_or_marker_starts() {
    for filler in [" ", "\n", "<", "<tool_call", "[TOOL_CALLS", ";"] {
        let output = filler.repeat(FIVE_MB / filler.len());
        for family in [ToolFamily::Hermes, ToolFamily::Llama3, ToolFamily::Mistral] {
            let started = Instant::now();
            let mut parser = ToolCallParser::new(family);
            let mut items = Vec::new();
            for chunk in output.as_bytes().chunks(1024) {
                items.extend(parser.push_bytes(chunk));
            }
            items.extend(parser.finish().unwrap());
            assert_eq!(
                normalise(items),
                vec![text(&output)],
                "{family:?} {filler:?}"
            );
            assert_quick(started, "5 MB of filler");
        }
    }
    // A call after a long blank run: at most 256 bytes of it are dropped with the call.
    let output = format!(
        "{}<tool_call>{{\"name\": \"f\"}}</tool_call>",
        " ".repeat(1000)
    );
    assert_eq!(
        parse_whole(ToolFamily::Hermes, &output).unwrap(),
        vec![text(&" ".repeat(744)), crate::call(0, "f", "{}")]
    );
}

#[test]
fn a_five_megabyte_argument_is_one_call() {
    let big = "x".repeat(FIVE_MB);
    let output = format!(
        "<tool_call>\n{{\"name\": \"write_file\", \"arguments\": {{\"content\": \"{big}\"}}}}\n</tool_call>"
    );
    let started = Instant::now();
    let mut parser = ToolCallParser::new(ToolFamily::Hermes);
    let mut items = Vec::new();
    for chunk in output.as_bytes().chunks(512) {
        items.extend(parser.push_bytes(chunk));
    }
    items.extend(parser.finish().unwrap());
    assert_quick(started, "a 5 MB argument");
    match normalise(items).as_slice() {
        [Parsed::ToolCall {
            name, arguments, ..
        }] => {
            assert_eq!(name, "write_file");
            assert_eq!(arguments.len(), big.len() + 14);
        }
        other => panic!("expected one call, got {} items", other.len()),
    }
}

#[test]
fn unterminated_five_megabyte_call_is_an_error_carrying_the_text() {
    let output = format!(
        "[TOOL_CALLS][{{\"name\": \"f\", \"arguments\": {{\"s\": \"{}",
        "y".repeat(FIVE_MB)
    );
    let mut parser = ToolCallParser::new(ToolFamily::Mistral);
    assert_eq!(parser.push(&output), vec![]);
    match parser.finish() {
        Err(ParseError::UnterminatedToolCall { raw }) => assert_eq!(raw, output),
        other => panic!("{other:?}"),
    }
}

#[test]
fn deep_and_odd_messages_do_not_break_rendering() {
    let template =
        ChatTemplate::new(&fixture("Qwen-Qwen2.5-7B-Instruct.jinja"), "", "<|im_end|>").unwrap();
    // Arguments nested 10,000 deep stay a string (serde_json refuses to parse them).
    let deep = nested(10_000);
    let messages = [
        json!({"role": "user", "content": "go"}),
        json!({"role": "assistant", "content": null, "tool_calls": [
            {"id": "a", "type": "function", "function": {"name": "f", "arguments": deep}}
        ]}),
    ];
    let prompt = template.render(&messages, None, false).unwrap();
    assert!(
        prompt.contains("\"arguments\": \"[[[["),
        "arguments stay a quoted string"
    );

    // A message value built in code deeper than any parser would allow is refused.
    let mut value = json!("bottom");
    for _ in 0..1_000 {
        value = json!([value]);
    }
    let messages = [json!({"role": "user", "content": "x", "extra": value})];
    assert!(matches!(
        template.render(&messages, None, false),
        Err(TemplateError::TooDeep)
    ));
}
