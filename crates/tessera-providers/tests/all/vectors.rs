//! Every recorded provider stream in `shared/vectors/providers`, replayed byte for byte over a
//! real HTTP connection by the scripted provider and read by the real client: each parses to the
//! normalised items the recording means.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use serde_json::json;
use tessera_protocol::mcp_cp::FinishReason;
use tessera_providers::config::WireKind;
use tessera_providers::stream::{IncompleteReason, StreamItem, Usage};
use tessera_testkit::scripted::vectors::{is_anthropic_messages, vector_reply};
use tessera_testkit::scripted::ScriptedProvider;

use common::Outcome;

async fn replay(name: &str) -> Outcome {
    let provider = ScriptedProvider::start().await.unwrap();
    provider.push(vector_reply(name).unwrap());
    let kind = if is_anthropic_messages(name) {
        WireKind::Anthropic
    } else {
        WireKind::Openai
    };
    let client = common::client(common::config(&provider, kind));
    let outcome = common::run(&client, common::hello("recorded")).await;
    assert!(outcome.error.is_none(), "{name}: {:?}", outcome.error);
    outcome
}

fn text_deltas(o: &Outcome) -> usize {
    o.count(|i| matches!(i, StreamItem::TextDelta { .. }))
}

fn reasoning_deltas(o: &Outcome) -> usize {
    o.count(|i| matches!(i, StreamItem::ReasoningDelta { .. }))
}

fn usage(o: &Outcome) -> Usage {
    o.response.usage.expect("usage reported")
}

fn single_call(o: &Outcome) -> (&str, &str, &serde_json::Value) {
    assert_eq!(o.response.tool_calls.len(), 1, "{:?}", o.response);
    let call = &o.response.tool_calls[0];
    (&call.id, &call.name, &call.arguments)
}

#[tokio::test]
async fn openai_text() {
    let o = replay("openai-text.chunks.txt").await;
    assert_eq!(text_deltas(&o), 300);
    assert_eq!(o.response.text.chars().count(), 1724);
    assert!(o
        .response
        .text
        .starts_with("**Holiday Name:** Harmony Day\n\n"));
    assert!(o.response.text.ends_with("experiences and mutual respect."));
    assert_eq!(o.response.finish_reason, Some(FinishReason::Stop));
    let u = usage(&o);
    assert_eq!((u.input_tokens, u.output_tokens, u.total()), (16, 300, 316));
    assert!(o.response.tool_calls.is_empty() && o.response.reasoning.is_empty());
    assert_eq!(o.response.model.as_deref(), Some("gpt-4.1-nano-2025-04-14"));
}

#[tokio::test]
async fn deepseek_text_cut_by_length_with_usage_on_the_finish_chunk() {
    let o = replay("deepseek-text.chunks.txt").await;
    assert_eq!(text_deltas(&o), 400);
    assert_eq!(o.response.text.chars().count(), 1855);
    assert_eq!(o.response.finish_reason, Some(FinishReason::Length));
    assert_eq!(o.response.raw_finish_reason.as_deref(), Some("length"));
    let u = usage(&o);
    assert_eq!((u.input_tokens, u.output_tokens), (13, 400));
    // The finish and the usage came in one chunk: the finish is reported first.
    let finish = o
        .items
        .iter()
        .position(|i| matches!(i, StreamItem::Finish { .. }));
    let usage_at = o
        .items
        .iter()
        .position(|i| matches!(i, StreamItem::Usage { .. }));
    assert!(finish < usage_at);
}

#[tokio::test]
async fn deepseek_reasoning_then_text() {
    let o = replay("deepseek-reasoning.chunks.txt").await;
    assert_eq!(reasoning_deltas(&o), 88);
    assert_eq!(text_deltas(&o), 17);
    assert_eq!(o.response.text, "There are **3** “r”s in **“strawberry”**.");
    assert_eq!(o.response.reasoning.len(), 1);
    assert_eq!(o.response.reasoning[0].text.chars().count(), 285);
    // Reasoning comes before any text.
    let last_reasoning = o
        .items
        .iter()
        .rposition(|i| matches!(i, StreamItem::ReasoningDelta { .. }));
    let first_text = o
        .items
        .iter()
        .position(|i| matches!(i, StreamItem::TextDelta { .. }));
    assert!(last_reasoning < first_text);
    let u = usage(&o);
    assert_eq!(
        (u.input_tokens, u.output_tokens, u.reasoning_tokens),
        (97, 106, Some(88))
    );
    assert_eq!(o.response.finish_reason, Some(FinishReason::Stop));
}

