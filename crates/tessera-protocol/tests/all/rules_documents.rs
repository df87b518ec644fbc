//! `validate` for the seed 003 request/response and the seed 004 context document.

use crate::common;

use common::{assert_problem, problems, remove, set};
use serde_json::json;
use tessera_protocol::{validate, DocumentKind};

/// Seed 004 §4.1: every row marked 是 (required), removed, is reported at its own path.
#[test]
fn context_document_required_fields() {
    let rows = [
        ("/schema_version", "schema_version"),
        ("/session", "session"),
        ("/session/session_id", "session.session_id"),
        ("/session/messages", "session.messages"),
        ("/session/messages/2/role", "session.messages[2].role"),
        ("/session/messages/2/content", "session.messages[2].content"),
        ("/session/task_state", "session.task_state"),
        (
            "/session/task_state/todo_list",
            "session.task_state.todo_list",
        ),
        (
            "/session/task_state/todo_list/tasks",
            "session.task_state.todo_list.tasks",
        ),
        ("/evidences", "evidences"),
        ("/evidences/ev_1/evidence_id", "evidences.ev_1.evidence_id"),
        ("/evidences/ev_1/type", "evidences.ev_1.type"),
        ("/evidences/ev_1/source/kind", "evidences.ev_1.source.kind"),
        ("/context_blocks", "context_blocks"),
        ("/context_blocks/0/block_id", "context_blocks[0].block_id"),
        (
            "/context_blocks/0/block_type",
            "context_blocks[0].block_type",
        ),
        ("/context_blocks/0/priority", "context_blocks[0].priority"),
        ("/meta/actor/agent/agent_id", "meta.actor.agent.agent_id"),
        (
            "/session/task_state/todo_list/tasks/0/task_id",
            "session.task_state.todo_list.tasks[0].task_id",
        ),
        (
            "/session/tool_state/tool_calls/0/tool_call_id",
            "session.tool_state.tool_calls[0].tool_call_id",
        ),
        (
            "/session/model_usage/0/model_usage_id",
            "session.model_usage[0].model_usage_id",
        ),
        (
            "/session/messages/2/refs/0/evidence_id",
            "session.messages[2].refs[0].evidence_id",
        ),
        (
            "/session/messages/0/author/kind",
            "session.messages[0].author.kind",
        ),
        ("/evidences/ev_1/source", "evidences.ev_1.source"),
    ];
    for (pointer, path) in rows {
        let mut doc = common::context();
        remove(&mut doc, pointer);
        assert_problem(DocumentKind::Context, &doc, &format!("{path}: required"));
    }
}

#[test]
fn context_document_shapes() {
    let mut doc = common::context();
    set(&mut doc, "/session/messages", json!([]));
    assert_eq!(
        problems(DocumentKind::Context, &doc),
        ["session.messages: must not be empty"]
    );

    let mut doc = common::context();
    set(&mut doc, "/session", json!({}));
    assert_problem(DocumentKind::Context, &doc, "session: must not be empty");

    let mut doc = common::context();
    set(&mut doc, "/session/task_state", json!({}));
    assert_problem(
        DocumentKind::Context,
        &doc,
        "session.task_state: must not be empty",
    );

    // May be empty: tasks, evidences, context_blocks.
    let mut doc = common::context();
    set(&mut doc, "/session/task_state/todo_list/tasks", json!([]));
    set(&mut doc, "/context_blocks", json!([]));
    set(&mut doc, "/session/messages/2/refs", json!([]));
    // Nothing may name what is gone (seed 004's references resolve).
    let paths: Vec<String> = validate(DocumentKind::Context, &doc)
        .into_iter()
        .map(|p| p.path)
        .collect();
    assert_eq!(paths, ["session.tool_state.tool_calls[0].task_id"]);
    set(&mut doc, "/session/tool_state/tool_calls", json!([]));
    set(&mut doc, "/evidences", json!({}));
    assert_eq!(validate(DocumentKind::Context, &doc), []);

    let mut doc = common::context();
    set(&mut doc, "/schema_version", json!("2.0"));
    assert_eq!(
        problems(DocumentKind::Context, &doc),
        ["schema_version: must look like \"1.<n>\""]
    );
    // Seed 004 §2: 1.x is read; the session's id may be `session.id` (二选一即可).
    set(&mut doc, "/schema_version", json!("1.3"));
    let session = doc["session"].as_object_mut().unwrap();
    let id = session.remove("session_id").unwrap();
    session.insert("id".into(), id);
    assert_eq!(validate(DocumentKind::Context, &doc), []);
    set(&mut doc, "/session/session_id", json!("another"));
    assert_eq!(
        problems(DocumentKind::Context, &doc),
        ["session.id: names another session (\"s1\") than session.session_id (\"another\")"]
    );
    doc["session"].as_object_mut().unwrap().remove("id");
    doc["session"].as_object_mut().unwrap().remove("session_id");
    assert_eq!(
        problems(DocumentKind::Context, &doc),
        ["session.session_id: required"]
    );

    let mut doc = common::context();
    set(&mut doc, "/evidences/ev_1/evidence_id", json!("ev_2"));
    assert_eq!(
        problems(DocumentKind::Context, &doc),
        ["evidences.ev_1.evidence_id: must equal its key \"ev_1\""]
    );

    let mut doc = common::context();
    set(&mut doc, "/evidences/ev_1/confidence", json!(1.5));
    set(&mut doc, "/context_blocks/0/token_estimate", json!(-1));
    set(&mut doc, "/session/summary/updated_at", json!(""));
    set(
        &mut doc,
        "/session/messages/0/at",
        json!("2026-02-10 10:05"),
    );
    assert_eq!(
        problems(DocumentKind::Context, &doc),
        [
            "context_blocks[0].token_estimate: must be >= 0",
            "evidences.ev_1.confidence: must be <= 1",
            "session.messages[0].at: not an RFC 3339 timestamp",
            // Empty is only for a summary not written yet (seed 004 §4); this one has content.
            "session.summary.updated_at: empty, but the summary has content: an RFC 3339 \
             timestamp must say when it was written",
        ]
    );
}

