//! `tessera validate <kind> <file|->` as scripts use it: exit codes and the exact output lines.
#![allow(clippy::unwrap_used, clippy::expect_used)] // a test may panic on what it set up itself

use std::{
    io::Write,
    path::Path,
    process::{Command, Output, Stdio},
};

fn tessera(args: &[&str], stdin: Option<&str>) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_tessera"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut input = child.stdin.take().unwrap();
    if let Some(text) = stdin {
        // A usage error exits before reading standard input: a broken pipe is fine then.
        let _ = input.write_all(text.as_bytes());
    }
    drop(input);
    child.wait_with_output().unwrap()
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn write(dir: &Path, name: &str, text: &str) -> String {
    let p = dir.join(name);
    std::fs::write(&p, text).unwrap();
    p.to_str().unwrap().to_string()
}

const EVENT: &str = r#"{"protocol":"easyflow-chat","version":"1.1","domain":"llm","type":"message","conversation_id":"c1","index":3,"payload":{"delta":"你好"}}"#;

const CONTEXT_NO_SESSION_ID: &str = r#"{
  "schema_version": "1.0",
  "session": {
    "messages": [{"role": "user", "content": "hi"}],
    "task_state": {"todo_list": {"tasks": []}}
  },
  "evidences": {},
  "context_blocks": []
}"#;

#[test]
fn a_valid_document_prints_ok_and_exits_0() {
    let dir = tempfile::tempdir().unwrap();
    let file = write(dir.path(), "event.json", EVENT);
    let out = tessera(&["validate", "event", &file], None);
    assert_eq!(out.status.code(), Some(0), "{}", stdout(&out));
    assert_eq!(stdout(&out), "ok\n");
}

#[test]
fn a_problem_is_reported_at_its_json_path_with_exit_1() {
    let dir = tempfile::tempdir().unwrap();
    let file = write(dir.path(), "ctx.json", CONTEXT_NO_SESSION_ID);
    let out = tessera(&["validate", "context", &file], None);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(stdout(&out), "session.session_id: required\n");
}

#[test]
fn several_problems_give_one_line_each() {
    let doc = r#"{"protocol":"easyflow","version":"1.1","domain":"tool","type":"tool_result","payload":{"tool_call_id":"c","status":"maybe"}}"#;
    let out = tessera(&["validate", "event", "-"], Some(doc));
    assert_eq!(out.status.code(), Some(1));
    let text = stdout(&out);
    let lines: Vec<&str> = text.lines().collect();
    assert!(lines.iter().any(|l| l.starts_with("protocol: ")), "{text}");
    assert!(lines.contains(&"conversation_id: required"), "{text}");
    assert!(
        lines.iter().any(|l| l.starts_with("payload.status: ")),
        "{text}"
    );
    assert_eq!(lines.len(), 3, "{text}");
}

#[test]
fn ndjson_is_checked_line_by_line() {
    let dir = tempfile::tempdir().unwrap();
    let bad = EVENT.replace(r#""index":3"#, r#""index":-1"#);
    let text = format!("{EVENT}\n{bad}\n{{\"protocol\": \n{EVENT}\n");
    let file = write(dir.path(), "stream.ndjson", &text);
    let out = tessera(&["validate", "event", &file], None);
    assert_eq!(out.status.code(), Some(1));
    let text = stdout(&out);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 2, "{text}");
    assert!(lines[0].starts_with("line 2: index: "), "{text}");
    assert!(
        lines[1].starts_with("line 3: $: malformed JSON at line 3, column "),
        "{text}"
    );

    let all_good = write(dir.path(), "good.ndjson", &format!("{EVENT}\n{EVENT}\n"));
    let out = tessera(&["validate", "event", &all_good], None);
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(stdout(&out), "ok\n");
}

#[test]
fn ndjson_is_recognised_without_the_extension() {
    let out = tessera(
        &["validate", "event", "-"],
        Some(&format!("{EVENT}\n{EVENT}\n")),
    );
    assert_eq!(out.status.code(), Some(0), "{}", stdout(&out));
}

#[test]
fn malformed_json_is_a_problem_with_line_and_column_not_a_crash() {
    let out = tessera(
        &["validate", "message", "-"],
        Some("{\n  \"messageId\": \"m1\",\n  \"type\": USER_INPUT\n}"),
    );
    assert_eq!(out.status.code(), Some(1));
    let text = stdout(&out);
    assert!(
        text.starts_with("$: malformed JSON at line 3, column "),
        "{text}"
    );
    assert_eq!(text.lines().count(), 1);
}

#[test]
fn an_unknown_kind_or_a_missing_file_is_a_usage_error() {
    let out = tessera(&["validate", "telegram", "-"], Some("{}"));
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("telegram"), "{err}");
    assert!(err.contains("message"), "{err}");

    let out = tessera(&["validate", "event", "/nonexistent/x.json"], None);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("cannot read /nonexistent/x.json"));
}

/// Seed 003 §3.3: `sys_` is the system's prefix (系统字段预留前缀): a client's request may not use
/// it, a response (the system's own) may; and a timestamp as `utcnow().isoformat()` writes it
/// (no offset) is read as UTC.
#[test]
fn the_sys_prefix_is_the_systems_and_a_timestamp_may_leave_its_offset_out() {
    let dir = tempfile::tempdir().unwrap();
    let response = write(
        dir.path(),
        "response.json",
        r#"{"status": "success", "outputs": [{"role": "assistant", "content": "ok"}],
            "trace_id": "t-1", "metadata": {"sys_node": "n1", "latency_ms": 12}}"#,
    );
    let out = tessera(&["validate", "response", &response], None);
    assert_eq!(
        (out.status.code(), stdout(&out)),
        (Some(0), "ok\n".to_owned())
    );
    let request = write(
        dir.path(),
        "request.json",
        r#"{"model": "DeepSeek-chat", "root_id": "r", "resources": [{"role": "user", "content": "hi"}],
            "config": {"temperature": 0.7}, "metadata": {"request_id": "q",
            "timestamp": "2025-12-01T12:34:56.789012", "sys_priority": "high"}}"#,
    );
    let out = tessera(&["validate", "request", &request], None);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        stdout(&out),
        "metadata.sys_priority: key prefix sys_ is reserved for the system\n"
    );
}

/// Seed 003 §1.3: 所有扩展字段均应嵌入metadata或config中: a field beside the five is refused,
/// named by its path; the same extension inside `metadata` or `config` passes.
#[test]
fn a_request_field_outside_the_five_is_refused_by_name() {
    let dir = tempfile::tempdir().unwrap();
    let request = write(
        dir.path(),
        "request.json",
        r#"{"model": "m", "root_id": "r", "resources": [{"role": "user", "content": "hi"}],
            "config": {"response_mode": "json"}, "metadata": {"request_id": "q"},
            "tool_schema": {"type": "object"}}"#,
    );
    let out = tessera(&["validate", "request", &request], None);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        stdout(&out),
        "tool_schema: not a field of the request object: extensions belong in `metadata` or \
         `config` (seed 003 §1.3)\n"
    );
    let inside = write(
        dir.path(),
        "inside.json",
        r#"{"model": "m", "root_id": "r", "resources": [{"role": "user", "content": "hi"}],
            "config": {"response_mode": "json"},
            "metadata": {"request_id": "q", "tool_schema": {"type": "object"}}}"#,
    );
    let out = tessera(&["validate", "request", &inside], None);
    assert_eq!(stdout(&out), "ok\n");
}
