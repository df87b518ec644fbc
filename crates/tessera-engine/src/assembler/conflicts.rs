//! Conflict decisions (seed 004 §1 可解释: 冲突决策): when two evidences contradict each other,
//! one is kept and the other is not sent, and the explanation says which and why.
//!
//! What counts as a conflict is Tessera's definition, on evidences whose `source` names a `uri`
//! (the same kind, name and uri is the same source):
//! - **older version**: two evidences of the same source whose `metadata.version`
//!   (`VERSION_FIELD`) differ: the highest version is kept (numbers by value, dotted versions
//!   part by part, other text as text);
//! - **same source and selector**: refs with the same selector citing evidences of the same
//!   source whose `content` differs (the same part of one source said two ways): the evidence
//!   written last (later in `evidences`) is kept.
//!
//! A ref to an evidence that lost is not rendered: its block is left out
//! (`unresolvable_ref`, [`super::ResolveError::Superseded`] naming the evidence kept), never
//! sent with outdated evidence.

use std::cmp::Ordering;
use std::collections::HashMap;

use serde::{Deserialize, Serialize};
use serde_json::Value;
use tessera_protocol::context_doc::{ContextDocument, Evidence};
use ts_rs::TS;

use super::render::{EvidenceResolver, ResolveError};

/// The evidence field that carries a source's version.
pub(crate) const VERSION_FIELD: &str = "metadata.version";

/// Why one evidence was kept over another.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "snake_case")]
pub enum ConflictRule {
    /// The same source at an older `metadata.version`.
    OlderVersion,
    /// The same source and selector with other content; the later evidence is kept.
    SameSourceAndSelector,
}

/// One conflict decision, as the explanation records it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, TS)]
#[ts(optional_fields)]
pub struct ConflictDecision {
    pub kept: String,
    pub superseded: String,
    /// The source both come from (`kind:name:uri`).
    pub source: String,
    pub rule: ConflictRule,
    /// For `older_version`: the field compared and both versions.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub version_field: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(type = "unknown")]
    pub(crate) kept_version: Option<Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(type = "unknown")]
    pub(crate) superseded_version: Option<Value>,
    /// For `same_source_and_selector`: the selector both were cited with (none: whole).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub selector: Option<String>,
}

fn source_of(e: &Evidence) -> Option<String> {
    let uri = e.source.uri.as_deref().filter(|u| !u.trim().is_empty())?;
    let kind = serde_json::to_value(e.source.kind)
        .ok()
        .and_then(|v| v.as_str().map(str::to_owned))
        .unwrap_or_default();
    Some(format!(
        "{kind}:{}:{uri}",
        e.source.name.as_deref().unwrap_or_default()
    ))
}

fn version_of(e: &Evidence) -> Option<&Value> {
    e.metadata
        .as_ref()
        .and_then(|m| m.get("version"))
        .filter(|v| !v.is_null())
}

/// Orders two versions: numbers by value, dotted text part by part (numerically where both
/// parts are numbers), other text as text.
fn compare_versions(a: &Value, b: &Value) -> Ordering {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => x
            .as_f64()
            .partial_cmp(&y.as_f64())
            .unwrap_or(Ordering::Equal),
        _ => {
            let text = |v: &Value| match v {
                Value::String(s) => s.clone(),
                other => other.to_string(),
            };
            let (x, y) = (text(a), text(b));
            let parts = |s: &str| s.split(['.', '-']).map(str::to_owned).collect::<Vec<_>>();
            for (p, q) in parts(&x).iter().zip(parts(&y).iter()) {
                let order = match (p.parse::<u64>(), q.parse::<u64>()) {
                    (Ok(m), Ok(n)) => m.cmp(&n),
                    _ => p.cmp(q),
                };
                if order != Ordering::Equal {
                    return order;
                }
            }
            parts(&x).len().cmp(&parts(&y).len())
        }
    }
}

