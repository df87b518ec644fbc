//! Forms and consent that suspend a run, against the scripted provider over real HTTP and a
//! real store: the run waits (stored), bad values are field errors and it keeps waiting, the
//! answer resumes it — also through a new engine over the same folder, as after a restart —
//! with the next request rebuilt from the store; the same answer twice is fine, a different one
//! is refused; consent denied never runs the tool; an unanswered form expires; a run a dead
//! process left is closed as interrupted and its call never runs again.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::run_support;

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

use serde_json::{json, Value};
use tessera_engine::engine::{Engine, ModelChoice};
use tessera_engine::interactions::{Answer, AnswerError};
use tessera_engine::tools::{ToolContext, ToolFailure, ToolRegistry, ToolSpec};
use tessera_engine::turn::TurnOptions;
use tessera_protocol::easyflow::{
    ConsentDecision, ConsentRequestPayload, EventBody, FormAction, FormRequestPayload, SystemState,
};
use tessera_protocol::mcp_cp::PermissionLevel;
use tessera_store::{InteractionKind, Store, StoredEvent};
use tessera_testkit::event_order::check_run;
use tessera_testkit::scripted::{Reply, ScriptedProvider};

use run_support::{done, json_of, scripted_client, suspended, until};

const FORM: &str = r#"{"title": "Your trip", "schema": {"type": "object", "required": ["email", "nights"], "properties": {"email": {"type": "string", "format": "email", "title": "Email"}, "nights": {"type": "integer", "minimum": 1, "maximum": 30}}}}"#;

fn tools(counter: Arc<AtomicUsize>) -> Arc<ToolRegistry> {
    let mut r = ToolRegistry::new();
    r.register(
        ToolSpec::new("send_email", "Sends an email")
            .permission(PermissionLevel::UserConsent)
            .safe(false)
            .writes(["outbox"]),
        move |_args: Value, _ctx: ToolContext| {
            let counter = counter.clone();
            async move {
                counter.fetch_add(1, Ordering::SeqCst);
                Ok::<_, ToolFailure>(json!({"sent": true}))
            }
        },
    )
    .unwrap();
    Arc::new(r)
}

fn engine(
    provider: &ScriptedProvider,
    store: Arc<Store>,
    counter: Arc<AtomicUsize>,
    timeout: Option<Duration>,
) -> Engine {
    let client = scripted_client(provider);
    Engine::new(
        store,
        ModelChoice {
            client,
            model: "m".into(),
            options: TurnOptions {
                tools: Some(tools(counter)),
                interactions: true,
                interaction_timeout: timeout,
                ..TurnOptions::default()
            },
        },
    )
}

/// The first form request among `events`.
fn form_request(events: &[StoredEvent]) -> FormRequestPayload {
    events
        .iter()
        .find_map(|e| match &e.event.body {
            EventBody::FormRequest(p) => Some(p.clone()),
            _ => None,
        })
        .expect("a form_request event")
}

/// The first consent request among `events`.
fn consent_request(events: &[StoredEvent]) -> ConsentRequestPayload {
    events
        .iter()
        .find_map(|e| match &e.event.body {
            EventBody::ConsentRequest(p) => Some(p.clone()),
            _ => None,
        })
        .expect("a consent_request event")
}

/// The tool results the model read in request `n`.
fn tool_results(provider: &ScriptedProvider, n: usize) -> Vec<Value> {
    provider.calls()[n].body["messages"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m["role"] == "tool")
        .cloned()
        .collect()
}

