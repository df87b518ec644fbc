//! A turn with tools against the scripted provider over real HTTP and a real store: the model
//! asks for tools, the executor runs them (in parallel where safe), their results go back to the
//! model, and its answer ends the turn; every event is stored before it is seen; the turn limit
//! ends a model that never stops calling tools.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use serde_json::{json, Value};
use tessera_engine::tools::{ToolContext, ToolFailure, ToolRegistry, ToolSpec};
use tessera_engine::turn::{run_turn, TurnInput, TurnOptions};
use tessera_protocol::easyflow::{EventBody, SystemState};
use tessera_providers::config::{ProviderConfig, WireKind};
use tessera_providers::keys::Secret;
use tessera_providers::ProviderClient;
use tessera_store::{Store, StoredEvent};
use tessera_testkit::scripted::{Reply, ScriptedProvider};
use tokio_util::sync::CancellationToken;

/// The JSON of stored events, for the event-order checker.
fn json_of(events: &[StoredEvent]) -> Vec<Value> {
    events
        .iter()
        .map(|e| serde_json::to_value(&e.event).unwrap())
        .collect()
}

fn registry(counter: Arc<AtomicUsize>) -> Arc<ToolRegistry> {
    let mut r = ToolRegistry::new();
    r.register(
        ToolSpec::new("get_weather", "The weather in a city").input_schema(json!({
            "type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]
        })),
        move |args: Value, _ctx: ToolContext| {
            let counter = counter.clone();
            async move {
                counter.fetch_add(1, Ordering::SeqCst);
                Ok::<_, ToolFailure>(json!({"city": args["city"], "temp": "5°C"}))
            }
        },
    )
    .unwrap();
    Arc::new(r)
}

fn client(provider: &ScriptedProvider, kind: WireKind) -> ProviderClient {
    let base = match kind {
        WireKind::Openai => provider.openai_base(),
        WireKind::Anthropic => provider.url(),
    };
    let mut config = ProviderConfig::new("scripted", kind, base);
    config.proxy = Some("none".into());
    ProviderClient::new(config, Some(Secret::new("k"))).unwrap()
}

#[tokio::test(flavor = "multi_thread")]
async fn tool_calls_run_and_their_results_reach_the_model() {
    let provider = ScriptedProvider::start().await.unwrap();
    provider.push(Reply::openai_tool_calls(
        "m",
        &[
            ("call_1", "get_weather", &["{\"city\":", "\"北京\"}"]),
            ("call_2", "get_weather", &["{\"city\":\"Paris\"}"]),
        ],
    ));
    provider.push(Reply::openai_text("m", &["Both ", "are cold."]));
    let dir = tempfile::tempdir().unwrap();
    let store = Arc::new(Store::open(dir.path()).unwrap());
    let counter = Arc::new(AtomicUsize::new(0));
    let options = TurnOptions {
        tools: Some(registry(counter.clone())),
        ..TurnOptions::default()
    };
    let mut seen: Vec<StoredEvent> = Vec::new();
    let outcome = run_turn(
        &store,
        &client(&provider, WireKind::Openai),
        TurnInput {
            attachments: &[],
            message_id: None,
            conversation: None,
            text: "Weather in 北京 and Paris?",
            said: Default::default(),
            model: "m",
            options: &options,
            run_id: None,
        },
        CancellationToken::new(),
        |e| seen.push(e),
    )
    .await
    .unwrap();
    assert_eq!(outcome.state, SystemState::Completed, "{:?}", outcome.error);
    assert_eq!(outcome.model_calls, 2);
    assert_eq!(counter.load(Ordering::SeqCst), 2);
    assert_eq!(outcome.response.text, "Both are cold.");

    // The second request carried the assistant's calls and both results, in the model's order.
    let calls = provider.calls();
    assert_eq!(calls.len(), 2);
    assert_eq!(calls[0].body["tools"][0]["function"]["name"], "get_weather");
    let m = calls[1].body["messages"].as_array().unwrap();
    let n = m.len();
    assert_eq!(m[n - 3]["role"], "assistant");
    assert_eq!(m[n - 3]["tool_calls"][1]["id"], "call_2");
    assert_eq!(m[n - 2]["tool_call_id"], "call_1");
    assert!(m[n - 2]["content"].as_str().unwrap().contains("北京"));
    assert_eq!(m[n - 1]["tool_call_id"], "call_2");

    // What was seen is what was stored, seq strictly increasing; tool events among them.
    let stored = store
        .events_after(&outcome.conversation_id, None, None)
        .unwrap();
    let seqs: Vec<u64> = seen.iter().map(|e| e.seq).collect();
    assert!(seqs.windows(2).all(|w| w[0] < w[1]), "{seqs:?}");
    assert!(!stored.is_empty());
    assert_eq!(
        tessera_testkit::event_order::check_run(&json_of(&seen)),
        Ok(())
    );
    assert_eq!(
        tessera_testkit::event_order::check_run(&json_of(&stored)),
        Ok(()),
        "the folded log"
    );
    let results = seen
        .iter()
        .filter(|e| matches!(e.event.body, EventBody::ToolResult(_)))
        .count();
    assert_eq!(results, 2);
    assert!(matches!(
        seen.last().unwrap().event.body,
        EventBody::Done(_)
    ));

    // Two model calls recorded: the tool round and the answer; the message is the answer.
    let usage = store.model_usage(&outcome.conversation_id).unwrap();
    let stages: Vec<String> = usage
        .iter()
        .map(|u| {
            serde_json::to_value(u.stage)
                .unwrap()
                .as_str()
                .unwrap()
                .to_owned()
        })
        .collect();
    assert_eq!(stages, ["tool_call", "answer"]);
    let branch = store.active_branch(&outcome.conversation_id).unwrap();
    assert_eq!(branch.last().unwrap().message.content, "Both are cold.");
}

