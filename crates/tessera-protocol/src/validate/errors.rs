//! Turning JSON Schema errors into [`Problem`]s with dotted paths and short messages.

use jsonschema::error::{TypeKind, ValidationErrorKind};
use jsonschema::ValidationError;
use serde_json::Value;

use super::Problem;
use crate::easyflow::VERSION_PATTERN;
use crate::mcp_cp::DOTTED_PATH_PATTERN;

/// The dotted path of a JSON pointer into `doc`: `/session/messages/0/role` →
/// `session.messages[0].role`, the root → `$`. A segment is an index only where `doc` has an
/// array, so an object key made of digits stays a key (`evidences.123`).
pub fn pointer_to_path(doc: &Value, pointer: &str) -> String {
    let mut path = String::new();
    let mut current = Some(doc);
    for raw in pointer.split('/').skip(1) {
        let segment = raw.replace("~1", "/").replace("~0", "~");
        match current {
            Some(Value::Array(items)) => match segment.parse::<usize>() {
                Ok(index) => {
                    path.push_str(&format!("[{index}]"));
                    current = items.get(index);
                }
                Err(_) => {
                    push_key(&mut path, &segment);
                    current = None;
                }
            },
            Some(Value::Object(map)) => {
                push_key(&mut path, &segment);
                current = map.get(&segment);
            }
            _ => {
                push_key(&mut path, &segment);
                current = None;
            }
        }
    }
    if path.is_empty() {
        "$".to_owned()
    } else {
        path
    }
}

fn push_key(path: &mut String, key: &str) {
    if !path.is_empty() {
        path.push('.');
    }
    path.push_str(key);
}

/// `parent.key`, or `key` when the parent is the root.
pub fn child_path(parent: &str, key: &str) -> String {
    if parent == "$" || parent.is_empty() {
        key.to_owned()
    } else {
        format!("{parent}.{key}")
    }
}

/// `parent[index]`.
pub fn index_path(parent: &str, index: usize) -> String {
    if parent == "$" {
        format!("$[{index}]")
    } else {
        format!("{parent}[{index}]")
    }
}

/// One schema error as a problem.
pub(crate) fn problem_from_error(doc: &Value, error: &ValidationError<'_>) -> Problem {
    let path = pointer_to_path(doc, error.instance_path().as_str());
    let (path, message) = match error.kind() {
        ValidationErrorKind::Required { property } => {
            let name = match property {
                Value::String(name) => name.clone(),
                other => other.to_string(),
            };
            (child_path(&path, &name), "required".to_owned())
        }
        ValidationErrorKind::Type { kind } => (path, format!("expected {}", type_names(kind))),
        ValidationErrorKind::Enum { options } => {
            (path, format!("must be one of {}", list(options)))
        }
        ValidationErrorKind::Constant { expected_value } => {
            (path, format!("must be {expected_value}"))
        }
        ValidationErrorKind::Format { format } if format == "date-time" => {
            (path, "not an RFC 3339 timestamp".to_owned())
        }
        ValidationErrorKind::Format { format } => (path, format!("not a valid {format}")),
        ValidationErrorKind::Minimum { limit } => (path, format!("must be >= {limit}")),
        ValidationErrorKind::Maximum { limit } => (path, format!("must be <= {limit}")),
        ValidationErrorKind::ExclusiveMinimum { limit } => (path, format!("must be > {limit}")),
        ValidationErrorKind::ExclusiveMaximum { limit } => (path, format!("must be < {limit}")),
        ValidationErrorKind::MinItems { limit: 1 }
        | ValidationErrorKind::MinLength { limit: 1 }
        | ValidationErrorKind::MinProperties { limit: 1 } => (path, "must not be empty".to_owned()),
        ValidationErrorKind::MinItems { limit } => {
            (path, format!("must have at least {limit} items"))
        }
        ValidationErrorKind::MinLength { limit } => {
            (path, format!("must be at least {limit} characters long"))
        }
        ValidationErrorKind::MinProperties { limit } => {
            (path, format!("must have at least {limit} fields"))
        }
        ValidationErrorKind::Pattern { pattern } if pattern == VERSION_PATTERN => {
            (path, "must look like \"1.<n>\"".to_owned())
        }
        ValidationErrorKind::Pattern { pattern } if pattern == DOTTED_PATH_PATTERN => {
            (path, "must be a non-empty dotted path".to_owned())
        }
        ValidationErrorKind::Pattern { pattern } => (path, format!("must match {pattern}")),
        _ => (path, error.to_string()),
    };
    Problem { path, message }
}

fn type_names(kind: &TypeKind) -> String {
    match kind {
        TypeKind::Single(ty) => ty.to_string(),
        TypeKind::Multiple(types) => types
            .iter()
            .map(|ty| ty.to_string())
            .collect::<Vec<_>>()
            .join(" or "),
    }
}

fn list(options: &Value) -> String {
    match options {
        Value::Array(items) => items
            .iter()
            .map(|item| match item {
                Value::String(text) => text.clone(),
                other => other.to_string(),
            })
            .collect::<Vec<_>>()
            .join(", "),
        other => other.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn pointers_become_dotted_paths() {
        let doc = json!({
            "session": {"messages": [{"role": "x"}]},
            "evidences": {"123": {"source": {}}, "a/b": {}, "t~x": {}},
            "content": {"calls": [{}, {}, {"callId": 1}]}
        });
        assert_eq!(pointer_to_path(&doc, ""), "$");
        assert_eq!(
            pointer_to_path(&doc, "/session/messages/0/role"),
            "session.messages[0].role"
        );
        assert_eq!(
            pointer_to_path(&doc, "/evidences/123/source/kind"),
            "evidences.123.source.kind"
        );
        assert_eq!(pointer_to_path(&doc, "/evidences/a~1b"), "evidences.a/b");
        assert_eq!(pointer_to_path(&doc, "/evidences/t~0x"), "evidences.t~x");
        assert_eq!(
            pointer_to_path(&doc, "/content/calls/2/callId"),
            "content.calls[2].callId"
        );
        assert_eq!(pointer_to_path(&doc, "/missing/0"), "missing.0");
    }

    #[test]
    fn child_and_index_paths() {
        assert_eq!(child_path("$", "a"), "a");
        assert_eq!(child_path("a[0]", "b"), "a[0].b");
        assert_eq!(index_path("a", 3), "a[3]");
        assert_eq!(index_path("$", 3), "$[3]");
    }
}
