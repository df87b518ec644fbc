//! Seeds 000 and 004 to the letter on a conversation's context, through the real `tessera
//! serve`, the scripted provider and the `tessera` binary: a context holds the messages its
//! conversation exchanged (seed 000 §1.3, §8.1); `tessera context assemble` reads what a run
//! reads: what CLEAR_HISTORY cleared left out (§8.2.3), the project's context added; the tasks
//! of an INSTRUCTION set name the evidences their results became (seed 004 §2/§3).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::support;

use serde_json::{json, Value};
use support::api::{mcp_message, Api};
use support::{serve_scripted, tessera};
use tessera_protocol::{validate, DocumentKind};
use tessera_testkit::scripted::{Reply, ScriptedProvider};

async fn context_of(api: &Api, ctx: &str) -> Value {
    let view = api.get(&format!("/conversations/{ctx}/context")).await;
    view.ok(200)["context"].clone()
}

/// `(type, text)` of each message of a context.
fn said(context: &Value) -> Vec<(String, String)> {
    context["messages"]
        .as_array()
        .unwrap_or_else(|| panic!("no messages: {context}"))
        .iter()
        .map(|m| {
            (
                m["type"].as_str().unwrap_or_default().to_owned(),
                m["content"]["text"].as_str().unwrap_or_default().to_owned(),
            )
        })
        .collect()
}

fn pair(kind: &str, text: &str) -> (String, String) {
    (kind.to_owned(), text.to_owned())
}

/// Adds `message` to the context of `ctx` with a CONTEXT_UPDATE ADD_MESSAGE.
async fn add_message(api: &Api, ctx: &str, message: &serde_json::Value) {
    let update = json!({"operation": "ADD_MESSAGE", "message": message});
    api.post("/messages", &mcp_message(ctx, "CONTEXT_UPDATE", update))
        .await
        .ok(200);
}

#[tokio::test(flavor = "multi_thread")]
async fn a_context_holds_the_messages_its_conversation_exchanged() {
    let provider = ScriptedProvider::start().await.unwrap();
    let data = tempfile::tempdir().unwrap();
    let api = Api::start(serve_scripted(data.path(), &provider, false));
    let ctx = "ctx_holds";
    provider.push(Reply::openai_text("m", &["您好!有什么可以帮助您的?"]));
    let hello = mcp_message(ctx, "USER_INPUT", json!({"text": "你好"}));
    let answer = api.post("/messages", &hello).await;
    assert_eq!(answer.ok(200)["type"], "MODEL_RESPONSE");

    // §8.1: the exchange is the context's history, before any CONTEXT_UPDATE.
    let context = context_of(&api, ctx).await;
    assert_eq!(
        said(&context),
        [
            pair("USER_INPUT", "你好"),
            pair("MODEL_RESPONSE", "您好!有什么可以帮助您的?")
        ],
        "{context}"
    );
    assert_eq!(context["messages"][0]["messageId"], hello["messageId"]);
    assert_eq!(
        context["messages"][1]["messageId"],
        answer.ok(200)["messageId"]
    );
    assert_eq!(context["version"], 0);
    let shown = api.get(&format!("/conversations/{ctx}")).await;
    let created = shown.ok(200)["conversation"]["created_at"].clone();
    assert!(created.is_string(), "{created}");
    assert_eq!(context["creationTime"], created);
    let problems = validate(DocumentKind::McpContext, &context);
    assert!(problems.is_empty(), "{problems:?}");

    // A message ADD_MESSAGE adds is there once, as it was sent.
    let note = mcp_message(ctx, "USER_INPUT", json!({"text": "remember: tea"}));
    add_message(&api, ctx, &note).await;
    let context = context_of(&api, ctx).await;
    assert_eq!(said(&context).len(), 3, "{context}");
    assert_eq!(context["messages"][2]["messageId"], note["messageId"]);
    assert_eq!(context["messages"][2]["timestamp"], note["timestamp"]);

    // What CLEAR_HISTORY cleared leaves the history.
    api.post(
        "/messages",
        &mcp_message(ctx, "CONTEXT_UPDATE", json!({"operation": "CLEAR_HISTORY"})),
    )
    .await
    .ok(200);
    let context = context_of(&api, ctx).await;
    assert_eq!(said(&context), Vec::<(String, String)>::new(), "{context}");
    assert_eq!(context["version"], 2);
    assert_eq!(context["creationTime"], created);
}