#[tokio::test(flavor = "multi_thread")]
async fn a_form_suspends_the_run_bad_values_keep_it_waiting_and_the_answer_resumes_it_after_a_restart(
) {
    let provider = ScriptedProvider::start().await.unwrap();
    provider.push(Reply::openai_tool_calls(
        "m",
        &[("call_f", "request_form", &[FORM])],
    ));
    provider.push(Reply::openai_text("m", &["Booked ", "for you."]));
    let dir = tempfile::tempdir().unwrap();
    let counter = Arc::new(AtomicUsize::new(0));
    let first = engine(
        &provider,
        Arc::new(Store::open(dir.path()).unwrap()),
        counter.clone(),
        None,
    );
    let run = first.start_run(None, "Book me a room").unwrap();
    let mut sub = first.subscribe(&run.conversation_id, None).unwrap();
    let mut events = until(&mut sub, suspended).await;
    let request = form_request(&events);
    assert_eq!(request.title, "Your trip");
    assert_eq!(
        request.requester.as_ref().unwrap().name.as_deref(),
        Some("Assistant")
    );
    let pending = first
        .pending_interactions(Some(&run.conversation_id))
        .unwrap();
    assert_eq!(pending.len(), 1);
    assert_eq!(pending[0].kind, InteractionKind::Form);
    assert_eq!(pending[0].interaction_id, request.form_id);
    // The model gets the form offered, and nothing more was asked while it waits.
    assert_eq!(provider.calls().len(), 1);
    let first_request = provider.calls()[0].body.clone();
    let offered: Vec<&str> = first_request["tools"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|t| t["function"]["name"].as_str())
        .collect();
    assert!(offered.contains(&"request_form"), "{offered:?}");

    // The process goes away; a new engine over the same folder finds the form still waiting.
    drop(sub);
    drop(first);
    let second = engine(
        &provider,
        Arc::new(run_support::reopen(dir.path())),
        counter,
        None,
    );
    let recovered = second.recover().unwrap();
    assert_eq!(recovered.waiting, vec![run.run_id.clone()]);
    assert!(recovered.interrupted.is_empty());
    let mut sub = second
        .subscribe(&run.conversation_id, Some(events.last().unwrap().seq))
        .unwrap();

    // Bad values: one error per field, the run keeps waiting.
    let bad = Answer::Form {
        action: FormAction::Accept,
        values: Some(json!({"email": "not-an-email", "nights": 0})),
    };
    let Err(AnswerError::FieldErrors(errors)) = second.answer(&request.form_id, &bad) else {
        panic!("field errors expected");
    };
    let fields: Vec<&str> = errors.iter().map(|e| e.field.as_str()).collect();
    assert_eq!(fields, ["email", "nights"]);
    assert_eq!(second.pending_interactions(None).unwrap().len(), 1);
    assert_eq!(provider.calls().len(), 1);

    let good = Answer::Form {
        action: FormAction::Accept,
        values: Some(json!({"email": "a@b.com", "nights": 2})),
    };
    let answered = second.answer(&request.form_id, &good).unwrap();
    assert!(answered.event.is_some());
    events.extend(until(&mut sub, done).await);
    assert_eq!(check_run(&json_of(&events)), Ok(()));
    // The same answer again is the same result; a different one is refused.
    assert!(second
        .answer(&request.form_id, &good)
        .unwrap()
        .event
        .is_none());
    let other = Answer::Form {
        action: FormAction::Decline,
        values: None,
    };
    assert!(matches!(
        second.answer(&request.form_id, &other),
        Err(AnswerError::AlreadyAnswered { .. })
    ));

    // The rebuilt request: the form call and its answer, then the final answer stored.
    let results = tool_results(&provider, 1);
    assert_eq!(results.len(), 1);
    assert_eq!(results[0]["tool_call_id"], "call_f");
    let content = results[0]["content"].as_str().unwrap();
    assert!(
        content.contains("a@b.com") && content.contains("accept"),
        "{content}"
    );
    let store = second.store();
    let branch = store.active_branch(&run.conversation_id).unwrap();
    assert_eq!(branch.last().unwrap().message.content, "Booked for you.");
    assert_eq!(provider.calls().len(), 2);
}

#[tokio::test(flavor = "multi_thread")]
async fn a_bad_form_schema_goes_back_to_the_model_and_the_person_sees_no_form() {
    let provider = ScriptedProvider::start().await.unwrap();
    let secret = r#"{"title": "Log in", "schema": {"type": "object", "properties": {"password": {"type": "string"}}}}"#;
    provider.push(Reply::openai_tool_calls(
        "m",
        &[("call_f", "request_form", &[secret])],
    ));
    provider.push(Reply::openai_text("m", &["I will not ask for that."]));
    let dir = tempfile::tempdir().unwrap();
    let engine = engine(
        &provider,
        Arc::new(Store::open(dir.path()).unwrap()),
        Arc::new(AtomicUsize::new(0)),
        None,
    );
    let run = engine.start_run(None, "Log in for me").unwrap();
    let mut sub = engine.subscribe(&run.conversation_id, None).unwrap();
    let events = until(&mut sub, done).await;
    assert_eq!(check_run(&json_of(&events)), Ok(()));
    assert!(!events
        .iter()
        .any(|e| matches!(e.event.body, EventBody::FormRequest(_))));
    assert!(engine.pending_interactions(None).unwrap().is_empty());
    let results = tool_results(&provider, 1);
    let content = results[0]["content"].as_str().unwrap();
    assert!(content.contains("properties.password"), "{content}");
}