#[tokio::test]
async fn deepseek_tool_call_after_reasoning() {
    let o = replay("deepseek-tool-call.chunks.txt").await;
    assert_eq!(reasoning_deltas(&o), 17);
    assert_eq!(
        o.response.reasoning[0].text,
        "The user asks about the weather in San Francisco. I should use the weather tool."
    );
    let (id, name, args) = single_call(&o);
    assert_eq!(id, "call_00_IhCAliIHtM9gKpgfqbBV9873");
    assert_eq!(name, "weather");
    assert_eq!(args, &json!({"location": "San Francisco"}));
    assert_eq!(
        o.count(|i| matches!(i, StreamItem::ToolCallDelta { .. })),
        10
    );
    assert_eq!(o.response.finish_reason, Some(FinishReason::ToolCalls));
    let u = usage(&o);
    assert_eq!(
        (
            u.input_tokens,
            u.output_tokens,
            u.cached_input_tokens,
            u.reasoning_tokens
        ),
        (374, 61, Some(256), Some(17))
    );
    assert_eq!(o.response.text, "");
}

#[tokio::test]
async fn alibaba_reasoning_keeps_an_emoji_split_across_deltas() {
    let o = replay("alibaba-reasoning.chunks.txt").await;
    assert_eq!(reasoning_deltas(&o), 220);
    assert_eq!(o.response.reasoning[0].text.chars().count(), 3301);
    assert_eq!(text_deltas(&o), 52);
    assert_eq!(o.response.text.chars().count(), 816);
    assert!(o.response.text.contains("⚠️"), "U+26A0 U+FE0F rejoined");
    assert!(o.response.text.contains('→') && o.response.text.contains('✅'));
    let u = usage(&o);
    assert_eq!(
        (u.input_tokens, u.output_tokens, u.reasoning_tokens),
        (24, 1355, Some(1084))
    );
    assert_eq!(o.response.finish_reason, Some(FinishReason::Stop));
}

#[tokio::test]
async fn alibaba_tool_call_ignores_repeated_empty_ids() {
    let o = replay("alibaba-tool-call.chunks.txt").await;
    let (id, name, args) = single_call(&o);
    assert_eq!(id, "call_eee11723464a4b9eb8cee71d");
    assert_eq!(name, "weather");
    assert_eq!(args, &json!({"location": "San Francisco"}));
    assert_eq!(
        o.count(|i| matches!(i, StreamItem::ToolCallStart { .. })),
        1
    );
    assert_eq!(o.response.finish_reason, Some(FinishReason::ToolCalls));
    let u = usage(&o);
    assert_eq!((u.input_tokens, u.output_tokens), (295, 22));
}

#[tokio::test]
async fn groq_tool_call_whole_in_one_chunk() {
    let o = replay("groq-tool-call.chunks.txt").await;
    let (id, name, args) = single_call(&o);
    assert_eq!((id, name), ("tk85n1k4m", "weather"));
    assert_eq!(args, &json!({}));
    let u = usage(&o);
    assert_eq!((u.input_tokens, u.output_tokens), (210, 15));
    assert_eq!(o.response.finish_reason, Some(FinishReason::ToolCalls));
}

#[tokio::test]
async fn xai_reasoning_and_a_whole_tool_call_without_finish_keys() {
    let o = replay("xai-tool-call.chunks.txt").await;
    assert_eq!(reasoning_deltas(&o), 227);
    assert_eq!(o.response.reasoning[0].text.chars().count(), 1069);
    assert!(o.response.reasoning[0].text.contains("<function_call>"));
    let (id, name, args) = single_call(&o);
    assert_eq!((id, name), ("call_79382389", "weather"));
    assert_eq!(args, &json!({"location": "San Francisco"}));
    // xAI's total (560) counts the 227 reasoning tokens outside completion_tokens (26).
    let u = usage(&o);
    assert_eq!(
        (u.input_tokens, u.output_tokens, u.total()),
        (307, 253, 560)
    );
    assert_eq!(u.reasoning_tokens, Some(227));
    assert_eq!(o.response.text, "");
}

