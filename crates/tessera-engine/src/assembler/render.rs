//! Rendering: a block's text (its `content`, else its refs resolved through an
//! [`EvidenceResolver`]) and the summary's text.
//!
//! A block rendered from refs is the refs' fragments in order, each wrapped so the model can cite
//! it by evidence id:
//!
//! ```text
//! <evidence id="ev_1" selector="lines:12-18">
//! …fragment…
//! </evidence>
//! ```

use std::collections::HashMap;

use serde::{Deserialize, Serialize};
use serde_json::Value;
use tessera_protocol::context_doc::selector::SelectorError;
use tessera_protocol::context_doc::{ContextBlock, ContextDocument, Evidence, EvidenceRef};

/// Turns a ref (`evidence_id` + optional selector) into the text the prompt shows.
///
/// The store's selector module implements this over its database; [`DocumentResolver`] serves a
/// document's own `evidences`. A closure `Fn(&str, Option<&str>) -> Result<String, ResolveError>`
/// is a resolver too.
pub trait EvidenceResolver {
    fn resolve(&self, evidence_id: &str, selector: Option<&str>) -> Result<String, ResolveError>;
}

impl<F> EvidenceResolver for F
where
    F: Fn(&str, Option<&str>) -> Result<String, ResolveError>,
{
    fn resolve(&self, evidence_id: &str, selector: Option<&str>) -> Result<String, ResolveError> {
        self(evidence_id, selector)
    }
}

/// Why a ref could not be rendered. Serialised into the explanation with a `kind` tag.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error, Serialize, Deserialize, ts_rs::TS)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum ResolveError {
    #[error("evidence `{evidence_id}` does not exist")]
    NotFound { evidence_id: String },
    #[error("evidence `{evidence_id}` has no content")]
    NoContent { evidence_id: String },
    #[error("selector `{selector}` is not supported (evidence `{evidence_id}`)")]
    UnsupportedSelector {
        evidence_id: String,
        selector: String,
    },
    #[error("selector `{selector}` does not apply to evidence `{evidence_id}`: {reason}")]
    InvalidSelector {
        evidence_id: String,
        selector: String,
        reason: String,
    },
    #[error("evidence `{evidence_id}` could not be resolved: {message}")]
    Failed {
        evidence_id: String,
        message: String,
    },
    /// A conflict decision kept another evidence of the same source
    /// ([`super::conflicts`]).
    #[error("evidence `{evidence_id}` is superseded by `{kept}` (a conflict decision)")]
    Superseded { evidence_id: String, kept: String },
}

/// Applies a selector to an evidence's content: `(selector, content) -> selected value`, or why
/// it cannot (the protocol's `selector::select`).
pub(crate) type SelectorFn<'a> = dyn Fn(&str, &Value) -> Result<Value, SelectorError> + 'a;

/// Resolves refs against a document's `evidences`: the whole `content` (a string as is, any
/// other JSON compact). Without a selector function ([`DocumentResolver::new`]) a non-empty
/// selector is [`ResolveError::UnsupportedSelector`]; with one
/// ([`DocumentResolver::with_selector`]) the selected value is rendered the same way and a
/// selector that does not apply is [`ResolveError::InvalidSelector`].
pub struct DocumentResolver<'a> {
    index: HashMap<&'a str, &'a Evidence>,
    selector: Option<Box<SelectorFn<'a>>>,
}

impl<'a> DocumentResolver<'a> {
    /// Indexes `doc.evidences` by key (the document's map looks keys up linearly).
    pub fn new(doc: &'a ContextDocument) -> Self {
        Self {
            index: doc.evidences.iter().collect(),
            selector: None,
        }
    }

    /// Like [`DocumentResolver::new`], applying selectors with `selector`.
    pub fn with_selector(
        doc: &'a ContextDocument,
        selector: impl Fn(&str, &Value) -> Result<Value, SelectorError> + 'a,
    ) -> Self {
        Self {
            selector: Some(Box::new(selector)),
            ..Self::new(doc)
        }
    }
}

fn render_value(value: &Value) -> String {
    match value {
        Value::String(text) => text.clone(),
        other => other.to_string(),
    }
}

