//! `tessera run` and `tessera check-condition` as scripts and people use them: real processes,
//! exact output lines, exit codes.
#![allow(clippy::unwrap_used, clippy::expect_used)] // a test may panic on what it set up itself

use std::path::Path;
use std::process::{Command, Output};

use serde_json::{json, Value};

fn tessera(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_tessera"))
        .args(args)
        .output()
        .unwrap()
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn write(dir: &Path, name: &str, value: &Value) -> String {
    let p = dir.join(name);
    std::fs::write(&p, serde_json::to_string_pretty(value).unwrap()).unwrap();
    p.to_str().unwrap().to_string()
}

fn message(kind: &str, content: Value) -> Value {
    json!({"messageId": "msg_7", "contextId": "ctx_cli", "timestamp": "2025-12-01T12:00:00Z",
           "sender": {"id": "model", "type": "MODEL"}, "type": kind, "content": content})
}

fn tools() -> Value {
    json!({
        "file_picker": {"safe": true, "latency_ms": 20, "result": {"fileData": {"w": 640}, "fileId": "f-1"}},
        "image_analyze": {"safe": true, "latency_ms": 5},
        "save_note": {"writes": ["notes"], "latency_ms": 5,
                      "error": {"code": "DISK_FULL", "message": "no space left"}},
        "detect_anomaly": {"safe": true, "result": {"anomaly_detected": true, "count": 0}},
        "send_notification": {"latency_ms": 1}
    })
}

fn lines(o: &Output) -> Vec<Value> {
    stdout(o)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("not JSON ({e}): {l}")))
        .collect()
}

#[test]
fn a_tool_call_request_prints_events_then_the_response_in_request_order() {
    let dir = tempfile::tempdir().unwrap();
    let req = write(
        dir.path(),
        "req.json",
        &message(
            "TOOL_CALL_REQUEST",
            json!({"calls": [
                {"callId": "analyze", "name": "image_analyze",
                 "parameters": {"imageData": "${results.pick.result.fileData}",
                                "caption": "id ${results.pick.result.fileId}"}},
                {"callId": "pick", "name": "file_picker", "parameters": {}},
                {"callId": "note", "name": "save_note", "parameters": {"text": "hi"}},
                {"callId": "ghost", "name": "not_declared", "parameters": {}}
            ]}),
        ),
    );
    let sim = write(dir.path(), "tools.json", &tools());
    let out = tessera(&["run", &req, "--simulate", &sim, "--events", "ndjson"]);
    assert_eq!(out.status.code(), Some(0), "{}", stdout(&out));
    let all = lines(&out);
    let (last, events) = all.split_last().unwrap();
    // The last line is an MCP-CP TOOL_CALL_RESPONSE message.
    let problems = tessera_protocol::validate(tessera_protocol::DocumentKind::Message, last);
    assert!(problems.is_empty(), "{problems:?}");
    assert_eq!(last["type"], "TOOL_CALL_RESPONSE");
    assert_eq!(last["contextId"], "ctx_cli");
    let results = last["content"]["results"].as_array().unwrap();
    let summary: Vec<(&str, &str)> = results
        .iter()
        .map(|r| (r["callId"].as_str().unwrap(), r["status"].as_str().unwrap()))
        .collect();
    assert_eq!(
        summary,
        vec![
            ("analyze", "SUCCESS"),
            ("pick", "SUCCESS"),
            ("note", "ERROR"),
            ("ghost", "NOT_FOUND")
        ]
    );
    assert_eq!(
        results[2]["error"],
        json!({"code": "DISK_FULL", "message": "no space left"})
    );
    assert!(results.iter().all(|r| r["executionTime"].is_u64()));
    // Every other line is an easyflow-chat event; tool_call shows the substituted arguments.
    for e in events {
        let problems = tessera_protocol::validate(tessera_protocol::DocumentKind::Event, e);
        assert!(problems.is_empty(), "{problems:?}");
    }
    let call = events
        .iter()
        .find(|e| e["type"] == "tool_call" && e["payload"]["tool_call_id"] == "analyze")
        .unwrap();
    assert_eq!(
        call["payload"]["arguments"],
        json!({"imageData": {"w": 640}, "caption": "id f-1"})
    );
    assert_eq!(events.last().unwrap()["type"], "graph");
    assert_eq!(tessera_testkit::event_order::check_run(events), Ok(()));
}

#[test]
fn an_instruction_set_prints_results_by_instruction_id() {
    let dir = tempfile::tempdir().unwrap();
    let req = write(
        dir.path(),
        "inst.json",
        &message(
            "INSTRUCTION",
            json!({
                "executionMode": "SEQUENTIAL", "timeout": 60, "instructions": [
                {"instructionId": "inst_1", "action": "detect_anomaly"},
                {"instructionId": "inst_2", "action": "send_notification", "dependencies": ["inst_1"],
                 "condition": "dependencies.inst_1.result.count > 0"},
                {"instructionId": "inst_3", "action": "send_notification", "dependencies": ["inst_1"],
                 "condition": "dependencies.inst_1.status == 'SUCCESS'",
                 "parameters": {"anomaly": "${dependencies.inst_1.result.anomaly_detected}"}}
            ]}),
        ),
    );
    let sim = write(dir.path(), "tools.json", &tools());
    let out = tessera(&["run", &req, "--simulate", &sim, "--events", "none"]);
    assert_eq!(out.status.code(), Some(0), "{}", stdout(&out));
    let all = lines(&out);
    assert_eq!(all.len(), 1, "--events none prints only the results");
    let results = &all[0]["results"];
    assert_eq!(
        results.as_object().unwrap().keys().collect::<Vec<_>>(),
        vec!["inst_1", "inst_2", "inst_3"]
    );
    assert_eq!(results["inst_1"]["status"], "COMPLETED");
    assert_eq!(results["inst_2"]["status"], "SKIPPED");
    assert_eq!(results["inst_2"]["result"], Value::Null);
    assert_eq!(results["inst_3"]["status"], "COMPLETED");
    assert_eq!(
        results["inst_3"]["result"],
        json!({"arguments": {"anomaly": true}})
    );
    assert_eq!(results["inst_3"]["error"], Value::Null);
}

