//! Searching the conversation list and exporting a conversation as Markdown over `/v1`,
//! against a real `tessera serve` over a data folder written beforehand: Chinese and English
//! text, titles and messages, archived ones, and only the branch shown in a transcript.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::support;

use std::path::Path;

use serde_json::Value;
use support::api::Api;
use support::tessera_std;
use tessera_protocol::request::Role;
use tessera_store::conversations::ConversationPatch;
use tessera_store::{text_message, NewMessage, Parent, Store};

fn seed(data: &Path) {
    let store = Store::open(data).unwrap();
    support::seed_conversation(
        &store,
        "zh",
        "云服务器",
        &["包周期续订的接口是？", "调用 RenewSubscription 接口续订。"],
    );
    support::seed_conversation(
        &store,
        "en",
        "Trip planning",
        &["Plan a trip to Oslo in March", "Here is a plan for Oslo."],
    );
    support::seed_conversation(&store, "title", "Renewal checklist", &["hello", "hi"]);
    support::seed_conversation(
        &store,
        "md",
        "Formatting",
        &[
            "How do I bold?",
            "## Bold\n\nUse **double asterisks** around `words`, see [the guide](https://example.com/g).",
        ],
    );
    support::seed_conversation(&store, "old", "Archived notes", &["Oslo again, archived"]);
    // A long answer is indexed after it is stored; this store closes before it idles.
    let long: String = (0..20_000).map(|i| format!("w{i} ")).collect();
    support::seed_conversation(
        &store,
        "long",
        "Long answer",
        &["Write a lot", &format!("{long} 退订完成")],
    );
    store
        .update_conversation(
            "old",
            ConversationPatch {
                archived: Some(true),
                ..ConversationPatch::default()
            },
        )
        .unwrap();
}

fn start(data: &Path) -> Api {
    let mut cmd = tessera_std(data);
    cmd.args(["serve", "--port", "0"]);
    Api::start(cmd)
}

async fn search(api: &Api, query: &str) -> Vec<Value> {
    let path = format!(
        "/conversations?q={}",
        url::form_urlencoded::byte_serialize(query.as_bytes()).collect::<String>()
    );
    api.get(&path).await.ok(200)["conversations"]
        .as_array()
        .unwrap()
        .clone()
}

fn ids(found: &[Value]) -> Vec<&str> {
    found.iter().map(|c| c["id"].as_str().unwrap()).collect()
}

/// The highlighted part of a match's snippet.
fn highlighted(found: &Value) -> String {
    let m = &found["match"];
    let (start, end) = (
        m["highlight"][0].as_u64().unwrap() as usize,
        m["highlight"][1].as_u64().unwrap() as usize,
    );
    m["snippet"]
        .as_str()
        .unwrap()
        .chars()
        .skip(start)
        .take(end - start)
        .collect()
}