/// The conflict decisions of `doc`, in evidence order.
pub fn decide(doc: &ContextDocument) -> Vec<ConflictDecision> {
    let order: HashMap<&str, usize> = doc
        .evidences
        .iter()
        .enumerate()
        .map(|(i, (key, _))| (key, i))
        .collect();
    let mut decisions: Vec<ConflictDecision> = Vec::new();
    let mut by_source: HashMap<String, Vec<&Evidence>> = HashMap::new();
    for (_, e) in doc.evidences.iter() {
        if let Some(source) = source_of(e) {
            by_source.entry(source).or_default().push(e);
        }
    }
    let mut sources: Vec<(&String, &Vec<&Evidence>)> = by_source.iter().collect();
    sources.sort_by(|a, b| a.0.cmp(b.0));
    for (source, evidences) in sources {
        let versioned: Vec<(&Evidence, &Value)> = evidences
            .iter()
            .filter_map(|e| Some((*e, version_of(e)?)))
            .collect();
        let Some(&(newest, newest_version)) =
            versioned.iter().max_by(|a, b| compare_versions(a.1, b.1))
        else {
            continue;
        };
        for &(e, v) in &versioned {
            if compare_versions(v, newest_version) == Ordering::Less {
                decisions.push(ConflictDecision {
                    kept: newest.evidence_id.clone(),
                    superseded: e.evidence_id.clone(),
                    source: source.clone(),
                    rule: ConflictRule::OlderVersion,
                    version_field: Some(VERSION_FIELD.to_owned()),
                    kept_version: Some(newest_version.clone()),
                    superseded_version: Some(v.clone()),
                    selector: None,
                });
            }
        }
    }
    // The same part (selector) of one source, said two ways.
    let index: HashMap<&str, &Evidence> = doc.evidences.iter().collect();
    let refs = doc
        .session
        .messages
        .iter()
        .filter_map(|m| m.refs.as_ref())
        .chain(doc.context_blocks.iter().filter_map(|b| b.refs.as_ref()))
        .flatten();
    let mut cited: HashMap<(String, Option<String>), Vec<&Evidence>> = HashMap::new();
    for r in refs {
        let Some(e) = index.get(r.evidence_id.as_str()) else {
            continue;
        };
        let Some(source) = source_of(e) else { continue };
        let group = cited.entry((source, r.selector.clone())).or_default();
        if !group.iter().any(|g| g.evidence_id == e.evidence_id) {
            group.push(e);
        }
    }
    let mut groups: Vec<_> = cited.into_iter().collect();
    groups.sort_by(|a, b| a.0.cmp(&b.0));
    for ((source, selector), mut group) in groups {
        group.sort_by_key(|e| order.get(e.evidence_id.as_str()).copied().unwrap_or(0));
        let Some(last) = group.last().copied() else {
            continue;
        };
        for e in &group[..group.len() - 1] {
            let already = decisions.iter().any(|d| d.superseded == e.evidence_id);
            if e.content != last.content && !already {
                decisions.push(ConflictDecision {
                    kept: last.evidence_id.clone(),
                    superseded: e.evidence_id.clone(),
                    source: source.clone(),
                    rule: ConflictRule::SameSourceAndSelector,
                    version_field: None,
                    kept_version: None,
                    superseded_version: None,
                    selector: selector.clone(),
                });
            }
        }
    }
    decisions
}

/// A resolver that refuses the evidences a decision left out.
pub(crate) struct Superseding<'a> {
    pub inner: &'a dyn EvidenceResolver,
    /// Superseded evidence → the one kept.
    pub superseded: HashMap<String, String>,
}

impl EvidenceResolver for Superseding<'_> {
    fn resolve(&self, evidence_id: &str, selector: Option<&str>) -> Result<String, ResolveError> {
        if let Some(kept) = self.superseded.get(evidence_id) {
            return Err(ResolveError::Superseded {
                evidence_id: evidence_id.to_owned(),
                kept: kept.clone(),
            });
        }
        self.inner.resolve(evidence_id, selector)
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]
    use super::*;
    use serde_json::json;

    fn doc(evidences: Value, blocks: Value) -> ContextDocument {
        serde_json::from_value(json!({
            "schema_version": "1.0",
            "session": {"session_id": "s", "messages": [{"role": "user", "content": "hi"}],
                        "task_state": {"todo_list": {"tasks": []}}},
            "evidences": evidences,
            "context_blocks": blocks
        }))
        .unwrap()
    }

    fn ev(id: &str, uri: &str, content: &str, version: Option<Value>) -> Value {
        let mut e = json!({"evidence_id": id, "type": "rag_doc",
            "source": {"kind": "rag", "name": "wiki", "uri": uri}, "content": content});
        if let Some(v) = version {
            e["metadata"] = json!({"version": v});
        }
        e
    }

    #[test]
    fn an_older_version_of_a_source_is_superseded_by_the_newest() {
        let d = doc(
            json!({
                "a": ev("a", "https://wiki/renew", "v1 text", Some(json!("1.9"))),
                "b": ev("b", "https://wiki/renew", "v2 text", Some(json!("1.10"))),
                "c": ev("c", "https://wiki/other", "other", Some(json!(1)))
            }),
            json!([]),
        );
        let decisions = decide(&d);
        assert_eq!(decisions.len(), 1, "{decisions:?}");
        assert_eq!(decisions[0].kept, "b");
        assert_eq!(decisions[0].superseded, "a");
        assert_eq!(decisions[0].rule, ConflictRule::OlderVersion);
        assert_eq!(
            decisions[0].version_field.as_deref(),
            Some("metadata.version")
        );
    }

    #[test]
    fn the_same_part_of_a_source_said_two_ways_keeps_the_later() {
        let d = doc(
            json!({
                "old": ev("old", "https://wiki/renew", "POST /renew", None),
                "new": ev("new", "https://wiki/renew", "POST /v2/renew", None),
                "part": ev("part", "https://wiki/renew", "another part", None)
            }),
            json!([
                {"block_id": "b1", "block_type": "evidence", "priority": "high",
                 "refs": [{"evidence_id": "old", "selector": "lines:1"}]},
                {"block_id": "b2", "block_type": "evidence", "priority": "high",
                 "refs": [{"evidence_id": "new", "selector": "lines:1"},
                          {"evidence_id": "part", "selector": "lines:2"}]}
            ]),
        );
        let decisions = decide(&d);
        assert_eq!(decisions.len(), 1, "{decisions:?}");
        assert_eq!(
            (decisions[0].kept.as_str(), decisions[0].superseded.as_str()),
            ("new", "old")
        );
        assert_eq!(decisions[0].selector.as_deref(), Some("lines:1"));
    }
}
