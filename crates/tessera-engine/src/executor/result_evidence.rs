//! A tool call's result as citable evidence (seed 004: every tool result becomes an evidence;
//! docs/design.md "Results become evidences"). The answer of the run refers to them, so a person
//! can see what it was built from.
//!
//! A result that already names evidences (search hits carry `evidence_id`s) is cited through
//! those: copying it would put a search result into the index the next search reads. A result
//! with images always gets its own evidence, which references the images' attachments.

use serde_json::{json, Value};
use tessera_protocol::context_doc::{
    Evidence, EvidenceLinks, EvidenceSource, EvidenceType, SourceKind,
};
use tessera_protocol::wire::JsonObject;

/// Most characters of a result kept in its evidence; the whole result stays in the event log
/// and the call record.
pub(crate) const MAX_EVIDENCE_CHARS: usize = 16_000;
/// How deep the search for cited evidence ids goes into a result.
const MAX_DEPTH: usize = 4;

/// What a successful call's result contributes: the evidences to write (none when the result
/// cites its own) and the ids the call's record lists.
pub(crate) struct ResultEvidence {
    pub new: Option<Evidence>,
    pub ids: Vec<String>,
}

/// The evidence of `result`, returned by call `call_id` of `tool` (from `provider`) in `run_id`.
pub(crate) fn evidence_of(
    tool: Option<&str>,
    provider: Option<&str>,
    call_id: &str,
    run_id: Option<&str>,
    result: &Value,
) -> ResultEvidence {
    let mut cited = Vec::new();
    cites_only(result, &mut cited);
    if !cited.is_empty() {
        return ResultEvidence {
            new: None,
            ids: cited,
        };
    }
    let text = match result {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    };
    let evidence_id = derived_id(call_id, run_id, &text);
    let chars = text.chars().count();
    let (content, truncated) = if chars > MAX_EVIDENCE_CHARS {
        let cut: String = text.chars().take(MAX_EVIDENCE_CHARS).collect();
        (Value::String(cut), true)
    } else if text.len() > 256 || !result.is_object() {
        (Value::String(text), false)
    } else {
        // Small structured results stay structured, so a selector can point into them.
        (result.clone(), false)
    };
    let mut metadata = JsonObject::new();
    if let Some(run_id) = run_id {
        metadata.insert("run_id".into(), json!(run_id));
    }
    if truncated {
        metadata.insert("truncated".into(), json!(true));
        metadata.insert("chars".into(), json!(chars));
    }
    let evidence = Evidence {
        evidence_id: evidence_id.clone(),
        evidence_type: EvidenceType::ToolResult,
        source: EvidenceSource {
            kind: SourceKind::Tool,
            name: tool.map(str::to_owned),
            uri: Some(format!(
                "tool://{}/{}",
                provider.unwrap_or("builtin"),
                tool.unwrap_or("unknown")
            )),
            extra: JsonObject::new(),
        },
        content: Some(content),
        confidence: None,
        metadata: (!metadata.is_empty()).then_some(metadata),
        links: Some(EvidenceLinks {
            tool_call_id: Some(call_id.to_owned()),
            ..EvidenceLinks::default()
        }),
        extra: JsonObject::new(),
    };
    ResultEvidence {
        new: Some(evidence),
        ids: vec![evidence_id],
    }
}

/// The evidences a successful result of call `call_id` is cited through, as
/// [`evidence_of`] names them: known from the result alone, so whoever ran the call can name
/// them before the event that writes them is stored.
pub fn result_evidence_ids(call_id: &str, run_id: Option<&str>, result: &Value) -> Vec<String> {
    let mut cited = Vec::new();
    cites_only(result, &mut cited);
    if cited.is_empty() {
        let text = match result {
            Value::String(s) => s.clone(),
            other => other.to_string(),
        };
        cited.push(derived_id(call_id, run_id, &text));
    }
    cited
}

/// The evidence ids `result` is cited through instead of an evidence of its own; none for a
/// result with images, whose evidence must reference them.
fn cites_only(result: &Value, out: &mut Vec<String>) {
    if crate::tools::images::images_of(result).is_empty() {
        cited_ids(result, 0, out);
    }
}

/// Derived from what it holds: the same result of the same call is the same evidence (calls
/// ids repeat across runs, so the run is part of it).
fn derived_id(call_id: &str, run_id: Option<&str>, text: &str) -> String {
    let mut h = xxhash_rust::xxh3::Xxh3::new();
    h.update(run_id.unwrap_or_default().as_bytes());
    h.update(&[0]);
    h.update(call_id.as_bytes());
    h.update(&[0]);
    h.update(text.as_bytes());
    format!("ev-tool-{:016x}", h.digest())
}

/// Every `evidence_id` string in `value`, in order, without repeats.
pub(crate) fn cited_ids(value: &Value, depth: usize, out: &mut Vec<String>) {
    if depth > MAX_DEPTH {
        return;
    }
    match value {
        Value::Object(map) => {
            if let Some(Value::String(id)) = map.get("evidence_id") {
                if !out.contains(id) {
                    out.push(id.clone());
                }
            }
            for v in map.values() {
                cited_ids(v, depth + 1, out);
            }
        }
        Value::Array(items) => {
            for v in items {
                cited_ids(v, depth + 1, out);
            }
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_result_that_cites_evidences_is_cited_through_them() {
        let r = evidence_of(
            Some("search_context"),
            None,
            "c1",
            Some("r"),
            &json!({"hits": [{"evidence_id": "a"}, {"evidence_id": "b"}, {"evidence_id": "a"}]}),
        );
        assert!(r.new.is_none());
        assert_eq!(r.ids, ["a", "b"]);
    }

    #[test]
    fn a_long_result_is_kept_cut_and_marked() {
        let long = "x".repeat(MAX_EVIDENCE_CHARS + 10);
        let r = evidence_of(Some("t"), Some("srv"), "c1", None, &json!(long));
        let ev = r.new.expect("an evidence");
        assert_eq!(r.ids, std::slice::from_ref(&ev.evidence_id));
        assert_eq!(
            ev.content
                .and_then(|c| c.as_str().map(|s| s.chars().count())),
            Some(MAX_EVIDENCE_CHARS)
        );
        assert_eq!(
            ev.metadata.and_then(|m| m.get("truncated").cloned()),
            Some(json!(true))
        );
        assert_eq!(ev.source.uri.as_deref(), Some("tool://srv/t"));
    }

    #[test]
    fn a_small_object_stays_structured() {
        let r = evidence_of(Some("calculator"), None, "c1", None, &json!({"value": 4}));
        assert_eq!(r.new.and_then(|e| e.content), Some(json!({"value": 4})));
    }
}
