//! The executor, continued: recovery (retries, fallbacks, abort), ASYNC and the store, execution
//! modes, events. Real tokio tasks and timers, the clock paused where calls sleep.

use crate::exec_support;

use std::sync::Arc;
use std::time::Duration;

use exec_support::*;
use serde_json::{json, Value};
use tessera_engine::event_log::EventLog;
use tessera_engine::executor::{Executor, ExecutorOptions};
use tessera_engine::tools::{
    RetryPolicy, ToolContext, ToolFailure, ToolKind, ToolRegistry, ToolSpec,
};
use tessera_protocol::mcp_cp::Runtime;
use tokio::sync::Barrier;
use tokio_util::sync::CancellationToken;

#[tokio::test(start_paused = true)]
async fn recoverable_failures_are_retried_with_backoff() -> R {
    let mut r = ToolRegistry::new();
    let file = json!({
        "get_flaky": {"safe": true, "latency_ms": 5, "fail_times": 2, "max_attempts": 3,
                      "backoff_ms": 100, "result": {"ok": true}},
        "get_hopeless": {"safe": true, "error": {"code": "BROKEN", "message": "no", "retryable": false}}
    });
    tessera_engine::tools::simulated::register_all(&mut r, &file)?;
    let h = harness(r);
    let req =
        request(json!({"calls": [call("flaky", "get_flaky"), call("hopeless", "get_hopeless")]}))?;
    let resp = h
        .executor
        .run_tool_calls(&req, &CancellationToken::new())
        .await?;
    assert_eq!(
        statuses(&resp),
        vec![("flaky".into(), "SUCCESS"), ("hopeless".into(), "ERROR")]
    );
    // 3 attempts of 5 ms, waits of 100 and 200 ms.
    assert_eq!(resp.results[0].execution_time, Some(315));
    let ev = stream(&h.sink);
    let retries: Vec<&Value> = ev
        .iter()
        .filter(|(t, _)| t == "error")
        .map(|(_, p)| p)
        .collect();
    assert_eq!(retries.len(), 2);
    assert_eq!(retries[0]["retryable"], true);
    assert_eq!(retries[1]["detail"]["backoff_ms"], 200);
    let i = position(&ev, "tool_result", "flaky").ok_or("no result")?;
    assert_eq!(ev[i].1["attempts"], 3);
    Ok(())
}

#[tokio::test]
async fn fallbacks_use_an_alternative_skip_or_abort() -> R {
    let mut r = ToolRegistry::new();
    let c = Arc::new(Concurrency::default());
    failing(
        &mut r,
        ToolSpec::new("web_search", "")
            .safe(true)
            .alternative("search_cache")
            .retry(RetryPolicy::none()),
        true,
    )?;
    sleeper(&mut r, ToolSpec::new("search_cache", ""), 0, c.clone())?;
    failing(&mut r, ToolSpec::new("get_screen", "").safe(true), false)?;
    let h = harness(r);
    let req = request(json!({"calls": [
        {"callId": "alt", "name": "web_search", "parameters": {"q": "x"}, "fallbackBehavior": "USE_ALTERNATIVE"},
        {"callId": "skip", "name": "get_screen", "parameters": {}, "fallbackBehavior": "SKIP"},
        {"callId": "next", "name": "search_cache", "parameters": {}, "requiredAfter": ["skip"]}]}))?;
    let resp = h
        .executor
        .run_tool_calls(&req, &CancellationToken::new())
        .await?;
    assert_eq!(
        statuses(&resp),
        vec![
            ("alt".into(), "SUCCESS"),
            ("skip".into(), "SKIPPED"),
            ("next".into(), "SUCCESS")
        ]
    );
    // The result says which tool answered, for the model that reads it alone.
    assert_eq!(
        resp.results[0].result,
        Some(
            json!({"tool": "search_cache", "args": {"q": "x"}, "alternativeTool": "search_cache"})
        )
    );
    assert_eq!(
        resp.results[0].extra.get("alternativeTool"),
        Some(&json!("search_cache"))
    );
    Ok(())
}

