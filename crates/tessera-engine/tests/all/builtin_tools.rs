//! The built-in tools through the real executor, against a real store in a temporary folder:
//! each tool's answer and its errors, search hits becoming evidences, memories replaced by
//! key, and the scheduler's order between a search that reads memory and a save that writes it.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::builtin_support;
use crate::exec_support;

use std::sync::Arc;

use builtin_support::{rejected, world};
use exec_support::{before, position, stream, R};
use serde_json::{json, Value};
use tessera_engine::builtin_tools::{calc, calculator, NAMES};
use tessera_engine::executor::{CollectingSink, Executor, ExecutorOptions};
use tessera_protocol::context_doc::{BlockType, Priority};
use tessera_protocol::mcp_cp::ToolCallRequest;
use tessera_protocol::request::Role;
use tessera_store::{text_message, NewMessage};
use tokio_util::sync::CancellationToken;

#[test]
fn every_tool_declares_what_the_scheduler_needs() {
    let w = world();
    assert_eq!(w.registry.names().count(), NAMES.len());
    for name in NAMES {
        let spec = &w.registry.get(name).unwrap().spec;
        assert!(spec.result_schema.is_some(), "{name}");
        assert!(spec.description.len() > 80, "{name}");
        assert_eq!(spec.input_schema["additionalProperties"], false, "{name}");
        let safe = name != "save_memory";
        assert_eq!(spec.is_concurrency_safe(), safe, "{name}");
    }
    let save = &w.registry.get("save_memory").unwrap().spec;
    assert_eq!(save.writes, ["memory"]);
    assert_eq!(
        w.registry.get("search_context").unwrap().spec.reads,
        ["memory"]
    );
    assert_eq!(
        w.registry
            .get("get_current_datetime")
            .unwrap()
            .spec
            .timeout_ms,
        1_000
    );
}

#[tokio::test]
async fn datetime_now_here_and_elsewhere() {
    let w = world();
    let local = w.call("get_current_datetime", json!({})).await.unwrap();
    let at: jiff::Timestamp = local["datetime"].as_str().unwrap().parse().unwrap();
    let unix_ms = local["unix_ms"].as_i64().unwrap();
    assert!((at.as_millisecond() - unix_ms).abs() < 1_000, "{local}");
    assert!(local["weekday"].as_str().unwrap().ends_with("day"));

    let shanghai = w
        .call("get_current_datetime", json!({"timezone": "Asia/Shanghai"}))
        .await
        .unwrap();
    assert_eq!(shanghai["timezone"], "Asia/Shanghai");
    assert_eq!(shanghai["utc_offset"], "+08:00");
    assert!(shanghai["datetime"].as_str().unwrap().ends_with("+08:00"));

    let unknown = w
        .call(
            "get_current_datetime",
            json!({"timezone": "Mars/Olympus_Mons"}),
        )
        .await;
    let details = rejected(unknown, "UNKNOWN_TIME_ZONE", "`Mars/Olympus_Mons`");
    assert_eq!(details["field"], "timezone");

    let bad = w.call("get_current_datetime", json!({"timezone": 8})).await;
    rejected(bad, "INVALID_ARGUMENTS", "timezone: ");
    let extra = w.call("get_current_datetime", json!({"tz": "UTC"})).await;
    rejected(extra, "INVALID_ARGUMENTS", "'tz'");
}

#[tokio::test]
async fn calculator_answers_and_names_the_column() {
    let w = world();
    for (expression, expected) in [
        ("(1.5e3 - 200) * 12 / 8", json!(1950)),
        ("2 ^ 3 ^ 2", json!(512)),
        ("-2^2 + 0.1 + 0.2", json!(-3.7)),
        ("round(sqrt(2) * 100, 1) + 7.5 % 2", json!(142.9)),
        ("max(ln(e), log10(100), abs(-3))", json!(3)),
    ] {
        let out = w
            .call("calculator", json!({ "expression": expression }))
            .await;
        assert_eq!(
            out.unwrap(),
            json!({"expression": expression, "result": expected})
        );
    }
    let zero = w
        .call("calculator", json!({"expression": "1 / (2 - 2)"}))
        .await;
    let details = rejected(zero, "CALCULATION_ERROR", "column 3: division by zero");
    assert_eq!(details["column"], 3);
    let nan = w
        .call("calculator", json!({"expression": "1 + sqrt(-4)"}))
        .await;
    let details = rejected(nan, "CALCULATION_ERROR", "not a finite number");
    assert_eq!(details["column"], 5);
    let eval = w
        .call("calculator", json!({"expression": "__import__('os')"}))
        .await;
    rejected(
        eval,
        "CALCULATION_ERROR",
        "column 1: unexpected character `_`",
    );
    let missing = w.call("calculator", json!({})).await;
    rejected(missing, "INVALID_ARGUMENTS", "expression: required");
    let typed = w.call("calculator", json!({"expression": 42})).await;
    rejected(typed, "INVALID_ARGUMENTS", "expression: ");
    let long = w
        .call("calculator", json!({"expression": "1+".repeat(300) + "1"}))
        .await;
    rejected(long, "INVALID_ARGUMENTS", "expression: ");
}