#[tokio::test(flavor = "multi_thread")]
async fn consent_denied_never_runs_the_tool_and_allowed_for_the_conversation_asks_once() {
    let provider = ScriptedProvider::start().await.unwrap();
    let send = r#"{"to": "a@b.com"}"#;
    provider.push(Reply::openai_tool_calls(
        "m",
        &[("call_1", "send_email", &[send])],
    ));
    provider.push(Reply::openai_text("m", &["Not sent."]));
    let dir = tempfile::tempdir().unwrap();
    let counter = Arc::new(AtomicUsize::new(0));
    let engine = engine(
        &provider,
        Arc::new(Store::open(dir.path()).unwrap()),
        counter.clone(),
        None,
    );
    let run = engine.start_run(None, "Email Ann").unwrap();
    let mut sub = engine.subscribe(&run.conversation_id, None).unwrap();
    let mut events = until(&mut sub, suspended).await;
    let consent = consent_request(&events);
    assert_eq!(consent.tool, "send_email");
    assert_eq!(consent.arguments, json!({"to": "a@b.com"}));
    assert_eq!(consent.touches, ["writes outbox"]);
    engine
        .answer(
            &consent.consent_id,
            &Answer::Consent {
                decision: ConsentDecision::Deny,
            },
        )
        .unwrap();
    events.extend(until(&mut sub, done).await);
    assert_eq!(check_run(&json_of(&events)), Ok(()));
    assert_eq!(counter.load(Ordering::SeqCst), 0);
    let denied = tool_results(&provider, 1);
    assert!(
        denied[0]["content"].as_str().unwrap().contains("DENIED"),
        "{denied:?}"
    );

    // Allowed for the conversation: it runs, and the next call in it does not ask again.
    provider.push(Reply::openai_tool_calls(
        "m",
        &[("call_2", "send_email", &[send])],
    ));
    provider.push(Reply::openai_text("m", &["Sent."]));
    engine
        .start_run(Some(&run.conversation_id), "Yes, send it")
        .unwrap();
    let events = until(&mut sub, suspended).await;
    let consent = consent_request(&events);
    engine
        .answer(
            &consent.consent_id,
            &Answer::Consent {
                decision: ConsentDecision::AllowConversation,
            },
        )
        .unwrap();
    until(&mut sub, done).await;
    assert_eq!(counter.load(Ordering::SeqCst), 1);
    provider.push(Reply::openai_tool_calls(
        "m",
        &[("call_3", "send_email", &[send])],
    ));
    provider.push(Reply::openai_text("m", &["Sent again."]));
    engine
        .start_run(Some(&run.conversation_id), "Once more")
        .unwrap();
    let events = until(&mut sub, done).await;
    assert!(!events
        .iter()
        .any(|e| matches!(e.event.body, EventBody::ConsentRequest(_))));
    assert_eq!(counter.load(Ordering::SeqCst), 2);
}

#[tokio::test(flavor = "multi_thread")]
async fn an_unanswered_form_expires_and_the_model_is_told() {
    let provider = ScriptedProvider::start().await.unwrap();
    provider.push(Reply::openai_tool_calls(
        "m",
        &[("call_f", "request_form", &[FORM])],
    ));
    provider.push(Reply::openai_text("m", &["No answer, so I stopped."]));
    let dir = tempfile::tempdir().unwrap();
    let engine = engine(
        &provider,
        Arc::new(Store::open(dir.path()).unwrap()),
        Arc::new(AtomicUsize::new(0)),
        Some(Duration::from_millis(300)),
    );
    let run = engine.start_run(None, "Book me a room").unwrap();
    let mut sub = engine.subscribe(&run.conversation_id, None).unwrap();
    let events = until(&mut sub, done).await;
    assert_eq!(check_run(&json_of(&events)), Ok(()));
    assert!(events
        .iter()
        .any(|e| matches!(&e.event.body, EventBody::FormCancel(p) if p.reason.as_deref() == Some("expired"))));
    let results = tool_results(&provider, 1);
    assert!(results[0]["content"].as_str().unwrap().contains("expired"));
    let form_id = form_request(&events).form_id;
    let late = Answer::Form {
        action: FormAction::Accept,
        values: Some(json!({"email": "a@b.com", "nights": 2})),
    };
    assert!(matches!(
        engine.answer(&form_id, &late),
        Err(AnswerError::Closed { .. })
    ));
}