#[tokio::test(start_paused = true)]
async fn abort_stops_the_set_and_keeps_partial_results() -> R {
    let mut r = ToolRegistry::new();
    let c = Arc::new(Concurrency::default());
    sleeper(&mut r, ToolSpec::new("get_done", ""), 1, c.clone())?;
    sleeper(&mut r, ToolSpec::new("get_long", ""), 10_000, c.clone())?;
    r.register(
        ToolSpec::new("get_fatal", "").safe(true),
        |_a: Value, _c: ToolContext| async {
            tokio::time::sleep(Duration::from_millis(10)).await;
            Err::<Value, _>(ToolFailure::reported("FATAL", "disk gone"))
        },
    )?;
    let h = harness(r);
    let req = request(json!({"calls": [
        call("done", "get_done"), call("long", "get_long"),
        {"callId": "fatal", "name": "get_fatal", "parameters": {}, "fallbackBehavior": "ABORT"},
        {"callId": "later", "name": "get_done", "parameters": {}, "requiredAfter": ["long"]}]}))?;
    let resp = h
        .executor
        .run_tool_calls(&req, &CancellationToken::new())
        .await?;
    assert_eq!(
        statuses(&resp),
        vec![
            ("done".into(), "SUCCESS"),
            ("long".into(), "CANCELLED"),
            ("fatal".into(), "ERROR"),
            ("later".into(), "CANCELLED")
        ]
    );
    assert_eq!(
        resp.results[1].why().map(|e| e.code),
        Some("ABORTED".to_owned())
    );
    assert!(resp.results[0].result.is_some());
    Ok(())
}

#[tokio::test]
async fn async_answers_at_once_and_results_arrive_as_events_and_in_the_store() -> R {
    let dir = tempfile::tempdir()?;
    let store = Arc::new(tessera_store::Store::open(dir.path())?);
    store.create_conversation(tessera_store::NewConversation {
        id: Some("conv_async".into()),
        ..Default::default()
    })?;
    let gate = Arc::new(tokio::sync::Notify::new());
    let mut r = ToolRegistry::new();
    {
        let gate = gate.clone();
        r.register(
            ToolSpec::new("get_report", "").safe(true),
            move |_a: Value, _c: ToolContext| {
                let gate = gate.clone();
                async move {
                    gate.notified().await;
                    Ok::<_, ToolFailure>(json!({"pages": 3}))
                }
            },
        )?;
    }
    let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
    let store_sink = Arc::new(EventLog::new(store.clone(), "conv_async"));
    let log = Arc::clone(&store_sink);
    let sink = Arc::new(move |e: tessera_protocol::easyflow::Event| {
        let _ = tx.send(e.clone());
        tessera_engine::executor::EventSink::emit(&*log, e);
    });
    let ex = Executor::new(Arc::new(r), sink, ExecutorOptions::new("conv_async"));
    let req = request(json!({"executionMode": "ASYNC", "calls": [call("rep", "get_report")]}))?;
    let run = ex.start_tool_calls(req)?;
    // The tool is still waiting for the gate: this answer came first.
    assert!(run.acknowledgement.results.is_empty());
    assert_eq!(
        run.acknowledgement.extra.get("accepted"),
        Some(&json!(["rep"]))
    );
    gate.notify_one();
    let result_event = loop {
        let e = rx.recv().await.ok_or("stream ended")?;
        if e.body.event_type() == "tool_result" {
            break e;
        }
    };
    let v = serde_json::to_value(&result_event)?;
    assert_eq!(v["payload"]["result"], json!({"pages": 3}));
    let full = run.completion.await?;
    assert_eq!(full.results[0].status.as_str(), "SUCCESS");
    tessera_engine::executor::EventSink::settle(&*store_sink);
    let records = store.tool_calls("conv_async")?;
    assert_eq!(records.len(), 1);
    assert_eq!(
        records[0].record.status.map(|s| s.as_str()),
        Some("success")
    );
    assert_eq!(records[0].record.tool.as_deref(), Some("get_report"));
    let logged = store.events_after("conv_async", None, None)?;
    assert!(logged
        .iter()
        .any(|e| e.event.body.event_type() == "tool_result"));
    Ok(())
}

#[tokio::test(start_paused = true)]
async fn sequential_runs_one_call_at_a_time() -> R {
    let mut r = ToolRegistry::new();
    let c = Arc::new(Concurrency::default());
    sleeper(&mut r, ToolSpec::new("get_x", ""), 10, c.clone())?;
    let h = harness(r);
    let calls: Vec<Value> = (0..4).map(|i| call(&format!("s{i}"), "get_x")).collect();
    let req = request(json!({"executionMode": "SEQUENTIAL", "calls": calls}))?;
    h.executor
        .run_tool_calls(&req, &CancellationToken::new())
        .await?;
    assert_eq!(c.max(), 1);
    let ev = stream(&h.sink);
    for i in 0..3 {
        assert!(before(
            &ev,
            "tool_result",
            &format!("s{i}"),
            "tool_started",
            &format!("s{}", i + 1)
        ));
    }
    Ok(())
}

