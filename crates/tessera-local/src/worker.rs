//! The local-model worker (`tessera-llama`) as its parent sees it: where its binary is, and the
//! line it prints when it is ready.

use std::path::{Path, PathBuf};

use serde::Deserialize;

/// The worker's binary name.
pub const WORKER_BIN: &str = "tessera-llama";

/// `TESSERA_LLAMA_BIN` when set, else `tessera-llama` beside the running program (where the
/// package installs both), else the name alone, for the PATH to find.
pub fn worker_binary() -> PathBuf {
    if let Some(bin) = std::env::var_os("TESSERA_LLAMA_BIN").filter(|b| !b.is_empty()) {
        return PathBuf::from(bin);
    }
    std::env::current_exe()
        .ok()
        .and_then(|exe| exe.parent().map(|dir| dir.join(WORKER_BIN)))
        .filter(|path| path.is_file())
        .unwrap_or_else(|| PathBuf::from(WORKER_BIN))
}

/// How to start the worker on `model`: on `port` (0: a free one), answering to `token`
/// (passed in its environment, never in its arguments), its input, output and log piped.
pub fn command(
    worker: &Path,
    model: &Path,
    port: u16,
    ctx: Option<u32>,
    threads: Option<u32>,
    token: &str,
) -> std::process::Command {
    let mut command = std::process::Command::new(worker);
    command
        .arg(model)
        .args(["--port", &port.to_string()])
        .env("TESSERA_LLAMA_TOKEN", token)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped());
    if let Some(ctx) = ctx {
        command.args(["--ctx", &ctx.to_string()]);
    }
    if let Some(threads) = threads {
        command.args(["--threads", &threads.to_string()]);
    }
    command
}

/// The one JSON line the worker prints once the model is loaded and its port bound.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
pub struct Ready {
    pub port: u16,
    pub pid: u32,
    pub model: String,
    pub n_ctx: u32,
}

impl Ready {
    pub fn parse(line: &str) -> Option<Self> {
        serde_json::from_str(line.trim()).ok()
    }
}
