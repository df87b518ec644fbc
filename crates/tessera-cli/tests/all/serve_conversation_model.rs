//! A conversation's own model (the composer's picker): `metadata.model` of a USER_INPUT switches
//! provider and model for this message and the conversation's next ones, across a restart;
//! null goes back to the default provider; a pick that cannot be used is refused before
//! anything is created or sent. Two scripted providers on 127.0.0.1 stand for two vendors.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::support;

use std::path::Path;

use serde_json::{json, Value};
use support::api::{mcp_message, Api};
use support::tessera_std;
use tessera_testkit::scripted::{Reply, ScriptedProvider};

fn start(data: &Path) -> Api {
    let mut cmd = tessera_std(data);
    cmd.args(["serve", "--port", "0"]);
    Api::start(cmd)
}

fn say(context: &str, text: &str, model: Option<Value>) -> Value {
    let mut message = mcp_message(context, "USER_INPUT", json!({"text": text}));
    if let Some(model) = model {
        message["metadata"] = json!({"model": model});
    }
    message
}

async fn add(api: &Api, name: &str, base: &str, model: &str) {
    let config = json!({"name": name, "kind": "openai", "base_url": base,
                        "requires_key": false, "default_model": model, "proxy": "none"});
    api.post("/providers", &config).await.ok(201);
}

fn models_asked(provider: &ScriptedProvider) -> Vec<String> {
    provider
        .calls()
        .iter()
        .map(|c| c.body["model"].as_str().unwrap_or_default().to_owned())
        .collect()
}

#[tokio::test(flavor = "multi_thread")]
async fn a_conversation_keeps_the_model_picked_for_it_until_it_goes_back_to_the_default() {
    let home = ScriptedProvider::start().await.unwrap();
    let other = ScriptedProvider::start().await.unwrap();
    let data = tempfile::tempdir().unwrap();
    let api = start(data.path());
    add(&api, "home", &home.openai_base(), "home-m").await;
    add(&api, "other", &other.openai_base(), "other-small").await;
    api.post("/providers/home/default", &json!({}))
        .await
        .ok(200);

    // Picked with the first message: the other provider answers, with the model picked.
    other.push(Reply::openai_text("other-big", &["from ", "other"]));
    let pick = json!({"provider": "other", "model": "other-big"});
    let answer = api
        .post("/messages", &say("c1", "hi", Some(pick.clone())))
        .await;
    assert_eq!(answer.ok(200)["content"]["text"], "from other");
    assert_eq!(models_asked(&other), ["other-big"]);
    assert!(home.calls().is_empty());
    let shown = api.get("/conversations/c1").await;
    assert_eq!(shown.ok(200)["model"], pick);

    // The next message, with nothing said about the model: the same one.
    other.push(Reply::openai_text("other-big", &["again"]));
    api.post("/messages", &say("c1", "more", None))
        .await
        .ok(200);
    assert_eq!(models_asked(&other), ["other-big", "other-big"]);

    // Another conversation keeps the default.
    home.push(Reply::openai_text("home-m", &["home"]));
    api.post("/messages", &say("c2", "hi", None)).await.ok(200);
    assert_eq!(models_asked(&home), ["home-m"]);
    assert_eq!(
        api.get("/conversations/c2").await.ok(200).get("model"),
        None
    );

    // After a restart, and for a regeneration, the conversation's model still answers.
    drop(api);
    let api = start(data.path());
    other.push(Reply::openai_text("other-big", &["after restart"]));
    api.post("/messages", &say("c1", "still there?", None))
        .await
        .ok(200);
    other.push(Reply::openai_text("other-big", &["again, regenerated"]));
    api.post("/conversations/c1/regenerate", &json!({}))
        .await
        .ok(200);
    assert_eq!(models_asked(&other).len(), 4);
    assert!(models_asked(&other).iter().all(|m| m == "other-big"));

    // null: back to the default provider, and forgotten.
    home.push(Reply::openai_text("home-m", &["home again"]));
    api.post("/messages", &say("c1", "back", Some(Value::Null)))
        .await
        .ok(200);
    assert_eq!(models_asked(&home), ["home-m", "home-m"]);
    assert_eq!(
        api.get("/conversations/c1").await.ok(200).get("model"),
        None
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn a_pick_that_cannot_be_used_is_refused_before_anything_is_created() {
    let home = ScriptedProvider::start().await.unwrap();
    let other = ScriptedProvider::start().await.unwrap();
    let data = tempfile::tempdir().unwrap();
    let api = start(data.path());
    add(&api, "home", &home.openai_base(), "home-m").await;
    add(&api, "other", &other.openai_base(), "other-m").await;
    api.post("/providers/home/default", &json!({}))
        .await
        .ok(200);

    // Malformed, unknown, or a provider whose key is missing: 400 naming why.
    for (pick, says) in [
        (json!("other"), "metadata.model must be"),
        (json!({"provider": "other"}), "metadata.model must be"),
        (json!({"provider": "", "model": "x"}), "must both be named"),
        (
            json!({"provider": "nosuch", "model": "x"}),
            "no provider named nosuch",
        ),
        (json!({"provider": "openai", "model": "gpt-4o"}), "openai"),
    ] {
        let refused = api.post("/messages", &say("new", "hi", Some(pick))).await;
        let code = if says.starts_with("metadata") {
            "BAD_REQUEST"
        } else {
            "MODEL_UNAVAILABLE"
        };
        let message = refused.error(400, code);
        assert!(message.contains(says), "{message}");
    }
    // Nothing created, nothing sent.
    api.get("/conversations/new").await.error(404, "NOT_FOUND");
    assert!(home.calls().is_empty() && other.calls().is_empty());

    // A provider removed after it was picked: the conversation says so (409), and a new pick
    // (or null) gets it going again.
    other.push(Reply::openai_text("other-m", &["ok"]));
    let pick = json!({"provider": "other", "model": "other-m"});
    api.post("/messages", &say("c3", "hi", Some(pick)))
        .await
        .ok(200);
    api.delete("/providers/other").await.ok(200);
    let refused = api.post("/messages", &say("c3", "and now?", None)).await;
    assert!(refused
        .error(409, "MODEL_UNAVAILABLE")
        .contains("no provider named other"));
    home.push(Reply::openai_text("home-m", &["home"]));
    api.post("/messages", &say("c3", "then home", Some(Value::Null)))
        .await
        .ok(200);
    assert_eq!(models_asked(&home), ["home-m"]);
}
