//! `${results.<callId>.…}` and `${dependencies.<id>.…}` placeholders in arguments (seed 000
//! §4.6.1, §6.1.2). A string that is exactly one placeholder takes the referenced value with its
//! JSON type; placeholders inside a longer string are rendered as text (strings as they are,
//! anything else as compact JSON). A path that does not resolve is an error, never "".
//!
//! Text like `${HOME}` whose root is neither `results` nor `dependencies` is left as written.

use std::fmt;

use serde_json::Value;

use crate::path::{lookup_segments, Path, PathError};

/// The roots a placeholder may start with.
pub const ROOTS: [&str; 2] = ["results", "dependencies"];

/// One placeholder.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Reference {
    /// The full path, root included: `results.call_1.result.items[0]`.
    pub path: Path,
}

impl Reference {
    /// `results` or `dependencies`.
    pub fn root(&self) -> &str {
        self.path.head().unwrap_or_default()
    }

    /// The call or instruction the placeholder reads.
    pub fn target(&self) -> &str {
        self.path.second().unwrap_or_default()
    }
}

impl fmt::Display for Reference {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "${{{}}}", self.path)
    }
}

/// A placeholder that cannot be parsed or resolved.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ReferenceError {
    #[error("`{placeholder}` at {at}: {source}")]
    BadPath {
        placeholder: String,
        /// Where in the arguments: `parameters.imageData`.
        at: String,
        source: PathError,
    },
    #[error("`{placeholder}` at {at}: needs an id after `{root}.`")]
    NoTarget {
        placeholder: String,
        at: String,
        root: String,
    },
    #[error("`{placeholder}` at {at} has no value: {reason}")]
    Unresolved {
        placeholder: String,
        at: String,
        reason: String,
    },
}

/// A piece of a string with placeholders.
enum Piece<'a> {
    Text(&'a str),
    /// The placeholder text (without `${` `}`).
    Ref(&'a str),
}

/// Splits a string into text and placeholders of a known root.
fn pieces(s: &str) -> Vec<Piece<'_>> {
    let mut out = Vec::new();
    let mut rest = s;
    while let Some(start) = rest.find("${") {
        let after = &rest[start + 2..];
        let Some(end) = after.find('}') else { break };
        let inner = after[..end].trim();
        let known = ROOTS.iter().any(|r| {
            inner
                .strip_prefix(r)
                .is_some_and(|t| t.starts_with('.') || t.is_empty())
        });
        if known {
            if start > 0 {
                out.push(Piece::Text(&rest[..start]));
            }
            out.push(Piece::Ref(inner));
        } else {
            out.push(Piece::Text(&rest[..start + 2 + end + 1]));
        }
        rest = &after[end + 1..];
    }
    if !rest.is_empty() {
        out.push(Piece::Text(rest));
    }
    out
}

fn parse_ref(inner: &str, at: &str) -> Result<Reference, ReferenceError> {
    let placeholder = format!("${{{inner}}}");
    let path = Path::parse(inner).map_err(|source| ReferenceError::BadPath {
        placeholder: placeholder.clone(),
        at: at.to_owned(),
        source,
    })?;
    if path.second().is_none() {
        return Err(ReferenceError::NoTarget {
            placeholder,
            at: at.to_owned(),
            root: path.head().unwrap_or_default().to_owned(),
        });
    }
    Ok(Reference { path })
}

fn walk_map<'v>(
    map: &'v serde_json::Map<String, Value>,
    at: &mut String,
    f: &mut dyn FnMut(&'v str, &str),
) {
    for (k, v) in map {
        if !mentions_placeholder(v) {
            continue;
        }
        let len = at.len();
        if !at.is_empty() {
            at.push('.');
        }
        at.push_str(k);
        walk(v, at, f);
        at.truncate(len);
    }
}

/// Whether a value may hold a placeholder (cheap: scalars other than strings never do).
fn mentions_placeholder(v: &Value) -> bool {
    match v {
        Value::String(s) => s.contains("${"),
        Value::Array(_) | Value::Object(_) => true,
        _ => false,
    }
}

fn walk<'v>(value: &'v Value, at: &mut String, f: &mut dyn FnMut(&'v str, &str)) {
    match value {
        Value::String(s) if s.contains("${") => f(s, at),
        Value::Object(map) => walk_map(map, at, f),
        Value::Array(items) => {
            for (i, item) in items.iter().enumerate() {
                let len = at.len();
                at.push_str(&format!("[{i}]"));
                walk(item, at, f);
                at.truncate(len);
            }
        }
        _ => {}
    }
}

