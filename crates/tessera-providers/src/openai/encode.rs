//! A [`ChatRequest`] as a Chat Completions request body.

use serde_json::{json, Map, Value};

use crate::config::ProviderConfig;
use crate::request::{
    binary_file_note, file_as_text, image_omitted_note, ChatMessage, ChatRequest, Image, Part,
    ReasoningEffort, Role, ToolResultPart,
};

fn image_url(image: &Image) -> Value {
    json!({
        "type": "image_url",
        "image_url": {"url": format!("data:{};base64,{}", image.media_type, image.data_base64)}
    })
}

fn text_part(text: String) -> Value {
    json!({"type": "text", "text": text})
}

/// The request body for `config` (streaming when `stream`).
pub fn encode_request(config: &ProviderConfig, request: &ChatRequest, stream: bool) -> Value {
    let images = config.accepts_images(&request.model);
    let replay_reasoning = config.replays_reasoning(&request.model);
    let mut messages = Vec::new();
    if let Some(system) = request.system.as_deref().filter(|s| !s.is_empty()) {
        messages.push(json!({"role": "system", "content": system}));
    }
    for message in &request.messages {
        match message.role {
            Role::User => user_messages(message, &request.model, images, &mut messages),
            Role::Assistant => messages.push(assistant_message(message, replay_reasoning)),
        }
    }
    let mut body = Map::new();
    body.insert("model".into(), json!(request.model));
    body.insert("messages".into(), Value::Array(messages));
    if !request.tools.is_empty() {
        let tools: Vec<Value> = request
            .tools
            .iter()
            .map(|t| {
                json!({"type": "function", "function": {
                    "name": t.name, "description": t.description, "parameters": t.input_schema
                }})
            })
            .collect();
        body.insert("tools".into(), Value::Array(tools));
        if let Some(choice) = &request.tool_choice {
            let choice = match choice {
                crate::ToolChoice::Auto => json!("auto"),
                crate::ToolChoice::Required => json!("required"),
                crate::ToolChoice::None => json!("none"),
                crate::ToolChoice::Tool(name) => {
                    json!({"type": "function", "function": {"name": name}})
                }
            };
            body.insert("tool_choice".into(), choice);
        }
    }
    // The request's limit, else the one the person set for this model (unset: the server's).
    let max_tokens = request.max_tokens.or_else(|| {
        config
            .models
            .get(&request.model)
            .and_then(|m| m.max_output_tokens)
    });
    if let Some(max) = max_tokens {
        // OpenAI's own API wants the newer name (its reasoning models refuse the old one);
        // compatible servers mostly know only `max_tokens`.
        let key = if config.base_url.contains("api.openai.com") {
            "max_completion_tokens"
        } else {
            "max_tokens"
        };
        body.insert(key.into(), json!(max));
    }
    if let Some(t) = request.temperature {
        body.insert("temperature".into(), json!(t));
    }
    if let Some(p) = request.top_p {
        body.insert("top_p".into(), json!(p));
    }
    if let Some(effort) = request.reasoning {
        let word = match effort {
            ReasoningEffort::Low => "low",
            ReasoningEffort::Medium => "medium",
            ReasoningEffort::High => "high",
        };
        body.insert("reasoning_effort".into(), json!(word));
    }
    if stream {
        body.insert("stream".into(), json!(true));
        body.insert("stream_options".into(), json!({"include_usage": true}));
    }
    Value::Object(body)
}

/// A user turn: its tool results first (one `tool` message each), then what the person said,
/// then any images the tools returned (tool messages cannot carry images on this wire).
fn user_messages(message: &ChatMessage, model: &str, images: bool, out: &mut Vec<Value>) {
    let mut content = Vec::new();
    let mut tool_images = Vec::new();
    for part in &message.parts {
        match part {
            Part::Text { text } => content.push(text_part(text.clone())),
            Part::Image(image) if images => content.push(image_url(image)),
            Part::Image(_) => content.push(text_part(image_omitted_note(model))),
            Part::File {
                name,
                media_type,
                text,
            } => content.push(text_part(match text {
                Some(text) => file_as_text(name, text),
                None => binary_file_note(name, media_type),
            })),
            Part::ToolResult {
                call_id,
                content: parts,
                is_error,
            } => {
                let mut texts = Vec::new();
                let mut pictures = Vec::new();
                for p in parts {
                    match p {
                        ToolResultPart::Text { text } => texts.push(text.clone()),
                        ToolResultPart::Image(image) if images => pictures.push(image_url(image)),
                        ToolResultPart::Image(_) => texts.push(image_omitted_note(model)),
                    }
                }
                if !pictures.is_empty() {
                    texts.push(format!(
                        "[{} image(s) follow in the next user message.]",
                        pictures.len()
                    ));
                    tool_images.push(text_part(format!(
                        "Images returned by tool call {call_id}:"
                    )));
                    tool_images.extend(pictures);
                }
                let mut text = texts.join("\n");
                if *is_error && !text.starts_with("Error") {
                    text = format!("Error: {text}");
                }
                out.push(json!({"role": "tool", "tool_call_id": call_id, "content": text}));
            }
            // Reasoning and tool calls belong to assistant turns.
            Part::Reasoning { .. } | Part::ToolCall { .. } => {}
        }
    }
    if !tool_images.is_empty() {
        out.push(json!({"role": "user", "content": tool_images}));
    }
    if content.is_empty() {
        return;
    }
    let only_text = content.len() == 1 && content[0].get("type") == Some(&json!("text"));
    let content = if only_text {
        content.swap_remove(0)["text"].take()
    } else {
        Value::Array(content)
    };
    out.push(json!({"role": "user", "content": content}));
}

fn assistant_message(message: &ChatMessage, replay_reasoning: bool) -> Value {
    let mut text = String::new();
    let mut reasoning = String::new();
    let mut calls = Vec::new();
    for part in &message.parts {
        match part {
            Part::Text { text: t } => text.push_str(t),
            Part::Reasoning { text: r, .. } => reasoning.push_str(r),
            Part::ToolCall {
                id,
                name,
                arguments,
            } => calls.push(json!({
                "id": id, "type": "function",
                "function": {"name": name, "arguments": arguments.to_string()}
            })),
            _ => {}
        }
    }
    let mut out = Map::new();
    out.insert("role".into(), json!("assistant"));
    out.insert(
        "content".into(),
        if text.is_empty() && !calls.is_empty() {
            Value::Null
        } else {
            json!(text)
        },
    );
    // DeepSeek requires the reasoning back on tool-call turns, and refuses it elsewhere.
    if replay_reasoning && !calls.is_empty() && !reasoning.is_empty() {
        out.insert("reasoning_content".into(), json!(reasoning));
    }
    if !calls.is_empty() {
        out.insert("tool_calls".into(), Value::Array(calls));
    }
    Value::Object(out)
}
