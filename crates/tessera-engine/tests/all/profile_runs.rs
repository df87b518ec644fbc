//! A run keeps the profile it was routed to: its JSON response format is checked before the
//! turn ends (a wrong answer goes back to the model, which corrects it; one still wrong when
//! the calls run out fails the run with a clear error), and a run that suspended on a form
//! resumes with the same profile's prompt and format, also through a new engine.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::run_support;

use std::sync::Arc;

use serde_json::{json, Value};
use tessera_engine::engine::{Engine, ModelChoice};
use tessera_engine::interactions::Answer;
use tessera_engine::tools::ToolRegistry;
use tessera_engine::turn::TurnOptions;
use tessera_protocol::easyflow::{EventBody, FormAction, SystemState};
use tessera_store::{Store, StoredEvent};
use tessera_testkit::event_order::check_run;
use tessera_testkit::scripted::{Reply, ScriptedProvider};

use run_support::{done, json_of, scripted_client, suspended, until};

fn engine(provider: &ScriptedProvider, store: Arc<Store>, max_calls: u32) -> Engine {
    let client = scripted_client(provider);
    Engine::new(
        store,
        ModelChoice {
            client,
            model: "m".into(),
            options: TurnOptions {
                tools: Some(Arc::new(ToolRegistry::new())),
                interactions: true,
                max_model_calls: max_calls,
                ..TurnOptions::default()
            },
        },
    )
}

fn profiles(store: &Store) {
    store
        .set_app_setting(
            tessera_engine::profiles::SETTING_KEY,
            json!([
                {"name": "default", "title": "Assistant", "description": "Anything else.",
                 "system_prompt": "You are a general assistant.", "default": true},
                {"name": "contact", "title": "Contact card", "description": "Makes contact cards.",
                 "system_prompt": "You answer with a contact card as JSON.",
                 "rules": [{"kind": "prefix", "prefix": "/card"}],
                 "response_format": {"type": "json", "schema": {
                     "type": "object", "required": ["name", "email"],
                     "properties": {"name": {"type": "string"},
                                    "email": {"type": "string", "format": "email"}}}}}
            ]),
        )
        .unwrap();
}

/// `(code, retryable)` of each `system/error`.
fn errors(events: &[StoredEvent]) -> Vec<(String, Option<bool>)> {
    events
        .iter()
        .filter_map(|e| match &e.event.body {
            EventBody::SystemError(p) => Some((p.code.clone(), p.retryable)),
            _ => None,
        })
        .collect()
}

fn system_prompt(provider: &ScriptedProvider, n: usize) -> String {
    provider.calls()[n].body["messages"][0]["content"]
        .as_str()
        .unwrap_or_default()
        .to_owned()
}

#[tokio::test(flavor = "multi_thread")]
async fn a_json_answer_that_does_not_match_is_corrected_and_resumed_runs_keep_their_profile() {
    let provider = ScriptedProvider::start().await.unwrap();
    let form = r#"{"title": "Who?", "schema": {"type": "object", "required": ["who"], "properties": {"who": {"type": "string"}}}}"#;
    provider.push(Reply::openai_tool_calls(
        "m",
        &[("call_f", "request_form", &[form])],
    ));
    // After the form: not the JSON asked for, then corrected.
    provider.push(Reply::openai_text("m", &["Ada Lovelace, ada@example.org"]));
    provider.push(Reply::openai_text(
        "m",
        &[
            r#"{"name": "Ada Lovelace", "#,
            r#""email": "ada@example.org"}"#,
        ],
    ));
    let dir = tempfile::tempdir().unwrap();
    let first = engine(&provider, Arc::new(Store::open(dir.path()).unwrap()), 8);
    profiles(first.store());
    let run = first.start_run(None, "/card for Ada").unwrap();
    let mut sub = first.subscribe(&run.conversation_id, None).unwrap();
    let mut events = until(&mut sub, suspended).await;
    let form_id = events
        .iter()
        .find_map(|e| match &e.event.body {
            EventBody::FormRequest(p) => Some(p.form_id.clone()),
            _ => None,
        })
        .unwrap();
    assert!(system_prompt(&provider, 0).starts_with("You answer with a contact card as JSON."));

    // A new engine over the same folder, as after a restart, takes the answer.
    drop(sub);
    drop(first);
    let second = engine(&provider, Arc::new(run_support::reopen(dir.path())), 8);
    second.recover().unwrap();
    let mut sub = second
        .subscribe(&run.conversation_id, Some(events.last().unwrap().seq))
        .unwrap();
    second
        .answer(
            &form_id,
            &Answer::Form {
                action: FormAction::Accept,
                values: Some(json!({"who": "Ada"})),
            },
        )
        .unwrap();
    events.extend(until(&mut sub, done).await);
    assert_eq!(check_run(&json_of(&events)), Ok(()));

    // The resumed calls have the profile's prompt; the wrong answer was sent back.
    assert_eq!(provider.calls().len(), 3);
    assert!(system_prompt(&provider, 1).starts_with("You answer with a contact card as JSON."));
    assert!(system_prompt(&provider, 2).starts_with("You answer with a contact card as JSON."));
    let correction = provider.calls()[2].body["messages"].to_string();
    assert!(
        correction.contains("valid against the response schema"),
        "{correction}"
    );
    assert_eq!(
        errors(&events),
        [("invalid_response".to_owned(), Some(true))]
    );
    // What is stored is the document alone.
    let answer = second
        .store()
        .active_branch(&run.conversation_id)
        .unwrap()
        .pop()
        .unwrap();
    let stored: Value = serde_json::from_str(&answer.message.content).unwrap();
    assert_eq!(stored["email"], "ada@example.org");
    let last_state = events.iter().rev().find_map(|e| match &e.event.body {
        EventBody::SystemStatus(s) => Some(s.state),
        _ => None,
    });
    assert_eq!(last_state, Some(SystemState::Completed));
}

#[tokio::test(flavor = "multi_thread")]
async fn a_json_answer_still_wrong_when_the_calls_run_out_fails_the_run() {
    let provider = ScriptedProvider::start().await.unwrap();
    provider.push(Reply::openai_text("m", &["not JSON"]));
    provider.push(Reply::openai_text("m", &[r#"{"name": "Ada"}"#]));
    let dir = tempfile::tempdir().unwrap();
    let engine = engine(&provider, Arc::new(Store::open(dir.path()).unwrap()), 2);
    profiles(engine.store());
    let run = engine.start_run(None, "/card for Ada").unwrap();
    let mut sub = engine.subscribe(&run.conversation_id, None).unwrap();
    let events = until(&mut sub, done).await;
    assert_eq!(check_run(&json_of(&events)), Ok(()));
    assert_eq!(provider.calls().len(), 2);
    assert_eq!(
        errors(&events),
        [
            ("invalid_response".to_owned(), Some(true)),
            ("invalid_response".to_owned(), Some(false)),
        ]
    );
    let last_state = events.iter().rev().find_map(|e| match &e.event.body {
        EventBody::SystemStatus(s) => Some(s.state),
        _ => None,
    });
    assert_eq!(last_state, Some(SystemState::Failed));
    let answer = engine
        .store()
        .active_branch(&run.conversation_id)
        .unwrap()
        .pop()
        .unwrap();
    let problem = answer.message.extra["invalid_response"].as_str().unwrap();
    assert!(problem.contains("/email"), "{problem}");
}
