//! Answers of the `/v1/mcp` endpoints the settings page reads: the configured MCP servers,
//! their state and tools. Typed here so the UI's types are generated from the server's.

use serde::{Deserialize, Serialize};
use serde_json::Value;
use ts_rs::TS;

/// What kind of call a server's tool makes, from its annotations.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "snake_case")]
pub enum McpToolSafety {
    /// `readOnlyHint`: runs beside other calls, no consent.
    ReadOnly,
    /// `destructiveHint: true`, the server's own word that it may delete or overwrite data:
    /// runs alone, the person consents first.
    Destructive,
    /// `destructiveHint: false`: it changes things, if only additively: runs alone, the
    /// person consents first.
    SideEffecting,
    /// No `readOnlyHint` or `destructiveHint`: the MCP spec's defaults make it destructive,
    /// so it is treated as one, though the server claimed nothing.
    Unannotated,
}

/// Where a server is.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, TS)]
#[serde(rename_all = "snake_case", tag = "state")]
pub enum McpServerStatus {
    /// Not started yet: it starts when a run or the settings page needs it.
    Idle,
    Starting,
    Ready {
        /// The server's own name and version.
        server: String,
    },
    Failed {
        reason: String,
        attempts: u32,
        /// How long until it is tried again, when something needs it.
        retry_in_ms: u64,
    },
    /// Turned off in the settings.
    Disabled,
}

/// A tool of a server, as the settings page lists it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, TS)]
#[ts(optional_fields)]
pub struct McpToolView {
    /// The name the model calls (`server__tool`).
    pub name: String,
    /// Its name on the server.
    pub server_name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// What the server claims (its annotations, with the MCP spec's defaults).
    pub safety: McpToolSafety,
}

/// A configured server (never a secret's value).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, TS)]
pub struct McpServerView {
    pub name: String,
    /// Its entry in the `mcpServers` shape (`command`/`args`/`env`, or `url`/`headers`), each
    /// secret shown as `${keyring}`.
    #[ts(type = "Record<string, unknown>")]
    pub config: Value,
    /// Its command line or URL.
    pub uri: String,
    pub disabled: bool,
    /// The person trusts none of its tools' claims: every call asks (`alwaysAsk`).
    pub always_ask: bool,
    pub status: McpServerStatus,
    pub tools: Vec<McpToolView>,
    /// The env or header names whose values are kept in the keyring.
    pub secrets: Vec<String>,
}

/// `GET /v1/mcp/servers`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, TS)]
pub struct McpServerList {
    pub servers: Vec<McpServerView>,
}

/// `POST /v1/mcp/import`: the servers taken from a pasted document, and all of them now.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, TS)]
pub struct McpImported {
    pub added: Vec<String>,
    pub servers: Vec<McpServerView>,
}

/// `GET /v1/mcp/servers/{name}/log`: the last lines, oldest first.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, TS)]
pub struct McpServerLog {
    pub lines: Vec<String>,
}

/// A resource a server offers (`GET /v1/mcp/servers/{name}/resources`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(optional_fields)]
pub struct McpResource {
    pub uri: String,
    pub name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mime_type: Option<String>,
}

/// `GET /v1/mcp/servers/{name}/resources`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, TS)]
pub struct McpResourceList {
    pub resources: Vec<McpResource>,
}

/// An argument a prompt takes.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, TS)]
#[ts(optional_fields)]
pub struct McpPromptArgument {
    pub name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub required: Option<bool>,
}

/// A prompt a server offers.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, TS)]
#[ts(optional_fields)]
pub struct McpPrompt {
    pub name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub arguments: Vec<McpPromptArgument>,
}

/// `GET /v1/mcp/servers/{name}/prompts`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, TS)]
pub struct McpPromptList {
    pub prompts: Vec<McpPrompt>,
}
