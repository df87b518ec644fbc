//! The conversation list over `/v1`, as the UI uses it against a real `tessera serve` and a real
//! data folder: list, show, rename, delete, export and import, each with its main error.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::support;

use std::path::Path;

use serde_json::{json, Value};
use support::api::Api;
use support::tessera_std;
use tessera_store::Store;

/// Two conversations written straight into the data folder: `b-older` (a question and its
/// answer), then `a-newer` (one question).
fn seed(data: &Path) {
    let store = Store::open(data).unwrap();
    for (id, title, texts) in [
        ("b-older", "Older", &["What is 2+2?", "4"][..]),
        ("a-newer", "Newer", &["Hello"][..]),
    ] {
        support::seed_conversation(&store, id, title, texts);
    }
}

fn start(data: &Path) -> Api {
    let mut cmd = tessera_std(data);
    cmd.args(["serve", "--port", "0"]);
    Api::start(cmd)
}

fn ids(list: &Value) -> Vec<&str> {
    list["conversations"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["id"].as_str().unwrap())
        .collect()
}

#[tokio::test(flavor = "multi_thread")]
async fn list_show_rename_and_delete() {
    let data = tempfile::tempdir().unwrap();
    seed(data.path());
    let api = start(data.path());

    let list = api.get("/conversations").await;
    let body = list.ok(200);
    assert_eq!(ids(body), ["a-newer", "b-older"], "newest first");
    let older = &body["conversations"][1];
    assert_eq!(older["title"], "Older");
    assert_eq!(older["message_count"], 2);
    assert!(older["created_at"].is_string() && older["updated_at"].is_string());
    let limited = api.get("/conversations?limit=1&offset=1").await;
    assert_eq!(ids(limited.ok(200)), ["b-older"]);
    api.get("/conversations?limit=many")
        .await
        .error(400, "BAD_REQUEST");

    let shown = api.get("/conversations/b-older").await;
    let body = shown.ok(200);
    assert_eq!(body["conversation"]["id"], "b-older");
    let texts: Vec<&str> = body["messages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["message"]["content"].as_str().unwrap())
        .collect();
    assert_eq!(texts, ["What is 2+2?", "4"]);
    let missing = api.get("/conversations/nope").await;
    assert!(missing.error(404, "NOT_FOUND").contains("nope"));

    // Rename: trimmed; a bad body changes nothing.
    let renamed = api
        .patch("/conversations/b-older", &json!({"title": "  Sums  "}))
        .await;
    assert_eq!(renamed.ok(200)["title"], "Sums");
    for (body, says) in [
        (json!({"title": 5}), "title must be a string"),
        (json!({"title": "   "}), "title must not be empty"),
        (json!({"name": "x"}), "unknown field `name`"),
        (json!({}), "nothing to change"),
    ] {
        let refused = api.patch("/conversations/b-older", &body).await;
        let message = refused.error(400, "BAD_REQUEST");
        assert!(message.contains(says), "{message}");
    }
    let not_json = api
        .raw(reqwest::Method::PATCH, "/conversations/b-older", "{title")
        .await;
    not_json.error(400, "INVALID_JSON");
    api.patch("/conversations/nope", &json!({"title": "x"}))
        .await
        .error(404, "NOT_FOUND");
    let shown = api.get("/conversations/b-older").await;
    assert_eq!(shown.ok(200)["conversation"]["title"], "Sums");

    // Delete: gone everywhere; a second time it is unknown.
    let deleted = api.delete("/conversations/b-older").await;
    assert_eq!(deleted.ok(200)["deleted"], "b-older");
    api.get("/conversations/b-older")
        .await
        .error(404, "NOT_FOUND");
    api.delete("/conversations/b-older")
        .await
        .error(404, "NOT_FOUND");
    assert_eq!(ids(api.get("/conversations").await.ok(200)), ["a-newer"]);
    drop(api);
    let store = Store::open(data.path()).unwrap();
    assert_eq!(store.conversation("b-older").unwrap(), None);
    assert_eq!(
        store.conversation("a-newer").unwrap().unwrap().title,
        "Newer"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn export_and_import_as_the_command_line_does() {
    let data = tempfile::tempdir().unwrap();
    seed(data.path());
    let api = start(data.path());

    // The very documents `tessera context export` prints.
    let document = api
        .get("/conversations/b-older/export")
        .await
        .ok(200)
        .clone();
    assert_eq!(document["session"]["session_id"], "b-older");
    let messages = api
        .get("/conversations/b-older/export?format=messages")
        .await
        .ok(200)
        .clone();
    assert_eq!(messages.as_array().unwrap().len(), 2);
    assert_eq!(messages[0]["type"], "USER_INPUT");
    api.get("/conversations/b-older/export?format=pdf")
        .await
        .error(400, "BAD_REQUEST");
    api.get("/conversations/nope/export")
        .await
        .error(404, "NOT_FOUND");

    // A bad document: 422 with every problem, nothing stored.
    let mut broken = document.clone();
    broken["session"]["session_id"] = json!("c-broken");
    broken["session"]["messages"][0]["at"] = json!("yesterday");
    broken["session"]["messages"][1]["role"] = json!(5);
    let refused = api.post("/conversations/import", &broken).await;
    let message = refused.error(422, "INVALID_DOCUMENT");
    let problems = refused.body["content"]["details"]["problems"]
        .as_array()
        .unwrap();
    assert!(problems.len() >= 2, "{problems:?}");
    assert!(
        problems
            .iter()
            .any(|p| p["path"] == "session.messages[1].role"),
        "{problems:?}"
    );
    assert!(message.contains("session.messages[0].at"), "{message}");
    let shape = api.post("/conversations/import", &json!("hello")).await;
    shape.error(422, "INVALID_DOCUMENT");
    api.raw(reqwest::Method::POST, "/conversations/import", "{oops")
        .await
        .error(400, "INVALID_JSON");
    assert_eq!(
        ids(api.get("/conversations").await.ok(200)),
        ["a-newer", "b-older"]
    );

    // The export comes back in once its original is gone; a second time it already exists.
    api.delete("/conversations/b-older").await.ok(200);
    let imported = api.post("/conversations/import", &document).await;
    let body = imported.ok(201);
    assert_eq!(body["conversation_id"], "b-older");
    assert_eq!(body["messages"], 2);
    let shown = api.get("/conversations/b-older").await;
    assert_eq!(shown.ok(200)["messages"][1]["message"]["content"], "4");
    let again = api.post("/conversations/import", &document).await;
    let said = again.error(409, "ALREADY_EXISTS");
    assert!(said.contains("import it as a copy"), "{said}");
    let details = &again.body["content"]["details"];
    assert_eq!(details["conversation_id"], "b-older");
    assert_eq!(details["title"], "Older");

    // As a copy: under a new id, beside the stored one, which is left as it was.
    let before = api.get("/conversations/b-older").await.ok(200).clone();
    let copied = api.post("/conversations/import?copy=true", &document).await;
    let body = copied.ok(201).clone();
    let copy_id = body["conversation_id"].as_str().unwrap().to_owned();
    assert_ne!(copy_id, "b-older");
    assert_eq!(body["messages"], 2);
    let copy = api.get(&format!("/conversations/{copy_id}")).await;
    assert_eq!(copy.ok(200)["messages"][1]["message"]["content"], "4");
    assert_eq!(api.get("/conversations/b-older").await.ok(200), &before);
    // MCP-CP messages too.
    let from_messages = api.post("/conversations/import?copy=1", &messages).await;
    let other = from_messages.ok(201)["conversation_id"].clone();
    assert!(other != "b-older" && other != copy_id.as_str(), "{other}");
    let listed = api.get("/conversations").await;
    assert_eq!(ids(listed.ok(200)).len(), 4, "{}", listed.text);
    api.post("/conversations/import?copy=maybe", &document)
        .await
        .error(400, "BAD_REQUEST");
}