#[tokio::test]
async fn anthropic_compatible_endpoint_tool_call_at_index_one() {
    let o = replay("anthropic-fallback-tool-call.sse").await;
    assert_eq!(o.response.text, "Reading it.");
    let (id, name, args) = single_call(&o);
    assert_eq!((id, name), ("toolu_sanitized", "read_file"));
    assert_eq!(args, &json!({"path": "a.txt"}));
    // The wire said index 1; calls are counted from 0 in the normalised stream.
    assert!(o.items.iter().any(
        |i| matches!(i, StreamItem::ToolCallStart { index: 0, name, .. } if name == "read_file")
    ));
    assert_eq!(o.response.finish_reason, Some(FinishReason::ToolCalls));
    assert!(o.response.usage.is_none(), "this recording has no usage");
}

#[tokio::test]
async fn openai_parallel_tools() {
    let o = replay("openai-parallel-tools.sse").await;
    assert_eq!(o.response.tool_calls.len(), 2);
    let (a, b) = (&o.response.tool_calls[0], &o.response.tool_calls[1]);
    assert_eq!(
        (a.id.as_str(), a.name.as_str()),
        ("call_JMW1whyEaYG438VE1OIflxA2", "GetWeatherArgs")
    );
    assert_eq!(
        a.arguments,
        json!({"city": "Edinburgh", "country": "GB", "units": "c"})
    );
    assert_eq!(
        (b.id.as_str(), b.name.as_str()),
        ("call_DNYTawLBoN8fj3KN6qU9N1Ou", "get_stock_price")
    );
    assert_eq!(b.arguments, json!({"ticker": "AAPL", "exchange": "NASDAQ"}));
    let u = usage(&o);
    assert_eq!((u.input_tokens, u.output_tokens), (149, 60));
    assert_eq!(o.response.finish_reason, Some(FinishReason::ToolCalls));
}

#[tokio::test]
async fn openai_length() {
    let o = replay("openai-length.sse").await;
    assert_eq!(o.response.text, "{\"");
    assert_eq!(o.response.finish_reason, Some(FinishReason::Length));
    let u = usage(&o);
    assert_eq!((u.input_tokens, u.output_tokens), (79, 1));
}

#[tokio::test]
async fn openai_refusal() {
    let o = replay("openai-refusal.sse").await;
    assert_eq!(o.response.text, "");
    assert_eq!(
        o.response.refusal,
        "I'm sorry, I can't assist with that request."
    );
    assert_eq!(
        o.count(|i| matches!(i, StreamItem::RefusalDelta { .. })),
        10
    );
    assert_eq!(o.response.finish_reason, Some(FinishReason::Stop));
    assert_eq!(usage(&o).output_tokens, 11);
}

#[tokio::test]
async fn anthropic_text_ignores_pings() {
    let o = replay("anthropic-text.chunks.txt").await;
    assert_eq!(
        o.response.text,
        "Hello! I'm doing well, thank you for asking. How are you doing today? Is there anything I can help you with?"
    );
    assert_eq!(text_deltas(&o), 6);
    assert_eq!(o.response.finish_reason, Some(FinishReason::Stop));
    assert_eq!(o.response.raw_finish_reason.as_deref(), Some("end_turn"));
    // Cumulative: input from message_start, output from message_delta.
    let u = usage(&o);
    assert_eq!((u.input_tokens, u.output_tokens), (12, 30));
    assert_eq!(
        o.response.model.as_deref(),
        Some("claude-sonnet-4-5-20250929")
    );
}

