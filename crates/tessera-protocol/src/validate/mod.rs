//! Validation of documents against `docs/protocol-rules.md`.
//!
//! [`validate`] checks a document of a given [`DocumentKind`] against its JSON Schema (generated
//! from the Rust types, see [`json_schema`]) and then against the rules written in Rust
//! ([`semantic`]), and reports every [`Problem`] at a dotted path (`session.messages[0].role`,
//! `$` for the whole document). [`parse`] validates and then deserializes into a typed value.

pub mod context_refs;
pub mod errors;
pub mod kind;
pub mod schema;
pub mod semantic;

use std::fmt;
use std::sync::OnceLock;

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use ts_rs::TS;

pub use errors::pointer_to_path;
pub use kind::{DocumentKind, UnknownKind};
pub use schema::json_schema;

/// One thing wrong with a document.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize, TS)]
pub struct Problem {
    /// Dotted path from the root (`content.calls[2].callId`), `$` for the whole document.
    pub path: String,
    /// What is wrong: `required`, `expected string`, `must be one of A, B`…
    pub message: String,
}

impl fmt::Display for Problem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.path, self.message)
    }
}

/// Why a document could not be read as a typed value.
#[derive(Debug, thiserror::Error)]
pub enum ProtocolError {
    /// The document breaks the rules.
    #[error("invalid {kind}: {}", join(problems))]
    Invalid {
        kind: DocumentKind,
        problems: Vec<Problem>,
    },
    /// The document is valid but does not fit the Rust type asked for.
    #[error("{kind} does not fit the requested type: {message}")]
    Mismatch { kind: DocumentKind, message: String },
    /// A typed value could not be turned back into JSON.
    #[error("{kind} could not be serialized: {message}")]
    Serialize { kind: DocumentKind, message: String },
}

impl ProtocolError {
    /// The problems found, empty for [`ProtocolError::Mismatch`].
    pub fn problems(&self) -> &[Problem] {
        match self {
            ProtocolError::Invalid { problems, .. } => problems,
            ProtocolError::Mismatch { .. } | ProtocolError::Serialize { .. } => &[],
        }
    }
}

fn join(problems: &[Problem]) -> String {
    problems
        .iter()
        .map(Problem::to_string)
        .collect::<Vec<_>>()
        .join("; ")
}

/// Checks `doc` as a document of `kind`. Empty means valid; otherwise the problems are sorted by
/// path (then message) and deduplicated.
pub fn validate(kind: DocumentKind, doc: &Value) -> Vec<Problem> {
    let mut problems = match validator(kind) {
        Ok(validator) => validator
            .iter_errors(doc)
            .map(|error| errors::problem_from_error(doc, &error))
            .collect(),
        Err(message) => vec![Problem {
            path: "$".into(),
            message: format!("internal error: the {kind} schema does not compile: {message}"),
        }],
    };
    semantic::check(kind, doc, &mut problems);
    problems.sort();
    problems.dedup();
    problems
}

/// Parses `text` as JSON and checks it as a document of `kind`. Malformed JSON gives one problem
/// at `$`: `malformed JSON at line L, column C: <what serde_json says>`.
pub fn validate_str(kind: DocumentKind, text: &str) -> Vec<Problem> {
    match serde_json::from_str::<Value>(text) {
        Ok(doc) => validate(kind, &doc),
        Err(error) => vec![malformed(&error)],
    }
}

fn malformed(error: &serde_json::Error) -> Problem {
    let full = error.to_string();
    let suffix = format!(" at line {} column {}", error.line(), error.column());
    let message = full.strip_suffix(&suffix).unwrap_or(&full);
    Problem {
        path: "$".into(),
        message: format!(
            "malformed JSON at line {}, column {}: {message}",
            error.line(),
            error.column()
        ),
    }
}

/// Validates `doc` as `kind`, then deserializes it into `T`.
pub fn parse<T: DeserializeOwned>(kind: DocumentKind, doc: &Value) -> Result<T, ProtocolError> {
    let problems = validate(kind, doc);
    if !problems.is_empty() {
        return Err(ProtocolError::Invalid { kind, problems });
    }
    T::deserialize(doc).map_err(|error| ProtocolError::Mismatch {
        kind,
        message: error.to_string(),
    })
}