#[test]
fn calculator_language() {
    let ok = |text: &str, expected: f64| {
        let v = calc::evaluate(text).unwrap_or_else(|e| panic!("{text}: {e}"));
        assert!((v - expected).abs() < 1e-9, "{text} = {v}, not {expected}");
    };
    ok("1 + 2 * 3", 7.0);
    ok("10 - 4 - 3", 3.0);
    ok("24 / 4 / 3", 2.0);
    ok("2 ** 3", 8.0);
    ok("2 ^ -1", 0.5);
    ok("--3", 3.0);
    ok("7 % 3 + -7 % 3", 0.0);
    ok(".5 + 1.5e3 + 2E-1", 1500.7);
    ok("round(2.5) + floor(-1.5) + ceil(1.2)", 3.0);
    ok("round(1.23456, 2)", 1.23);
    ok("min(3, 1, 2) + max(4, 9)", 10.0);
    ok("sin(pi / 2) + cos(0) + tan(0)", 2.0);
    ok("PI() * 2", std::f64::consts::TAU);
    for (text, column, words) in [
        ("5 % (2 - 2)", 3, "modulo by zero"),
        ("ln(0)", 1, "not a finite number"),
        ("10 ^ 400", 4, "not a finite number"),
        ("1e999", 1, "too large"),
        ("2 +", 4, "end of the expression"),
        ("(1 + 2", 7, "expected `)`"),
        ("1 + 2)", 6, "without a matching"),
        ("2 3", 3, "expected an operator"),
        ("foo(1)", 1, "unknown name `foo`"),
        ("sqrt 4", 1, "is a function"),
        ("max()", 1, "one or more"),
        ("sqrt(1, 2)", 1, "one argument"),
        ("round(1, 0.5)", 1, "whole number"),
        ("pi(1)", 1, "constant"),
        ("1e+", 2, "exponent"),
        ("   ", 1, "empty"),
    ] {
        let e = calc::evaluate(text).expect_err(text);
        assert_eq!(e.column, column, "{text}: {e}");
        assert!(e.message.contains(words), "{text}: {e}");
    }
    let deep = calc::evaluate(&"(".repeat(100)).unwrap_err();
    assert_eq!((deep.column, deep.message.contains("nested")), (65, true));
    let long = calc::evaluate(&"1+".repeat(300)).unwrap_err();
    assert!(long.message.contains("longer than"), "{long}");
    assert_eq!(calculator::to_json(0.1 + 0.2), Some(json!(0.3)));
    assert_eq!(calculator::to_json(-0.0), Some(json!(0)));
    assert_eq!(calculator::to_json(1e20), Some(json!(1e20)));
}