#[tokio::test(flavor = "multi_thread")]
async fn assemble_leaves_out_what_clear_history_cleared() {
    let provider = ScriptedProvider::start().await.unwrap();
    let data = tempfile::tempdir().unwrap();
    let api = Api::start(serve_scripted(data.path(), &provider, false));
    let ctx = "ctx_assemble_cleared";
    let add = |text: &str| {
        mcp_message(
            ctx,
            "CONTEXT_UPDATE",
            json!({"operation": "ADD_MESSAGE",
                   "message": mcp_message(ctx, "USER_INPUT", json!({"text": text}))}),
        )
    };
    api.post("/messages", &add("apples are red")).await.ok(200);
    api.post(
        "/messages",
        &mcp_message(ctx, "CONTEXT_UPDATE", json!({"operation": "CLEAR_HISTORY"})),
    )
    .await
    .ok(200);
    api.post("/messages", &add("pears are green")).await.ok(200);
    // What a run adds from outside the conversation is there too: one path for both.
    api.post(
        "/projects",
        &json!({"name": "Orchard", "instructions": "Answer as a gardener."}),
    )
    .await
    .ok(201);
    api.put(
        &format!("/conversations/{ctx}/project"),
        &json!({"project": "Orchard"}),
    )
    .await
    .ok(200);
    drop(api);

    let out = support::run({
        let mut cmd = tessera(data.path());
        cmd.args(["context", "assemble", ctx, "--budget", "4000", "--explain"]);
        cmd
    })
    .await;
    support::assert_exit(&out, 0);
    let printed: Value = serde_json::from_str(&support::stdout(&out)).unwrap();
    let prompt = printed["prompt"].to_string();
    assert!(prompt.contains("pears are green"), "{prompt}");
    assert!(!prompt.contains("apples"), "the cleared message: {prompt}");
    assert!(prompt.contains("Answer as a gardener."), "{prompt}");
}

#[tokio::test(flavor = "multi_thread")]
async fn instruction_tasks_name_the_evidences_of_their_results() {
    let provider = ScriptedProvider::start().await.unwrap();
    let data = tempfile::tempdir().unwrap();
    let api = Api::start(serve_scripted(data.path(), &provider, false));
    let ctx = "ctx_task_evidence";
    let note = mcp_message(ctx, "USER_INPUT", json!({"text": "sum these"}));
    add_message(&api, ctx, &note).await;
    let set = mcp_message(
        ctx,
        "INSTRUCTION",
        json!({
            "instructions": [
                {"instructionId": "i_sum", "action": "calculator",
                 "parameters": {"expression": "20+22"}},
                {"instructionId": "i_next", "action": "calculator",
                 "parameters": {"expression": "${dependencies.i_sum.result.result} + 1"},
                 "dependencies": ["i_sum"]},
                {"instructionId": "i_bad", "action": "calculator",
                 "parameters": {"expression": "1/"}}
            ],
            "executionMode": "SEQUENTIAL"
        }),
    );
    api.post("/messages", &set).await.ok(200);

    let exported = api
        .get(&format!("/conversations/{ctx}/export?format=context"))
        .await;
    let doc = exported.ok(200).clone();
    let problems = validate(DocumentKind::Context, &doc);
    assert!(problems.is_empty(), "{problems:?}");
    let tasks = doc["session"]["task_state"]["todo_list"]["tasks"]
        .as_array()
        .unwrap();
    for task in &tasks[..2] {
        assert_eq!(task["status"], "completed", "{task}");
        let ids = task["result_evidence_ids"]
            .as_array()
            .unwrap_or_else(|| panic!("no result evidences: {task}"));
        assert_eq!(ids.len(), 1, "{task}");
        let evidence = &doc["evidences"][ids[0].as_str().unwrap()];
        assert_eq!(evidence["type"], "tool_result", "{evidence}");
        assert_eq!(evidence["links"]["tool_call_id"], task["task_id"]);
    }
    let sum = &doc["evidences"][tasks[0]["result_evidence_ids"][0].as_str().unwrap()];
    assert!(sum["content"].to_string().contains("42"), "{sum}");
    assert_eq!(tasks[2]["status"], "failed");
    assert!(
        tasks[2].get("result_evidence_ids").is_none(),
        "{}",
        tasks[2]
    );
}