#[test]
fn a_refused_set_exits_1_with_the_reason_and_runs_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let sim = write(dir.path(), "tools.json", &tools());
    let cases = [
        (
            message("TOOL_CALL_REQUEST", json!({"calls": [
                {"callId": "a", "name": "image_analyze", "parameters": {}, "requiredAfter": ["b"]},
                {"callId": "b", "name": "image_analyze", "parameters": {"x": "${results.a.result}"}}]})),
            "refused: dependency cycle: ",
        ),
        (
            message("TOOL_CALL_REQUEST", json!({"calls": [
                {"callId": "a", "name": "image_analyze", "parameters": {"x": "${results.nope.result}"}}]})),
            "refused: `a` depends on `nope`, which does not exist",
        ),
        (
            message("INSTRUCTION", json!({"instructions": [
                {"instructionId": "i", "action": "detect_anomaly", "condition": "(count > 1"}]})),
            "refused: `i`: condition `(count > 1`: syntax error at column 11: expected `)` closing the `(` at column 1, found the end of the condition",
        ),
    ];
    for (doc, expected) in cases {
        let req = write(dir.path(), "bad.json", &doc);
        let out = tessera(&["run", &req, "--simulate", &sim]);
        assert_eq!(out.status.code(), Some(1), "{}", stdout(&out));
        let text = stdout(&out);
        assert_eq!(text.lines().count(), 1, "nothing ran: {text}");
        assert!(text.starts_with(expected), "{text}");
    }
    let out = tessera(&["run", "/nonexistent/req.json"]);
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn check_condition_prints_true_false_or_the_error_with_its_column() {
    let dir = tempfile::tempdir().unwrap();
    let ctx = write(
        dir.path(),
        "ctx.json",
        &json!({"dependencies": {"inst_1": {
        "status": "COMPLETED", "result": {"score": 0.9, "label": "a AND (b)", "blank": "   "}}}}),
    );
    let run = |expr: &str| tessera(&["check-condition", expr, "--context", &ctx]);
    let out =
        run("dependencies.inst_1.status == 'SUCCESS' AND dependencies.inst_1.result.score > 0.8");
    assert_eq!(
        (out.status.code(), stdout(&out)),
        (Some(0), "true\n".to_owned())
    );
    let out =
        run("dependencies.inst_1.result.label == 'a AND (b)' AND NOT dependencies.inst_9.status");
    assert_eq!(stdout(&out), "true\n");
    let out = run("dependencies.inst_1.result.score > '0.5'");
    assert_eq!(
        (out.status.code(), stdout(&out)),
        (Some(0), "false\n".to_owned())
    );
    // Seed 000 §6.2: NOT negates the whole comparison after it; isEmpty trims a string.
    let out = run("NOT dependencies.inst_1.status == 'FAILED'");
    assert_eq!(stdout(&out), "true\n");
    let out = run("NOT dependencies.inst_1.status == 'COMPLETED' OR false");
    assert_eq!(stdout(&out), "false\n");
    let out = run("isEmpty(dependencies.inst_1.result.blank)");
    assert_eq!(stdout(&out), "true\n");
    let out = run("dependencies.inst_1.status = 'COMPLETED'");
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        stdout(&out),
        "syntax error at column 28: `=` is not an operator; use `==`\n"
    );
    let out = tessera(&["check-condition", "true", "--context", "/nonexistent.json"]);
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn a_message_from_standard_input_and_other_message_types() {
    use std::io::Write;
    use std::process::Stdio;
    let dir = tempfile::tempdir().unwrap();
    let sim = write(dir.path(), "tools.json", &tools());
    let doc = message(
        "TOOL_CALL_REQUEST",
        json!({"executionMode": "ASYNC", "calls": [
        {"callId": "p", "name": "file_picker", "parameters": {}}]}),
    );
    let mut child = Command::new(env!("CARGO_BIN_EXE_tessera"))
        .args(["run", "-", "--simulate", &sim, "--events", "none"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(doc.to_string().as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(0));
    let all = lines(&out);
    assert_eq!(all.len(), 1);
    assert_eq!(all[0]["content"]["results"][0]["status"], "SUCCESS");
    let user_input = write(
        dir.path(),
        "ui.json",
        &message("USER_INPUT", json!({"text": "hi"})),
    );
    let out = tessera(&["run", &user_input]);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        stdout(&out),
        "refused: a USER_INPUT message has nothing to run; expected TOOL_CALL_REQUEST or INSTRUCTION\n"
    );
}