/// Every placeholder in `value` (object keys are not searched), in document order. `base` names
/// where `value` sits, for messages (`parameters`).
pub fn find_references(value: &Value, base: &str) -> Result<Vec<Reference>, ReferenceError> {
    match value {
        Value::Object(map) => find_references_in(map, base),
        other => collect(base, |at, f| walk(other, at, f)),
    }
}

/// [`find_references`] over an object's fields (arguments are objects), without copying it.
pub fn find_references_in(
    map: &serde_json::Map<String, Value>,
    base: &str,
) -> Result<Vec<Reference>, ReferenceError> {
    collect(base, |at, f| walk_map(map, at, f))
}

fn collect<'v>(
    base: &str,
    walker: impl FnOnce(&mut String, &mut dyn FnMut(&'v str, &str)),
) -> Result<Vec<Reference>, ReferenceError> {
    let mut out = Vec::new();
    let mut error = None;
    let mut at = base.to_owned();
    walker(&mut at, &mut |s, at| {
        for piece in pieces(s) {
            if let Piece::Ref(inner) = piece {
                match parse_ref(inner, at) {
                    Ok(r) => out.push(r),
                    Err(e) => {
                        error.get_or_insert(e);
                    }
                }
            }
        }
    });
    match error {
        Some(e) => Err(e),
        None => Ok(out),
    }
}

/// Where placeholders find their values: the entry of a call or instruction by id (for a tool
/// call `{callId, status, result, error, executionTime}`, for an instruction
/// `{status, result, error}`), or why there is none.
pub trait ReferenceSource {
    fn entry(&self, root: &str, id: &str) -> Result<&Value, NoEntry>;
}

/// Why a reference's target has no entry to read.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum NoEntry {
    #[error("there is no `{0}`")]
    Unknown(String),
    #[error("`{0}` has not finished")]
    NotFinished(String),
}

/// Renders a value inside a longer string.
pub fn render_text(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// `value` with every placeholder replaced. `base` names where `value` sits, for messages.
pub fn substitute(
    value: &Value,
    base: &str,
    source: &dyn ReferenceSource,
) -> Result<Value, ReferenceError> {
    let mut at = base.to_owned();
    substitute_at(value, &mut at, source)
}

fn resolve<'s>(
    inner: &str,
    at: &str,
    source: &'s dyn ReferenceSource,
) -> Result<&'s Value, ReferenceError> {
    let r = parse_ref(inner, at)?;
    let unresolved = |reason: String| ReferenceError::Unresolved {
        placeholder: r.to_string(),
        at: at.to_owned(),
        reason,
    };
    let entry = source
        .entry(r.root(), r.target())
        .map_err(|missing| unresolved(missing.to_string()))?;
    lookup_segments(&r.path.0[2..], entry).ok_or_else(|| {
        let tail = Path(r.path.0[2..].to_vec());
        unresolved(format!("`{}` has no `{tail}`", r.target()))
    })
}

fn substitute_at(
    value: &Value,
    at: &mut String,
    source: &dyn ReferenceSource,
) -> Result<Value, ReferenceError> {
    Ok(match value {
        Value::String(s) if s.contains("${") => {
            let parts = pieces(s);
            match parts.as_slice() {
                [Piece::Ref(inner)] if s.starts_with("${") && s.ends_with('}') => {
                    resolve(inner, at, source)?.clone()
                }
                _ => {
                    let mut text = String::with_capacity(s.len());
                    for piece in &parts {
                        match piece {
                            Piece::Text(t) => text.push_str(t),
                            Piece::Ref(inner) => {
                                text.push_str(&render_text(resolve(inner, at, source)?))
                            }
                        }
                    }
                    Value::String(text)
                }
            }
        }
        Value::Array(items) => {
            let mut out = Vec::with_capacity(items.len());
            for (i, item) in items.iter().enumerate() {
                let len = at.len();
                at.push_str(&format!("[{i}]"));
                out.push(substitute_at(item, at, source)?);
                at.truncate(len);
            }
            Value::Array(out)
        }
        Value::Object(map) => {
            let mut out = serde_json::Map::with_capacity(map.len());
            for (k, v) in map {
                let len = at.len();
                if !at.is_empty() {
                    at.push('.');
                }
                at.push_str(k);
                out.insert(k.clone(), substitute_at(v, at, source)?);
                at.truncate(len);
            }
            Value::Object(out)
        }
        other => other.clone(),
    })
}