#[tokio::test(start_paused = true)]
async fn frontend_first_and_client_server_parallel_order_the_runtimes() -> R {
    let mut r = ToolRegistry::new();
    let c = Arc::new(Concurrency::default());
    sleeper(
        &mut r,
        ToolSpec::new("get_fe", "").kind(ToolKind::FrontEnd),
        10,
        c.clone(),
    )?;
    sleeper(&mut r, ToolSpec::new("get_be", ""), 10, c.clone())?;
    let calls = json!([
        call("be1", "get_be"),
        call("fe1", "get_fe"),
        call("be2", "get_be"),
        call("fe2", "get_fe")
    ]);
    let h = harness(r);
    let req = request(json!({"executionMode": "FRONTEND_FIRST", "calls": calls}))?;
    h.executor
        .run_tool_calls(&req, &CancellationToken::new())
        .await?;
    let ev = stream(&h.sink);
    for fe in ["fe1", "fe2"] {
        for be in ["be1", "be2"] {
            assert!(
                before(&ev, "tool_result", fe, "tool_started", be),
                "{fe} {be}"
            );
        }
    }
    // Side by side, each runtime one call at a time in its own order.
    let mut r = ToolRegistry::new();
    let barrier = Arc::new(Barrier::new(2));
    meeter(
        &mut r,
        ToolSpec::new("get_fe", "")
            .kind(ToolKind::FrontEnd)
            .timeout_ms(5_000),
        barrier.clone(),
    )?;
    meeter(
        &mut r,
        ToolSpec::new("get_be", "").timeout_ms(5_000),
        barrier,
    )?;
    let h = harness(r);
    let req = request(json!({"executionMode": "CLIENT_SERVER_PARALLEL", "calls": calls}))?;
    let resp = h
        .executor
        .run_tool_calls(&req, &CancellationToken::new())
        .await?;
    assert!(
        resp.results.iter().all(|r| r.status.as_str() == "SUCCESS"),
        "{:?}",
        statuses(&resp)
    );
    let ev = stream(&h.sink);
    assert!(before(&ev, "tool_result", "fe1", "tool_started", "fe2"));
    assert!(before(&ev, "tool_result", "be1", "tool_started", "be2"));
    Ok(())
}

#[tokio::test(start_paused = true)]
async fn frontend_timeout_bounds_the_front_end_calls_together() -> R {
    let mut r = ToolRegistry::new();
    let c = Arc::new(Concurrency::default());
    sleeper(
        &mut r,
        ToolSpec::new("get_fe", "").runtime(Runtime::Frontend),
        3_000,
        c.clone(),
    )?;
    sleeper(&mut r, ToolSpec::new("get_be", ""), 3_000, c.clone())?;
    let h = harness(r);
    let req = request(
        json!({"executionMode": "PARALLEL", "frontendTimeout": 2, "backendTimeout": 10,
        "calls": [call("fe", "get_fe"), call("be", "get_be")]}),
    )?;
    let resp = h
        .executor
        .run_tool_calls(&req, &CancellationToken::new())
        .await?;
    assert_eq!(
        statuses(&resp),
        vec![("fe".into(), "TIMEOUT"), ("be".into(), "SUCCESS")]
    );
    let msg = &resp.results[0].why().ok_or("no error")?.message;
    assert!(msg.contains("frontendTimeout of 2000 ms"), "{msg}");
    Ok(())
}

#[tokio::test]
async fn events_describe_every_state_change_and_the_graph() -> R {
    let mut r = ToolRegistry::new();
    r.register(
        ToolSpec::new("invoke_policy_expert", "").kind(ToolKind::Agent),
        |_a: Value, ctx: ToolContext| async move {
            ctx.agent_turn("policy_expert", 1, 3);
            ctx.progress(0.5, Some(1.0), Some("half way"));
            Ok::<_, ToolFailure>(json!("answer"))
        },
    )?;
    let h = harness(r);
    let req = request(json!({"calls": [call("p", "invoke_policy_expert"),
        {"callId": "q", "name": "invoke_policy_expert", "parameters": {}, "requiredAfter": ["p"]}]}))?;
    h.executor
        .run_tool_calls(&req, &CancellationToken::new())
        .await?;
    let events = h.sink.events();
    let seqs: Vec<u64> = events
        .iter()
        .filter_map(|e| e.meta.as_ref().and_then(|m| m.seq))
        .collect();
    assert_eq!(seqs, (1..=events.len() as u64).collect::<Vec<_>>());
    assert!(events
        .iter()
        .all(|e| e.meta.as_ref().and_then(|m| m.run_id.as_deref()) == Some("run_1")));
    let ev = stream(&h.sink);
    let types: Vec<&str> = ev.iter().map(|(t, _)| t.as_str()).collect();
    assert_eq!(&types[..3], &["tool_queued", "tool_queued", "graph"]);
    assert_eq!(types[types.len() - 2..], ["queue_drained", "graph"]);
    let (_, first_graph) = &ev[2];
    assert_eq!(
        first_graph["edges"],
        json!([{"from": "p", "to": "q", "kind": "after"}])
    );
    assert_eq!(first_graph["nodes"][0]["state"], "PENDING");
    assert_eq!(ev[ev.len() - 1].1["nodes"][1]["state"], "SUCCESS");
    for ty in ["tool_call", "tool_started", "tool_progress", "tool_result"] {
        assert!(position(&ev, ty, "p").is_some(), "{ty}");
    }
    let agent: Vec<&Value> = ev
        .iter()
        .filter(|(t, p)| t == "status" && p["node_kind"] == "agent" && p["node_id"] == "p")
        .map(|(_, p)| p)
        .collect();
    assert_eq!(agent.len(), 3, "{agent:?}");
    // Seed 001 §3: agent_started {agentName}, agent_progress {turn, maxTurns}, agent_completed
    // {durationMs}.
    assert!(
        agent.iter().all(|a| a["agent_name"] == "policy_expert"),
        "{agent:?}"
    );
    assert_eq!(agent[1]["turn"], 1);
    assert_eq!(agent[1]["max_turns"], 3);
    assert_eq!(agent[2]["state"], "end");
    assert!(agent[2]["duration_ms"].is_u64(), "{:?}", agent[2]);
    // Every event is a valid easyflow-chat event.
    for e in &events {
        let problems = tessera_protocol::validate(
            tessera_protocol::DocumentKind::Event,
            &serde_json::to_value(e)?,
        );
        assert!(problems.is_empty(), "{problems:?}");
    }
    Ok(())
}

