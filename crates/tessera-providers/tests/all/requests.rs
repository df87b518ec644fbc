//! What reaches the provider: messages, tools, reasoning replayed, images where the model takes
//! them and a note where it does not, files as text. Checked on the requests the scripted
//! provider recorded.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use serde_json::json;
use tessera_providers::config::{ModelSettings, WireKind};
use tessera_providers::request::{Image, Part, ReasoningEffort, Role, ToolResultPart};
use tessera_providers::{ChatMessage, ChatRequest, ToolSpec};
use tessera_testkit::scripted::{Reply, ScriptedProvider};

fn png() -> Image {
    Image {
        media_type: "image/png".into(),
        data_base64: "iVBORw0KGgo=".into(),
    }
}

/// A conversation with a tool round: the model reasoned, called a tool that returned text
/// and a screenshot, and the person attached a text file and an image.
fn conversation(model: &str) -> ChatRequest {
    let mut request = ChatRequest::new(
        model,
        vec![
            ChatMessage {
                role: Role::User,
                parts: vec![
                    Part::text("What is on my screen? Notes attached."),
                    Part::File {
                        name: "notes.md".into(),
                        media_type: "text/markdown".into(),
                        text: Some("# Notes\n- renew".into()),
                    },
                    Part::File {
                        name: "report.bin".into(),
                        media_type: "application/octet-stream".into(),
                        text: None,
                    },
                    Part::Image(png()),
                ],
            },
            ChatMessage {
                role: Role::Assistant,
                parts: vec![
                    Part::Reasoning {
                        text: "I should capture the screen.".into(),
                        signature: Some("sig==".into()),
                        redacted: None,
                    },
                    Part::text("Let me look."),
                    Part::ToolCall {
                        id: "call_1".into(),
                        name: "screen_capture".into(),
                        arguments: json!({"target": "screen"}),
                    },
                ],
            },
            ChatMessage {
                role: Role::User,
                parts: vec![Part::ToolResult {
                    call_id: "call_1".into(),
                    content: vec![
                        ToolResultPart::Text {
                            text: "captured 1280x900".into(),
                        },
                        ToolResultPart::Image(png()),
                    ],
                    is_error: false,
                }],
            },
        ],
    );
    request.system = Some("You are Tessera.".into());
    request.tools = vec![ToolSpec {
        name: "screen_capture".into(),
        description: "Capture the screen".into(),
        input_schema: json!({"type": "object", "properties": {"target": {"type": "string"}}}),
    }];
    request.max_tokens = Some(1000);
    request
}

async fn sent(
    kind: WireKind,
    request: ChatRequest,
    configure: impl FnOnce(&mut tessera_providers::ProviderConfig),
) -> serde_json::Value {
    let provider = ScriptedProvider::start().await.unwrap();
    provider.push(match kind {
        WireKind::Openai => Reply::openai_text("m", &["ok"]),
        WireKind::Anthropic => Reply::anthropic_text("m", &["ok"]),
    });
    let mut config = common::config(&provider, kind);
    configure(&mut config);
    let client = common::client(config);
    let o = common::run(&client, request).await;
    assert!(o.error.is_none(), "{:?}", o.error);
    let calls = provider.calls();
    assert_eq!(calls.len(), 1);
    calls[0].body.clone()
}

#[tokio::test]
async fn openai_messages_tools_images_and_files() {
    let body = sent(WireKind::Openai, conversation("gpt-4o"), |_| {}).await;
    assert_eq!(body["stream"], true);
    assert_eq!(body["stream_options"], json!({"include_usage": true}));
    assert_eq!(body["max_tokens"], 1000);
    let m = body["messages"].as_array().unwrap();
    assert_eq!(
        m[0],
        json!({"role": "system", "content": "You are Tessera."})
    );
    // The person's turn: text, the file as text, a note for the binary file, the image.
    let parts = m[1]["content"].as_array().unwrap();
    assert_eq!(parts[0]["text"], "What is on my screen? Notes attached.");
    assert!(parts[1]["text"]
        .as_str()
        .unwrap()
        .contains("# Notes\n- renew"));
    assert!(parts[2]["text"].as_str().unwrap().contains("report.bin"));
    assert_eq!(parts[3]["type"], "image_url");
    assert_eq!(
        parts[3]["image_url"]["url"],
        "data:image/png;base64,iVBORw0KGgo="
    );
    // The assistant turn: text and the tool call; no reasoning_content for OpenAI itself.
    assert_eq!(m[2]["role"], "assistant");
    assert_eq!(m[2]["content"], "Let me look.");
    assert_eq!(m[2]["tool_calls"][0]["id"], "call_1");
    assert_eq!(
        m[2]["tool_calls"][0]["function"]["arguments"],
        "{\"target\":\"screen\"}"
    );
    assert!(m[2].get("reasoning_content").is_none());
    // The tool result, then its image in a user message right after.
    assert_eq!(m[3]["role"], "tool");
    assert_eq!(m[3]["tool_call_id"], "call_1");
    assert!(m[3]["content"]
        .as_str()
        .unwrap()
        .starts_with("captured 1280x900"));
    assert_eq!(m[4]["role"], "user");
    assert_eq!(m[4]["content"][1]["type"], "image_url");
    assert_eq!(m.len(), 5);
    assert_eq!(body["tools"][0]["type"], "function");
    assert_eq!(body["tools"][0]["function"]["name"], "screen_capture");
}

