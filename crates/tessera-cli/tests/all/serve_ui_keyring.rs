//! `PUT`/`DELETE /v1/providers/{name}/key` with the real OS keyring: gnome-keyring's Secret
//! Service in the private D-Bus session of `scripts/with-keyring.sh` (`make test-keyring`).
//! Anywhere else it skips, saying so on stderr: it would be writing to the person's own keyring.
//!
//! The key goes in through the API, is read back by another program (`secret-tool`), shows as
//! `has_key`, is used for the model listing, the connection check and by the model rebuilt after the change, and is
//! found nowhere in an answer, the server's log or the data folder.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::support;

use serde_json::json;
use support::api::Api;
use support::{files_holding, has_key, tessera_std_with_keyring};
use tessera_testkit::keyring::{secret_tool_lookup, should_run};
use tessera_testkit::scripted::{Reply, ScriptedProvider};

const SUITE: &str = "serve keyring tests";

#[tokio::test(flavor = "multi_thread")]
async fn a_key_put_through_the_api_lives_only_in_the_keyring_and_is_used() {
    if !should_run(SUITE) {
        return;
    }
    let name = format!("api-keyring-{}", std::process::id());
    let key = format!("sk-api-keyring-{}-7c1d2e3f", std::process::id());
    let scripted = ScriptedProvider::start().await.unwrap();
    scripted.set_models(&["kr-model"]);
    let data = tempfile::tempdir().unwrap();
    let mut cmd = tessera_std_with_keyring(data.path());
    cmd.args(["serve", "--port", "0"]);
    let api = Api::start(cmd);

    let config = json!({"name": name, "kind": "openai", "base_url": scripted.openai_base(),
                        "default_model": "kr-model", "proxy": "none"});
    let added = api.post("/providers", &config).await;
    added.ok(201);
    // It needs a key and has none yet: no model, and the reason says so.
    let made = api
        .post(&format!("/providers/{name}/default"), &json!({}))
        .await;
    let body = made.ok(200);
    assert_eq!(body["model"]["ready"], false);
    assert!(body["model"]["reason"]
        .as_str()
        .unwrap()
        .contains("no API key"));
    assert_eq!(has_key(api.get("/providers").await.ok(200), &name), false);
    api.get(&format!("/providers/{name}/models"))
        .await
        .error(400, "MISSING_KEY");

    // A connection test before the key is there says so, and sends nothing.
    let check = api
        .post(&format!("/providers/{name}/check"), &json!({}))
        .await;
    assert_eq!(check.ok(200)["problem"], "missing_key");

    // Into the keyring (trimmed), readable by another program, never echoed.
    let stored = api
        .put(
            &format!("/providers/{name}/key"),
            &json!({"key": format!(" {key} ")}),
        )
        .await;
    let body = stored.ok(200).clone();
    assert!(!stored.text.contains(&key));
    assert_eq!(body["stored"], true);
    assert_eq!(
        body["model"],
        json!({"ready": true, "provider": name, "model": "kr-model"})
    );
    assert_eq!(
        secret_tool_lookup(&name)
            .unwrap()
            .as_deref()
            .map(str::trim_end),
        Some(key.as_str())
    );
    let listed = api.get("/providers").await;
    assert_eq!(has_key(listed.ok(200), &name), true);
    assert!(!listed.text.contains(&key));

    // Used: for the model listing and by the rebuilt model.
    let models = api.get(&format!("/providers/{name}/models")).await;
    assert_eq!(models.ok(200)["models"][0]["id"], "kr-model");
    let check = api
        .post(&format!("/providers/{name}/check"), &json!({}))
        .await;
    let body = check.ok(200);
    assert_eq!(
        (&body["ok"], &body["model"]),
        (&json!(true), &json!("kr-model"))
    );
    assert!(!check.text.contains(&key));
    scripted.push(Reply::openai_text("kr-model", &["keyring ", "works"]));
    let message = json!({
        "messageId": format!("msg_{}", uuid::Uuid::now_v7()), "contextId": "ctx_keyring", "timestamp": "2026-11-23T10:00:00Z",
        "type": "USER_INPUT", "sender": {"id": "user_1", "type": "USER"},
        "content": {"text": "hi"}
    });
    let answer = api.post("/messages", &message).await;
    assert_eq!(answer.ok(200)["content"]["text"], "keyring works");
    let bearer = format!("Bearer {key}");
    assert_eq!(scripted.requests().len(), 3);
    assert!(scripted
        .requests()
        .iter()
        .all(|r| r.header("authorization") == Some(bearer.as_str())));

    // Out again: gone from the keyring, the model with it; a second time there was none.
    let deleted = api.delete(&format!("/providers/{name}/key")).await;
    let body = deleted.ok(200);
    assert_eq!(body["removed"], true);
    assert_eq!(body["model"]["ready"], false);
    assert_eq!(secret_tool_lookup(&name).unwrap(), None);
    let again = api.delete(&format!("/providers/{name}/key")).await;
    assert_eq!(again.ok(200)["removed"], false);
    assert_eq!(has_key(api.get("/providers").await.ok(200), &name), false);
    api.delete("/providers/nosuch-provider/key")
        .await
        .error(404, "UNKNOWN_PROVIDER");

    // Removing the provider takes a key with it.
    api.put(&format!("/providers/{name}/key"), &json!({"key": key}))
        .await
        .ok(200);
    let removed = api.delete(&format!("/providers/{name}")).await;
    assert_eq!(removed.ok(200)["key_removed"], true);
    assert_eq!(secret_tool_lookup(&name).unwrap(), None);

    let log = api.server.stderr();
    assert!(!log.contains(&key), "the key reached the log: {log}");
    drop(api);
    assert!(
        files_holding(data.path(), &key).is_empty(),
        "the key is in the data folder"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn secrets_move_between_the_keyring_and_the_key_file_and_stay_usable() {
    if !should_run(SUITE) {
        return;
    }
    let name = format!("move-keyring-{}", std::process::id());
    let key = format!("sk-move-keyring-{}-4d5e6f70", std::process::id());
    let scripted = ScriptedProvider::start().await.unwrap();
    let data = tempfile::tempdir().unwrap();
    let mut cmd = tessera_std_with_keyring(data.path());
    cmd.args(["serve", "--port", "0"]);
    let api = Api::start(cmd);
    let view = api.get("/secrets/store").await;
    assert_eq!(
        view.ok(200)["keyring"],
        json!({"reachable": true}),
        "{}",
        view.text
    );
    let config = json!({"name": name, "kind": "openai", "base_url": scripted.openai_base(),
                        "default_model": "m", "proxy": "none"});
    api.post("/providers", &config).await.ok(201);
    api.post(&format!("/providers/{name}/default"), &json!({}))
        .await
        .ok(200);
    api.put(&format!("/providers/{name}/key"), &json!({"key": key}))
        .await
        .ok(200);
    assert!(secret_tool_lookup(&name).unwrap().is_some());

    // To the file: out of the keyring (another program no longer finds it), into the file.
    let moved = api.put("/secrets/store", &json!({"store": "file"})).await;
    let body = moved.ok(200);
    assert_eq!(body["store"], "file");
    assert_eq!(body["moved"], json!([name]));
    assert!(!moved.text.contains(&key));
    assert_eq!(secret_tool_lookup(&name).unwrap(), None);
    let file = std::fs::read_to_string(data.path().join("secrets.json")).unwrap();
    assert!(file.contains(&key));
    scripted.push(Reply::openai_text("m", &["from the file"]));
    let message = json!({
        "messageId": "msg_move_1", "contextId": "ctx_move", "timestamp": "2026-11-26T10:00:00Z",
        "type": "USER_INPUT", "sender": {"id": "user_1", "type": "USER"},
        "content": {"text": "hi"}
    });
    assert_eq!(
        api.post("/messages", &message).await.ok(200)["content"]["text"],
        "from the file"
    );

    // And back: in the keyring again, the file gone, the key still used.
    let back = api
        .put("/secrets/store", &json!({"store": "keyring"}))
        .await;
    assert_eq!(back.ok(200)["moved"], json!([name]));
    assert!(!data.path().join("secrets.json").exists());
    assert_eq!(
        secret_tool_lookup(&name)
            .unwrap()
            .as_deref()
            .map(str::trim_end),
        Some(key.as_str())
    );
    scripted.push(Reply::openai_text("m", &["from the keyring"]));
    let mut again = message.clone();
    again["messageId"] = json!("msg_move_2");
    assert_eq!(
        api.post("/messages", &again).await.ok(200)["content"]["text"],
        "from the keyring"
    );
    let bearer = format!("Bearer {key}");
    assert!(scripted
        .calls()
        .iter()
        .all(|r| r.header("authorization") == Some(bearer.as_str())));
    api.delete(&format!("/providers/{name}")).await.ok(200);
    assert_eq!(secret_tool_lookup(&name).unwrap(), None);
}