/// Seed 004 §4's minimal example: `"content": "", "updated_at": ""` is a summary not written
/// yet; any other text in `updated_at` is still not a time.
#[test]
fn an_empty_summary_may_leave_its_time_empty() {
    for content in [Some(json!("")), None] {
        let mut doc = common::context();
        set(&mut doc, "/session/summary/updated_at", json!(""));
        match content {
            Some(c) => set(&mut doc, "/session/summary/content", c),
            None => {
                doc["session"]["summary"]
                    .as_object_mut()
                    .unwrap()
                    .remove("content");
            }
        }
        assert_eq!(validate(DocumentKind::Context, &doc), []);
        set(&mut doc, "/session/summary/updated_at", json!("…"));
        assert_eq!(
            problems(DocumentKind::Context, &doc),
            ["session.summary.updated_at: not an RFC 3339 timestamp"]
        );
    }
}

#[test]
fn request_rules() {
    let mut doc = common::request();
    set(&mut doc, "/model", json!(""));
    set(&mut doc, "/config/temperature", json!(2.5));
    set(&mut doc, "/config/max_tokens", json!(0));
    set(&mut doc, "/config/top_p", json!(-0.1));
    remove(&mut doc, "/metadata/request_id");
    remove(&mut doc, "/resources/1/content");
    assert_eq!(
        problems(DocumentKind::Request, &doc),
        [
            "config.max_tokens: must be >= 1",
            "config.temperature: must be <= 2",
            "config.top_p: must be >= 0",
            "metadata.request_id: required",
            "model: must not be empty",
            "resources[1].content: required",
        ]
    );
    for field in ["/model", "/root_id", "/resources", "/config", "/metadata"] {
        let mut doc = common::request();
        remove(&mut doc, field);
        assert_eq!(
            problems(DocumentKind::Request, &doc),
            [format!("{}: required", &field[1..])]
        );
    }
}

#[test]
fn metadata_naming_rules() {
    let mut doc = common::request();
    set(&mut doc, "/metadata/TaskType", json!("x"));
    set(&mut doc, "/metadata/content", json!("x"));
    set(&mut doc, "/metadata/sys_trace", json!("x"));
    set(
        &mut doc,
        "/metadata/extra_info",
        json!({"innerKey": {"sys_deep": 1}, "list": [{"Bad-Key": 1}]}),
    );
    set(&mut doc, "/resources/0/metadata/status", json!(1));
    assert_eq!(
        problems(DocumentKind::Request, &doc),
        [
            "metadata.TaskType: key must be snake_case",
            "metadata.content: key must not be the core field name \"content\"",
            "metadata.extra_info.innerKey: key must be snake_case",
            "metadata.extra_info.innerKey.sys_deep: key prefix sys_ is reserved for the system",
            "metadata.extra_info.list[0].Bad-Key: key must be snake_case",
            "metadata.sys_trace: key prefix sys_ is reserved for the system",
            "resources[0].metadata.status: key must not be the core field name \"status\"",
        ]
    );
    let mut doc = common::response();
    set(&mut doc, "/metadata/traceId", json!("x"));
    assert_eq!(
        problems(DocumentKind::Response, &doc),
        ["metadata.traceId: key must be snake_case"]
    );
}

#[test]
fn response_rules() {
    let mut doc = common::response();
    remove(&mut doc, "/error");
    assert_eq!(problems(DocumentKind::Response, &doc), ["error: required"]);
    set(&mut doc, "/status", json!("success"));
    assert!(validate(DocumentKind::Response, &doc).is_empty());
    let mut doc = common::response();
    remove(&mut doc, "/error/code");
    remove(&mut doc, "/context_updates/0/type");
    remove(&mut doc, "/outputs/0/content");
    assert_eq!(
        problems(DocumentKind::Response, &doc),
        [
            "context_updates[0].type: required",
            "error.code: required",
            "outputs[0].content: required",
        ]
    );
    let mut doc = common::response();
    set(&mut doc, "/outputs/0/content", json!("text is fine too"));
    assert!(validate(DocumentKind::Response, &doc).is_empty());
}
