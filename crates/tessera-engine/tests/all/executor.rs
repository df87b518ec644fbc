//! The executor on real tokio tasks and timers (the clock paused where calls sleep, so waits
//! take no wall time): parallelism within conflicts, order of results, timeouts, cancellation,
//! validation, references, refusal. Recovery, ASYNC, modes and events: `executor_modes.rs`.

use crate::exec_support;

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use exec_support::*;
use serde_json::{json, Value};
use tessera_engine::executor::{Executor, ExecutorOptions};
use tessera_engine::tools::{ToolContext, ToolFailure, ToolRegistry, ToolSpec};
use tokio::sync::Barrier;
use tokio_util::sync::CancellationToken;

#[tokio::test(start_paused = true)]
async fn independent_safe_calls_overlap() -> R {
    let mut r = ToolRegistry::new();
    let barrier = Arc::new(Barrier::new(3));
    meeter(
        &mut r,
        ToolSpec::new("search_a", "").timeout_ms(5_000),
        barrier.clone(),
    )?;
    meeter(
        &mut r,
        ToolSpec::new("search_b", "").timeout_ms(5_000),
        barrier.clone(),
    )?;
    meeter(
        &mut r,
        ToolSpec::new("get_c", "").timeout_ms(5_000),
        barrier,
    )?;
    let h = harness(r);
    let req = request(
        json!({"calls": [call("1", "search_a"), call("2", "search_b"), call("3", "get_c")]}),
    )?;
    let resp = h
        .executor
        .run_tool_calls(&req, &CancellationToken::new())
        .await?;
    // Each call only finishes once all three are running together.
    assert_eq!(
        statuses(&resp),
        vec![
            ("1".into(), "SUCCESS"),
            ("2".into(), "SUCCESS"),
            ("3".into(), "SUCCESS")
        ]
    );
    Ok(())
}

#[tokio::test(start_paused = true)]
async fn a_side_effecting_call_without_resources_overlaps_nothing_and_keeps_the_order() -> R {
    let mut r = ToolRegistry::new();
    let c = Arc::new(Concurrency::default());
    sleeper(
        &mut r,
        ToolSpec::new("invoke_policy_expert", ""),
        30,
        c.clone(),
    )?;
    sleeper(
        &mut r,
        ToolSpec::new("invoke_case_analyst", ""),
        10,
        c.clone(),
    )?;
    sleeper(&mut r, ToolSpec::new("save_user_memory", ""), 5, c.clone())?;
    sleeper(
        &mut r,
        ToolSpec::new("invoke_assessment_expert", ""),
        5,
        c.clone(),
    )?;
    let h = harness(r);
    let req = request(json!({"calls": [
        call("policy", "invoke_policy_expert"), call("case", "invoke_case_analyst"),
        call("save", "save_user_memory"), call("assess", "invoke_assessment_expert")]}))?;
    let resp = h
        .executor
        .run_tool_calls(&req, &CancellationToken::new())
        .await?;
    assert!(resp.results.iter().all(|r| r.status.as_str() == "SUCCESS"));
    let ev = stream(&h.sink);
    for earlier in ["policy", "case"] {
        assert!(
            before(&ev, "tool_result", earlier, "tool_started", "save"),
            "{earlier}"
        );
    }
    assert!(before(&ev, "tool_result", "save", "tool_started", "assess"));
    // policy and case did run together.
    assert_eq!(c.max(), 2);
    Ok(())
}

/// Seed 001 §4: a side-effecting call runs alone even when it declares its resources. Before,
/// `save_memory` (writes `memory`) overlapped `fetch_web` (reads `web`).
#[tokio::test(start_paused = true)]
async fn a_writer_runs_alone_even_beside_calls_on_other_resources() -> R {
    let mut r = ToolRegistry::new();
    let c = Arc::new(Concurrency::default());
    sleeper(
        &mut r,
        ToolSpec::new("get_memory", "").reads(["memory"]),
        20,
        c.clone(),
    )?;
    sleeper(
        &mut r,
        ToolSpec::new("save_memory", "").writes(["memory"]),
        10,
        c.clone(),
    )?;
    sleeper(
        &mut r,
        ToolSpec::new("fetch_web", "").safe(true).reads(["web"]),
        10,
        c.clone(),
    )?;
    sleeper(&mut r, ToolSpec::new("get_time", ""), 10, c.clone())?;
    let h = harness(r);
    let req = request(
        json!({"calls": [call("read", "get_memory"), call("write", "save_memory"),
        call("web", "fetch_web"), call("time", "get_time")]}),
    )?;
    let resp = h
        .executor
        .run_tool_calls(&req, &CancellationToken::new())
        .await?;
    assert!(resp.results.iter().all(|r| r.status.as_str() == "SUCCESS"));
    let ev = stream(&h.sink);
    assert!(before(&ev, "tool_result", "read", "tool_started", "write"));
    for later in ["web", "time"] {
        assert!(
            before(&ev, "tool_result", "write", "tool_started", later),
            "{later} started while the writer ran"
        );
    }
    // The safe calls after it still ran together.
    assert_eq!(c.max(), 2);
    Ok(())
}