#[tokio::test(flavor = "multi_thread")]
async fn anthropic_tool_rounds_replay_thinking_and_results() {
    let provider = ScriptedProvider::start().await.unwrap();
    provider.push(Reply::anthropic_tool_use(
        "c",
        &[("toolu_1", "get_weather", &["{\"city\": \"Oslo\"}"])],
    ));
    provider.push(Reply::anthropic_text("c", &["Cold."]));
    let dir = tempfile::tempdir().unwrap();
    let store = Arc::new(Store::open(dir.path()).unwrap());
    let options = TurnOptions {
        tools: Some(registry(Arc::new(AtomicUsize::new(0)))),
        ..TurnOptions::default()
    };
    let outcome = run_turn(
        &store,
        &client(&provider, WireKind::Anthropic),
        TurnInput {
            attachments: &[],
            message_id: None,
            conversation: None,
            text: "Oslo?",
            said: Default::default(),
            model: "c",
            options: &options,
            run_id: None,
        },
        CancellationToken::new(),
        |_| {},
    )
    .await
    .unwrap();
    assert_eq!(outcome.state, SystemState::Completed);
    let second = &provider.calls()[1].body;
    let m = second["messages"].as_array().unwrap();
    assert_eq!(m[1]["content"][0]["type"], "tool_use");
    assert_eq!(m[2]["content"][0]["type"], "tool_result");
    assert_eq!(m[2]["content"][0]["tool_use_id"], "toolu_1");
    let stored = store.events_after(&outcome.conversation_id, None, None);
    assert_eq!(
        tessera_testkit::event_order::check_run(&json_of(&stored.unwrap())),
        Ok(())
    );
    assert!(m[2]["content"][0]["content"][0]["text"]
        .as_str()
        .unwrap()
        .contains("Oslo"));
}

