//! A [`ChatRequest`] as a Messages request body.

use serde_json::{json, Map, Value};

use crate::config::ProviderConfig;
use crate::request::{
    binary_file_note, file_as_text, image_omitted_note, ChatRequest, Image, Part, ReasoningEffort,
    Role, ToolResultPart,
};

/// The `anthropic-version` header this encoder speaks.
pub const ANTHROPIC_VERSION: &str = "2023-06-01";

fn image_block(image: &Image) -> Value {
    json!({"type": "image", "source": {
        "type": "base64", "media_type": image.media_type, "data": image.data_base64
    }})
}

fn text_block(text: impl Into<String>) -> Value {
    json!({"type": "text", "text": text.into()})
}

/// The request body for `config` (streaming when `stream`).
pub fn encode_request(config: &ProviderConfig, request: &ChatRequest, stream: bool) -> Value {
    let images = config.accepts_images(&request.model);
    let model = request.model.as_str();
    // Messages must alternate; consecutive turns of one role are merged.
    let mut messages: Vec<(Role, Vec<Value>)> = Vec::new();
    for message in &request.messages {
        let mut blocks = Vec::new();
        let mut results = Vec::new();
        for part in &message.parts {
            match part {
                Part::Text { text } if !text.is_empty() => blocks.push(text_block(text.clone())),
                Part::Text { .. } => {}
                Part::Image(image) if images => blocks.push(image_block(image)),
                Part::Image(_) => blocks.push(text_block(image_omitted_note(model))),
                Part::File {
                    name,
                    media_type,
                    text,
                } => blocks.push(text_block(match text {
                    Some(text) => file_as_text(name, text),
                    None => binary_file_note(name, media_type),
                })),
                Part::Reasoning {
                    text,
                    signature,
                    redacted,
                } => {
                    if let Some(data) = redacted {
                        blocks.push(json!({"type": "redacted_thinking", "data": data}));
                    } else if let Some(signature) = signature {
                        // Unsigned thinking cannot be replayed; Anthropic refuses it.
                        blocks.push(
                            json!({"type": "thinking", "thinking": text, "signature": signature}),
                        );
                    }
                }
                Part::ToolCall {
                    id,
                    name,
                    arguments,
                } => blocks.push(json!({
                    "type": "tool_use", "id": id, "name": name, "input": arguments
                })),
                Part::ToolResult {
                    call_id,
                    content,
                    is_error,
                } => {
                    let content: Vec<Value> = content
                        .iter()
                        .map(|p| match p {
                            ToolResultPart::Text { text } => text_block(text.clone()),
                            ToolResultPart::Image(image) if images => image_block(image),
                            ToolResultPart::Image(_) => text_block(image_omitted_note(model)),
                        })
                        .collect();
                    let mut block = json!({
                        "type": "tool_result", "tool_use_id": call_id, "content": content
                    });
                    if *is_error {
                        block["is_error"] = json!(true);
                    }
                    results.push(block);
                }
            }
        }
        // Tool results must open the user turn that answers them.
        results.append(&mut blocks);
        let blocks = results;
        if blocks.is_empty() {
            continue;
        }
        match messages.last_mut() {
            Some((role, existing)) if *role == message.role => existing.extend(blocks),
            _ => messages.push((message.role, blocks)),
        }
    }
    let messages: Vec<Value> = messages
        .into_iter()
        .map(|(role, content)| {
            json!({
                "role": match role { Role::User => "user", Role::Assistant => "assistant" },
                "content": content
            })
        })
        .collect();

    let max_tokens = request
        .max_tokens
        .unwrap_or_else(|| config.max_output_tokens(model));
    let mut body = Map::new();
    body.insert("model".into(), json!(model));
    body.insert("max_tokens".into(), json!(max_tokens));
    if let Some(system) = request.system.as_deref().filter(|s| !s.is_empty()) {
        body.insert("system".into(), json!(system));
    }
    body.insert("messages".into(), Value::Array(messages));
    if !request.tools.is_empty() {
        let tools: Vec<Value> = request
            .tools
            .iter()
            .map(|t| json!({"name": t.name, "description": t.description, "input_schema": t.input_schema}))
            .collect();
        body.insert("tools".into(), Value::Array(tools));
        if let Some(choice) = &request.tool_choice {
            let choice = match choice {
                crate::ToolChoice::Auto => json!({"type": "auto"}),
                crate::ToolChoice::Required => json!({"type": "any"}),
                crate::ToolChoice::None => json!({"type": "none"}),
                crate::ToolChoice::Tool(name) => json!({"type": "tool", "name": name}),
            };
            body.insert("tool_choice".into(), choice);
        }
    }
    match request.reasoning {
        Some(effort) => {
            let budget: u32 = match effort {
                ReasoningEffort::Low => 2_048,
                ReasoningEffort::Medium => 8_192,
                ReasoningEffort::High => 24_576,
            };
            // Thinking counts against max_tokens: raise the limit so the answer keeps the room
            // it was given. Temperature must stay unset with thinking on.
            if max_tokens <= budget {
                body.insert("max_tokens".into(), json!(budget + max_tokens));
            }
            body.insert(
                "thinking".into(),
                json!({"type": "enabled", "budget_tokens": budget}),
            );
        }
        None => {
            if let Some(t) = request.temperature {
                body.insert("temperature".into(), json!(t));
            }
            if let Some(p) = request.top_p {
                body.insert("top_p".into(), json!(p));
            }
        }
    }
    if stream {
        body.insert("stream".into(), json!(true));
    }
    Value::Object(body)
}
