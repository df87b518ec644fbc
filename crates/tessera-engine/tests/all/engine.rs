//! The engine's front door: a run started in the background, its events followed from any seq
//! with nothing missed or repeated, and cancelled mid-stream keeping the partial answer.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::run_support;

use std::sync::Arc;

use tessera_engine::engine::{Engine, ModelChoice};
use tessera_engine::turn::TurnOptions;
use tessera_protocol::easyflow::{EventBody, SystemState};
use tessera_store::{Store, StoredEvent};
use tessera_testkit::event_order::{check_resumed, check_run};
use tessera_testkit::scripted::{Gate, Reply, ScriptedProvider, Step};

use run_support::{json_of, scripted_client, until_done};

fn engine(provider: &ScriptedProvider, dir: &std::path::Path) -> Engine {
    let client = scripted_client(provider);
    Engine::new(
        Arc::new(Store::open(dir).unwrap()),
        ModelChoice {
            client,
            model: "m".into(),
            options: TurnOptions::default(),
        },
    )
}

fn states(events: &[StoredEvent]) -> Vec<SystemState> {
    events
        .iter()
        .filter_map(|e| match &e.event.body {
            EventBody::SystemStatus(s) => Some(s.state),
            _ => None,
        })
        .collect()
}

#[tokio::test(flavor = "multi_thread")]
async fn a_run_is_followed_live_and_a_late_subscriber_gets_exactly_what_it_missed() {
    let provider = ScriptedProvider::start().await.unwrap();
    let gate = Gate::new();
    provider.push(
        Reply::openai_text("m", &["one ", "two ", "three"])
            .insert_step(3, Step::Gate(gate.clone())),
    );
    let dir = tempfile::tempdir().unwrap();
    let engine = engine(&provider, dir.path());
    let run = engine.start_run(None, "count").unwrap();
    let mut first = engine.subscribe(&run.conversation_id, None).unwrap();
    // Wait until the answer has started (the gate holds the rest).
    let mut seen = Vec::new();
    while !seen.iter().any(|e: &StoredEvent| matches!(&e.event.body, EventBody::LlmMessage(p) if p.delta.as_deref() == Some("two "))) {
        seen.push(first.next().await.unwrap().unwrap());
    }
    let have = seen.last().unwrap().seq;
    // A second client that had seen up to the first delta only.
    let first_delta = seen
        .iter()
        .find(|e| matches!(&e.event.body, EventBody::LlmMessage(_)))
        .unwrap()
        .seq;
    let mut late = engine
        .subscribe(&run.conversation_id, Some(first_delta))
        .unwrap();
    gate.open();
    seen.extend(until_done(&mut first).await);
    let late_events = until_done(&mut late).await;
    assert!(have > first_delta);
    assert_eq!(check_run(&json_of(&seen)), Ok(()));
    assert_eq!(check_resumed(&json_of(&late_events), first_delta), Ok(()));

    // The first client saw every event once, in seq order, without gaps.
    let seqs: Vec<u64> = seen.iter().map(|e| e.seq).collect();
    assert_eq!(seqs, (1..=seqs.len() as u64).collect::<Vec<_>>());
    assert_eq!(
        states(&seen),
        [
            SystemState::Initializing,
            SystemState::Running,
            SystemState::Completed
        ]
    );
    // The late one got exactly what came after the seq it had (folded or not).
    let late_first = late_events.first().unwrap();
    assert!(late_first.seq > first_delta || late_first.replaces.is_some());
    let text: String = late_events
        .iter()
        .filter_map(|e| match &e.event.body {
            EventBody::LlmMessage(p) => p.delta.clone().or(p.content.clone()),
            _ => None,
        })
        .collect();
    assert!(text.ends_with("two three"), "{text}");
    assert!(engine.running().is_empty() || engine.running()[0].run_id == run.run_id);
}

