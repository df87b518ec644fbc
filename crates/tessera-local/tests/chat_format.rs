#![allow(clippy::unwrap_used, clippy::expect_used)]
//! The chat formats of the local-model families: templates rendered from real fixtures
//! (see `tests/fixtures/README.md`), tool calls parsed back out of recorded outputs, hostile
//! outputs, and the grammar inputs for the worker.

#[path = "chat_format/grammar.rs"]
mod grammar;
#[path = "chat_format/hostile.rs"]
mod hostile;
#[path = "chat_format/parse.rs"]
mod parse;
#[path = "chat_format/render.rs"]
mod render;

use serde_json::{json, Value};
use tessera_local::chat_format::{ParseError, Parsed, ToolCallParser, ToolFamily};

/// 2024-07-26 00:00:00 UTC, the date Llama 3.1's template hard-codes.
pub const FIXED_TIME: i64 = 1_721_952_000;

pub fn fixture(name: &str) -> String {
    let path = format!("{}/tests/fixtures/{name}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

pub fn weather_tool() -> Value {
    json!({
        "type": "function",
        "function": {
            "name": "get_weather",
            "description": "Get the current weather for a city",
            "parameters": {
                "type": "object",
                "properties": {"city": {"type": "string", "description": "The city name"}},
                "required": ["city"]
            }
        }
    })
}

pub fn time_tool() -> Value {
    json!({
        "type": "function",
        "function": {
            "name": "get_time",
            "description": "Current time in a time zone",
            "parameters": {
                "type": "object",
                "properties": {"zone": {"type": "string"}},
                "required": ["zone"]
            }
        }
    })
}

/// System, user, an assistant tool call (arguments as the JSON string the wire carries), its
/// result, the assistant's answer, and a follow-up question.
pub fn weather_conversation(call_id: &str) -> Vec<Value> {
    vec![
        json!({"role": "system", "content": "You are a helpful assistant."}),
        json!({"role": "user", "content": "What's the weather in Paris?"}),
        json!({
            "role": "assistant",
            "content": null,
            "tool_calls": [{
                "id": call_id,
                "type": "function",
                "function": {"name": "get_weather", "arguments": "{\"city\":\"Paris\"}"}
            }]
        }),
        json!({"role": "tool", "tool_call_id": call_id, "content": "18°C, sunny"}),
        json!({"role": "assistant", "content": "It is 18°C and sunny in Paris."}),
        json!({"role": "user", "content": "Thanks! And in Lyon?"}),
    ]
}

/// Joins adjacent text, drops empty text, and replaces generated ids (checking their form)
/// with `<generated>`, so runs that split the same output differently can be compared.
pub fn normalise(items: Vec<Parsed>) -> Vec<Parsed> {
    let mut out: Vec<Parsed> = Vec::new();
    for item in items {
        match item {
            Parsed::Text(text) if text.is_empty() => {}
            Parsed::Text(text) => {
                if let Some(Parsed::Text(last)) = out.last_mut() {
                    last.push_str(&text);
                } else {
                    out.push(Parsed::Text(text));
                }
            }
            Parsed::ToolCall {
                index,
                id,
                name,
                arguments,
            } => {
                let id = if let Some(rest) = id.strip_prefix("call_") {
                    assert_eq!(rest.len(), 24, "generated id {id}");
                    assert!(rest.bytes().all(|b| b.is_ascii_alphanumeric()), "{id}");
                    "<generated>".to_owned()
                } else {
                    id
                };
                out.push(Parsed::ToolCall {
                    index,
                    id,
                    name,
                    arguments,
                });
            }
        }
    }
    out
}

/// Feeds `pieces` in order and finishes.
pub fn parse_pieces(family: ToolFamily, pieces: &[&str]) -> Result<Vec<Parsed>, ParseError> {
    let mut parser = ToolCallParser::new(family);
    let mut out = Vec::new();
    for piece in pieces {
        out.extend(parser.push(piece));
    }
    out.extend(parser.finish()?);
    Ok(normalise(out))
}

/// Feeds raw bytes in the given pieces (which may cut UTF-8 characters) and finishes.
pub fn parse_byte_pieces(family: ToolFamily, pieces: &[&[u8]]) -> Result<Vec<Parsed>, ParseError> {
    let mut parser = ToolCallParser::new(family);
    let mut out = Vec::new();
    for piece in pieces {
        out.extend(parser.push_bytes(piece));
    }
    out.extend(parser.finish()?);
    Ok(normalise(out))
}

pub fn parse_whole(family: ToolFamily, text: &str) -> Result<Vec<Parsed>, ParseError> {
    parse_pieces(family, &[text])
}

pub fn text(s: &str) -> Parsed {
    Parsed::Text(s.to_owned())
}

/// A call with a generated id.
pub fn call(index: usize, name: &str, arguments: &str) -> Parsed {
    call_with_id(index, "<generated>", name, arguments)
}

pub fn call_with_id(index: usize, id: &str, name: &str, arguments: &str) -> Parsed {
    Parsed::ToolCall {
        index,
        id: id.to_owned(),
        name: name.to_owned(),
        arguments: arguments.to_owned(),
    }
}
