//! OpenAI chat messages reshaped into what chat templates were written against.
//!
//! The wire format and the templates disagree in a few places, and each fix here mirrors
//! what llama.cpp's `common/chat.cpp` (and the minja polyfills it uses) does:
//!
//! - `function.arguments` is a JSON *string* on the wire, but Qwen 2.5, Llama 3.x and Mistral
//!   Nemo all print it with `| tojson`, which would quote it a second time. It is parsed into
//!   an object first; a string that is not JSON is left as a string.
//! - `content` given as text parts is joined into one string, as templates expect a string.
//! - `tool_calls: null` / `[]` is dropped, since Llama's template tests `'tool_calls' in message`.
//! - Mistral templates raise unless every call id is exactly 9 alphanumerics; other ids are
//!   rewritten to a stable 9-character id derived from the original (the same original always
//!   maps to the same id, so a conversation's prompt stays identical between turns and the
//!   tool result still names its call).
//! - [`ToolFamily::Generic`] templates know nothing of tools: the tools are described in a
//!   system message, past calls become `<tool_call>` text and results become user turns.

use std::collections::HashMap;

use serde_json::{Map, Value};

use super::family::{ToolFamily, HERMES_CLOSE, HERMES_OPEN};
use super::jinja_value::to_template_value;
use super::py_json::dumps;
use super::template::TemplateError;

/// Messages and tools ready to hand to a template.
pub(crate) struct Prepared {
    pub(crate) messages: Vec<Value>,
    pub(crate) tools: Option<Vec<Value>>,
}

pub(crate) fn prepare(
    family: ToolFamily,
    messages: &[Value],
    tools: Option<&[Value]>,
) -> Result<Prepared, TemplateError> {
    let mut prepared = Vec::with_capacity(messages.len());
    for (index, message) in messages.iter().enumerate() {
        let Some(object) = message.as_object() else {
            return Err(TemplateError::InvalidMessage {
                index,
                reason: "a message must be a JSON object".to_owned(),
            });
        };
        prepared.push(normalise_message(object.clone()));
    }
    let tools = tools.filter(|t| !t.is_empty()).map(<[Value]>::to_vec);

    match family {
        ToolFamily::Mistral => {
            rewrite_mistral_ids(&mut prepared);
            Ok(Prepared {
                messages: prepared,
                tools,
            })
        }
        ToolFamily::Generic => {
            let mut messages = calls_and_results_as_text(prepared)?;
            if let Some(tools) = &tools {
                describe_tools_in_system_message(&mut messages, tools)?;
            }
            Ok(Prepared {
                messages,
                tools: None,
            })
        }
        ToolFamily::Hermes | ToolFamily::Llama3 => Ok(Prepared {
            messages: prepared,
            tools,
        }),
    }
}

fn normalise_message(mut message: Map<String, Value>) -> Value {
    if let Some(Value::Array(parts)) = message.get("content") {
        let texts: Option<Vec<&str>> = parts
            .iter()
            .map(|part| match part.get("type").and_then(Value::as_str) {
                Some("text") => part.get("text").and_then(Value::as_str),
                _ => None,
            })
            .collect();
        // Parts other than text (images) are left for templates that understand them.
        if let Some(texts) = texts {
            let joined = texts.join("\n");
            message.insert("content".to_owned(), Value::String(joined));
        }
    }
    let has_calls =
        matches!(message.get("tool_calls"), Some(Value::Array(calls)) if !calls.is_empty());
    if !has_calls {
        message.remove("tool_calls");
    }
    if let Some(Value::Array(calls)) = message.get_mut("tool_calls") {
        for call in calls {
            let Some(function) = call.get_mut("function").and_then(Value::as_object_mut) else {
                continue;
            };
            let parsed = match function.get("arguments") {
                Some(Value::String(text)) => serde_json::from_str::<Value>(text).ok(),
                _ => None,
            };
            if let Some(parsed) = parsed {
                function.insert("arguments".to_owned(), parsed);
            }
        }
    }
    Value::Object(message)
}

/// True for the ids Mistral's templates accept: exactly nine ASCII letters or digits.
pub(crate) fn is_mistral_id(id: &str) -> bool {
    id.len() == 9 && id.bytes().all(|b| b.is_ascii_alphanumeric())
}

fn rewrite_mistral_ids(messages: &mut [Value]) {
    let mut mapping: HashMap<String, String> = HashMap::new();
    let mut taken: HashMap<String, String> = HashMap::new();
    let mut map_id = |original: &str| -> String {
        if is_mistral_id(original) {
            return original.to_owned();
        }
        if let Some(mapped) = mapping.get(original) {
            return mapped.clone();
        }
        let mut salt = 0u64;
        loop {
            let candidate = stable_alphanumeric_id(original, salt);
            let clash = taken.get(&candidate).is_some_and(|owner| owner != original);
            if !clash {
                taken.insert(candidate.clone(), original.to_owned());
                mapping.insert(original.to_owned(), candidate.clone());
                return candidate;
            }
            salt += 1;
        }
    };
    for message in messages.iter_mut() {
        let Some(object) = message.as_object_mut() else {
            continue;
        };
        if let Some(Value::Array(calls)) = object.get_mut("tool_calls") {
            for call in calls {
                if let Some(Value::String(id)) = call.get_mut("id") {
                    *id = map_id(id);
                }
            }
        }
        if let Some(Value::String(id)) = object.get_mut("tool_call_id") {
            *id = map_id(id);
        }
    }
}

