//! Providers, settings and tools over `/v1`, as the settings page uses them against a real
//! `tessera serve` and a real data folder, with no keyring reachable (no session bus): the
//! configuration steps, their errors, and the model new runs use rebuilt after each change. The
//! keys themselves are tested against a real keyring in `serve_ui_keyring.rs`.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::support;

use std::path::Path;

use serde_json::{json, Value};
use support::api::Api;
use support::tessera_std;
use tessera_testkit::scripted::{Reply, ScriptedProvider};

fn start(data: &Path) -> Api {
    let mut cmd = tessera_std(data);
    cmd.args(["serve", "--port", "0"]);
    Api::start(cmd)
}

fn provider<'a>(list: &'a Value, name: &str) -> Option<&'a Value> {
    list["providers"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["name"] == name)
}

fn user_input(text: &str) -> Value {
    json!({
        "messageId": format!("msg_{}", uuid::Uuid::now_v7()), "contextId": "ctx_settings", "timestamp": "2026-11-23T10:00:00Z",
        "type": "USER_INPUT", "sender": {"id": "user_1", "type": "USER"},
        "content": {"text": text}
    })
}

#[tokio::test(flavor = "multi_thread")]
async fn a_provider_added_and_made_default_answers_without_a_restart() {
    let scripted = ScriptedProvider::start().await.unwrap();
    let data = tempfile::tempdir().unwrap();
    let api = start(data.path());

    let list = api.get("/providers").await;
    let body = list.ok(200);
    assert_eq!(body["model"]["ready"], false);
    assert_eq!(body["default"], Value::Null);
    // No keyring here: keys kept there are unknown, and the list says why.
    let openai = provider(body, "openai").unwrap();
    assert_eq!(
        (openai["source"].as_str(), openai["key"].as_str()),
        (Some("preset"), Some("unknown"))
    );
    assert_eq!(openai["has_key"], Value::Null);
    assert!(body["keyring_error"].is_string(), "{body}");
    let ollama = provider(body, "ollama").unwrap();
    assert_eq!(ollama["has_key"], false);
    assert_eq!(ollama["config"]["kind"], "openai");

    // Refused configurations: 400 naming what is wrong, nothing saved.
    let base = scripted.openai_base();
    for (config, says) in [
        (
            json!({"name": "local", "kind": "openai", "base_url": "ftp://x"}),
            "base_url",
        ),
        (
            json!({"name": "local", "base_url": base}),
            "missing field `kind`",
        ),
        (
            json!({"name": "has space", "kind": "openai", "base_url": base}),
            "cannot be a provider name",
        ),
        (
            json!({"name": "local", "kind": "openai", "base_url": base, "proxy": "http://u:pw@proxy:3128"}),
            "proxy",
        ),
        (
            json!({"name": "local", "kind": "openai", "base_url": base, "api_key": "sk-1"}),
            "`api_key`",
        ),
        (
            json!({"name": "local", "kind": "openai", "base_url": base,
                "models": {"m": {"price": {"input_per_mtok": -1, "output_per_mtok": 1}}}}),
            "models.m.price",
        ),
    ] {
        let refused = api.post("/providers", &config).await;
        assert_eq!(refused.status, 400, "{config}: {}", refused.text);
        let message = refused.body["content"]["message"].as_str().unwrap();
        assert!(message.contains(says), "{config}: {message}");
        assert!(
            !refused.text.contains("pw@"),
            "credentials echoed: {}",
            refused.text
        );
    }
    assert!(provider(api.get("/providers").await.ok(200), "local").is_none());

    let local = json!({"name": "local", "kind": "openai", "base_url": base,
                       "requires_key": false, "default_model": "m", "proxy": "none"});
    let added = api.post("/providers", &local).await;
    let body = added.ok(201);
    assert_eq!(body["replaced"], false);
    assert!(body["config"]["models"]["m"].is_object(), "{body}");
    // Saved, but not the default yet: still no model.
    assert_eq!(body["model"]["ready"], false);
    assert!(body["model"]["reason"]
        .as_str()
        .unwrap()
        .contains("no provider"));

    let made = api.post("/providers/local/default", &json!({})).await;
    assert_eq!(
        made.ok(200)["model"],
        json!({"ready": true, "provider": "local", "model": "m"})
    );
    api.post("/providers/nosuch/default", &json!({}))
        .await
        .error(404, "UNKNOWN_PROVIDER");
    scripted.push(Reply::openai_text("m", &["Hello ", "there"]));
    let answer = api.post("/messages", &user_input("hi")).await;
    assert_eq!(answer.ok(200)["content"]["text"], "Hello there");

    // Replaced whole: the new default model is what new runs use.
    let mut changed = local.clone();
    changed["default_model"] = json!("m2");
    let replaced = api.post("/providers", &changed).await;
    let body = replaced.ok(200);
    assert_eq!(body["replaced"], true);
    assert_eq!(body["model"]["model"], "m2");
    let listed = api.get("/providers").await;
    let entry = provider(listed.ok(200), "local").unwrap();
    assert_eq!(
        (entry["source"].as_str(), entry["default"].as_bool()),
        (Some("saved"), Some(true))
    );
    assert_eq!(entry["has_key"], false);

    scripted.set_models(&["m", "m2"]);
    let models = api.get("/providers/local/models").await;
    let ids: Vec<&str> = models.ok(200)["models"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["id"].as_str().unwrap())
        .collect();
    assert_eq!(ids, ["m", "m2"]);
    api.get("/providers/nosuch/models")
        .await
        .error(404, "UNKNOWN_PROVIDER");

    // Keys: the request is checked before the keyring, which is not reachable here.
    const KEY: &str = "sk-test-never-echoed-5f3a";
    api.put("/providers/nosuch/key", &json!({"key": KEY}))
        .await
        .error(404, "UNKNOWN_PROVIDER");
    let typed = api.put("/providers/local/key", &json!({"key": 5})).await;
    assert!(typed
        .error(400, "BAD_REQUEST")
        .contains("key must be a string"));
    api.put("/providers/local/key", &json!({"key": "  "}))
        .await
        .error(400, "INVALID_PROVIDER");
    let no_keyring = api.put("/providers/local/key", &json!({"key": KEY})).await;
    no_keyring.error(503, "KEYRING_UNAVAILABLE");
    assert!(!no_keyring.text.contains(KEY));
    let server_log = api.server.stderr();
    assert!(
        !server_log.contains(KEY),
        "the key reached the log: {server_log}"
    );

    // Removing the default provider leaves no model (and says why), not a failed removal.
    let removed = api.delete("/providers/local").await;
    let body = removed.ok(200);
    assert_eq!(body["was_default"], true);
    assert_eq!(body["model"]["ready"], false);
    assert!(body["keyring_warning"].is_string(), "{body}");
    api.delete("/providers/local")
        .await
        .error(404, "UNKNOWN_PROVIDER");
    let preset = api.delete("/providers/openai").await;
    assert!(preset.error(404, "UNKNOWN_PROVIDER").contains("preset"));
    api.post("/messages", &user_input("again"))
        .await
        .error(503, "NO_MODEL");
    assert_eq!(scripted.calls().len(), 1);
}