#[tokio::test(flavor = "multi_thread")]
async fn a_model_that_never_stops_calling_tools_hits_the_turn_limit() {
    let provider = ScriptedProvider::start().await.unwrap();
    for i in 0..3 {
        let id = format!("call_{i}");
        provider.push(Reply::openai_tool_calls(
            "m",
            &[(id.as_str(), "get_weather", &["{\"city\":\"Rome\"}"])],
        ));
    }
    let dir = tempfile::tempdir().unwrap();
    let store = Arc::new(Store::open(dir.path()).unwrap());
    let counter = Arc::new(AtomicUsize::new(0));
    let options = TurnOptions {
        tools: Some(registry(counter.clone())),
        max_model_calls: 3,
        ..TurnOptions::default()
    };
    let mut seen = Vec::new();
    let outcome = run_turn(
        &store,
        &client(&provider, WireKind::Openai),
        TurnInput {
            attachments: &[],
            message_id: None,
            conversation: None,
            text: "loop",
            said: Default::default(),
            model: "m",
            options: &options,
            run_id: None,
        },
        CancellationToken::new(),
        |e: StoredEvent| seen.push(e.event),
    )
    .await
    .unwrap();
    assert_eq!(outcome.model_calls, 3);
    let json: Vec<Value> = seen
        .iter()
        .map(|e| serde_json::to_value(e).unwrap())
        .collect();
    assert_eq!(tessera_testkit::event_order::check_run(&json), Ok(()));
    assert_eq!(
        counter.load(Ordering::SeqCst),
        2,
        "the last round's calls are not run"
    );
    let limit = seen
        .iter()
        .find_map(|e| match &e.body {
            EventBody::WorkflowStatus(p) => p.reason.clone(),
            _ => None,
        })
        .expect("the limit is announced");
    assert!(
        limit.starts_with("turn_limit") && limit.contains("3 model calls"),
        "{limit}"
    );
    assert_eq!(
        outcome.state,
        SystemState::Completed,
        "the answer so far stands"
    );
    assert!(!seen
        .iter()
        .any(|e| matches!(e.body, EventBody::SystemError(_))));
}

#[tokio::test(flavor = "multi_thread")]
async fn an_invalid_argument_goes_back_to_the_model_as_the_tool_error() {
    let provider = ScriptedProvider::start().await.unwrap();
    provider.push(Reply::openai_tool_calls(
        "m",
        &[("call_x", "get_weather", &["{\"town\":\"Rome\"}"])],
    ));
    provider.push(Reply::openai_text("m", &["Sorry."]));
    let dir = tempfile::tempdir().unwrap();
    let store = Arc::new(Store::open(dir.path()).unwrap());
    let counter = Arc::new(AtomicUsize::new(0));
    let options = TurnOptions {
        tools: Some(registry(counter.clone())),
        ..TurnOptions::default()
    };
    let outcome = run_turn(
        &store,
        &client(&provider, WireKind::Openai),
        TurnInput {
            attachments: &[],
            message_id: None,
            conversation: None,
            text: "Rome?",
            said: Default::default(),
            model: "m",
            options: &options,
            run_id: None,
        },
        CancellationToken::new(),
        |_| {},
    )
    .await
    .unwrap();
    assert_eq!(outcome.state, SystemState::Completed);
    assert_eq!(
        counter.load(Ordering::SeqCst),
        0,
        "an invalid call is never run"
    );
    let m = provider.calls()[1].body["messages"].clone();
    let result = m.as_array().unwrap().last().unwrap()["content"]
        .as_str()
        .unwrap()
        .to_owned();
    assert!(
        result.contains("city"),
        "the error names the field: {result}"
    );
}

