//! The rules a JSON Schema expresses badly, checked in Rust on the raw document: seed 003
//! metadata naming, seed 004 evidence keys, conditional requirements and exclusive fields.
//! Each check looks only at well-typed parts; type errors are the schema's to report.

use serde_json::Value;

use super::errors::{child_path, index_path};
use super::{DocumentKind, Problem};

/// Core field names of seed 003 that metadata keys must not reuse (§3.3).
pub const CORE_FIELDS: &[&str] = &[
    "model",
    "root_id",
    "resources",
    "config",
    "metadata",
    "role",
    "content",
    "status",
    "outputs",
    "trace_id",
    "context_updates",
    "error",
];

/// The request object's five fields (seed 003 §1.1); nothing else at its top level.
pub const REQUEST_FIELDS: &[&str] = &["model", "root_id", "resources", "config", "metadata"];

/// Prefix reserved for system-written metadata keys.
pub const RESERVED_PREFIX: &str = "sys_";

/// Appends the problems the schema cannot express.
pub(crate) fn check(kind: DocumentKind, doc: &Value, out: &mut Vec<Problem>) {
    match kind {
        DocumentKind::Request => {
            // §1.3: 所有扩展字段均应嵌入metadata或config中.
            if let Some(fields) = doc.as_object() {
                for key in fields
                    .keys()
                    .filter(|k| !REQUEST_FIELDS.contains(&k.as_str()))
                {
                    out.push(problem(
                        child_path("", key),
                        "not a field of the request object: extensions belong in `metadata` \
                         or `config` (seed 003 §1.3)",
                    ));
                }
            }
            if let Some(metadata) = doc.get("metadata") {
                check_metadata(metadata, "metadata", out);
            }
            if let Some(Value::Array(resources)) = doc.get("resources") {
                for (i, resource) in resources.iter().enumerate() {
                    if let Some(metadata) = resource.get("metadata") {
                        let path = child_path(&index_path("resources", i), "metadata");
                        check_metadata(metadata, &path, out);
                    }
                }
            }
        }
        DocumentKind::Response => {
            // A response is the system's own: the prefix §3.3 reserves for it is allowed.
            if let Some(metadata) = doc.get("metadata") {
                check_metadata_of(metadata, "metadata", Writer::System, out);
            }
            if doc.get("status").and_then(Value::as_str) == Some("error")
                && doc.get("error").is_none()
            {
                out.push(problem("error", "required"));
            }
        }
        DocumentKind::Context => {
            check_evidence_keys(doc, out);
            check_summary_time(doc, out);
            super::context_refs::check(doc, out);
        }
        DocumentKind::Event => check_llm_text(doc, out),
        DocumentKind::FormSubmission => {
            let accept = match doc.get("action") {
                None => true,
                Some(action) => action.as_str() == Some("accept"),
            };
            if accept && doc.is_object() && doc.get("values").is_none() {
                out.push(problem("values", "required"));
            }
        }
        DocumentKind::Message => check_tool_results(doc, out),
        DocumentKind::ToolDefinition | DocumentKind::McpContext => {}
    }
}

/// Seed 000 §3.4: a result's `error` is present only when its status is ERROR
/// (仅在status为ERROR时存在).
fn check_tool_results(doc: &Value, out: &mut Vec<Problem>) {
    if doc.get("type").and_then(Value::as_str) != Some("TOOL_CALL_RESPONSE") {
        return;
    }
    let Some(Value::Array(results)) = doc.pointer("/content/results") else {
        return;
    };
    for (i, result) in results.iter().enumerate() {
        let status = result.get("status").and_then(Value::as_str);
        // An unknown status is reported as such, not twice.
        let known_other = status.is_some_and(|s| {
            s != "ERROR"
                && serde_json::from_value::<crate::mcp_cp::McpToolStatus>(Value::String(s.into()))
                    .is_ok()
        });
        if result.get("error").is_some() && known_other {
            let path = child_path(&index_path("content.results", i), "error");
            out.push(problem(
                path,
                format!(
                    "present only when status is ERROR (seed 000 §3.4), not {}",
                    status.unwrap_or_default()
                ),
            ));
        }
    }
}

fn problem(path: impl Into<String>, message: impl Into<String>) -> Problem {
    Problem {
        path: path.into(),
        message: message.into(),
    }
}

/// Who wrote a metadata object: a client, or the system (which may use the `sys_` prefix
/// seed 003 §3.3 reserves for it: 系统字段预留前缀).
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Writer {
    Client,
    System,
}

/// Seed 003 §3.3, at every nesting level of a metadata object's keys (a client's).
pub(crate) fn check_metadata(value: &Value, path: &str, out: &mut Vec<Problem>) {
    check_metadata_of(value, path, Writer::Client, out);
}