impl EvidenceResolver for DocumentResolver<'_> {
    fn resolve(&self, evidence_id: &str, selector: Option<&str>) -> Result<String, ResolveError> {
        let evidence = self
            .index
            .get(evidence_id)
            .ok_or_else(|| ResolveError::NotFound {
                evidence_id: evidence_id.to_owned(),
            })?;
        let content = match &evidence.content {
            None | Some(Value::Null) => {
                return Err(ResolveError::NoContent {
                    evidence_id: evidence_id.to_owned(),
                })
            }
            Some(content) => content,
        };
        let Some(selector) = selector.filter(|s| !s.trim().is_empty()) else {
            return Ok(render_value(content));
        };
        let Some(apply) = &self.selector else {
            return Err(ResolveError::UnsupportedSelector {
                evidence_id: evidence_id.to_owned(),
                selector: selector.to_owned(),
            });
        };
        apply(selector, content)
            .map(|value| render_value(&value))
            .map_err(|reason| ResolveError::InvalidSelector {
                evidence_id: evidence_id.to_owned(),
                selector: selector.to_owned(),
                reason: reason.to_string(),
            })
    }
}

/// A ref that could not be rendered, for the explanation.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
#[ts(optional_fields)]
pub struct RefFailure {
    pub evidence_id: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub selector: Option<String>,
    pub error: ResolveError,
}

/// One ref of a rendered block.
#[derive(Clone, Debug)]
pub(crate) struct RenderedRef {
    pub(crate) evidence_id: String,
    pub(crate) selector: Option<String>,
    /// The wrapped fragment, when the block was rendered from its refs.
    pub(crate) fragment: Option<String>,
}

/// A block ready to count.
#[derive(Clone, Debug)]
pub(crate) struct RenderedBlock {
    pub(crate) text: String,
    pub(crate) from_refs: bool,
    pub(crate) refs: Vec<RenderedRef>,
}

pub(crate) enum Rendering {
    Ready(RenderedBlock),
    Empty,
    Unresolvable(Vec<RefFailure>),
}

fn non_blank(text: Option<&str>) -> Option<&str> {
    text.filter(|t| !t.trim().is_empty())
}

/// Renders a block: its `content` if it has non-blank content, else its refs through `resolver`
/// (all of them must resolve; a block is never sent with part of its evidence missing).
pub(crate) fn render_block(block: &ContextBlock, resolver: &dyn EvidenceResolver) -> Rendering {
    let refs: &[EvidenceRef] = block.refs.as_deref().unwrap_or(&[]);
    if let Some(content) = non_blank(block.content.as_deref()) {
        return Rendering::Ready(RenderedBlock {
            text: content.to_owned(),
            from_refs: false,
            refs: refs
                .iter()
                .map(|r| RenderedRef {
                    evidence_id: r.evidence_id.clone(),
                    selector: r.selector.clone(),
                    fragment: None,
                })
                .collect(),
        });
    }
    if refs.is_empty() {
        return Rendering::Empty;
    }
    let mut failures = Vec::new();
    let mut rendered = Vec::with_capacity(refs.len());
    for r in refs {
        let selector = non_blank(r.selector.as_deref());
        match resolver.resolve(&r.evidence_id, selector) {
            Ok(text) => rendered.push(RenderedRef {
                evidence_id: r.evidence_id.clone(),
                selector: selector.map(str::to_owned),
                fragment: Some(wrap_fragment(&r.evidence_id, selector, &text)),
            }),
            Err(error) => failures.push(RefFailure {
                evidence_id: r.evidence_id.clone(),
                selector: selector.map(str::to_owned),
                error,
            }),
        }
    }
    if !failures.is_empty() {
        return Rendering::Unresolvable(failures);
    }
    let text = rendered
        .iter()
        .filter_map(|r| r.fragment.as_deref())
        .collect::<Vec<_>>()
        .join("\n");
    Rendering::Ready(RenderedBlock {
        text,
        from_refs: true,
        refs: rendered,
    })
}

fn wrap_fragment(evidence_id: &str, selector: Option<&str>, text: &str) -> String {
    let mut out = String::with_capacity(text.len() + evidence_id.len() + 48);
    out.push_str("<evidence id=\"");
    out.push_str(&escape_attr(evidence_id));
    out.push('"');
    if let Some(selector) = selector {
        out.push_str(" selector=\"");
        out.push_str(&escape_attr(selector));
        out.push('"');
    }
    out.push_str(">\n");
    out.push_str(text);
    out.push_str("\n</evidence>");
    out
}

fn escape_attr(value: &str) -> String {
    value
        .replace('&', "&amp;")
        .replace('"', "&quot;")
        .replace('<', "&lt;")
}