#[tokio::test(start_paused = true)]
async fn results_follow_the_request_order_not_the_finishing_order() -> R {
    let mut r = ToolRegistry::new();
    let c = Arc::new(Concurrency::default());
    sleeper(&mut r, ToolSpec::new("get_slow", ""), 40, c.clone())?;
    sleeper(&mut r, ToolSpec::new("get_fast", ""), 1, c.clone())?;
    let h = harness(r);
    let req = request(json!({"calls": [call("slow", "get_slow"), call("fast", "get_fast")]}))?;
    let resp = h
        .executor
        .run_tool_calls(&req, &CancellationToken::new())
        .await?;
    let ids: Vec<&str> = resp.results.iter().map(|r| r.call_id.as_str()).collect();
    assert_eq!(ids, vec!["slow", "fast"]);
    let ev = stream(&h.sink);
    assert!(before(&ev, "tool_result", "fast", "tool_result", "slow"));
    assert_eq!(resp.results[0].execution_time, Some(40));
    Ok(())
}

#[tokio::test(start_paused = true)]
async fn the_concurrency_limit_is_honoured() -> R {
    let mut r = ToolRegistry::new();
    let c = Arc::new(Concurrency::default());
    sleeper(&mut r, ToolSpec::new("get_x", ""), 10, c.clone())?;
    let sink = Arc::new(tessera_engine::executor::CollectingSink::new());
    let ex = Executor::new(
        Arc::new(r),
        sink,
        ExecutorOptions::new("c").concurrency_limit(3),
    );
    let calls: Vec<Value> = (0..12).map(|i| call(&format!("c{i}"), "get_x")).collect();
    let resp = ex
        .run_tool_calls(
            &request(json!({"calls": calls}))?,
            &CancellationToken::new(),
        )
        .await?;
    assert_eq!(resp.results.len(), 12);
    assert_eq!(c.max(), 3);
    assert_eq!(c.calls(), 12);
    Ok(())
}

#[tokio::test(start_paused = true)]
async fn a_call_past_its_timeout_is_timeout_and_the_others_finish() -> R {
    let mut r = ToolRegistry::new();
    let c = Arc::new(Concurrency::default());
    sleeper(
        &mut r,
        ToolSpec::new("get_hang", "").timeout_ms(60_000),
        10_000,
        c.clone(),
    )?;
    sleeper(&mut r, ToolSpec::new("get_ok", ""), 5, c.clone())?;
    let h = harness(r);
    let req = request(json!({"calls": [
        {"callId": "hang", "name": "get_hang", "parameters": {}, "timeout": 0.05},
        call("ok", "get_ok")]}))?;
    let resp = h
        .executor
        .run_tool_calls(&req, &CancellationToken::new())
        .await?;
    assert_eq!(
        statuses(&resp),
        vec![("hang".into(), "TIMEOUT"), ("ok".into(), "SUCCESS")]
    );
    let err = resp.results[0].why().ok_or("no error")?;
    assert_eq!(err.code, "TIMEOUT");
    assert!(err.message.contains("50 ms"), "{}", err.message);
    assert_eq!(resp.results[0].execution_time, Some(50));
    let ev = stream(&h.sink);
    let i = position(&ev, "tool_result", "hang").ok_or("no result")?;
    assert_eq!(ev[i].1["status"], "timeout");
    assert_eq!(ev[i].1["duration_ms"], 50);
    Ok(())
}

#[tokio::test(start_paused = true)]
async fn the_set_timeout_stops_what_runs_and_what_waits_keeping_finished_results() -> R {
    let mut r = ToolRegistry::new();
    let c = Arc::new(Concurrency::default());
    sleeper(&mut r, ToolSpec::new("get_quick", ""), 10, c.clone())?;
    sleeper(&mut r, ToolSpec::new("get_slow", ""), 5_000, c.clone())?;
    let h = harness(r);
    let req = request(json!({"timeout": 1, "calls": [
        call("quick", "get_quick"), call("slow", "get_slow"),
        {"callId": "after", "name": "get_quick", "parameters": {}, "requiredAfter": ["slow"]}]}))?;
    let resp = h
        .executor
        .run_tool_calls(&req, &CancellationToken::new())
        .await?;
    assert_eq!(
        statuses(&resp),
        vec![
            ("quick".into(), "SUCCESS"),
            ("slow".into(), "TIMEOUT"),
            ("after".into(), "TIMEOUT")
        ]
    );
    let after = resp.results[2].why().ok_or("no error")?;
    assert!(
        after.message.starts_with("not started"),
        "{}",
        after.message
    );
    assert_eq!(resp.results[1].execution_time, Some(1000));
    assert!(stream(&h.sink).iter().any(|(t, _)| t == "queue_drained"));
    Ok(())
}

