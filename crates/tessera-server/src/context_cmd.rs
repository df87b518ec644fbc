//! `tessera context export|import|assemble|show`: the local context database from the command line.

use std::{io::Read, path::Path, time::SystemTime};

use serde_json::{json, Value};
use tessera_engine::assembler::{assemble, AssembleRequest, DocumentResolver, TokenCache};
use tessera_protocol::Problem;
use tessera_store::import::ImportReport;
use tessera_store::{selector, Store, StoreError};
use thiserror::Error;

#[derive(Debug, Error)]
pub enum ContextCmdError {
    #[error("{0}")]
    Store(#[from] StoreError),
    #[error("no conversation with id {0}")]
    NoConversation(String),
    #[error("cannot read {path}: {source}")]
    Read {
        path: String,
        source: std::io::Error,
    },
    #[error("{path} is not JSON: {source}")]
    NotJson {
        path: String,
        source: serde_json::Error,
    },
    #[error("{0} is neither a context document (an object with schema_version) nor a list of MCP-CP messages")]
    UnknownShape(String),
    #[error("cannot assemble: {0}")]
    Assemble(#[from] tessera_engine::assembler::AssembleError),
    #[error("cannot write JSON: {0}")]
    Json(#[from] serde_json::Error),
}

/// How `export` writes a conversation (`tessera context export --format`, `?format=` of
/// `GET /v1/conversations/{id}/export`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum, serde::Serialize, ts_rs::TS)]
#[serde(rename_all = "lowercase")]
pub enum ExportFormat {
    /// The seed-004 context document.
    Context,
    /// The conversation as a list of MCP-CP messages.
    Messages,
    /// The branch shown as a Markdown transcript, to read.
    Markdown,
}

/// What a command prints, and whether it succeeded.
#[derive(Debug)]
pub struct Outcome {
    pub stdout: String,
    pub ok: bool,
}

fn ensure_conversation(store: &Store, id: &str) -> Result<(), ContextCmdError> {
    match store.conversation(id)? {
        Some(_) => Ok(()),
        None => Err(ContextCmdError::NoConversation(id.to_string())),
    }
}

pub fn export(
    data_dir: &Path,
    conversation: &str,
    format: ExportFormat,
) -> Result<Outcome, ContextCmdError> {
    let store = Store::open(data_dir)?;
    let stdout = match export_value(&store, conversation, format)? {
        Value::String(markdown) => markdown,
        document => serde_json::to_string_pretty(&document)? + "\n",
    };
    Ok(Outcome { stdout, ok: true })
}

/// `tessera context show ID`: the conversation's MCP-CP context (state, history, version) and
/// its change log, as `GET /v1/conversations/{id}/context` answers them.
pub fn show(data_dir: &Path, conversation: &str) -> Result<Outcome, ContextCmdError> {
    let store = Store::open(data_dir)?;
    ensure_conversation(&store, conversation)?;
    let view = store.context_view(conversation)?;
    Ok(Outcome {
        stdout: serde_json::to_string_pretty(&view)? + "\n",
        ok: true,
    })
}

/// The document `export` prints (the HTTP API answers with the same one); the Markdown
/// transcript as a string.
pub fn export_value(
    store: &Store,
    conversation: &str,
    format: ExportFormat,
) -> Result<Value, ContextCmdError> {
    ensure_conversation(store, conversation)?;
    Ok(match format {
        ExportFormat::Context => store.export_document_json(conversation)?,
        ExportFormat::Messages => serde_json::to_value(store.export_mcp_messages(conversation)?)?,
        ExportFormat::Markdown => Value::String(store.export_markdown(conversation)?),
    })
}

/// What an import did: the conversation written, or every problem found (nothing written).
pub type ImportOutcome = Result<ImportReport, Vec<Problem>>;

/// Imports a context document (an object with `schema_version`) or a list of MCP-CP messages;
/// `source` names where it came from in the error for any other shape.
pub fn import_value(
    store: &Store,
    value: &Value,
    source: &str,
) -> Result<ImportOutcome, ContextCmdError> {
    let result = match value {
        Value::Object(map) if map.contains_key("schema_version") => store.import_document(value),
        Value::Array(list) => store.import_mcp_messages(list),
        _ => return Err(ContextCmdError::UnknownShape(source.to_string())),
    };
    match result {
        Ok(report) => Ok(Ok(report)),
        Err(StoreError::InvalidDocument { problems }) => Ok(Err(problems)),
        Err(other) => Err(other.into()),
    }
}

pub fn import(data_dir: &Path, source: &str) -> Result<Outcome, ContextCmdError> {
    let mut text = String::new();
    let read = if source == "-" {
        std::io::stdin().read_to_string(&mut text).map(|_| ())
    } else {
        std::fs::read_to_string(source).map(|t| text = t)
    };
    read.map_err(|e| ContextCmdError::Read {
        path: source.to_string(),
        source: e,
    })?;
    let value: Value = serde_json::from_str(&text).map_err(|e| ContextCmdError::NotJson {
        path: source.to_string(),
        source: e,
    })?;
    let store = Store::open(data_dir)?;
    Ok(match import_value(&store, &value, source)? {
        Ok(report) => Outcome {
            stdout: format!(
                "imported conversation {}: {} messages, {} evidences\n",
                report.conversation_id, report.messages, report.evidences
            ),
            ok: true,
        },
        Err(problems) => Outcome {
            stdout: problems.iter().map(|p| format!("{p}\n")).collect(),
            ok: false,
        },
    })
}

pub struct AssembleArgs<'a> {
    pub conversation: &'a str,
    pub budget: u64,
    pub reserve: u64,
    pub model: &'a str,
    pub explain: bool,
}

pub fn assemble_cmd(data_dir: &Path, args: &AssembleArgs<'_>) -> Result<Outcome, ContextCmdError> {
    let store = Store::open(data_dir)?;
    ensure_conversation(&store, args.conversation)?;
    let doc = store.export_document(args.conversation)?;
    let request = AssembleRequest::new(args.model, args.budget, args.reserve, SystemTime::now());
    let resolver = DocumentResolver::with_selector(&doc, |sel, content| {
        selector::select(sel, content).map_err(|e| e.to_string())
    });
    let cache = TokenCache::new();
    let assembly = assemble(&doc, &request, &resolver, &cache)?;
    let mut out = json!({ "prompt": assembly.prompt });
    if args.explain {
        out["explanation"] = serde_json::to_value(&assembly.explanation)?;
    }
    Ok(Outcome {
        stdout: serde_json::to_string_pretty(&out)? + "\n",
        ok: true,
    })
}
