//! Agent profiles and specialists over `/v1`, as the settings page edits them against a real
//! `tessera serve`: the built-ins shown until the person saves their own, a bad list refused
//! with each problem named and nothing written, a new specialist's tool offered to the model
//! without a restart, and the built-ins back after a reset.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::support;

use serde_json::{json, Value};
use support::api::Api;
use support::tessera_std;
use tessera_testkit::scripted::{Reply, ScriptedProvider};

fn tool_names(api_tools: &Value) -> Vec<String> {
    api_tools["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap().to_owned())
        .collect()
}

#[tokio::test(flavor = "multi_thread")]
async fn specialists_and_profiles_are_edited_checked_and_reset() {
    let scripted = ScriptedProvider::start().await.unwrap();
    let data = tempfile::tempdir().unwrap();
    let mut cmd = tessera_std(data.path());
    cmd.env("OPENAI_API_KEY", "sk-test").args([
        "serve",
        "--port",
        "0",
        "--kind",
        "openai",
        "--base-url",
        &scripted.openai_base(),
        "--model",
        "m",
    ]);
    let api = Api::start(cmd);

    // The built-ins, offered to the model as tools.
    let shown = api.get("/specialists").await;
    let body = shown.ok(200);
    assert_eq!(body["custom"], false);
    let names: Vec<&str> = body["specialists"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["researcher", "planner"]);
    // Named as built in: the settings page offers no Delete for them.
    assert_eq!(body["builtin"], json!(["researcher", "planner"]));
    let tools = tool_names(api.get("/tools").await.ok(200));
    assert!(tools.contains(&"invoke_researcher".to_owned()), "{tools:?}");
    assert!(tools.contains(&"invoke_planner".to_owned()), "{tools:?}");

    // A bad one: named, nothing saved.
    let refused = api
        .put(
            "/specialists",
            &json!([{"name": "Bad Name", "title": "T", "description": "d", "system_prompt": "s"}]),
        )
        .await;
    let says = refused.error(400, "INVALID_SPECIALISTS");
    assert!(says.contains("specialist 0 (Bad Name): name"), "{says}");
    // Named field by field, as the settings page shows them.
    assert_eq!(
        refused.body["content"]["details"]["problems"][0],
        json!({"specialist": "Bad Name", "index": 0, "field": "name",
               "message": "1 to 40 characters of a-z, 0-9 and _"})
    );
    assert_eq!(api.get("/specialists").await.ok(200)["custom"], false);

    // A new one: its tool is there for the next run, no restart.
    let translator = json!([{"name": "translator", "title": "Translator",
        "description": "Translates text between Chinese and English.",
        "system_prompt": "You translate.", "max_turns": 1}]);
    let saved = api.put("/specialists", &translator).await;
    let body = saved.ok(200);
    assert_eq!(body["custom"], true);
    assert_eq!(body["model"]["ready"], true, "{body}");
    let tools = tool_names(api.get("/tools").await.ok(200));
    assert!(tools.contains(&"invoke_translator".to_owned()), "{tools:?}");
    scripted.push(Reply::openai_text("m", &["ok"]));
    let answer = api
        .post(
            "/messages",
            &support::api::mcp_message("ctx_agents", "USER_INPUT", json!({"text": "hi"})),
        )
        .await;
    answer.ok(200);
    let offered: Vec<String> = scripted.calls()[0].body["tools"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|t| t["function"]["name"].as_str().map(str::to_owned))
        .collect();
    assert!(
        offered.contains(&"invoke_translator".to_owned()),
        "{offered:?}"
    );

    // Back to the built-ins.
    api.delete("/specialists").await.ok(200);
    let tools = tool_names(api.get("/tools").await.ok(200));
    assert!(
        !tools.contains(&"invoke_translator".to_owned()),
        "{tools:?}"
    );

    // Profiles: each problem named, nothing written; a good list is what routing reads.
    let refused = api
        .put(
            "/profiles",
            &json!([{"name": "a", "title": "A", "description": "d", "system_prompt": "s"}]),
        )
        .await;
    refused.error(400, "INVALID_PROFILES");
    let problems = refused.body["content"]["details"]["problems"].clone();
    assert!(
        problems.as_array().is_some_and(|p| !p.is_empty()),
        "{problems}"
    );
    assert_eq!(api.get("/profiles").await.ok(200)["custom"], false);
    let good = json!([{"name": "only", "title": "Only", "description": "Everything.",
        "system_prompt": "Be brief.", "default": true}]);
    let saved = api.put("/profiles", &good).await;
    assert_eq!(saved.ok(200)["profiles"][0]["name"], "only");
    assert_eq!(api.get("/profiles").await.ok(200)["custom"], true);
    api.delete("/profiles").await.ok(200);
    assert_eq!(api.get("/profiles").await.ok(200)["custom"], false);
}