/// The summary as the prompt shows it.
pub(crate) fn summary_text(content: &str, from: u64, to: u64) -> String {
    format!("Summary of the earlier conversation (messages {from} to {to}):\n{content}")
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]
    use super::*;
    use serde_json::json;

    fn doc() -> ContextDocument {
        serde_json::from_value(json!({
            "schema_version": "1.0",
            "session": {
                "session_id": "s",
                "messages": [{"role": "user", "content": "hi"}],
                "task_state": {"todo_list": {"tasks": []}}
            },
            "evidences": {
                "text": {"evidence_id": "text", "type": "rag_doc", "source": {"kind": "rag"},
                         "content": "续订接口是 /renew"},
                "json": {"evidence_id": "json", "type": "tool_result", "source": {"kind": "tool"},
                         "content": {"order": 42, "items": ["a", "b"]}},
                "bare": {"evidence_id": "bare", "type": "other", "source": {"kind": "system"}}
            },
            "context_blocks": []
        }))
        .unwrap()
    }

    #[test]
    fn document_resolver_contents() {
        let doc = doc();
        let r = DocumentResolver::new(&doc);
        assert_eq!(r.resolve("text", None).unwrap(), "续订接口是 /renew");
        assert_eq!(r.resolve("text", Some("  ")).unwrap(), "续订接口是 /renew");
        assert_eq!(
            r.resolve("json", None).unwrap(),
            r#"{"order":42,"items":["a","b"]}"#
        );
        assert_eq!(
            r.resolve("bare", None),
            Err(ResolveError::NoContent {
                evidence_id: "bare".into()
            })
        );
        assert_eq!(
            r.resolve("nope", None),
            Err(ResolveError::NotFound {
                evidence_id: "nope".into()
            })
        );
        assert_eq!(
            r.resolve("text", Some("lines:1-2")),
            Err(ResolveError::UnsupportedSelector {
                evidence_id: "text".into(),
                selector: "lines:1-2".into()
            })
        );
    }

    #[test]
    fn selector_functions_plug_in() {
        let doc = doc();
        let r = DocumentResolver::with_selector(&doc, |selector, content| match selector {
            "field:order" => content
                .get("order")
                .cloned()
                .ok_or(SelectorError::NoContent {
                    selector: "no order".to_owned(),
                }),
            other => Err(SelectorError::NoContent {
                selector: other.to_owned(),
            }),
        });
        assert_eq!(r.resolve("json", Some("field:order")).unwrap(), "42");
        assert_eq!(
            r.resolve("json", None).unwrap(),
            r#"{"order":42,"items":["a","b"]}"#
        );
        assert_eq!(
            r.resolve("text", Some("field:order")),
            Err(ResolveError::InvalidSelector {
                evidence_id: "text".into(),
                selector: "field:order".into(),
                reason: "selector \"no order\": the evidence has no content to select from".into()
            })
        );
        assert!(matches!(
            r.resolve("bare", Some("field:order")),
            Err(ResolveError::NoContent { .. })
        ));
    }

    #[test]
    fn closures_are_resolvers() {
        let resolver = |id: &str, _: Option<&str>| -> Result<String, ResolveError> {
            Ok(format!("text of {id}"))
        };
        let block: ContextBlock = serde_json::from_value(json!({
            "block_id": "b", "block_type": "evidence", "priority": "low",
            "refs": [{"evidence_id": "a\"b", "selector": "x"}, {"evidence_id": "c"}]
        }))
        .unwrap();
        let Rendering::Ready(r) = render_block(&block, &resolver) else {
            panic!("not rendered")
        };
        assert!(r.from_refs);
        assert_eq!(
            r.text,
            "<evidence id=\"a&quot;b\" selector=\"x\">\ntext of a\"b\n</evidence>\n\
             <evidence id=\"c\">\ntext of c\n</evidence>"
        );
    }

    #[test]
    fn content_wins_and_empty_blocks() {
        let doc = doc();
        let r = DocumentResolver::new(&doc);
        let with_content: ContextBlock = serde_json::from_value(json!({
            "block_id": "b", "block_type": "state", "priority": "high",
            "content": "derived", "refs": [{"evidence_id": "missing"}]
        }))
        .unwrap();
        let Rendering::Ready(out) = render_block(&with_content, &r) else {
            panic!("content should win")
        };
        assert_eq!(out.text, "derived");
        assert!(!out.from_refs);
        let empty: ContextBlock = serde_json::from_value(json!({
            "block_id": "e", "block_type": "state", "priority": "high", "content": " "
        }))
        .unwrap();
        assert!(matches!(render_block(&empty, &r), Rendering::Empty));
        let broken: ContextBlock = serde_json::from_value(json!({
            "block_id": "x", "block_type": "evidence", "priority": "must",
            "refs": [{"evidence_id": "text"}, {"evidence_id": "missing"}]
        }))
        .unwrap();
        let Rendering::Unresolvable(failures) = render_block(&broken, &r) else {
            panic!("should fail")
        };
        assert_eq!(failures.len(), 1);
        assert_eq!(failures[0].evidence_id, "missing");
    }
}
