//! Instruction sets (seed 000 §5, §6): dependencies, conditions, states, modes, timeouts.

use crate::exec_support;

use exec_support::*;
use serde_json::{json, Value};
use tessera_engine::tools::simulated::registry_from;
use tessera_protocol::mcp_cp::InstructionSet;
use tokio_util::sync::CancellationToken;

fn set(v: Value) -> Result<InstructionSet, serde_json::Error> {
    serde_json::from_value(v)
}

fn tools() -> Value {
    json!({
        "detect_anomaly": {"safe": true, "latency_ms": 5,
                           "result": {"anomaly_detected": true, "count": 2, "data": [1, 2, 3]}},
        "send_notification": {"latency_ms": 5},
        "broken": {"safe": true, "error": {"code": "BOOM", "message": "it broke"}},
        "slow": {"safe": true, "latency_ms": 10000}
    })
}

fn states(results: &tessera_engine::executor::InstructionResults) -> Vec<(String, &'static str)> {
    results
        .results
        .iter()
        .map(|(id, r)| (id.clone(), r.state.as_mcp_cp_str()))
        .collect()
}

#[tokio::test(start_paused = true)]
async fn the_seed_example_runs_with_data_and_conditions() -> R {
    let h = harness(registry_from(&tools())?);
    let s = set(json!({"executionMode": "SEQUENTIAL", "instructions": [
        {"instructionId": "inst_1", "action": "detect_anomaly", "parameters": {"threshold": 0.8}},
        {"instructionId": "inst_2", "action": "send_notification",
         "parameters": {"data": "${dependencies.inst_1.result.data}", "n": "count=${dependencies.inst_1.result.count}"},
         "dependencies": ["inst_1"],
         "condition": "dependencies.inst_1.result.anomaly_detected == true AND dependencies.inst_1.status == 'SUCCESS'"}
    ]}))?;
    let results = h
        .executor
        .run_instructions(&s, &CancellationToken::new())
        .await?;
    assert_eq!(
        states(&results),
        vec![
            ("inst_1".into(), "COMPLETED"),
            ("inst_2".into(), "COMPLETED")
        ]
    );
    assert_eq!(
        results.get("inst_2").and_then(|r| r.result.clone()),
        Some(json!({"arguments": {"data": [1, 2, 3], "n": "count=2"}}))
    );
    let out = results.to_json();
    assert_eq!(out["results"]["inst_1"]["status"], "COMPLETED");
    assert_eq!(out["results"]["inst_1"]["error"], Value::Null);
    Ok(())
}

#[tokio::test(start_paused = true)]
async fn a_false_condition_skips_and_so_does_a_failed_dependency() -> R {
    let h = harness(registry_from(&tools())?);
    let s = set(json!({"executionMode": "PARALLEL", "instructions": [
        {"instructionId": "a", "action": "detect_anomaly"},
        {"instructionId": "quiet", "action": "send_notification", "dependencies": ["a"],
         "condition": "dependencies.a.result.count > 10"},
        {"instructionId": "f", "action": "broken"},
        {"instructionId": "after_f", "action": "send_notification", "dependencies": ["f"]},
        {"instructionId": "after_after", "action": "send_notification", "dependencies": ["after_f"]},
        {"instructionId": "on_failure", "action": "send_notification", "dependencies": ["f"],
         "condition": "dependencies.f.status == 'FAILED'"},
        {"instructionId": "unknown", "action": "no_such_action"}
    ]}))?;
    let results = h
        .executor
        .run_instructions(&s, &CancellationToken::new())
        .await?;
    assert_eq!(
        states(&results),
        vec![
            ("a".into(), "COMPLETED"),
            ("quiet".into(), "SKIPPED"),
            ("f".into(), "FAILED"),
            ("after_f".into(), "SKIPPED"),
            ("after_after".into(), "SKIPPED"),
            ("on_failure".into(), "COMPLETED"),
            ("unknown".into(), "FAILED"),
        ]
    );
    let quiet = results
        .get("quiet")
        .and_then(|r| r.error.clone())
        .ok_or("no reason")?;
    assert!(quiet.message.contains("is false"), "{}", quiet.message);
    let after = results
        .get("after_f")
        .and_then(|r| r.error.clone())
        .ok_or("no reason")?;
    assert_eq!(after.message, "dependency `f` ended FAILED");
    let f = results
        .get("f")
        .and_then(|r| r.error.clone())
        .ok_or("no error")?;
    assert_eq!(f.code, "BOOM");
    let ev = stream(&h.sink);
    let skipped = position(&ev, "status", "quiet").ok_or("no status")?;
    assert_eq!(ev[skipped].1["state"], "skipped");
    assert_eq!(ev[skipped].1["node_kind"], "instruction");
    assert!(
        before(&ev, "status", "a", "tool_result", "a"),
        "start announced before the end"
    );
    Ok(())
}

#[tokio::test(start_paused = true)]
async fn an_instruction_timeout_and_the_set_timeout() -> R {
    let h = harness(registry_from(&tools())?);
    let s = set(json!({"timeout": 5, "instructions": [
        {"instructionId": "own", "action": "slow", "timeout": 1},
        {"instructionId": "long", "action": "slow"},
        {"instructionId": "dep", "action": "detect_anomaly", "dependencies": ["own"],
         "condition": "dependencies.own.status == 'TIMEOUT'"}
    ]}))?;
    let results = h
        .executor
        .run_instructions(&s, &CancellationToken::new())
        .await?;
    assert_eq!(
        states(&results),
        vec![
            ("own".into(), "TIMEOUT"),
            ("long".into(), "TIMEOUT"),
            ("dep".into(), "COMPLETED")
        ]
    );
    let long = results
        .get("long")
        .and_then(|r| r.error.clone())
        .ok_or("no error")?;
    assert!(
        long.message.contains("the set's timeout of 5000 ms"),
        "{}",
        long.message
    );
    Ok(())
}

#[tokio::test]
async fn a_bad_condition_or_a_cycle_refuses_the_set_before_anything_runs() -> R {
    let h = harness(registry_from(&tools())?);
    let bad = set(json!({"instructions": [
        {"instructionId": "a", "action": "detect_anomaly"},
        {"instructionId": "b", "action": "send_notification", "condition": "dependencies.a.count >> 1"}
    ]}))?;
    let err = h
        .executor
        .run_instructions(&bad, &CancellationToken::new())
        .await
        .err()
        .ok_or("ran")?;
    assert_eq!(
        err.to_string(),
        "`b`: condition `dependencies.a.count >> 1`: syntax error at column 23: expected a value, found `>`"
    );
    let cyclic = set(json!({"instructions": [
        {"instructionId": "a", "action": "detect_anomaly", "dependencies": ["b"]},
        {"instructionId": "b", "action": "detect_anomaly", "condition": "dependencies.a.status == 'COMPLETED'"}
    ]}))?;
    let err = h
        .executor
        .run_instructions(&cyclic, &CancellationToken::new())
        .await
        .err()
        .ok_or("ran")?;
    assert!(err.to_string().starts_with("dependency cycle: "), "{err}");
    assert!(h.sink.events().is_empty());
    Ok(())
}