/// A chain where each call passes on its predecessor's result twice, through a tool that
/// answers with its arguments: unbounded, 20 calls would hold 2^20 times the seed.
fn doubling_chain(n: usize) -> Value {
    let mut calls =
        vec![json!({"callId": "c0", "name": "echo", "parameters": {"seed": "x".repeat(100)}})];
    for k in 1..n {
        let prev = format!("${{results.c{}.result}}", k - 1);
        calls.push(json!({"callId": format!("c{k}"), "name": "echo",
                          "parameters": {"a": prev, "b": prev}}));
    }
    json!({"calls": calls, "executionMode": "SEQUENTIAL"})
}

fn echo_registry() -> Result<ToolRegistry, Box<dyn std::error::Error>> {
    let mut r = ToolRegistry::new();
    r.register(
        ToolSpec::new("echo", "answers with its arguments").safe(true),
        |args: Value, _ctx: ToolContext| async move { Ok::<_, ToolFailure>(args) },
    )?;
    Ok(r)
}

#[tokio::test]
async fn substituted_arguments_results_and_a_set_are_bounded() -> R {
    // The defaults: the chain stops at the first call whose arguments pass 1 MiB.
    let h = harness(echo_registry()?);
    let resp = h
        .executor
        .run_tool_calls(&request(doubling_chain(20))?, &CancellationToken::new())
        .await?;
    let refused = resp
        .results
        .iter()
        .find(|r| r.why().is_some_and(|e| e.code == "ARGUMENTS_TOO_LARGE"))
        .ok_or("no call was refused")?;
    assert!(refused
        .why()
        .is_some_and(|e| e.message.contains("at most 1.0 MiB")));
    let held: usize = resp
        .results
        .iter()
        .filter_map(|r| r.result.as_ref())
        .map(tessera_engine::executor::limits::json_size)
        .sum();
    assert!(held < 4 * 1024 * 1024, "{held} bytes of results held");

    // Smaller limits, each one reached.
    let limits = |a: usize, r: usize, s: usize| tessera_engine::executor::Limits {
        arguments_bytes: a,
        result_bytes: r,
        set_bytes: s,
        ..Default::default()
    };
    let run = |l: tessera_engine::executor::Limits| async move {
        let executor = Executor::new(
            Arc::new(echo_registry()?),
            Arc::new(tessera_engine::executor::NullSink),
            ExecutorOptions::new("conv_limits").limits(l),
        );
        let resp = executor
            .run_tool_calls(&request(doubling_chain(6))?, &CancellationToken::new())
            .await?;
        Ok::<_, Box<dyn std::error::Error>>(
            resp.results
                .iter()
                .map(|r| r.why().map_or("OK".to_owned(), |e| e.code))
                .collect::<Vec<_>>(),
        )
    };
    // The set's budget: what ran is kept, the rest is refused before it runs.
    assert_eq!(
        run(limits(1 << 20, 1 << 20, 2_000)).await?,
        [
            "OK",
            "OK",
            "OK",
            "SET_LIMIT_REACHED",
            "DEPENDENCY_ERROR",
            "DEPENDENCY_ERROR"
        ]
    );
    // A result over its limit is an error, and is not kept.
    assert_eq!(
        run(limits(1 << 20, 500, 1 << 20)).await?,
        [
            "OK",
            "OK",
            "OK",
            "RESULT_TOO_LARGE",
            "DEPENDENCY_ERROR",
            "DEPENDENCY_ERROR"
        ]
    );
    Ok(())
}
