//! Tool calls and cancelling through the real `tessera serve` (HTTP + SSE), the scripted
//! provider speaking the OpenAI wire:
//!
//! - concurrency-safe calls of one answer run at the same time (a test tool that only finishes
//!   when the others have started proves it without timing), and their results reach the model
//!   in the model's order, not the order they finished in;
//! - calls that depend on others wait for them: two side-effecting writes of one resource never
//!   overlap and keep the model's order; a call whose arguments read another's result
//!   (`${results.<id>…}`) runs after it, with the value filled in;
//! - `POST /v1/runs/{id}/cancel` mid-stream and mid-tool: the partial answer is kept (and
//!   marked), the running tool ends `cancelled`, the run ends `cancelled` then `done`, the model
//!   is not called again; cancelling again answers 404.
//!
//! Every stream passes the event-order checker.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::support;

use support::serve_scripted;

use std::path::Path;
use std::time::Duration;

use serde_json::{json, Value};
use support::stream::{http, is_state, is_tool_event, Stream};
use tessera_testkit::event_order::{check_resumed, check_run};
use tessera_testkit::scripted::{openai_chunk, Gate, Reply, ScriptedProvider, Step};
use tessera_testkit::server::RunningServer;

/// A saved provider pointing at the scripted one, and a server over it with the test tools.
fn serve(data: &Path, provider: &ScriptedProvider) -> RunningServer {
    RunningServer::spawn(serve_scripted(data, provider, true)).unwrap()
}

/// One line of `test-tool-times.log`: when, `start`/`end`, the tool, the call's tag.
#[derive(Debug)]
struct Mark {
    us: u128,
    what: String,
    tool: String,
    tag: String,
}

fn marks(data: &Path) -> Vec<Mark> {
    std::fs::read_to_string(data.join("test-tool-times.log"))
        .unwrap_or_default()
        .lines()
        .map(|line| {
            let parts: Vec<&str> = line.split(' ').collect();
            Mark {
                us: parts[0].parse().unwrap(),
                what: parts[1].to_owned(),
                tool: parts[2].to_owned(),
                tag: parts[3].to_owned(),
            }
        })
        .collect()
}

/// When the call tagged `tag` logged `what` (`start`/`end`).
fn mark_of(marks: &[Mark], what: &str, tag: &str) -> Option<u128> {
    marks
        .iter()
        .find(|m| m.what == what && m.tag == tag)
        .map(|m| m.us)
}

/// The messages of the `n`-th request the model received.
fn sent(provider: &ScriptedProvider, n: usize) -> Vec<Value> {
    provider.calls()[n].body["messages"]
        .as_array()
        .unwrap()
        .clone()
}

/// The OpenAI `tool` messages of a request: `(tool_call_id, content)` in order.
fn tool_messages(messages: &[Value]) -> Vec<(String, String)> {
    messages
        .iter()
        .filter(|m| m["role"] == "tool")
        .map(|m| {
            (
                m["tool_call_id"].as_str().unwrap().to_owned(),
                m["content"].as_str().unwrap().to_owned(),
            )
        })
        .collect()
}

/// Where in `stream` call `id` had its `kind` event.
fn at(stream: &Stream, kind: &str, id: &str) -> usize {
    stream
        .position(|e| is_tool_event(e, kind, id))
        .unwrap_or_else(|| panic!("no {kind} for {id}"))
}

async fn cancel(server: &RunningServer, run_id: &str) -> support::api::Answer {
    let response = http()
        .post(format!("{}/v1/runs/{run_id}/cancel", server.base))
        .bearer_auth(&server.token)
        .send()
        .await
        .unwrap();
    support::api::Answer::read(response).await
}

/// The messages of the conversation's active branch, as the UI reads them.
async fn stored_messages(server: &RunningServer, context: &str) -> Vec<Value> {
    let shown: Value = http()
        .get(format!("{}/v1/conversations/{context}", server.base))
        .bearer_auth(&server.token)
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    shown["messages"].as_array().unwrap().clone()
}