/// Parses JSON text, validates it as `kind` and deserializes it into `T`.
pub fn parse_str<T: DeserializeOwned>(kind: DocumentKind, text: &str) -> Result<T, ProtocolError> {
    let doc: Value = serde_json::from_str(text).map_err(|error| ProtocolError::Invalid {
        kind,
        problems: vec![malformed(&error)],
    })?;
    parse(kind, &doc)
}

/// Validates `doc` as `kind`, reads it into the kind's Rust type and writes it back: the
/// document as Tessera would send it (known fields in protocol order, unknown fields after them,
/// values unchanged).
pub fn normalize(kind: DocumentKind, doc: &Value) -> Result<Value, ProtocolError> {
    fn via<T: Document>(doc: &Value) -> Result<Value, ProtocolError> {
        let typed = T::from_value(doc)?;
        serde_json::to_value(&typed).map_err(|error| ProtocolError::Serialize {
            kind: T::KIND,
            message: error.to_string(),
        })
    }
    match kind {
        DocumentKind::Message => via::<crate::mcp_cp::Message>(doc),
        DocumentKind::Event => via::<crate::easyflow::Event>(doc),
        DocumentKind::Request => via::<crate::request::Request>(doc),
        DocumentKind::Response => via::<crate::response::Response>(doc),
        DocumentKind::Context => via::<crate::context_doc::ContextDocument>(doc),
        DocumentKind::ToolDefinition => via::<crate::mcp_cp::ToolDefinition>(doc),
        DocumentKind::McpContext => via::<crate::mcp_cp::McpContext>(doc),
        DocumentKind::FormSubmission => via::<crate::easyflow::FormSubmission>(doc),
    }
}

/// A top-level document type: knows its kind, so it can validate and parse itself.
pub trait Document: Serialize + DeserializeOwned {
    /// The kind this type is the root of.
    const KIND: DocumentKind;

    /// Validates and deserializes.
    fn from_value(doc: &Value) -> Result<Self, ProtocolError> {
        parse(Self::KIND, doc)
    }

    /// Parses JSON text, validates and deserializes.
    fn from_json_str(text: &str) -> Result<Self, ProtocolError> {
        parse_str(Self::KIND, text)
    }
}

impl Document for crate::mcp_cp::Message {
    const KIND: DocumentKind = DocumentKind::Message;
}
impl Document for crate::easyflow::Event {
    const KIND: DocumentKind = DocumentKind::Event;
}
impl Document for crate::request::Request {
    const KIND: DocumentKind = DocumentKind::Request;
}
impl Document for crate::response::Response {
    const KIND: DocumentKind = DocumentKind::Response;
}
impl Document for crate::context_doc::ContextDocument {
    const KIND: DocumentKind = DocumentKind::Context;
}
impl Document for crate::mcp_cp::ToolDefinition {
    const KIND: DocumentKind = DocumentKind::ToolDefinition;
}
impl Document for crate::mcp_cp::McpContext {
    const KIND: DocumentKind = DocumentKind::McpContext;
}
impl Document for crate::easyflow::FormSubmission {
    const KIND: DocumentKind = DocumentKind::FormSubmission;
}

type Compiled = Result<jsonschema::Validator, String>;

/// The validator for `kind`, compiled once.
fn validator(kind: DocumentKind) -> Result<&'static jsonschema::Validator, &'static str> {
    static VALIDATORS: OnceLock<Vec<(DocumentKind, Compiled)>> = OnceLock::new();
    let all = VALIDATORS.get_or_init(|| {
        DocumentKind::ALL
            .iter()
            .map(|kind| {
                let compiled = jsonschema::options()
                    .with_draft(jsonschema::Draft::Draft202012)
                    .should_validate_formats(true)
                    .with_format("date-time", crate::wire::is_rfc3339)
                    .build(schema::schema_ref(*kind))
                    .map_err(|error| error.to_string());
                (*kind, compiled)
            })
            .collect()
    });
    match all.iter().find(|(k, _)| *k == kind) {
        Some((_, Ok(validator))) => Ok(validator),
        Some((_, Err(message))) => Err(message.as_str()),
        None => Err("no validator"),
    }
}
