//! The reference rules of a context document (seed 004 §2), checked by `tessera validate
//! context` and, through it, by every import: what a document names must be in it.
//!
//! - the session's id: `session.session_id` or `session.id` (二选一即可), the same if both;
//! - `refs[].evidence_id` of messages and blocks names an evidence, and its `selector` selects
//!   something of that evidence's `content`;
//! - a task's `depends_on` names tasks, its `result_evidence_ids` evidences; a tool call's
//!   `task_id` names a task and its `result_evidence_ids` evidences; an evidence's
//!   `links.model_usage_id` / `links.tool_call_id` name a model usage / tool call;
//! - ids are unique in their list (tasks, tool calls, model usages, blocks).
//!
//! Only well-typed parts are looked at: type errors are the schema's to report.

use std::collections::{HashMap, HashSet};

use serde_json::Value;

use super::errors::{child_path, index_path};
use super::Problem;
use crate::context_doc::selector::{Selector, SelectorError};

fn problem(path: String, message: impl Into<String>) -> Problem {
    Problem {
        path,
        message: message.into(),
    }
}

/// The items of the array at `pointer`, with their paths (`base[i]`).
fn items<'a>(doc: &'a Value, pointer: &str, base: &str) -> Vec<(String, &'a Value)> {
    match doc.pointer(pointer) {
        Some(Value::Array(list)) => list
            .iter()
            .enumerate()
            .map(|(i, v)| (index_path(base, i), v))
            .collect(),
        _ => Vec::new(),
    }
}

/// The strings of the array `field` of `item`, with their paths.
fn strings<'a>(item: &'a Value, path: &str, field: &str) -> Vec<(String, &'a str)> {
    match item.get(field) {
        Some(Value::Array(list)) => list
            .iter()
            .enumerate()
            .filter_map(|(i, v)| Some((index_path(&child_path(path, field), i), v.as_str()?)))
            .collect(),
        _ => Vec::new(),
    }
}

/// The ids (`field` of each item) of a list, each problem of a repeated one reported.
fn ids<'a>(
    list: &[(String, &'a Value)],
    field: &str,
    what: &str,
    out: &mut Vec<Problem>,
) -> HashSet<&'a str> {
    let mut seen = HashSet::new();
    for (path, item) in list {
        if let Some(id) = item.get(field).and_then(Value::as_str) {
            if !seen.insert(id) {
                out.push(problem(
                    child_path(path, field),
                    format!("{what} {id:?} is given twice"),
                ));
            }
        }
    }
    seen
}

/// Checks one ref against the document's evidences (their `content`, None when absent).
pub fn ref_problem(
    evidence_id: &str,
    selector: Option<&str>,
    evidences: &HashMap<&str, Option<&Value>>,
) -> Option<(&'static str, String)> {
    let Some(content) = evidences.get(evidence_id) else {
        return Some((
            "evidence_id",
            format!("no evidence {evidence_id:?} in the document"),
        ));
    };
    let selector = selector?;
    let applied = Selector::parse(selector).and_then(|parsed| match content {
        Some(content) => parsed.apply(content).map(|_| ()),
        None => Err(SelectorError::NoContent {
            selector: selector.to_owned(),
        }),
    });
    applied.err().map(|error| ("selector", error.to_string()))
}

pub(crate) fn check(doc: &Value, out: &mut Vec<Problem>) {
    check_session_id(doc, out);
    let evidences: HashMap<&str, Option<&Value>> = match doc.get("evidences") {
        Some(Value::Object(map)) => map
            .iter()
            .map(|(key, e)| (key.as_str(), e.get("content")))
            .collect(),
        _ => HashMap::new(),
    };
    let messages = items(doc, "/session/messages", "session.messages");
    let blocks = items(doc, "/context_blocks", "context_blocks");
    for (path, item) in messages.iter().chain(&blocks) {
        for (k, r) in items(item, "/refs", &child_path(path, "refs")) {
            let Some(id) = r.get("evidence_id").and_then(Value::as_str) else {
                continue;
            };
            let selector = r.get("selector").and_then(Value::as_str);
            if let Some((field, message)) = ref_problem(id, selector, &evidences) {
                out.push(problem(child_path(&k, field), message));
            }
        }
    }
    let tasks = items(
        doc,
        "/session/task_state/todo_list/tasks",
        "session.task_state.todo_list.tasks",
    );
    let calls = items(
        doc,
        "/session/tool_state/tool_calls",
        "session.tool_state.tool_calls",
    );
    let usages = items(doc, "/session/model_usage", "session.model_usage");
    let task_ids = ids(&tasks, "task_id", "task id", out);
    let call_ids = ids(&calls, "tool_call_id", "tool call id", out);
    let usage_ids = ids(&usages, "model_usage_id", "model usage id", out);
    ids(&blocks, "block_id", "block id", out);
    let no_evidence = |(path, id): (String, &str)| {
        (!evidences.contains_key(id))
            .then(|| problem(path, format!("no evidence {id:?} in the document")))
    };
    for (path, task) in &tasks {
        for (at, id) in strings(task, path, "depends_on") {
            if !task_ids.contains(id) {
                out.push(problem(at, format!("no task {id:?} in the todo list")));
            }
        }
        out.extend(
            strings(task, path, "result_evidence_ids")
                .into_iter()
                .filter_map(no_evidence),
        );
    }
    for (path, call) in &calls {
        if let Some(id) = call.get("task_id").and_then(Value::as_str) {
            if !task_ids.contains(id) {
                out.push(problem(
                    child_path(path, "task_id"),
                    format!("no task {id:?} in the todo list"),
                ));
            }
        }
        out.extend(
            strings(call, path, "result_evidence_ids")
                .into_iter()
                .filter_map(no_evidence),
        );
    }
    if let Some(Value::Object(map)) = doc.get("evidences") {
        for (key, evidence) in map {
            let links = child_path(&child_path("evidences", key), "links");
            let link = |field: &str| {
                evidence
                    .pointer(&format!("/links/{field}"))
                    .and_then(Value::as_str)
            };
            if let Some(id) = link("model_usage_id").filter(|id| !usage_ids.contains(id)) {
                out.push(problem(
                    child_path(&links, "model_usage_id"),
                    format!("no model usage {id:?} in session.model_usage"),
                ));
            }
            if let Some(id) = link("tool_call_id").filter(|id| !call_ids.contains(id)) {
                out.push(problem(
                    child_path(&links, "tool_call_id"),
                    format!("no tool call {id:?} in session.tool_state.tool_calls"),
                ));
            }
        }
    }
}

/// `session.session_id` or `session.id` (二选一即可); when both, the same.
fn check_session_id(doc: &Value, out: &mut Vec<Problem>) {
    let Some(Value::Object(session)) = doc.get("session") else {
        return;
    };
    match (session.get("session_id"), session.get("id")) {
        (None, None) => out.push(problem("session.session_id".into(), "required")),
        (Some(Value::String(a)), Some(Value::String(b))) if a != b => out.push(problem(
            "session.id".into(),
            format!("names another session ({b:?}) than session.session_id ({a:?})"),
        )),
        _ => {}
    }
}