#[tokio::test(flavor = "multi_thread")]
async fn search_finds_conversations_by_message_and_title_chinese_too() {
    let data = tempfile::tempdir().unwrap();
    seed(data.path());
    let api = start(data.path());

    // Chinese inside a longer run, as two characters and as one.
    let found = search(&api, "续订").await;
    assert_eq!(ids(&found), ["zh"]);
    assert_eq!(found[0]["title"], "云服务器");
    assert_eq!(found[0]["message_count"], 2);
    assert_eq!(highlighted(&found[0]), "续订");
    assert!(found[0]["match"]["message_id"].is_string());
    assert_eq!(ids(&search(&api, "续").await), ["zh"]);
    assert_eq!(ids(&search(&api, "接口").await), ["zh"]);

    // A snippet is the text a person reads, not the Markdown's marks.
    let found = search(&api, "asterisks").await;
    assert_eq!(ids(&found), ["md"]);
    assert_eq!(
        found[0]["match"]["snippet"],
        "Bold Use double asterisks around words, see the guide."
    );
    assert_eq!(highlighted(&found[0]), "asterisks");

    // English, any case; every word must be in one message.
    let found = search(&api, "OSLO march").await;
    assert_eq!(ids(&found), ["en"]);
    assert_eq!(highlighted(&found[0]).to_lowercase(), "oslo");
    assert!(search(&api, "Oslo penguins").await.is_empty());

    // A long answer stored by a process that ended at once.
    assert_eq!(ids(&search(&api, "退订 w19999").await), ["long"]);
    let found = search(&api, "退订").await;
    assert_eq!(ids(&found), ["long"]);
    assert_eq!(highlighted(&found[0]), "退订");

    // A title alone is enough (no message then).
    let found = search(&api, "renewal").await;
    assert_eq!(ids(&found), ["title"]);
    assert_eq!(found[0]["match"], Value::Null);

    // Archived ones only when asked for, as in the list.
    assert_eq!(ids(&search(&api, "Oslo").await), ["old", "en"]);
    let active = api.get("/conversations?q=Oslo&archived=false").await;
    assert_eq!(
        ids(active.ok(200)["conversations"].as_array().unwrap()),
        ["en"]
    );

    // Quotes and operators are text to find, never syntax; a blank query is the whole list.
    assert!(search(&api, "\"Oslo NEAR(").await.is_empty());
    assert_eq!(search(&api, "   ").await.len(), 6);
    assert_eq!(
        api.get("/conversations?query=x")
            .await
            .error(400, "BAD_REQUEST"),
        "unknown query parameter `query` (limit, offset, archived, q)"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn markdown_export_is_a_transcript_of_the_branch_shown() {
    let data = tempfile::tempdir().unwrap();
    {
        seed(data.path());
        let store = Store::open(data.path()).unwrap();
        // An earlier answer, off the branch shown.
        let question = store.active_branch("en").unwrap()[0].id.clone();
        store
            .append_message(
                "en",
                NewMessage {
                    activate: false,
                    ..NewMessage::new(text_message(Role::Assistant, "An old draft answer"))
                        .with_parent(Parent::Message(question))
                },
            )
            .unwrap();
    }
    let api = start(data.path());

    let answer = api.get("/conversations/en/export?format=markdown").await;
    assert_eq!(answer.status, 200, "{}", answer.text);
    assert_eq!(
        answer.header("content-type"),
        Some("text/markdown; charset=utf-8")
    );
    let disposition = answer.header("content-disposition").unwrap();
    assert!(
        disposition.starts_with("attachment; filename=\"Trip planning.md\""),
        "{disposition}"
    );
    let text = &answer.text;
    assert!(text.starts_with("# Trip planning\n"), "{text}");
    let user = text.find("### User").unwrap();
    let question = text.find("Plan a trip to Oslo in March").unwrap();
    let assistant = text.find("### Assistant").unwrap();
    let reply = text.find("Here is a plan for Oslo.").unwrap();
    assert!(
        user < question && question < assistant && assistant < reply,
        "{text}"
    );
    assert!(text.contains("2 messages"), "{text}");
    assert!(!text.contains("old draft"), "off the branch: {text}");

    // A Chinese title survives in filename*.
    let zh = api.get("/conversations/zh/export?format=markdown").await;
    assert!(zh.text.starts_with("# 云服务器\n"));
    assert!(zh.text.contains("包周期续订的接口是？"));
    assert!(zh
        .header("content-disposition")
        .unwrap()
        .contains("filename*=UTF-8''%E4%BA%91%E6%9C%8D%E5%8A%A1%E5%99%A8.md"));

    // The JSON formats are as they were; an unknown one names the three.
    let document = api.get("/conversations/en/export").await;
    assert_eq!(document.ok(200)["session"]["session_id"], "en");
    let refused = api.get("/conversations/en/export?format=pdf").await;
    assert!(refused
        .error(400, "BAD_REQUEST")
        .contains("context, messages or markdown"));
    api.get("/conversations/nope/export?format=markdown")
        .await
        .error(404, "NOT_FOUND");

    // `tessera context export --format markdown` prints the same transcript.
    let served = answer.text.clone();
    drop(api);
    let mut cmd = support::tessera(data.path());
    cmd.args(["context", "export", "en", "--format", "markdown"]);
    let printed = support::run(cmd).await;
    assert!(printed.status.success());
    assert_eq!(String::from_utf8(printed.stdout).unwrap(), served);
}