#[tokio::test(flavor = "multi_thread")]
async fn safe_calls_of_one_answer_run_together_and_their_results_keep_the_models_order() {
    let provider = ScriptedProvider::start().await.unwrap();
    // Each read finishes only once both have started (or gives up after 60 s with met=false);
    // the calculator finishes at once, so results come in another order than the model's.
    let meet = r#"{"meet": 2, "ms": 60000, "tag": "#;
    let r1 = format!(r#"{meet}"r1"}}"#);
    let r2 = format!(r#"{meet}"r2"}}"#);
    provider.push(Reply::openai_tool_calls(
        "m",
        &[
            ("call_r1", "test_slow_read", &[r1.as_str()]),
            ("call_r2", "test_slow_read", &[r2.as_str()]),
            ("call_c", "calculator", &[r#"{"expression": "6*7"}"#]),
        ],
    ));
    provider.push(Reply::openai_text("m", &["Both read; ", "6*7 is 42."]));
    let data = tempfile::tempdir().unwrap();
    let server = serve(data.path(), &provider);

    let mut stream = Stream::post(&server, "ctx_parallel", "Read twice, and 6*7?").await;
    stream.read_to_done().await;
    assert_eq!(check_run(&stream.data()), Ok(()));

    // Both reads started before either ended: on the stream and in the tools' own log.
    let first_read_result =
        at(&stream, "tool_result", "call_r1").min(at(&stream, "tool_result", "call_r2"));
    assert!(at(&stream, "tool_started", "call_r1") < first_read_result);
    assert!(at(&stream, "tool_started", "call_r2") < first_read_result);
    for id in ["call_r1", "call_r2"] {
        let result = stream.tool_result(id);
        assert_eq!(result["status"], "success", "{result}");
        assert_eq!(
            result["result"]["met"], true,
            "{id} ran beside the other: {result}"
        );
    }
    let log = marks(data.path());
    let last_start = ["r1", "r2"].map(|t| mark_of(&log, "start", t).unwrap());
    let first_end = ["r1", "r2"].map(|t| mark_of(&log, "end", t).unwrap());
    assert!(
        last_start.iter().max() < first_end.iter().min(),
        "the reads overlapped: {log:?}"
    );

    // The model read the results in the order it asked, after its own calls.
    assert_eq!(provider.calls().len(), 2);
    let messages = sent(&provider, 1);
    let asked: Vec<&str> = messages.iter().find(|m| m["role"] == "assistant").unwrap()
        ["tool_calls"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["id"].as_str().unwrap())
        .collect();
    assert_eq!(asked, ["call_r1", "call_r2", "call_c"]);
    let results = tool_messages(&messages);
    let order: Vec<&str> = results.iter().map(|(id, _)| id.as_str()).collect();
    assert_eq!(order, ["call_r1", "call_r2", "call_c"], "{messages:?}");
    assert!(results[0].1.contains("r1") && results[1].1.contains("r2"));
    assert!(results[2].1.contains("42"), "{}", results[2].1);

    // The final answer streamed, delta by delta, and was stored.
    let deltas = stream
        .events
        .iter()
        .filter(|e| e.2["type"] == "message" && e.2["payload"]["delta"].is_string())
        .count();
    assert_eq!(deltas, 2);
    assert_eq!(stream.text(), "Both read; 6*7 is 42.");
    assert!(is_state(
        &stream.events[stream.events.len() - 2].2,
        "completed"
    ));
    let stored = stored_messages(&server, "ctx_parallel").await;
    assert_eq!(
        stored.last().unwrap()["message"]["content"],
        "Both read; 6*7 is 42."
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn dependent_calls_wait_for_what_they_need_in_the_order_a_person_would_expect() {
    let provider = ScriptedProvider::start().await.unwrap();
    // Two writes of the same resource, the first slow: without the conflict the second would
    // finish first. `call_b` reads `call_a`'s result and comes first in the model's answer.
    provider.push(Reply::openai_tool_calls(
        "m",
        &[
            (
                "call_w1",
                "test_slow_write",
                &[r#"{"ms": 1500, "tag": "w1"}"#],
            ),
            ("call_w2", "test_slow_write", &[r#"{"ms": 0, "tag": "w2"}"#]),
            (
                "call_b",
                "calculator",
                &[r#"{"expression": "${results.call_a.result.result} + 1"}"#],
            ),
            ("call_a", "calculator", &[r#"{"expression": "6*7"}"#]),
        ],
    ));
    provider.push(Reply::openai_text("m", &["Written twice; ", "43."]));
    let data = tempfile::tempdir().unwrap();
    let server = serve(data.path(), &provider);

    let mut stream = Stream::post(&server, "ctx_dependent", "Write twice, then add one").await;
    stream.read_to_done().await;
    assert_eq!(check_run(&stream.data()), Ok(()));
    for id in ["call_w1", "call_w2", "call_a", "call_b"] {
        assert_eq!(stream.tool_result(id)["status"], "success", "{id}");
    }

    // The second write started only after the first had ended: on the stream, in the log of
    // runs (the model's order), and in the tools' clock.
    assert!(at(&stream, "tool_result", "call_w1") < at(&stream, "tool_started", "call_w2"));
    let runs = std::fs::read_to_string(data.path().join("test-tool-runs.log")).unwrap();
    let tags: Vec<&str> = runs
        .lines()
        .map(|l| if l.contains("\"w1\"") { "w1" } else { "w2" })
        .collect();
    assert_eq!(tags, ["w1", "w2"], "{runs}");
    let log = marks(data.path());
    assert!(log.iter().all(|m| m.tool == "test_slow_write"));
    let w1_end = mark_of(&log, "end", "w1").unwrap();
    let w2_start = mark_of(&log, "start", "w2").unwrap();
    assert!(w1_end <= w2_start, "the writes never overlap: {log:?}");

    // `call_b` ran after `call_a`, with its result filled in.
    assert!(at(&stream, "tool_result", "call_a") < at(&stream, "tool_started", "call_b"));
    let b = stream.tool_result("call_b");
    assert_eq!(b["result"]["result"], 43, "{b}");
    assert_eq!(b["result"]["expression"], "42 + 1", "{b}");

    // The model reads every result in its own order.
    let results = tool_messages(&sent(&provider, 1));
    let order: Vec<&str> = results.iter().map(|(id, _)| id.as_str()).collect();
    assert_eq!(order, ["call_w1", "call_w2", "call_b", "call_a"]);
    assert!(results[2].1.contains("43"), "{}", results[2].1);
    assert_eq!(stream.text(), "Written twice; 43.");
}

#[tokio::test(flavor = "multi_thread")]
async fn cancelling_mid_stream_keeps_the_partial_answer_and_ends_the_run() {
    let provider = ScriptedProvider::start().await.unwrap();
    let gate = Gate::new();
    // The provider holds the stream after the second delta until the gate opens.
    provider.push(
        Reply::openai_text("m", &["The first ", "half, ", "then more"])
            .insert_step(3, Step::Gate(gate.clone())),
    );
    let data = tempfile::tempdir().unwrap();
    let server = serve(data.path(), &provider);

    let mut stream = Stream::post(&server, "ctx_cancel", "Tell me").await;
    let run_id = stream.run_id.clone().expect("the run's id in a header");
    stream
        .until(|e| e["payload"]["delta"].as_str() == Some("half, "))
        .await;
    let cancelled = cancel(&server, &run_id).await;
    assert_eq!(cancelled.ok(200)["cancelled"], true);
    stream.read_to_done().await;
    assert_eq!(check_run(&stream.data()), Ok(()));
    assert_eq!(stream.text(), "The first half, ");
    let n = stream.events.len();
    assert!(
        is_state(&stream.events[n - 2].2, "cancelled"),
        "{:?}",
        stream.events[n - 2]
    );
    assert_eq!(stream.events[n - 1].1, "done");
    assert!(
        stream.events.iter().all(|e| e.1 != "error"),
        "a cancel is no fatal error"
    );
    assert!(stream
        .events
        .iter()
        .all(|e| e.2["meta"]["run_id"] == run_id.as_str()));

    // The partial answer is stored, marked as cut short.
    let stored = stored_messages(&server, "ctx_cancel").await;
    let answer = stored.last().unwrap();
    assert_eq!(answer["message"]["role"], "assistant", "{answer}");
    assert_eq!(answer["message"]["content"], "The first half, ", "{answer}");
    assert_eq!(answer["message"]["interrupted"], "cancelled", "{answer}");
    // The run is over: a second cancel is refused.
    cancel(&server, &run_id).await.error(404, "RUN_NOT_RUNNING");

    // A client that reconnects from the start sees the same run, the deltas folded.
    let mut replay = Stream::follow(&server, "ctx_cancel", 0).await;
    replay.read_to_done().await;
    assert_eq!(check_resumed(&replay.data(), 0), Ok(()));
    assert_eq!(replay.text(), "The first half, ");
    assert!(replay.events.iter().any(|e| is_state(&e.2, "cancelled")));

    // The next message: the model reads the partial answer; nothing else was asked of it.
    gate.open();
    assert_eq!(provider.calls().len(), 1);
    provider.push(Reply::openai_text("m", &["Sure."]));
    let mut next = Stream::post(&server, "ctx_cancel", "Go on").await;
    next.read_to_done().await;
    assert_eq!(check_run(&next.data()), Ok(()));
    let messages = sent(&provider, 1)
        .iter()
        .map(Value::to_string)
        .collect::<Vec<_>>();
    assert!(
        messages.iter().any(|m| m.contains("The first half, ")),
        "{messages:?}"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn cancelling_mid_tool_stops_the_running_call_and_keeps_what_was_said() {
    let provider = ScriptedProvider::start().await.unwrap();
    // Some text, then a side-effecting call that would take a minute.
    let text = openai_chunk("m", json!({"content": "Writing it now. "}), None);
    provider.push(
        Reply::openai_tool_calls(
            "m",
            &[(
                "call_w",
                "test_slow_write",
                &[r#"{"ms": 60000, "tag": "w"}"#],
            )],
        )
        .insert_step(1, Step::Raw(format!("data: {text}\n\n"))),
    );
    let data = tempfile::tempdir().unwrap();
    let server = serve(data.path(), &provider);

    let mut stream = Stream::post(&server, "ctx_cancel_tool", "Write it").await;
    let run_id = stream.run_id.clone().expect("the run's id in a header");
    stream
        .until(|e| is_tool_event(e, "tool_started", "call_w"))
        .await;
    // The tool itself is running (its start is logged), not just announced.
    for _ in 0..500 {
        if mark_of(&marks(data.path()), "start", "w").is_some() {
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert!(mark_of(&marks(data.path()), "start", "w").is_some());
    assert_eq!(cancel(&server, &run_id).await.status, 200);

    // Well before the minute is up: the call ends cancelled, then the run.
    stream.read_to_done().await;
    assert_eq!(check_run(&stream.data()), Ok(()));
    let result = stream.tool_result("call_w");
    assert_eq!(result["status"], "cancelled", "{result}");
    let n = stream.events.len();
    assert!(at(&stream, "tool_result", "call_w") < n - 2);
    assert!(
        is_state(&stream.events[n - 2].2, "cancelled"),
        "{:?}",
        stream.events[n - 2]
    );
    assert_eq!(stream.events[n - 1].1, "done");
    assert_eq!(stream.text(), "Writing it now. ");
    assert_eq!(mark_of(&marks(data.path()), "end", "w"), None);
    // The model was not asked again after the cancel.
    assert_eq!(provider.calls().len(), 1);

    let stored = stored_messages(&server, "ctx_cancel_tool").await;
    let answer = stored.last().unwrap();
    assert_eq!(answer["message"]["content"], "Writing it now. ", "{answer}");
    assert_eq!(answer["message"]["interrupted"], "cancelled", "{answer}");
    cancel(&server, &run_id).await.error(404, "RUN_NOT_RUNNING");
}

/// Seed 001 §4 (先执行当前并发批次，再单独执行非 safe 工具): a side-effecting call waits for the
/// calls before it and runs alone; the calls after it wait for it, though it declares the one
/// resource it writes and they touch none (they used to overlap it).
#[tokio::test(flavor = "multi_thread")]
async fn a_side_effecting_call_runs_alone_between_the_calls_around_it() {
    let provider = ScriptedProvider::start().await.unwrap();
    provider.push(Reply::openai_tool_calls(
        "m",
        &[
            (
                "call_r1",
                "test_slow_read",
                &[r#"{"ms": 300, "tag": "r1"}"#],
            ),
            ("call_w", "test_slow_write", &[r#"{"ms": 300, "tag": "w"}"#]),
            ("call_r2", "test_slow_read", &[r#"{"ms": 0, "tag": "r2"}"#]),
            ("call_c", "calculator", &[r#"{"expression": "6*7"}"#]),
        ],
    ));
    provider.push(Reply::openai_text("m", &["Done in order."]));
    let data = tempfile::tempdir().unwrap();
    let server = serve(data.path(), &provider);

    let mut stream = Stream::post(&server, "ctx_alone", "Read, write, read").await;
    stream.read_to_done().await;
    assert_eq!(check_run(&stream.data()), Ok(()));
    for id in ["call_r1", "call_w", "call_r2", "call_c"] {
        assert_eq!(stream.tool_result(id)["status"], "success", "{id}");
    }
    assert!(at(&stream, "tool_result", "call_r1") < at(&stream, "tool_started", "call_w"));
    for later in ["call_r2", "call_c"] {
        assert!(
            at(&stream, "tool_result", "call_w") < at(&stream, "tool_started", later),
            "{later} started while the write ran"
        );
    }
    let log = marks(data.path());
    let w_start = mark_of(&log, "start", "w").unwrap();
    let w_end = mark_of(&log, "end", "w").unwrap();
    assert!(mark_of(&log, "end", "r1").unwrap() <= w_start, "{log:?}");
    assert!(w_end <= mark_of(&log, "start", "r2").unwrap(), "{log:?}");
}

/// A person sets `--tool-choice` for a small model that never calls a tool of its own accord:
/// the first call of each run asks for that tool, the calls after it choose freely (so the run
/// ends), and the next run asks again.
#[tokio::test(flavor = "multi_thread")]
async fn a_models_first_tool_choice_is_asked_on_the_first_call_of_each_run_only() {
    let provider = ScriptedProvider::start().await.unwrap();
    for _ in 0..2 {
        provider.push(Reply::openai_tool_calls(
            "m",
            &[("call_c", "calculator", &[r#"{"expression": "6*7"}"#])],
        ));
        provider.push(Reply::openai_text("m", &["42."]));
    }
    let data = tempfile::tempdir().unwrap();
    support::save_scripted_provider(data.path(), &provider);
    let provider_add = |choice: &str| {
        let added = support::tessera_std(data.path())
            .args([
                "provider",
                "add",
                "local",
                "--model",
                "m",
                "--tool-choice",
                choice,
            ])
            .output()
            .unwrap();
        assert!(
            added.status.success(),
            "{}",
            String::from_utf8_lossy(&added.stderr)
        );
    };
    // What `provider add` saved for model `m`, read from the real SQLite file.
    let saved = || {
        let store = tessera_store::Store::open(data.path()).unwrap();
        let settings = store.provider_settings("local").unwrap().unwrap();
        settings["models"]["m"]["first_tool_choice"].clone()
    };
    provider_add("calculator");
    assert_eq!(saved(), "calculator");
    // `auto` takes the setting away; set again, it is what the server runs with.
    provider_add("auto");
    assert_eq!(saved(), Value::Null);
    provider_add("calculator");
    let server = RunningServer::spawn(support::serve_local(data.path(), false)).unwrap();

    for context in ["ctx_choice_1", "ctx_choice_2"] {
        let mut stream = Stream::post(&server, context, "6*7?").await;
        stream.read_to_done().await;
        assert_eq!(check_run(&stream.data()), Ok(()));
    }
    let choices: Vec<Value> = provider
        .calls()
        .iter()
        .map(|call| call.body["tool_choice"].clone())
        .collect();
    let forced = json!({"type": "function", "function": {"name": "calculator"}});
    assert_eq!(
        choices,
        [forced.clone(), Value::Null, forced, Value::Null],
        "first call of each run forced, the others free"
    );
}