#[tokio::test]
async fn search_finds_a_chinese_word_and_makes_citable_evidences() {
    let w = world();
    let found = w
        .call("search_context", json!({"query": "续订"}))
        .await
        .unwrap();
    assert_eq!(
        (found["scope"].as_str(), found["count"].as_u64()),
        (Some("conversation"), Some(1))
    );
    let hit = &found["hits"][0];
    assert_eq!(
        (hit["kind"].as_str(), hit["role"].as_str()),
        (Some("message"), Some("user"))
    );
    assert_eq!(hit["conversation_id"], "conv_a");
    assert!(hit["snippet"].as_str().unwrap().contains("续订"));
    let evidence_id = hit["evidence_id"].as_str().unwrap().to_owned();

    let stored = w
        .store
        .evidence("conv_a", &evidence_id)
        .unwrap()
        .unwrap()
        .evidence;
    assert_eq!(stored.content, Some(json!("包周期续订的接口是？")));
    assert_eq!(stored.source.name.as_deref(), Some("search_context"));
    assert_eq!(
        stored.source.uri.as_deref(),
        Some(
            format!(
                "tessera://conversations/conv_a/messages/{}",
                hit["id"].as_str().unwrap()
            )
            .as_str()
        )
    );
    assert_eq!(stored.links.unwrap().tool_call_id.as_deref(), Some("c1"));
    assert_eq!(stored.metadata.unwrap()["found"]["id"], hit["id"]);

    // Searching again finds the message and the evidence copy: one hit, no new evidence.
    let again = w
        .call("search_context", json!({"query": "续订"}))
        .await
        .unwrap();
    assert_eq!(again["count"], 1);
    assert_eq!(again["hits"][0]["evidence_id"], evidence_id.as_str());
    assert_eq!(again["hits"][0]["kind"], "message");
    assert_eq!(w.store.evidences("conv_a").unwrap().len(), 1);

    // Wider: the other conversation's message becomes an evidence here, pointing there.
    let wide = w
        .call(
            "search_context",
            json!({"query": "续订", "all_conversations": true, "limit": 5}),
        )
        .await
        .unwrap();
    assert_eq!(wide["scope"], "all_conversations");
    let from_b: Vec<&Value> = wide["hits"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|h| h["conversation_id"] == "conv_b")
        .collect();
    assert_eq!(from_b.len(), 1, "{wide}");
    let cited = from_b[0]["evidence_id"].as_str().unwrap();
    assert!(w.store.evidence("conv_a", cited).unwrap().is_some());
    assert!(w.store.evidences("conv_b").unwrap().is_empty());

    let none = w
        .call("search_context", json!({"query": "retirement"}))
        .await
        .unwrap();
    assert_eq!(none["count"], 0);
}

#[tokio::test]
async fn search_finds_a_long_answer_stored_a_moment_before() {
    let w = world();
    // A long answer is indexed after it is stored (see the store's `search_backlog`).
    let filler: String = (0..20_000).map(|i| format!("w{i} ")).collect();
    let answer = w
        .store
        .append_message(
            "conv_a",
            NewMessage::new(text_message(Role::Assistant, format!("{filler} 退订"))),
        )
        .unwrap();
    let found = w
        .call("search_context", json!({"query": "退订"}))
        .await
        .unwrap();
    assert_eq!(found["count"], 1, "{found}");
    assert_eq!(found["hits"][0]["id"], answer.id.as_str());
    assert_eq!(found["hits"][0]["role"], "assistant");
}

#[tokio::test]
async fn search_refuses_bad_arguments() {
    let w = world();
    let over = w
        .call("search_context", json!({"query": "x", "limit": 51}))
        .await;
    rejected(over, "INVALID_ARGUMENTS", "limit: ");
    let missing = w.call("search_context", json!({"limit": 3})).await;
    rejected(missing, "INVALID_ARGUMENTS", "query: required");
    let wide = w
        .call(
            "search_context",
            json!({"query": "x", "all_conversations": "yes"}),
        )
        .await;
    rejected(wide, "INVALID_ARGUMENTS", "all_conversations: ");
    let empty = w.call("search_context", json!({"query": "？！"})).await;
    rejected(empty, "INVALID_ARGUMENTS", "no words");
}

#[tokio::test]
async fn memories_are_saved_replaced_by_key_and_found() {
    let w = world();
    let first = w
        .call(
            "save_memory",
            json!({"content": "Prefers answers in Chinese", "key": "language"}),
        )
        .await
        .unwrap();
    assert_eq!(
        first,
        json!({"block_id": "memory:language", "scope": "conversation", "key": "language", "replaced": false})
    );
    let second = w
        .call(
            "save_memory",
            json!({"content": "Prefers answers in English", "key": "language"}),
        )
        .await
        .unwrap();
    assert_eq!(second["replaced"], true);
    let loose = w
        .call("save_memory", json!({"content": "Works with Python daily"}))
        .await
        .unwrap();
    assert_eq!(loose["key"], Value::Null);
    // Beyond the conversation only with the person's consent: a direct run, where nobody is
    // asked, is refused at the gate and keeps nothing.
    let (results, _) = w
        .run(&[(
            "c9",
            "save_memory",
            json!({"content": "Everyone should know", "scope": "everywhere"}),
        )])
        .await;
    assert_eq!(results[0].status.as_str(), "DENIED");
    assert!(w.store.memories(None, None).unwrap().is_empty());

    let blocks = w.store.context_blocks("conv_a").unwrap();
    assert_eq!(blocks.len(), 2);
    assert!(blocks
        .iter()
        .all(|b| b.block_type == BlockType::Memory && b.priority == Priority::High));
    let language = blocks
        .iter()
        .find(|b| b.block_id == "memory:language")
        .unwrap();
    assert_eq!(
        language.content.as_deref(),
        Some("Prefers answers in English")
    );
    assert_eq!(language.extra["saved_by"]["tool_call_id"], "c1");
    assert_eq!(language.extra["saved_by"]["run_id"], "run_1");

    let found = w
        .call("search_context", json!({"query": "python"}))
        .await
        .unwrap();
    assert_eq!(found["count"], 1, "{found}");
    assert_eq!(found["hits"][0]["kind"], "memory");
    assert_eq!(found["hits"][0]["id"], loose["block_id"]);

    let bad_key = w
        .call("save_memory", json!({"content": "x", "key": "not a key!"}))
        .await;
    rejected(bad_key, "INVALID_ARGUMENTS", "key: ");
    let empty = w.call("save_memory", json!({"content": ""})).await;
    rejected(empty, "INVALID_ARGUMENTS", "content: ");
    let blank = w.call("save_memory", json!({"content": "   "})).await;
    rejected(blank, "INVALID_ARGUMENTS", "content: ");
}