/// Nine base-62 characters from an FNV-1a hash: stable across runs and processes, which a
/// random id would not be.
fn stable_alphanumeric_id(original: &str, salt: u64) -> String {
    const ALPHABET: &[u8] = b"0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ";
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for byte in original.bytes().chain(salt.to_le_bytes()) {
        hash ^= u64::from(byte);
        hash = hash.wrapping_mul(0x0100_0000_01b3);
    }
    (0..9)
        .map(|_| {
            let c = ALPHABET[(hash % 62) as usize] as char;
            hash /= 62;
            c
        })
        .collect()
}

/// Python-style JSON text of a value, as a Hermes template would print it.
fn python_json(value: &Value) -> Result<String, TemplateError> {
    let value = to_template_value(value).map_err(|_| TemplateError::TooDeep)?;
    dumps(&value).map_err(TemplateError::Render)
}

fn content_text(message: &Map<String, Value>) -> Result<String, TemplateError> {
    match message.get("content") {
        None | Some(Value::Null) => Ok(String::new()),
        Some(Value::String(text)) => Ok(text.clone()),
        Some(other) => python_json(other),
    }
}

fn calls_and_results_as_text(messages: Vec<Value>) -> Result<Vec<Value>, TemplateError> {
    let mut out: Vec<Value> = Vec::with_capacity(messages.len());
    // Several results in a row become one user turn, so templates that insist on
    // alternating roles still accept the conversation.
    let mut last_was_tool_result = false;
    for message in messages {
        let Value::Object(mut object) = message else {
            continue;
        };
        let role = object.get("role").and_then(Value::as_str).unwrap_or("");
        if role == "tool" {
            let block = format!(
                "<tool_response>\n{}\n</tool_response>",
                content_text(&object)?
            );
            let merged = last_was_tool_result
                && out
                    .last_mut()
                    .and_then(|last| last.get_mut("content"))
                    .and_then(|content| match content {
                        Value::String(text) => {
                            text.push('\n');
                            text.push_str(&block);
                            Some(())
                        }
                        _ => None,
                    })
                    .is_some();
            if !merged {
                let mut user = Map::new();
                user.insert("role".to_owned(), Value::String("user".to_owned()));
                user.insert("content".to_owned(), Value::String(block));
                out.push(Value::Object(user));
            }
            last_was_tool_result = true;
            continue;
        }
        last_was_tool_result = false;
        if let Some(Value::Array(calls)) = object.remove("tool_calls") {
            let mut parts = Vec::new();
            let content = content_text(&object)?;
            if !content.is_empty() {
                parts.push(content);
            }
            for call in &calls {
                let function = call.get("function").unwrap_or(call);
                let mut shown = Map::new();
                shown.insert(
                    "name".to_owned(),
                    function.get("name").cloned().unwrap_or(Value::Null),
                );
                shown.insert(
                    "arguments".to_owned(),
                    function
                        .get("arguments")
                        .cloned()
                        .unwrap_or_else(|| Value::Object(Map::new())),
                );
                let json = python_json(&Value::Object(shown))?;
                parts.push(format!("{HERMES_OPEN}\n{json}\n{HERMES_CLOSE}"));
            }
            object.insert("content".to_owned(), Value::String(parts.join("\n")));
        }
        out.push(Value::Object(object));
    }
    Ok(out)
}

/// The Hermes / Qwen 2.5 tool instructions, worded as those templates word them, so models
/// that have seen that format recognise it.
pub(crate) fn generic_tool_instructions(tools: &[Value]) -> Result<String, TemplateError> {
    let mut text = String::from(
        "# Tools\n\nYou may call one or more functions to assist with the user query.\n\n\
         You are provided with function signatures within <tools></tools> XML tags:\n<tools>",
    );
    for tool in tools {
        text.push('\n');
        text.push_str(&python_json(tool)?);
    }
    text.push_str(
        "\n</tools>\n\nFor each function call, return a json object with function name and \
         arguments within <tool_call></tool_call> XML tags:\n<tool_call>\n\
         {\"name\": <function-name>, \"arguments\": <args-json-object>}\n</tool_call>",
    );
    Ok(text)
}

fn describe_tools_in_system_message(
    messages: &mut Vec<Value>,
    tools: &[Value],
) -> Result<(), TemplateError> {
    let instructions = generic_tool_instructions(tools)?;
    if let Some(first) = messages.first_mut() {
        if first.get("role").and_then(Value::as_str) == Some("system") {
            if let Some(Value::String(content)) = first.get_mut("content") {
                content.push_str("\n\n");
                content.push_str(&instructions);
                return Ok(());
            }
        }
    }
    let mut system = Map::new();
    system.insert("role".to_owned(), Value::String("system".to_owned()));
    system.insert("content".to_owned(), Value::String(instructions));
    messages.insert(0, Value::Object(system));
    Ok(())
}

/// For templates that refuse a system role (Gemma 2 raises on it): the system text is put
/// at the head of the first user turn instead, as llama.cpp's polyfill does.
pub(crate) fn fold_system_into_first_user(messages: &[Value]) -> Option<Vec<Value>> {
    let first = messages.first()?;
    if first.get("role").and_then(Value::as_str) != Some("system") {
        return None;
    }
    let system_text = first.get("content").and_then(Value::as_str)?.to_owned();
    let mut rest: Vec<Value> = messages[1..].to_vec();
    let user = rest
        .iter_mut()
        .find(|m| m.get("role").and_then(Value::as_str) == Some("user"));
    match user.and_then(|u| u.get_mut("content")) {
        Some(Value::String(content)) => {
            *content = format!("{system_text}\n\n{content}");
        }
        _ => {
            let mut user = Map::new();
            user.insert("role".to_owned(), Value::String("user".to_owned()));
            user.insert("content".to_owned(), Value::String(system_text));
            rest.insert(0, Value::Object(user));
        }
    }
    Some(rest)
}
