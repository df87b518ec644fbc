//! Seed 000 §8 through the real `tessera serve` and the scripted provider: CLEAR_HISTORY clears
//! what the model reads next (部分或全部, `filter.beforeTimestamp` honoured) while the messages
//! stay, shown as cleared; the context's state, version and change log are read at `GET
//! /v1/conversations/{id}/context` and with `tessera context show`; UPDATE_STATE of
//! `activeTools` narrows the tools the next run offers and never grants one.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::support;

use serde_json::{json, Value};
use support::api::{mcp_message, Api};
use support::mcp::offered;
use support::{serve_scripted, tessera};
use tessera_testkit::scripted::{Reply, ScriptedProvider};

/// The texts of the model's `n`-th request.
fn read_by_model(provider: &ScriptedProvider, n: usize) -> String {
    provider.calls()[n].body["messages"].to_string()
}

async fn say(api: &Api, context: &str, text: &str) -> Value {
    let answer = api
        .post(
            "/messages",
            &mcp_message(context, "USER_INPUT", json!({"text": text})),
        )
        .await;
    answer.ok(200).clone()
}

async fn update(api: &Api, context: &str, content: Value) -> Value {
    let answer = api
        .post(
            "/messages",
            &mcp_message(context, "CONTEXT_UPDATE", content),
        )
        .await;
    answer.ok(200)["content"]["data"].clone()
}

#[tokio::test(flavor = "multi_thread")]
async fn clear_history_clears_what_the_model_reads_and_the_context_is_readable() {
    let provider = ScriptedProvider::start().await.unwrap();
    let data = tempfile::tempdir().unwrap();
    let api = Api::start(serve_scripted(data.path(), &provider, false));
    let ctx = "ctx_clear";
    provider.push(Reply::openai_text("m", &["First answer about apples."]));
    say(&api, ctx, "Tell me about apples").await;
    provider.push(Reply::openai_text("m", &["Second answer about pears."]));
    say(&api, ctx, "Tell me about pears").await;

    // Everything said before the second question is cleared.
    let shown = api.get(&format!("/conversations/{ctx}")).await;
    let messages = shown.ok(200)["messages"].as_array().unwrap().clone();
    let second_at = messages[2]["message"]["at"].as_str().unwrap().to_owned();
    let cleared = update(
        &api,
        ctx,
        json!({"operation": "CLEAR_HISTORY", "filter": {"beforeTimestamp": second_at}}),
    )
    .await;
    assert_eq!(cleared["clearedMessages"], 2, "{cleared}");
    assert_eq!(cleared["version"], 1);

    provider.push(Reply::openai_text("m", &["Third."]));
    say(&api, ctx, "And plums?").await;
    let read = read_by_model(&provider, 2);
    assert!(!read.contains("apples"), "{read}");
    assert!(read.contains("pears") && read.contains("plums"), "{read}");

    // Nothing is lost: the messages stay, the cleared ones marked.
    let shown = api.get(&format!("/conversations/{ctx}")).await;
    let messages = shown.ok(200)["messages"].as_array().unwrap().clone();
    assert_eq!(messages.len(), 6);
    let marked: Vec<bool> = messages
        .iter()
        .map(|m| m["message"].get("context_cleared").is_some())
        .collect();
    assert_eq!(marked, [true, true, false, false, false, false]);

    // All of it, without a filter.
    let all = update(&api, ctx, json!({"operation": "CLEAR_HISTORY"})).await;
    assert_eq!(all["clearedMessages"], 4);
    provider.push(Reply::openai_text("m", &["Fresh."]));
    say(&api, ctx, "Start over: kiwis").await;
    let read = read_by_model(&provider, 3);
    assert!(!read.contains("pears") && !read.contains("plums"), "{read}");
    assert!(read.contains("kiwis"), "{read}");

    // The context: state, version, change log.
    let context = api.get(&format!("/conversations/{ctx}/context")).await;
    let view = context.ok(200).clone();
    assert_eq!(view["context"]["version"], 2, "{view}");
    let operations: Vec<&str> = view["changes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["operation"]["operation"].as_str().unwrap())
        .collect();
    assert_eq!(operations, ["CLEAR_HISTORY", "CLEAR_HISTORY"]);
    assert_eq!(
        view["changes"][0]["operation"]["filter"]["beforeTimestamp"],
        second_at
    );
    api.get("/conversations/nobody/context")
        .await
        .error(404, "NOT_FOUND");
    drop(api);

    let out = support::run({
        let mut cmd = tessera(data.path());
        cmd.args(["context", "show", ctx]);
        cmd
    })
    .await;
    support::assert_exit(&out, 0);
    let printed: Value = serde_json::from_str(&support::stdout(&out)).unwrap();
    assert_eq!(printed, view);
}

#[tokio::test(flavor = "multi_thread")]
async fn active_tools_narrow_what_the_model_is_offered_and_grant_nothing() {
    let provider = ScriptedProvider::start().await.unwrap();
    let data = tempfile::tempdir().unwrap();
    let api = Api::start(serve_scripted(data.path(), &provider, false));
    let ctx = "ctx_tools_state";
    provider.push(Reply::openai_text("m", &["All tools."]));
    say(&api, ctx, "hello").await;
    let all = offered(&provider, 0);
    assert!(all.len() > 2, "{all:?}");
    assert!(all.contains(&"calculator".to_owned()));

    update(
        &api,
        ctx,
        json!({"operation": "UPDATE_STATE", "path": "activeTools",
               "value": ["calculator", "no_such_tool"]}),
    )
    .await;
    provider.push(Reply::openai_text("m", &["One tool."]));
    say(&api, ctx, "again").await;
    // `request_form`, the agent's way to ask the person, is the app's own and stays.
    assert_eq!(offered(&provider, 1), ["calculator", "request_form"]);

    // Another conversation keeps every tool.
    provider.push(Reply::openai_text("m", &["Elsewhere."]));
    say(&api, "ctx_other_tools", "hello").await;
    assert_eq!(offered(&provider, 2), all);
}
