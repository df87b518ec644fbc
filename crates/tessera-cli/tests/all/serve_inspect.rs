//! The permissions page and the context inspector against a real `tessera serve` with the
//! scripted provider: consent grants listed and revoked (a revoked "always" grant makes the next
//! call ask again), and a run's context (a block whose time is up shows as left out, expired,
//! with the evidence it would have drawn on).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::support;

use std::path::Path;

use serde_json::{json, Value};
use support::api::Api;
use support::serve_scripted;
use support::stream::{http, is_state, Stream};
use tessera_protocol::request::Role;
use tessera_store::conversations::NewConversation;
use tessera_store::{text_message, NewMessage, Store};
use tessera_testkit::scripted::{Reply, ScriptedProvider};

fn guarded_call(provider: &ScriptedProvider, call: &str) {
    provider.push(Reply::openai_tool_calls(
        "m",
        &[(call, "test_guarded_write", &[r#"{"ms": 0}"#])],
    ));
    provider.push(Reply::openai_text("m", &["Written."]));
}

/// The consent request of a suspended stream.
fn consent_of(stream: &Stream) -> Value {
    stream
        .data()
        .into_iter()
        .find(|e| e["type"] == "consent_request")
        .map(|e| e["payload"].clone())
        .expect("a consent request")
}

#[tokio::test(flavor = "multi_thread")]
async fn grants_are_listed_and_a_revoked_always_grant_asks_again() {
    let provider = ScriptedProvider::start().await.unwrap();
    let data = tempfile::tempdir().unwrap();
    let api = Api::start(serve_scripted(data.path(), &provider, true));
    let server = &api.server;

    assert_eq!(api.get("/grants").await.ok(200)["grants"], json!([]));

    // "Always allow" on the first call stores an always grant.
    guarded_call(&provider, "call_1");
    let mut stream = Stream::post(server, "ctx_grants", "Write, carefully").await;
    stream.until(|e| is_state(e, "suspended")).await;
    let consent = consent_of(&stream);
    let answered = http()
        .post(format!(
            "{}/v1/interactions/{}",
            server.base,
            consent["consent_id"].as_str().unwrap()
        ))
        .bearer_auth(&server.token)
        .json(&json!({"decision": "allow_always"}))
        .send()
        .await
        .unwrap();
    assert_eq!(answered.status(), 200);
    stream.read_to_done().await;

    let listed = api.get("/grants").await;
    let grants = listed.ok(200)["grants"].as_array().unwrap().clone();
    assert_eq!(grants.len(), 1, "{grants:?}");
    let grant = &grants[0];
    assert_eq!(grant["tool"], "test_guarded_write");
    assert_eq!(grant["scope"], "always");
    assert_eq!(grant["conversation_id"], Value::Null);
    assert_eq!(grant["revoked_at"], Value::Null);
    assert!(grant["created_at"].is_string());
    // The call the answer allowed was the grant's first use: never "not used yet" after it.
    assert!(grant["used_at"].is_string(), "{grant}");
    let id = grant["grant_id"].as_str().unwrap().to_owned();

    // A second call runs under the grant without asking, and the grant says when it was used.
    guarded_call(&provider, "call_2");
    let mut stream = Stream::post(server, "ctx_grants", "Again").await;
    let events = stream.read_to_done().await;
    assert!(!events.iter().any(|e| e.2["type"] == "consent_request"));
    let used = api.get("/grants").await.ok(200)["grants"][0].clone();
    assert!(used["used_at"].is_string(), "{used}");

    // Revoked: gone from the default list, shown with include_revoked, twice is harmless.
    let revoked = api.delete(&format!("/grants/{id}")).await;
    let first_revocation = revoked.ok(200)["grant"]["revoked_at"].clone();
    assert!(first_revocation.is_string(), "{}", revoked.text);
    let again = api.delete(&format!("/grants/{id}")).await;
    assert_eq!(again.ok(200)["grant"]["revoked_at"], first_revocation);
    assert_eq!(api.get("/grants").await.ok(200)["grants"], json!([]));
    let all = api.get("/grants?include_revoked=true").await;
    assert_eq!(all.ok(200)["grants"][0]["grant_id"], id.as_str());
    api.delete("/grants/no-such-grant")
        .await
        .error(404, "NOT_FOUND");
    api.get("/grants?include_revoked=maybe")
        .await
        .error(400, "BAD_REQUEST");

    // The next call asks the person again.
    guarded_call(&provider, "call_3");
    let mut stream = Stream::post(server, "ctx_grants", "Once more").await;
    stream.until(|e| is_state(e, "suspended")).await;
    assert_eq!(consent_of(&stream)["tool"], "test_guarded_write");
}

#[tokio::test(flavor = "multi_thread")]
async fn conversation_grants_carry_the_conversation_title() {
    let provider = ScriptedProvider::start().await.unwrap();
    let data = tempfile::tempdir().unwrap();
    let api = Api::start(serve_scripted(data.path(), &provider, true));
    let server = &api.server;
    guarded_call(&provider, "call_1");
    let mut stream = Stream::post(server, "ctx_titled", "Write the report").await;
    stream.until(|e| is_state(e, "suspended")).await;
    let consent = consent_of(&stream);
    api.post(
        &format!("/interactions/{}", consent["consent_id"].as_str().unwrap()),
        &json!({"decision": "allow_conversation"}),
    )
    .await
    .ok(200);
    stream.read_to_done().await;
    let grant = api.get("/grants").await.ok(200)["grants"][0].clone();
    assert_eq!(grant["scope"], "conversation");
    assert_eq!(grant["conversation_id"], "ctx_titled");
    assert_eq!(grant["conversation_title"], "Write the report");
}

/// A conversation with a memory block in force and an evidence block whose time is up.
fn seed_context(data: &Path) {
    let store = Store::open(data).unwrap();
    store
        .create_conversation(NewConversation {
            id: Some("ctx_inspect".into()),
            title: "Inspected".into(),
            ..NewConversation::default()
        })
        .unwrap();
    store
        .append_message(
            "ctx_inspect",
            NewMessage::new(text_message(Role::User, "Earlier question")),
        )
        .unwrap();
    let evidence = serde_json::from_value(json!({
        "evidence_id": "ev_weather", "type": "tool_result",
        "source": {"kind": "tool", "name": "weather_lookup"},
        "content": "Rain until noon."
    }))
    .unwrap();
    store.put_evidence("ctx_inspect", evidence, vec![]).unwrap();
    for block in [
        json!({"block_id": "blk_memory", "block_type": "memory", "priority": "high",
               "content": "The person prefers short answers."}),
        json!({"block_id": "blk_weather", "block_type": "evidence", "priority": "medium",
               "refs": [{"evidence_id": "ev_weather"}],
               "expires_at": "2020-01-01T00:00:00Z"}),
    ] {
        store
            .put_context_block("ctx_inspect", serde_json::from_value(block).unwrap())
            .unwrap();
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn a_runs_context_shows_what_was_used_and_what_was_trimmed_and_why() {
    let provider = ScriptedProvider::start().await.unwrap();
    provider.push(Reply::openai_text("m", &["Short answer."]));
    let data = tempfile::tempdir().unwrap();
    seed_context(data.path());
    let api = Api::start(serve_scripted(data.path(), &provider, false));
    let mut stream = Stream::post(&api.server, "ctx_inspect", "Will it rain?").await;
    let events = stream.read_to_done().await;
    let answer_id = events.last().unwrap().2["message_id"].clone();
    let run_id = stream.run_id.clone().expect("the run's id");

    let answer = api.get(&format!("/runs/{run_id}/context")).await;
    let context = answer.ok(200);
    assert_eq!(context["run_id"], run_id.as_str());
    assert_eq!(context["conversation_id"], "ctx_inspect");
    assert_eq!(context["message_id"], answer_id);
    let turns = context["turns"].as_array().unwrap();
    assert_eq!(turns.len(), 1, "{}", answer.text);
    let turn = &turns[0];
    assert_eq!(turn["model"], "m");
    let assembly = &turn["assembly"];
    let used: Vec<&str> = assembly["blocks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| b["block_id"].as_str().unwrap())
        .collect();
    assert_eq!(used, ["blk_memory"]);
    let dropped = assembly["dropped_blocks"].as_array().unwrap();
    assert_eq!(dropped.len(), 1, "{dropped:?}");
    assert_eq!(dropped[0]["block_id"], "blk_weather");
    assert_eq!(dropped[0]["block_type"], "evidence");
    assert_eq!(dropped[0]["reason"], "expired");
    // The budget adds up and the messages sent are named.
    let budget = &assembly["budget"];
    assert!(budget["used"].as_u64().unwrap() > 0);
    assert_eq!(
        budget["available"].as_u64().unwrap() + budget["reserved"].as_u64().unwrap(),
        budget["window"].as_u64().unwrap()
    );
    assert!(assembly["messages"].as_array().unwrap().len() >= 2);
    // The system prompt and the tool declarations the model was sent are counted as they were
    // sent (the default profile's prompt is about 55 tokens, not the 3 of an empty message).
    let call = provider.calls().last().unwrap().body.clone();
    let sent_tools = call["tools"].as_array().map_or(0, Vec::len);
    assert!(sent_tools > 0, "{call}");
    let system_prompt = budget["system_prompt"].as_u64().unwrap();
    assert!((40..200).contains(&system_prompt), "{budget}");
    let tools = budget["tools"].as_u64().unwrap();
    assert!(
        tools > 20 * sent_tools as u64,
        "{sent_tools} tools: {budget}"
    );
    assert!(
        budget["used"].as_u64().unwrap()
            >= system_prompt + tools + budget["history_used"].as_u64().unwrap(),
        "{budget}"
    );

    // Where the trimmed block came from: its evidence and that evidence's source.
    let blocks = context["blocks"].as_array().unwrap();
    let weather = blocks
        .iter()
        .find(|b| b["block_id"] == "blk_weather")
        .expect("the trimmed block");
    assert_eq!(weather["refs"][0]["evidence_id"], "ev_weather");
    let evidence = context["evidences"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["evidence_id"] == "ev_weather")
        .expect("the trimmed block's evidence")
        .clone();
    assert_eq!(evidence["type"], "tool_result");
    assert_eq!(evidence["source"]["name"], "weather_lookup");
    assert!(context["cited"].is_array());

    api.get("/runs/no-such-run/context")
        .await
        .error(404, "NOT_FOUND");
}