#[tokio::test(flavor = "multi_thread")]
async fn cancelling_mid_stream_keeps_the_partial_answer() {
    let provider = ScriptedProvider::start().await.unwrap();
    let gate = Gate::new();
    provider.push(
        Reply::openai_text("m", &["Partial ", "never"]).insert_step(2, Step::Gate(gate.clone())),
    );
    let dir = tempfile::tempdir().unwrap();
    let engine = engine(&provider, dir.path());
    let run = engine.start_run(None, "go").unwrap();
    let mut sub = engine.subscribe(&run.conversation_id, None).unwrap();
    let mut before = Vec::new();
    loop {
        let e = sub.next().await.unwrap().unwrap();
        let delta = matches!(e.event.body, EventBody::LlmMessage(_));
        before.push(e);
        if delta {
            break;
        }
    }
    assert!(engine.cancel(&run.run_id));
    let events = until_done(&mut sub).await;
    assert_eq!(
        check_run(&json_of(&[before, events.clone()].concat())),
        Ok(())
    );
    assert_eq!(states(&events), [SystemState::Cancelled]);
    // The provider never said what the stopped call used: Tessera counted it, and says so.
    let done = events
        .iter()
        .find(|e| matches!(e.event.body, EventBody::Done(_)))
        .and_then(|e| e.event.meta.clone())
        .expect("done");
    assert!(done.prompt_tokens.is_some_and(|n| n > 0), "{done:?}");
    assert!(done.completion_tokens.is_some_and(|n| n > 0), "{done:?}");
    assert_eq!(
        done.extra.get("usage_estimated"),
        Some(&serde_json::json!(true))
    );
    gate.open();
    let branch = engine.store().active_branch(&run.conversation_id).unwrap();
    let answer = &branch.last().unwrap().message;
    assert_eq!(answer.content, "Partial ");
    assert_eq!(answer.extra["interrupted"], "cancelled");
    assert!(
        !engine.cancel(&run.run_id),
        "a finished run cannot be cancelled"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn unknown_conversations_are_refused() {
    let provider = ScriptedProvider::start().await.unwrap();
    let dir = tempfile::tempdir().unwrap();
    let engine = engine(&provider, dir.path());
    assert!(engine.subscribe("nope", None).is_err());
    assert!(engine.start_run(Some("nope"), "hi").is_err());
    assert!(provider.calls().is_empty());
}

#[tokio::test(flavor = "multi_thread")]
async fn a_message_is_routed_to_the_profile_its_rule_names() {
    let provider = ScriptedProvider::start().await.unwrap();
    provider.push(Reply::openai_text("m", &["1. Pack."]));
    let dir = tempfile::tempdir().unwrap();
    let engine = engine(&provider, dir.path());
    engine
        .store()
        .set_app_setting(
            tessera_engine::profiles::SETTING_KEY,
            serde_json::json!([
                {"name": "default", "title": "Assistant", "description": "Anything else.",
                 "system_prompt": "You are a general assistant.", "default": true},
                {"name": "planner", "title": "Planner", "description": "Makes plans.",
                 "system_prompt": "You turn requests into numbered plans.", "tools": [],
                 "rules": [{"kind": "prefix", "prefix": "/plan"}]}
            ]),
        )
        .unwrap();
    let run = engine.start_run(None, "/plan a trip to Oslo").unwrap();
    let mut sub = engine.subscribe(&run.conversation_id, None).unwrap();
    until_done(&mut sub).await;
    let calls = provider.calls();
    // The rule decided: one call, the answer, with the planner's prompt.
    assert_eq!(calls.len(), 1);
    let system = calls[0].body["messages"][0].clone();
    assert_eq!(system["role"], "system");
    assert!(
        system["content"]
            .as_str()
            .unwrap()
            .starts_with("You turn requests into numbered plans."),
        "{system}"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn a_subscriber_far_behind_gets_every_stored_event_page_by_page() {
    use tessera_protocol::easyflow::{Event, SystemStatusPayload};
    let provider = ScriptedProvider::start().await.unwrap();
    let dir = tempfile::tempdir().unwrap();
    let engine = engine(&provider, dir.path());
    let conversation = engine
        .store()
        .create_conversation(tessera_store::conversations::NewConversation {
            id: None,
            title: "long".into(),
            locale: None,
            actor: None,
            created_at: None,
            project_id: None,
        })
        .unwrap()
        .id;
    for _ in 0..2_600 {
        let body = EventBody::SystemStatus(SystemStatusPayload {
            state: SystemState::Running,
            profile: None,
            user_message_id: None,
            debug: None,
            extra: Default::default(),
        });
        engine
            .store()
            .append_event(&conversation, Event::new(conversation.clone(), body))
            .unwrap();
    }
    let mut sub = engine.subscribe(&conversation, Some(100)).unwrap();
    let mut seqs = Vec::new();
    while seqs.len() < 2_500 {
        seqs.push(sub.next().await.unwrap().unwrap().seq);
    }
    assert_eq!(seqs, (101..=2_600).collect::<Vec<u64>>());
}
