//! The local-model worker (`tessera-llama`) as its parent sees it: where its binary is, and the
//! line it prints when it is ready.

use std::path::PathBuf;

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
