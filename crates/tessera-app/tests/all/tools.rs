//! A built-in tool the model calls: it runs, its result goes back to the model, the run answers.

use serde_json::Value;
use tessera_testkit::scripted::Reply;

use crate::support::{self, Setup, MODEL};

#[tokio::test(flavor = "multi_thread")]
async fn the_calculator_runs_and_its_result_reaches_the_model() {
    let setup = Setup::new().await;
    setup.provider.push(Reply::openai_tool_calls(
        MODEL,
        &[("call_1", "calculator", &["{\"expression\":", "\"2+3*4\"}"])],
    ));
    setup
        .provider
        .push(Reply::openai_text(MODEL, &["It is ", "14."]));

    let outcome = setup.say("c_calc", "q1", "What is 2+3*4?").await;

    support::answered(&outcome);
    assert_eq!(outcome.text, "It is 14.");
    let calls = setup.provider.calls();
    assert_eq!(calls.len(), 2, "one call for the tool, one for the answer");
    // The first request offered the calculator.
    let offered = support::offered_tools(&calls[0].body);
    assert!(offered.iter().any(|t| t == "calculator"), "{offered:?}");

    // The second request carries the call and its result.
    let messages = calls[1].body["messages"].as_array().unwrap();
    let asked = messages
        .iter()
        .find(|m| m["role"] == "assistant" && m["tool_calls"].is_array())
        .unwrap_or_else(|| panic!("no tool call in {messages:?}"));
    assert_eq!(asked["tool_calls"][0]["id"], "call_1");
    assert_eq!(asked["tool_calls"][0]["function"]["name"], "calculator");
    let result = messages
        .iter()
        .find(|m| m["role"] == "tool")
        .unwrap_or_else(|| panic!("no tool result in {messages:?}"));
    assert_eq!(result["tool_call_id"], "call_1");
    let content: Value = serde_json::from_str(result["content"].as_str().unwrap()).unwrap();
    assert_eq!(content["result"], 14, "{content}");

    // The person sees the question and the answer; the tool's work is not a message.
    assert_eq!(
        setup.shown("c_calc"),
        support::turns(&[("What is 2+3*4?", "It is 14.")])
    );
}
