//! What `GET /v1/tools` answers: every tool a model gets, with how it is scheduled and guarded.

use serde::Serialize;
use serde_json::Value;
use tessera_engine::tools::spec::ToolKind;
use tessera_protocol::mcp_cp::{PermissionLevel, Runtime};
use ts_rs::TS;

/// One tool: its declaration as the model sees it and as the scheduler and consent treat it.
#[derive(Clone, Debug, Serialize, TS)]
pub struct ToolInfo {
    pub name: String,
    pub description: String,
    /// The JSON Schema of its arguments.
    pub input_schema: Value,
    /// Its calls may run beside others.
    pub safe: bool,
    /// It changes something outside the conversation (the opposite of `safe`).
    pub side_effecting: bool,
    pub runtime: Runtime,
    pub permission: PermissionLevel,
    pub kind: ToolKind,
    /// Who provides it: `builtin`, an MCP server's name, the desktop shell…
    pub provider: String,
    /// What it reads and writes, for ordering calls (resource names).
    pub reads: Vec<String>,
    pub writes: Vec<String>,
    pub timeout_ms: u64,
}

/// `GET /v1/tools`.
#[derive(Clone, Debug, Serialize, TS)]
pub struct ToolList {
    pub tools: Vec<ToolInfo>,
}