#[tokio::test]
async fn anthropic_tool_without_arguments_ends_as_an_empty_object() {
    let o = replay("anthropic-tool-no-args.chunks.txt").await;
    assert_eq!(o.response.text, "I'll update the issue list for you.");
    let (id, name, args) = single_call(&o);
    assert_eq!(
        (id, name),
        ("toolu_01QE1WLsSVp5hy5Q3GmGTmjP", "updateIssueList")
    );
    assert_eq!(args, &json!({}));
    assert_eq!(o.response.finish_reason, Some(FinishReason::ToolCalls));
    let u = usage(&o);
    assert_eq!((u.input_tokens, u.output_tokens), (565, 48));
}

#[tokio::test]
async fn anthropic_json_tool_with_an_empty_first_fragment() {
    let o = replay("anthropic-json-tool.2.chunks.txt").await;
    assert_eq!(o.response.text, "I'll invoke the JSON response tool.");
    let (id, name, args) = single_call(&o);
    assert_eq!((id, name), ("toolu_01KFbKqPYSuAKujiL6mTfzYA", "json"));
    assert_eq!(
        args,
        &json!({"elements": [{"location": "San Francisco", "temperature": 58, "condition": "sunny"}]})
    );
    // The empty first fragment is not passed on as a delta.
    assert_eq!(
        o.count(|i| matches!(i, StreamItem::ToolCallDelta { .. })),
        2
    );
    let u = usage(&o);
    assert_eq!((u.input_tokens, u.output_tokens), (849, 47));
}

#[tokio::test]
async fn anthropic_thinking_keeps_its_signature() {
    let o = replay("anthropic-clear-thinking.1.chunks.txt").await;
    assert_eq!(o.response.reasoning.len(), 1);
    let block = &o.response.reasoning[0];
    assert_eq!(
        block.text,
        "The previous result was 925. Now I need to divide that by 5.\n\n925 ÷ 5 = 185"
    );
    let signature = block.signature.as_deref().expect("signature kept");
    assert!(
        signature.starts_with("EvQBCkYICxgCKkAxhD4NUKFz"),
        "{signature}"
    );
    assert_eq!(o.response.text, "925 ÷ 5 = 185");
    assert_eq!(o.response.finish_reason, Some(FinishReason::Stop));
    let u = usage(&o);
    assert_eq!((u.input_tokens, u.output_tokens), (69, 53));
}

#[tokio::test]
async fn anthropic_tool_use_without_a_final_newline() {
    let o = replay("anthropic-tool-use.sse").await;
    assert_eq!(
        o.response.text,
        "I'll check the current weather in Paris for you."
    );
    let (id, name, args) = single_call(&o);
    assert_eq!(
        (id, name),
        ("toolu_01NRLabsLyVHZPKxbKvkfSMn", "get_weather")
    );
    assert_eq!(args, &json!({"location": "Paris"}));
    assert_eq!(o.response.finish_reason, Some(FinishReason::ToolCalls));
    // message_delta's usage has only output_tokens: the input stays from message_start.
    let u = usage(&o);
    assert_eq!((u.input_tokens, u.output_tokens), (377, 65));
}

#[tokio::test]
async fn anthropic_tool_json_cut_by_max_tokens_is_incomplete_and_not_a_call() {
    let o = replay("anthropic-max-tokens-in-tool-json.sse").await;
    assert!(o
        .response
        .text
        .starts_with("I'll create a comprehensive tax guide"));
    assert!(
        o.response.tool_calls.is_empty(),
        "a cut-off call is never complete"
    );
    assert_eq!(o.response.incomplete_tool_calls.len(), 1);
    let cut = &o.response.incomplete_tool_calls[0];
    assert_eq!(cut.name, "make_file");
    assert_eq!(cut.id, "toolu_01EKqbqmZrGRXy18eN7m9kvY");
    assert_eq!(cut.reason, IncompleteReason::CutOff);
    assert!(cut
        .partial_arguments
        .starts_with("{\"filename\": \"taxes.txt\""));
    assert!(cut.partial_arguments.ends_with("Filing taxes"));
    assert_eq!(o.response.finish_reason, Some(FinishReason::Length));
    assert_eq!(usage(&o).output_tokens, 124);
}