#[tokio::test(flavor = "multi_thread")]
async fn a_new_message_closes_a_waiting_run_and_cancel_closes_one_too() {
    let provider = ScriptedProvider::start().await.unwrap();
    provider.push(Reply::openai_tool_calls(
        "m",
        &[("call_f", "request_form", &[FORM])],
    ));
    provider.push(Reply::openai_text("m", &["Hello."]));
    let dir = tempfile::tempdir().unwrap();
    let engine = engine(
        &provider,
        Arc::new(Store::open(dir.path()).unwrap()),
        Arc::new(AtomicUsize::new(0)),
        None,
    );
    let run = engine.start_run(None, "Book me a room").unwrap();
    let mut sub = engine.subscribe(&run.conversation_id, None).unwrap();
    let mut events = until(&mut sub, suspended).await;
    engine
        .start_run(Some(&run.conversation_id), "Never mind")
        .unwrap();
    // The waiting run ends first, then the new one answers.
    events.extend(until(&mut sub, done).await);
    events.extend(until(&mut sub, done).await);
    let first_run: Vec<StoredEvent> = events
        .iter()
        .filter(|e| e.run_id.as_deref() == Some(run.run_id.as_str()))
        .cloned()
        .collect();
    assert_eq!(check_run(&json_of(&first_run)), Ok(()));
    assert!(first_run.iter().any(
        |e| matches!(&e.event.body, EventBody::SystemStatus(s) if s.state == SystemState::Cancelled)
    ));
    assert!(engine.pending_interactions(None).unwrap().is_empty());

    // Cancelling a run that waits closes it.
    provider.push(Reply::openai_tool_calls(
        "m",
        &[("call_g", "request_form", &[FORM])],
    ));
    let second = engine
        .start_run(Some(&run.conversation_id), "Book again")
        .unwrap();
    until(&mut sub, suspended).await;
    assert!(engine.cancel(&second.run_id));
    let tail = until(&mut sub, done).await;
    assert!(tail
        .iter()
        .any(|e| matches!(&e.event.body, EventBody::FormCancel(_))));
    assert!(!engine.cancel(&second.run_id));
}

/// An answer given the moment the consent request shows, before the run has stored its
/// suspension, still resumes the run (the run checks for answers as it suspends). Repeated, as
/// the answer lands on either side of the suspension.
#[tokio::test(flavor = "multi_thread")]
async fn a_consent_answered_before_the_run_suspends_still_resumes_it() {
    let provider = ScriptedProvider::start().await.unwrap();
    let dir = tempfile::tempdir().unwrap();
    let counter = Arc::new(AtomicUsize::new(0));
    let engine = engine(
        &provider,
        Arc::new(Store::open(dir.path()).unwrap()),
        counter.clone(),
        None,
    );
    let send = r#"{"to": "a@b.com"}"#;
    for round in 0..12 {
        provider.push(Reply::openai_tool_calls(
            "m",
            &[("call_1", "send_email", &[send])],
        ));
        provider.push(Reply::openai_text("m", &["Not sent."]));
        let run = engine.start_run(None, "Email Ann").unwrap();
        let mut sub = engine.subscribe(&run.conversation_id, None).unwrap();
        let mut events = until(&mut sub, |e| {
            matches!(e.event.body, EventBody::ConsentRequest(_))
        })
        .await;
        let consent = consent_request(&events);
        engine
            .answer(
                &consent.consent_id,
                &Answer::Consent {
                    decision: ConsentDecision::Deny,
                },
            )
            .unwrap();
        events.extend(until(&mut sub, done).await);
        assert_eq!(check_run(&json_of(&events)), Ok(()), "round {round}");
    }
    assert_eq!(counter.load(Ordering::SeqCst), 0);
}
