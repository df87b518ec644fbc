//! `tessera context export|import|assemble|show`: the local context database from the command
//! line. Each command opens the application for one command and calls one operation of it.

use std::{io::Read, path::Path};

use serde_json::Value;
use tessera_app::context::PromptRequest;
use tessera_app::views::conversations::ExportFormat;
use tessera_app::{App, AppError, CoreError};
use thiserror::Error;

#[derive(Debug, Error)]
pub enum ContextCmdError {
    #[error("{0}")]
    Open(#[from] AppError),
    #[error("{0}")]
    Core(#[from] CoreError),
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
    #[error("cannot write JSON: {0}")]
    Json(#[from] serde_json::Error),
}

/// `--format` of `tessera context export`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum ExportFormatArg {
    /// The seed-004 context document.
    Context,
    /// The conversation as a list of MCP-CP messages.
    Messages,
    /// The branch shown as a Markdown transcript, to read.
    Markdown,
}

impl From<ExportFormatArg> for ExportFormat {
    fn from(arg: ExportFormatArg) -> Self {
        match arg {
            ExportFormatArg::Context => Self::Context,
            ExportFormatArg::Messages => Self::Messages,
            ExportFormatArg::Markdown => Self::Markdown,
        }
    }
}

/// What a command prints, and whether it succeeded.
#[derive(Debug)]
pub struct Outcome {
    pub stdout: String,
    pub ok: bool,
}

fn open(data_dir: &Path) -> Result<App, ContextCmdError> {
    Ok(App::open_for_command(data_dir, Default::default())?)
}

pub fn export(
    data_dir: &Path,
    conversation: &str,
    format: ExportFormatArg,
) -> Result<Outcome, ContextCmdError> {
    let stdout = match open(data_dir)?.export_conversation(conversation, format.into())? {
        Value::String(markdown) => markdown,
        document => serde_json::to_string_pretty(&document)? + "\n",
    };
    Ok(Outcome { stdout, ok: true })
}

/// `tessera context show ID`: the conversation's MCP-CP context (state, history, version) and
/// its change log, as `GET /v1/conversations/{id}/context` answers them.
pub fn show(data_dir: &Path, conversation: &str) -> Result<Outcome, ContextCmdError> {
    let view = open(data_dir)?.context_view(conversation)?;
    Ok(Outcome {
        stdout: serde_json::to_string_pretty(&view)? + "\n",
        ok: true,
    })
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
    Ok(match open(data_dir)?.import_conversation(&value, source)? {
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

pub fn assemble_cmd(
    data_dir: &Path,
    request: &PromptRequest<'_>,
) -> Result<Outcome, ContextCmdError> {
    let out = open(data_dir)?.assemble_prompt(request)?;
    Ok(Outcome {
        stdout: serde_json::to_string_pretty(&out)? + "\n",
        ok: true,
    })
}