pub(crate) fn check_metadata_of(value: &Value, path: &str, writer: Writer, out: &mut Vec<Problem>) {
    match value {
        Value::Object(map) => {
            for (key, child) in map {
                let key_path = child_path(path, key);
                for message in metadata_key_problems(key) {
                    if writer == Writer::System
                        && key.starts_with(RESERVED_PREFIX)
                        && message.contains("sys_")
                    {
                        continue;
                    }
                    out.push(problem(key_path.clone(), message));
                }
                check_metadata_of(child, &key_path, writer, out);
            }
        }
        Value::Array(items) => {
            for (i, item) in items.iter().enumerate() {
                check_metadata_of(item, &index_path(path, i), writer, out);
            }
        }
        _ => {}
    }
}

/// What is wrong with one metadata key, if anything.
pub fn metadata_key_problems(key: &str) -> Vec<String> {
    let mut messages = Vec::new();
    if !is_snake_case(key) {
        messages.push("key must be snake_case".to_owned());
    }
    if CORE_FIELDS.contains(&key) {
        messages.push(format!("key must not be the core field name \"{key}\""));
    }
    if key.starts_with(RESERVED_PREFIX) {
        messages.push("key prefix sys_ is reserved for the system".to_owned());
    }
    messages
}

/// `^[a-z][a-z0-9]*(_[a-z0-9]+)*$`.
pub fn is_snake_case(key: &str) -> bool {
    if !key.starts_with(|c: char| c.is_ascii_lowercase()) {
        return false;
    }
    key.split('_').all(|part| {
        !part.is_empty()
            && part
                .chars()
                .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit())
    })
}

/// Seed 004: `evidences.<key>.evidence_id` equals its key.
fn check_evidence_keys(doc: &Value, out: &mut Vec<Problem>) {
    let Some(Value::Object(evidences)) = doc.get("evidences") else {
        return;
    };
    for (key, evidence) in evidences {
        if let Some(Value::String(id)) = evidence.get("evidence_id") {
            if id != key {
                out.push(problem(
                    child_path(&child_path("evidences", key), "evidence_id"),
                    format!("must equal its key \"{key}\""),
                ));
            }
        }
    }
}

/// Seed 004 §4: `session.summary.updated_at` is an RFC 3339 timestamp, or `""` while the
/// summary is empty (the seed's minimal example writes `"content": "", "updated_at": ""`).
fn check_summary_time(doc: &Value, out: &mut Vec<Problem>) {
    let Some(Value::String(at)) = doc.pointer("/session/summary/updated_at") else {
        return;
    };
    if crate::wire::is_rfc3339(at) {
        return;
    }
    let empty = match doc.pointer("/session/summary/content") {
        None => true,
        Some(Value::String(text)) => text.is_empty(),
        // A content of the wrong type is the schema's to report.
        Some(_) => return,
    };
    if at.is_empty() && empty {
        return;
    }
    let message = if at.is_empty() {
        "empty, but the summary has content: an RFC 3339 timestamp must say when it was written"
    } else {
        "not an RFC 3339 timestamp"
    };
    out.push(problem("session.summary.updated_at", message));
}

/// Seed 002 §6: an `llm/thinking` or `llm/message` payload has exactly one of `delta` and
/// `content`.
fn check_llm_text(doc: &Value, out: &mut Vec<Problem>) {
    let domain = doc.get("domain").and_then(Value::as_str);
    let event_type = doc.get("type").and_then(Value::as_str);
    if domain != Some("llm") || !matches!(event_type, Some("thinking" | "message")) {
        return;
    }
    let Some(Value::Object(payload)) = doc.get("payload") else {
        return;
    };
    match (
        payload.contains_key("delta"),
        payload.contains_key("content"),
    ) {
        (true, true) => out.push(problem(
            "payload",
            "exactly one of delta, content must be present, not both",
        )),
        (false, false) => out.push(problem(
            "payload",
            "exactly one of delta, content must be present",
        )),
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn snake_case_keys() {
        for ok in ["a", "task_type", "k8s_env", "v2", "a_1_b"] {
            assert!(is_snake_case(ok), "{ok}");
        }
        for bad in [
            "", "TaskType", "taskType", "_a", "a_", "a__b", "1a", "a-b", "é",
        ] {
            assert!(!is_snake_case(bad), "{bad}");
        }
    }

    #[test]
    fn key_problems() {
        assert!(metadata_key_problems("task_type").is_empty());
        assert_eq!(
            metadata_key_problems("TaskType"),
            ["key must be snake_case"]
        );
        assert_eq!(
            metadata_key_problems("content"),
            ["key must not be the core field name \"content\""]
        );
        assert_eq!(
            metadata_key_problems("sys_trace"),
            ["key prefix sys_ is reserved for the system"]
        );
    }
}