#[tokio::test(flavor = "multi_thread")]
async fn settings_take_limits_as_the_command_line_does_and_refuse_unknown_keys() {
    let data = tempfile::tempdir().unwrap();
    let api = start(data.path());
    let shown = api.get("/settings").await;
    let body = shown.ok(200);
    assert_eq!(
        body["settings"],
        json!({"spending_limit_per_day_usd": null, "spending_limit_per_conversation_usd": null,
               "default_provider": null, "model_hub_address": null, "model_hub_proxy": null,
               "knowledge_embedding": null})
    );
    assert_eq!(body["spent_today_usd"], 0.0);
    assert_eq!(body["model"]["ready"], false);

    let day = "/settings/spending_limit_per_day_usd";
    let set = api.put(day, &json!({"value": 5})).await;
    assert_eq!(set.ok(200)["settings"]["spending_limit_per_day_usd"], 5.0);
    let set = api
        .put(
            "/settings/spending_limit_per_conversation_usd",
            &json!({"value": "$0.5"}),
        )
        .await;
    assert_eq!(
        set.ok(200)["settings"]["spending_limit_per_conversation_usd"],
        0.5
    );
    for value in [json!(-1), json!("lots"), json!("NaN")] {
        let refused = api.put(day, &json!({"value": value})).await;
        let message = refused.error(400, "INVALID_VALUE");
        // Said as a person would: the limit by its name, what to write instead.
        assert!(
            message.starts_with("The daily spending limit must be an amount")
                && message.contains("like 5 or 2.50"),
            "{message}"
        );
    }
    api.put(day, &json!({"value": true}))
        .await
        .error(400, "BAD_REQUEST");
    api.put(day, &json!({"amount": 1}))
        .await
        .error(400, "BAD_REQUEST");
    let unknown = api.put("/settings/theme", &json!({"value": "dark"})).await;
    assert!(unknown.error(400, "BAD_REQUEST").contains("`theme`"));
    assert_eq!(
        api.get("/settings").await.ok(200)["settings"]["spending_limit_per_day_usd"],
        5.0
    );
    let lifted = api.put(day, &json!({"value": null})).await;
    assert_eq!(
        lifted.ok(200)["settings"]["spending_limit_per_day_usd"],
        Value::Null
    );

    let default = "/settings/default_provider";
    api.put(default, &json!({"value": "nosuch"}))
        .await
        .error(400, "INVALID_VALUE");
    let set = api.put(default, &json!({"value": "ollama"})).await;
    let body = set.ok(200);
    assert_eq!(body["settings"]["default_provider"], "ollama");
    assert!(body["model"].is_object());
    let cleared = api.put(default, &json!({"value": null})).await;
    assert_eq!(cleared.ok(200)["settings"]["default_provider"], Value::Null);

    // Stored where `tessera provider limits` reads them.
    drop(api);
    let store = tessera_store::Store::open(data.path()).unwrap();
    assert_eq!(
        store.app_setting("spending_limits").unwrap().unwrap(),
        json!({"per_conversation_usd": 0.5})
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn tools_are_listed_with_their_schema_safety_and_permission() {
    let data = tempfile::tempdir().unwrap();
    let api = start(data.path());
    let listed = api.get("/tools").await;
    let tools = listed.ok(200)["tools"].as_array().unwrap().clone();
    let names: Vec<&str> = tools.iter().map(|t| t["name"].as_str().unwrap()).collect();
    assert_eq!(
        names,
        [
            "calculator",
            "get_current_datetime",
            "save_memory",
            "search_context",
            "search_knowledge"
        ]
    );
    let tool = |name: &str| tools.iter().find(|t| t["name"] == name).unwrap();
    assert_eq!(tool("calculator")["input_schema"]["type"], "object");
    assert_eq!(tool("get_current_datetime")["safe"], true);
    assert_eq!(tool("save_memory")["side_effecting"], true);
    for t in &tools {
        assert_eq!(t["runtime"], "BACKEND", "{t}");
        assert!(
            t["permission"].is_string() && t["description"].is_string(),
            "{t}"
        );
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn credentials_in_a_base_url_are_refused_and_never_shown() {
    let data = tempfile::tempdir().unwrap();
    // One saved by an earlier version, with a password and a key in its URL.
    {
        let store = tessera_store::Store::open(data.path()).unwrap();
        store
            .set_provider_settings(
                "old",
                json!({"name": "old", "kind": "openai",
                       "base_url": "https://me:hunter2@llm.example/v1?api_key=sk-abcdefghijklmnop1234",
                       "requires_key": false}),
            )
            .unwrap();
    }
    let api = start(data.path());
    let refused = api
        .post(
            "/providers",
            &json!({"name": "leaky", "kind": "openai",
                    "base_url": "https://me:hunter2@llm.example/v1", "requires_key": false}),
        )
        .await;
    let says = refused.error(400, "INVALID_PROVIDER");
    assert!(says.contains("holds credentials"), "{says}");
    assert!(!refused.text.contains("hunter2"), "{}", refused.text);
    let listed = api.get("/providers").await;
    let old = provider(listed.ok(200), "old").unwrap().clone();
    assert_eq!(
        old["base_url"],
        "https://[redacted]@llm.example/v1?api_key=[redacted]"
    );
    assert!(!listed.text.contains("hunter2") && !listed.text.contains("sk-abcdef"));
    assert!(provider(listed.ok(200), "leaky").is_none());
    // A key of a provider that does not exist is not looked for.
    api.delete("/providers/mcp%2Fevil/key")
        .await
        .error(404, "UNKNOWN_PROVIDER");
}