#[cfg(test)]
mod tests {
    use std::collections::HashMap;

    use serde_json::json;

    use super::*;

    struct Results(HashMap<&'static str, Value>);

    impl ReferenceSource for Results {
        fn entry(&self, _root: &str, id: &str) -> Result<&Value, NoEntry> {
            self.0
                .get(id)
                .ok_or_else(|| NoEntry::NotFinished(id.to_owned()))
        }
    }

    fn source() -> Results {
        Results(HashMap::from([
            (
                "call_1",
                json!({"callId": "call_1", "status": "SUCCESS",
                       "result": {"fileData": {"w": 3}, "n": 7, "ok": true, "name": "a.png",
                                  "items": [10, 20], "none": null}}),
            ),
            (
                "inst_1",
                json!({"status": "COMPLETED", "result": {"data": [1, 2, 3]}}),
            ),
        ]))
    }

    #[test]
    fn an_exact_placeholder_keeps_its_json_type() -> Result<(), ReferenceError> {
        let args = json!({
            "obj": "${results.call_1.result.fileData}",
            "num": "${results.call_1.result.n}",
            "bool": "${results.call_1.result.ok}",
            "null": "${results.call_1.result.none}",
            "idx": "${results.call_1.result.items[1]}",
            "dep": "${dependencies.inst_1.result.data}",
            "nested": [{"deep": "${results.call_1.result.n}"}]
        });
        let out = substitute(&args, "parameters", &source())?;
        assert_eq!(
            out,
            json!({"obj": {"w": 3}, "num": 7, "bool": true, "null": null, "idx": 20,
                   "dep": [1, 2, 3], "nested": [{"deep": 7}]})
        );
        Ok(())
    }

    #[test]
    fn placeholders_inside_text_are_rendered() -> Result<(), ReferenceError> {
        let args = json!({
            "msg": "file ${results.call_1.result.name} has ${results.call_1.result.n} parts",
            "json": "size=${results.call_1.result.fileData}; ok=${results.call_1.result.ok}",
            "shell": "echo ${HOME} stays",
            "twice": "${results.call_1.result.n}${results.call_1.result.n}"
        });
        let out = substitute(&args, "parameters", &source())?;
        assert_eq!(out["msg"], json!("file a.png has 7 parts"));
        assert_eq!(out["json"], json!("size={\"w\":3}; ok=true"));
        assert_eq!(out["shell"], json!("echo ${HOME} stays"));
        assert_eq!(out["twice"], json!("77"));
        Ok(())
    }

    #[test]
    fn an_unresolvable_path_is_an_error_not_an_empty_string() {
        for (text, fragment) in [
            (
                "${results.call_1.result.missing}",
                "has no `result.missing`",
            ),
            (
                "x ${results.call_1.result.items[5]} y",
                "has no `result.items[5]`",
            ),
            ("${results.call_9.result}", "`call_9` has not finished"),
        ] {
            let args = json!({"a": {"b": text}});
            match substitute(&args, "parameters", &source()) {
                Err(e @ ReferenceError::Unresolved { .. }) => {
                    let msg = e.to_string();
                    assert!(msg.contains(fragment), "{msg}");
                    assert!(msg.contains("parameters.a.b"), "{msg}");
                }
                other => panic!("{text}: {other:?}"),
            }
        }
    }

    #[test]
    fn references_are_found_with_their_targets() -> Result<(), ReferenceError> {
        let args = json!({"a": ["${results.x.result}", {"b": "p ${dependencies.y.status} q"}],
                          "c": "${nothing.here}"});
        let refs = find_references(&args, "parameters")?;
        let targets: Vec<(&str, &str)> = refs.iter().map(|r| (r.root(), r.target())).collect();
        assert_eq!(targets, vec![("results", "x"), ("dependencies", "y")]);
        Ok(())
    }

    #[test]
    fn malformed_placeholders_are_reported() {
        let bad = json!({"a": "${results}"});
        assert!(matches!(
            find_references(&bad, "parameters"),
            Err(ReferenceError::NoTarget { .. })
        ));
        let bad = json!({"a": "${results.x..y}"});
        assert!(matches!(
            find_references(&bad, "parameters"),
            Err(ReferenceError::BadPath { .. })
        ));
    }
}