/// The person's message of the long-answer turns, to model `m`.
fn talk_a_lot(options: &TurnOptions) -> TurnInput<'_> {
    TurnInput {
        attachments: &[],
        message_id: None,
        conversation: None,
        text: "Talk a lot",
        said: Default::default(),
        model: "m",
        options,
        run_id: None,
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn a_long_answer_is_seen_in_seq_order_and_only_once_stored() {
    let provider = ScriptedProvider::start().await.unwrap();
    let deltas: Vec<String> = (0..2000).map(|i| format!("w{i} ")).collect();
    let pieces: Vec<&str> = deltas.iter().map(String::as_str).collect();
    provider.push(Reply::openai_text("m", &pieces));
    let dir = tempfile::tempdir().unwrap();
    let store = Arc::new(Store::open(dir.path()).unwrap());
    let reader = Arc::clone(&store);
    let mut seen: Vec<StoredEvent> = Vec::new();
    let mut unstored = Vec::new();
    let options = TurnOptions::default();
    let outcome = run_turn(
        &store,
        &client(&provider, WireKind::Openai),
        talk_a_lot(&options),
        CancellationToken::new(),
        |e| {
            // Each event is in the store by the time anyone sees it.
            let c = &e.event.conversation_id;
            let there = reader.events_after(c, Some(e.seq - 1), Some(1)).unwrap();
            if there.first().map(|s| s.seq) != Some(e.seq) {
                unstored.push(e.seq);
            }
            seen.push(e);
        },
    )
    .await
    .unwrap();
    assert_eq!(outcome.state, SystemState::Completed, "{:?}", outcome.error);
    assert_eq!(unstored, Vec::<u64>::new());
    assert_eq!(outcome.response.text, deltas.concat());
    // Every event of the run, each once, in seq order without a gap.
    let seqs: Vec<u64> = seen.iter().map(|e| e.seq).collect();
    assert_eq!(seqs, (1..=seqs.len() as u64).collect::<Vec<_>>());
    let text: String = seen
        .iter()
        .filter_map(|e| match &e.event.body {
            EventBody::LlmMessage(p) => p.delta.clone(),
            _ => None,
        })
        .collect();
    assert_eq!(text, deltas.concat());
    assert_eq!(
        tessera_testkit::event_order::check_run(&json_of(&seen)),
        Ok(())
    );
}

/// A turn of `deltas` words whose event callback runs `on_event` for each delta it sees
/// (the number seen so far); its outcome (or error) and the words seen.
async fn long_turn(
    deltas: usize,
    cancel: CancellationToken,
    mut on_event: impl FnMut(usize) + Send,
) -> (
    Result<tessera_engine::turn::TurnOutcome, tessera_engine::turn::TurnError>,
    Vec<String>,
    String,
) {
    let provider = ScriptedProvider::start().await.unwrap();
    let words: Vec<String> = (0..deltas).map(|i| format!("w{i} ")).collect();
    let pieces: Vec<&str> = words.iter().map(String::as_str).collect();
    provider.push(Reply::openai_text("m", &pieces));
    let dir = tempfile::tempdir().unwrap();
    let store = Arc::new(Store::open(dir.path()).unwrap());
    let mut seen = Vec::new();
    let options = TurnOptions::default();
    let outcome = run_turn(
        &store,
        &client(&provider, WireKind::Openai),
        talk_a_lot(&options),
        cancel,
        |e| {
            if let EventBody::LlmMessage(p) = &e.event.body {
                if let Some(d) = &p.delta {
                    seen.push(d.clone());
                    on_event(seen.len());
                }
            }
        },
    )
    .await;
    (outcome, seen, words.concat())
}

#[tokio::test(flavor = "multi_thread")]
async fn an_answer_read_far_ahead_of_a_slow_turn_arrives_whole_and_in_order() {
    // The model's answer is read on a task of its own while the turn stores it: with the turn
    // held up at first, the reader fills its queue (4,096 items) and must wait for room.
    let (outcome, seen, expected) = long_turn(12_000, CancellationToken::new(), |n| {
        if n == 1 {
            std::thread::sleep(std::time::Duration::from_millis(500));
        }
    })
    .await;
    let outcome = outcome.unwrap();
    assert_eq!(outcome.state, SystemState::Completed, "{:?}", outcome.error);
    assert_eq!(outcome.response.text, expected);
    assert_eq!(seen.len(), 12_000);
    assert_eq!(seen.concat(), expected);
}

#[tokio::test(flavor = "multi_thread")]
async fn a_cancel_while_the_reader_waits_for_room_ends_the_turn() {
    let cancel = CancellationToken::new();
    let token = cancel.clone();
    let turn = long_turn(12_000, cancel, move |n| {
        if n == 1 {
            // The reader fills its queue meanwhile, and waits.
            std::thread::sleep(std::time::Duration::from_millis(500));
            token.cancel();
        }
    });
    let (outcome, seen, expected) = tokio::time::timeout(std::time::Duration::from_secs(60), turn)
        .await
        .expect("the cancelled turn ended");
    let outcome = outcome.unwrap();
    assert_eq!(outcome.state, SystemState::Cancelled, "{:?}", outcome.error);
    assert!(seen.len() < 12_000, "stopped early: {}", seen.len());
    assert!(expected.starts_with(&seen.concat()));
}

#[tokio::test(flavor = "multi_thread")]
async fn a_store_failure_mid_answer_ends_the_turn_with_the_store_error() {
    let provider = ScriptedProvider::start().await.unwrap();
    let deltas: Vec<String> = (0..500).map(|i| format!("w{i} ")).collect();
    let pieces: Vec<&str> = deltas.iter().map(String::as_str).collect();
    provider.push(Reply::openai_text("m", &pieces));
    let dir = tempfile::tempdir().unwrap();
    let store = Arc::new(Store::open(dir.path()).unwrap());
    let writer = Arc::clone(&store);
    let mut seen: Vec<StoredEvent> = Vec::new();
    let options = TurnOptions::default();
    let result = run_turn(
        &store,
        &client(&provider, WireKind::Openai),
        talk_a_lot(&options),
        CancellationToken::new(),
        |e| {
            let c = e.event.conversation_id.clone();
            seen.push(e);
            if seen.len() == 10 {
                // The conversation goes away under the run: its next writes fail.
                writer.write(move |tx| tx.delete_conversation(&c)).unwrap();
            }
        },
    )
    .await;
    assert!(
        matches!(result, Err(tessera_engine::turn::TurnError::Store(_))),
        "{result:?}"
    );
    // What was seen before the failure is a gapless prefix, and no `done` was claimed.
    let seqs: Vec<u64> = seen.iter().map(|e| e.seq).collect();
    assert_eq!(seqs, (1..=seqs.len() as u64).collect::<Vec<_>>());
    assert!(!seen
        .iter()
        .any(|e| matches!(e.event.body, EventBody::Done(_))));
}

#[tokio::test(flavor = "multi_thread")]
async fn a_run_whose_tool_results_reach_its_limit_ends_failed_and_stays_readable() {
    let provider = ScriptedProvider::start().await.unwrap();
    for i in 0..6 {
        let id = format!("call_{i}");
        provider.push(Reply::openai_tool_calls(
            "m",
            &[(id.as_str(), "big_page", &["{}"])],
        ));
    }
    let runs = Arc::new(AtomicUsize::new(0));
    let mut registry = ToolRegistry::new();
    let counter = runs.clone();
    registry
        .register(
            ToolSpec::new("big_page", "A page of 100 KB"),
            move |_args: Value, _ctx: ToolContext| {
                let counter = counter.clone();
                async move {
                    counter.fetch_add(1, Ordering::SeqCst);
                    Ok::<_, ToolFailure>(json!({"text": "x".repeat(100 * 1024)}))
                }
            },
        )
        .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let store = Arc::new(Store::open(dir.path()).unwrap());
    let options = TurnOptions {
        tools: Some(Arc::new(registry)),
        max_model_calls: 8,
        tool_limits: tessera_engine::executor::Limits {
            run_bytes: 250 * 1024,
            ..Default::default()
        },
        ..TurnOptions::default()
    };
    let mut seen = Vec::new();
    let outcome = run_turn(
        &store,
        &client(&provider, WireKind::Openai),
        TurnInput {
            attachments: &[],
            message_id: None,
            conversation: None,
            text: "read everything",
            said: Default::default(),
            model: "m",
            options: &options,
            run_id: None,
        },
        CancellationToken::new(),
        |e: StoredEvent| seen.push(e.event),
    )
    .await
    .unwrap();
    // Rounds run while the run is under its limit; the one that crosses it is the last.
    assert_eq!(runs.load(Ordering::SeqCst), 3);
    assert_eq!(outcome.model_calls, 3);
    assert_eq!(outcome.state, SystemState::Failed);
    let error = seen
        .iter()
        .find_map(|e| match &e.body {
            EventBody::SystemError(p) => Some(p.clone()),
            _ => None,
        })
        .expect("the limit is reported");
    assert_eq!(error.code, "RUN_LIMIT_REACHED");
    assert!(error.message.contains("250.0 KiB"), "{}", error.message);
    let json: Vec<Value> = seen
        .iter()
        .map(|e| serde_json::to_value(e).unwrap())
        .collect();
    assert_eq!(tessera_testkit::event_order::check_run(&json), Ok(()));
    // What it stored stays readable.
    let stored = store
        .run_events(&outcome.conversation_id, &outcome.run_id)
        .unwrap();
    assert_eq!(stored.len(), seen.len());
    assert_eq!(store.tool_calls(&outcome.conversation_id).unwrap().len(), 3);
}