/// Seed 001 §4: the calls before `save_memory` run together, it waits for all of them and runs
/// alone, and the call after it waits for it (it used to overlap the calls that do not touch
/// memory).
#[tokio::test]
async fn the_memory_write_drains_the_calls_before_it_and_runs_alone() {
    let w = world();
    let (results, sink) = w
        .run(&[
            ("search", "search_context", json!({"query": "续订"})),
            ("calc", "calculator", json!({"expression": "6 * 7"})),
            (
                "save",
                "save_memory",
                json!({"content": "Asked about renewals", "key": "topic"}),
            ),
            ("now", "get_current_datetime", json!({})),
        ])
        .await;
    let statuses: Vec<&str> = results.iter().map(|r| r.status.as_str()).collect();
    assert_eq!(statuses, ["SUCCESS"; 4]);
    assert_eq!(results[1].result.as_ref().unwrap()["result"], 42);

    let events = stream(&sink);
    let (_, graph) = events.iter().find(|(t, _)| t == "graph").unwrap();
    let edges: Vec<(&str, &str, &str, Option<&str>)> = graph["edges"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| {
            (
                e["from"].as_str().unwrap(),
                e["to"].as_str().unwrap(),
                e["kind"].as_str().unwrap(),
                e["resource"].as_str(),
            )
        })
        .collect();
    assert_eq!(
        edges,
        [
            ("search", "save", "conflict", Some("memory")),
            ("calc", "save", "conflict", None),
            ("save", "now", "conflict", None),
        ]
    );

    // The two calls before the write start together (before either ends) …
    let first_result = events.iter().position(|(t, _)| t == "tool_result").unwrap();
    for id in ["search", "calc"] {
        assert!(
            position(&events, "tool_started", id).unwrap() < first_result,
            "{id}"
        );
    }
    // … the write starts once both have ended, and the call after it once it has.
    for earlier in ["search", "calc"] {
        assert!(
            before(&events, "tool_result", earlier, "tool_started", "save"),
            "{earlier}"
        );
    }
    assert!(before(
        &events,
        "tool_result",
        "save",
        "tool_started",
        "now"
    ));
    let (_, save_call) = events
        .iter()
        .find(|(t, p)| t == "tool_call" && p["tool_call_id"] == "save")
        .unwrap();
    assert_eq!(save_call["depends_on"], json!(["search", "calc"]));
}

#[tokio::test]
async fn the_conversation_comes_from_the_executor() -> R {
    let w = world();
    let sink = Arc::new(CollectingSink::new());
    let executor = Executor::new(w.registry.clone(), sink, ExecutorOptions::new("conv_b"));
    let request: ToolCallRequest = serde_json::from_value(json!({"calls": [
        {"callId": "m", "name": "save_memory", "parameters": {"content": "B's fact", "key": "k"}},
        {"callId": "s", "name": "search_context", "parameters": {"query": "续订"}}
    ]}))?;
    let response = executor
        .run_tool_calls(&request, &CancellationToken::new())
        .await?;
    assert!(response
        .results
        .iter()
        .all(|r| r.status.as_str() == "SUCCESS"));
    assert_eq!(w.store.context_blocks("conv_b")?.len(), 1);
    assert!(w.store.context_blocks("conv_a")?.is_empty());
    let hits = &response.results[1].result.as_ref().unwrap()["hits"];
    assert_eq!(hits[0]["conversation_id"], "conv_b");
    assert_eq!(w.store.evidences("conv_b")?.len(), 1);
    Ok(())
}