#[tokio::test]
async fn deepseek_gets_its_reasoning_back_on_tool_call_turns() {
    let body = sent(WireKind::Openai, conversation("deepseek-reasoner"), |_| {}).await;
    let m = body["messages"].as_array().unwrap();
    assert_eq!(m[2]["reasoning_content"], "I should capture the screen.");
}

#[tokio::test]
async fn a_model_without_image_input_gets_a_clear_note() {
    let body = sent(WireKind::Openai, conversation("deepseek-chat"), |c| {
        c.models.insert(
            "deepseek-chat".into(),
            ModelSettings {
                image_input: Some(false),
                ..ModelSettings::default()
            },
        );
    })
    .await;
    let text = body.to_string();
    assert!(!text.contains("image_url"), "{text}");
    assert!(text.contains("does not accept images"), "{text}");
}

#[tokio::test]
async fn anthropic_blocks_thinking_replay_and_images_inside_tool_results() {
    let mut request = conversation("claude-sonnet-4-5");
    request.reasoning = Some(ReasoningEffort::Low);
    let body = sent(WireKind::Anthropic, request, |_| {}).await;
    assert_eq!(body["system"], "You are Tessera.");
    assert_eq!(
        body["thinking"],
        json!({"type": "enabled", "budget_tokens": 2048})
    );
    assert!(body["max_tokens"].as_u64().unwrap() > 2048);
    let m = body["messages"].as_array().unwrap();
    assert_eq!(m.len(), 3);
    assert_eq!(m[0]["content"][3]["type"], "image");
    assert_eq!(m[0]["content"][3]["source"]["media_type"], "image/png");
    let assistant = m[1]["content"].as_array().unwrap();
    assert_eq!(
        assistant[0],
        json!({"type": "thinking", "thinking": "I should capture the screen.", "signature": "sig=="})
    );
    assert_eq!(assistant[2]["type"], "tool_use");
    assert_eq!(assistant[2]["input"], json!({"target": "screen"}));
    let result = &m[2]["content"][0];
    assert_eq!(result["type"], "tool_result");
    assert_eq!(result["tool_use_id"], "call_1");
    assert_eq!(result["content"][1]["type"], "image");
    assert_eq!(body["tools"][0]["input_schema"]["type"], "object");
}

#[tokio::test]
async fn anthropic_headers_carry_the_key_and_version() {
    let provider = ScriptedProvider::start().await.unwrap();
    provider.push(Reply::anthropic_text("c", &["hi"]));
    let client = common::client(common::config(&provider, WireKind::Anthropic));
    let o = common::run(&client, common::hello("c")).await;
    assert!(o.error.is_none());
    let call = &provider.calls()[0];
    assert_eq!(call.path, "/v1/messages");
    assert_eq!(call.header("x-api-key"), Some(common::KEY));
    assert_eq!(call.header("anthropic-version"), Some("2023-06-01"));
    assert_eq!(call.header("authorization"), None);
}

#[tokio::test]
async fn consecutive_turns_of_one_role_are_merged_for_anthropic() {
    let request = ChatRequest::new(
        "c",
        vec![
            ChatMessage::user("one"),
            ChatMessage::user("two"),
            ChatMessage::assistant("three"),
        ],
    );
    let body = sent(WireKind::Anthropic, request, |_| {}).await;
    let m = body["messages"].as_array().unwrap();
    assert_eq!(m.len(), 2);
    assert_eq!(m[0]["content"].as_array().unwrap().len(), 2);
}

#[tokio::test]
async fn a_tool_choice_reaches_each_wire_in_its_own_words() {
    use tessera_providers::ToolChoice;
    let cases = [
        (ToolChoice::Auto, json!("auto"), json!({"type": "auto"})),
        (
            ToolChoice::Required,
            json!("required"),
            json!({"type": "any"}),
        ),
        (ToolChoice::None, json!("none"), json!({"type": "none"})),
        (
            ToolChoice::Tool("lookup".into()),
            json!({"type": "function", "function": {"name": "lookup"}}),
            json!({"type": "tool", "name": "lookup"}),
        ),
    ];
    for (choice, openai, anthropic) in cases {
        let mut request = conversation("m");
        request.tool_choice = Some(choice.clone());
        let body = sent(WireKind::Openai, request.clone(), |_| {}).await;
        assert_eq!(body["tool_choice"], openai, "{choice:?}");
        let body = sent(WireKind::Anthropic, request, |_| {}).await;
        assert_eq!(body["tool_choice"], anthropic, "{choice:?}");
    }
    // No tools, nothing to choose: the field is left out.
    let mut bare = ChatRequest::new("m", conversation("m").messages);
    bare.tool_choice = Some(ToolChoice::Required);
    let body = sent(WireKind::Openai, bare, |_| {}).await;
    assert!(body.get("tool_choice").is_none(), "{body}");
}

#[tokio::test]
async fn the_longest_answer_set_for_a_model_reaches_an_openai_compatible_server() {
    let limit = |config: &mut tessera_providers::ProviderConfig| {
        config.models.insert(
            "m".into(),
            tessera_providers::config::ModelSettings {
                max_output_tokens: Some(12),
                ..Default::default()
            },
        );
    };
    let body = sent(WireKind::Openai, common::hello("m"), limit).await;
    assert_eq!(body["max_tokens"], 12);
    // Unset: nothing is asked, the server decides.
    let body = sent(WireKind::Openai, common::hello("m"), |_| {}).await;
    assert!(body.get("max_tokens").is_none(), "{body}");
    // A limit on the request itself wins.
    let mut request = common::hello("m");
    request.max_tokens = Some(40);
    let body = sent(WireKind::Openai, request, limit).await;
    assert_eq!(body["max_tokens"], 40);
}