#[tokio::test]
async fn cancelling_the_set_stops_running_tools() -> R {
    let mut r = ToolRegistry::new();
    let started = Arc::new(tokio::sync::Notify::new());
    let dropped = Arc::new(AtomicBool::new(false));
    struct Guard(Arc<AtomicBool>);
    impl Drop for Guard {
        fn drop(&mut self) {
            self.0.store(true, Ordering::SeqCst);
        }
    }
    {
        let started = started.clone();
        let dropped = dropped.clone();
        r.register(
            ToolSpec::new("get_forever", ""),
            move |_a: Value, _c: ToolContext| {
                let started = started.clone();
                let guard = Guard(dropped.clone());
                async move {
                    let _guard = guard;
                    started.notify_one();
                    std::future::pending::<()>().await;
                    Ok::<Value, ToolFailure>(Value::Null)
                }
            },
        )?;
    }
    let h = harness(r);
    let req = request(json!({"calls": [call("a", "get_forever"),
        {"callId": "b", "name": "get_forever", "parameters": {}, "requiredAfter": ["a"]}]}))?;
    let cancel = CancellationToken::new();
    let ex = h.executor.clone();
    let task_cancel = cancel.clone();
    let task = tokio::spawn(async move { ex.run_tool_calls(&req, &task_cancel).await });
    started.notified().await;
    cancel.cancel();
    let resp = task.await??;
    assert_eq!(
        statuses(&resp),
        vec![("a".into(), "CANCELLED"), ("b".into(), "CANCELLED")]
    );
    assert!(
        dropped.load(Ordering::SeqCst),
        "the running tool was not stopped"
    );
    Ok(())
}

#[tokio::test]
async fn invalid_arguments_name_the_field_and_the_tool_does_not_run() -> R {
    let mut r = ToolRegistry::new();
    let c = Arc::new(Concurrency::default());
    sleeper(
        &mut r,
        ToolSpec::new("search_knowledge", "").input_schema(json!({
            "type": "object", "properties": {"query": {"type": "string"}, "limit": {"type": "integer"}},
            "required": ["query"]})),
        0,
        c.clone(),
    )?;
    let h = harness(r);
    let req = request(json!({"calls": [
        {"callId": "bad", "name": "search_knowledge", "parameters": {"limit": "ten"}},
        {"callId": "good", "name": "search_knowledge", "parameters": {"query": "visa"}},
        {"callId": "ghost", "name": "no_such_tool", "parameters": {}}]}))?;
    let resp = h
        .executor
        .run_tool_calls(&req, &CancellationToken::new())
        .await?;
    assert_eq!(
        statuses(&resp),
        vec![
            ("bad".into(), "ERROR"),
            ("good".into(), "SUCCESS"),
            ("ghost".into(), "NOT_FOUND")
        ]
    );
    let err = resp.results[0].why().ok_or("no error")?;
    assert_eq!(err.code, "INVALID_ARGUMENTS");
    assert!(err.message.contains("query: required"), "{}", err.message);
    assert!(err.message.contains("limit: "), "{}", err.message);
    assert_eq!(c.calls(), 1);
    assert_eq!(
        resp.results[2].why().map(|e| e.code),
        Some("TOOL_NOT_FOUND".to_owned())
    );
    Ok(())
}

#[tokio::test]
async fn references_are_substituted_with_their_types_and_shown_in_tool_call_events() -> R {
    let mut r = ToolRegistry::new();
    r.register(
        ToolSpec::new("file_picker", "").safe(true),
        |_a: Value, _c: ToolContext| async {
            Ok::<_, ToolFailure>(
                json!({"fileId": "f-7", "fileData": {"w": 640, "h": 480}, "tags": ["cat"]}),
            )
        },
    )?;
    r.register(
        ToolSpec::new("image_analyze", "").safe(true),
        |a: Value, _c: ToolContext| async move { Ok::<_, ToolFailure>(json!({"got": a})) },
    )?;
    let h = harness(r);
    let req = request(json!({"calls": [
        call("pick", "file_picker"),
        {"callId": "analyze", "name": "image_analyze", "parameters": {
            "imageData": "${results.pick.result.fileData}",
            "firstTag": "${results.pick.result.tags[0]}",
            "caption": "file ${results.pick.result.fileId} is ${results.pick.result.fileData.w}px wide"}},
        {"callId": "broken", "name": "image_analyze", "parameters": {
            "x": "${results.pick.result.nothing_here}"}}]}))?;
    let resp = h
        .executor
        .run_tool_calls(&req, &CancellationToken::new())
        .await?;
    assert_eq!(
        resp.results[1].result,
        Some(
            json!({"got": {"imageData": {"w": 640, "h": 480}, "firstTag": "cat",
                            "caption": "file f-7 is 640px wide"}})
        )
    );
    let ev = stream(&h.sink);
    let i = position(&ev, "tool_call", "analyze").ok_or("no tool_call")?;
    assert_eq!(
        ev[i].1["arguments"]["imageData"],
        json!({"w": 640, "h": 480})
    );
    assert_eq!(ev[i].1["depends_on"], json!(["pick"]));
    // Required after the call it also references: the reference still finds the result.
    let both = request(json!({"calls": [
        call("pick", "file_picker"),
        {"callId": "analyze", "name": "image_analyze", "requiredAfter": ["pick"],
         "parameters": {"id": "${results.pick.result.fileId}"}}]}))?;
    let resp_both = h
        .executor
        .run_tool_calls(&both, &CancellationToken::new())
        .await?;
    assert_eq!(
        resp_both.results[1].result,
        Some(json!({"got": {"id": "f-7"}}))
    );
    assert_eq!(resp.results[2].status.as_str(), "ERROR");
    let err = resp.results[2].why().ok_or("no error")?;
    assert_eq!(err.code, "DEPENDENCY_ERROR");
    assert!(err.message.contains("nothing_here"), "{}", err.message);
    assert_eq!(
        position(&ev, "tool_call", "broken"),
        None,
        "a broken call is never announced as called"
    );
    Ok(())
}

#[tokio::test]
async fn a_failure_sinks_only_the_calls_that_declared_they_depend_on_it() -> R {
    let mut r = ToolRegistry::new();
    let c = Arc::new(Concurrency::default());
    failing(&mut r, ToolSpec::new("get_broken", ""), false)?;
    sleeper(&mut r, ToolSpec::new("get_fine", ""), 0, c.clone())?;
    let h = harness(r);
    let req = request(
        json!({"calls": [call("a", "get_broken"), call("b", "get_fine"),
        {"callId": "c", "name": "get_fine", "parameters": {}, "requiredAfter": ["a"]}]}),
    )?;
    let resp = h
        .executor
        .run_tool_calls(&req, &CancellationToken::new())
        .await?;
    assert_eq!(
        statuses(&resp),
        vec![
            ("a".into(), "ERROR"),
            ("b".into(), "SUCCESS"),
            ("c".into(), "ERROR")
        ]
    );
    assert_eq!(
        resp.results[2].why().map(|e| e.code),
        Some("DEPENDENCY_ERROR".to_owned())
    );
    assert_eq!(c.calls(), 1);
    Ok(())
}

#[tokio::test]
async fn a_cycle_or_an_unknown_reference_is_refused_before_anything_runs() -> R {
    let mut r = ToolRegistry::new();
    let c = Arc::new(Concurrency::default());
    sleeper(&mut r, ToolSpec::new("get_x", ""), 0, c.clone())?;
    let h = harness(r);
    let cyclic = request(json!({"calls": [
        {"callId": "a", "name": "get_x", "parameters": {"v": "${results.b.result}"}},
        {"callId": "b", "name": "get_x", "parameters": {}, "requiredAfter": ["a"]},
        call("free", "get_x")]}))?;
    let err = h
        .executor
        .run_tool_calls(&cyclic, &CancellationToken::new())
        .await
        .err()
        .ok_or("ran")?;
    assert!(err.to_string().starts_with("dependency cycle: "), "{err}");
    assert!(
        err.to_string().contains("a -> b") || err.to_string().contains("b -> a"),
        "{err}"
    );
    let dangling = request(json!({"calls": [
        {"callId": "a", "name": "get_x", "parameters": {}, "requiredAfter": ["zzz"]}]}))?;
    let err = h
        .executor
        .run_tool_calls(&dangling, &CancellationToken::new())
        .await
        .err()
        .ok_or("ran")?;
    assert_eq!(
        err.to_string(),
        "`a` depends on `zzz`, which does not exist"
    );
    assert_eq!(c.calls(), 0);
    assert!(h.sink.events().is_empty());
    Ok(())
}
