//! A server's tools in the engine's registry: named `server__tool`, with the server's schema;
//! concurrency and consent from the tool's annotations, read with the MCP spec's defaults
//! (readOnlyHint: safe to run beside others, no consent; anything else, `destructiveHint: false`
//! and no annotations included: runs alone, the person consents first, as docs/design.md asks of
//! every side-effecting tool), unless the person marked the server `alwaysAsk` (every call
//! asks, no grant kept); each call
//! recorded with provider kind `mcp`, the server's name and URI.

use std::sync::Arc;
use std::time::Duration;

use rmcp::model::{
    CallToolRequestParams, CancelledNotificationParam, ClientRequest, Request, RequestId,
    ServerResult,
};
use rmcp::service::{PeerRequestOptions, RoleClient};
use rmcp::Peer;
use serde_json::{json, Map, Value};
use tessera_engine::tools::{
    RetryPolicy, SharedHandler, ToolContext, ToolFailure, ToolFailureCode, ToolFuture, ToolHandler,
    ToolKind, ToolSpec,
};
use tessera_protocol::mcp_cp::PermissionLevel;

use crate::client::Registered;
use crate::server::ServerSlot;

use tessera_protocol::mcp_api::McpToolSafety;

pub fn safety_of(tool: &rmcp::model::Tool) -> McpToolSafety {
    // The MCP spec's defaults: readOnlyHint false, destructiveHint true. A tool that claims
    // nothing is treated as destructive, but the person is told it claimed nothing.
    let hints = tool.annotations.as_ref();
    if hints.and_then(|h| h.read_only_hint) == Some(true) {
        return McpToolSafety::ReadOnly;
    }
    match hints.and_then(|h| h.destructive_hint) {
        Some(false) => McpToolSafety::SideEffecting,
        Some(true) => McpToolSafety::Destructive,
        None => McpToolSafety::Unannotated,
    }
}

/// The name the model calls: `server__tool`, with anything a model API refuses in a tool name
/// (outside letters, digits, `_` and `-`) written as `_`, at most 64 characters.
pub fn tool_name(server: &str, tool: &str) -> String {
    let cleaned: String = tool
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' || c == '-' {
                c
            } else {
                '_'
            }
        })
        .collect();
    format!("{server}__{cleaned}").chars().take(64).collect()
}

/// The declaration the engine and the model see.
pub fn spec_of(slot: &ServerSlot, tool: &rmcp::model::Tool) -> ToolSpec {
    let server = slot.name();
    let safety = safety_of(tool);
    let description = tool
        .description
        .as_deref()
        .or(tool.title.as_deref())
        .unwrap_or("A tool of this MCP server.");
    let spec = ToolSpec::new(
        tool_name(server, &tool.name),
        format!("{description} (from the MCP server `{server}`)"),
    )
    .input_schema(Value::Object((*tool.input_schema).clone()))
    .kind(ToolKind::Mcp)
    .provider(server)
    .provider_uri(slot.config.uri())
    .timeout_ms(slot.config.call_timeout_secs.saturating_mul(1000))
    .estimated_ms(2_000);
    if slot.config.always_ask {
        // None of the server's claims is trusted: runs alone, asks every time, never twice.
        return spec
            .safe(false)
            .permission(PermissionLevel::AlwaysAsk)
            .retry(RetryPolicy::none());
    }
    let spec = spec.safe(safety == McpToolSafety::ReadOnly);
    match safety {
        // Reading again does no harm; a change is never made twice.
        McpToolSafety::ReadOnly => spec,
        // "Not destructive" is still a change on the person's behalf (a file written, a
        // message sent): it asks like any other side-effecting tool.
        McpToolSafety::Destructive | McpToolSafety::SideEffecting | McpToolSafety::Unannotated => {
            spec.permission(PermissionLevel::UserConsent)
                .retry(RetryPolicy::none())
        }
    }
}

/// Tells the server a call was given up (the run was cancelled, the call timed out) when the
/// call's future is dropped before the answer came.
struct Abandon {
    peer: Peer<RoleClient>,
    id: Option<RequestId>,
}

impl Drop for Abandon {
    fn drop(&mut self) {
        let Some(id) = self.id.take() else { return };
        let peer = self.peer.clone();
        let params = CancelledNotificationParam::new(Some(id), Some("cancelled in Tessera".into()));
        tokio::spawn(async move {
            if let Err(error) = peer.notify_cancelled(params).await {
                tracing::debug!(%error, "the cancellation did not reach the server");
            }
        });
    }
}

/// Calls one tool of one server.
pub(crate) struct McpToolHandler {
    pub(crate) slot: Arc<ServerSlot>,
    /// The tool's own name on the server.
    pub(crate) tool: String,
}

impl McpToolHandler {
    pub(crate) fn shared(slot: Arc<ServerSlot>, tool: &str) -> SharedHandler {
        Arc::new(Self {
            slot,
            tool: tool.to_owned(),
        })
    }
}

/// The call's result as the model and the context database keep it: the text the server
/// returned, its structured content, and a note of anything else (images, resources) without
/// their bytes.
pub(crate) fn result_value(result: &Value) -> (bool, Value) {
    let is_error = result.get("isError").and_then(Value::as_bool) == Some(true);
    let mut text = Vec::new();
    let mut other = Vec::new();
    for block in result
        .get("content")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        match block.get("type").and_then(Value::as_str) {
            Some("text") => {
                if let Some(t) = block.get("text").and_then(Value::as_str) {
                    text.push(t.to_owned());
                }
            }
            _ => {
                let mut shown = block.clone();
                if let Some(o) = shown.as_object_mut() {
                    if let Some(Value::String(data)) = o.remove("data") {
                        o.insert("bytes_base64".into(), json!(data.len()));
                    }
                    if let Some(Value::Object(resource)) = o.get_mut("resource") {
                        if let Some(Value::String(blob)) = resource.remove("blob") {
                            resource.insert("bytes_base64".into(), json!(blob.len()));
                        }
                    }
                }
                other.push(shown);
            }
        }
    }
    let mut out = Map::new();
    out.insert("text".into(), Value::String(text.join("\n")));
    if let Some(structured) = result.get("structuredContent").filter(|v| !v.is_null()) {
        out.insert("structuredContent".into(), structured.clone());
    }
    if !other.is_empty() {
        out.insert("otherContent".into(), Value::Array(other));
    }
    (is_error, Value::Object(out))
}

impl McpToolHandler {
    async fn run(
        self: Arc<Self>,
        arguments: Value,
        ctx: ToolContext,
    ) -> Result<Value, ToolFailure> {
        let server = self.slot.name().to_owned();
        let connection = self.slot.ensure().await.map_err(|reason| {
            ToolFailure::retryable(
                ToolFailureCode::McpServerUnavailable,
                format!("the MCP server `{server}` is not available: {reason}"),
            )
        })?;
        let arguments = match arguments {
            Value::Object(map) => map,
            Value::Null => Map::new(),
            other => {
                return Err(ToolFailure::new(
                    ToolFailureCode::InvalidArguments,
                    format!("the arguments must be an object, not {other}"),
                ))
            }
        };
        let params = CallToolRequestParams::new(self.tool.clone()).with_arguments(arguments);
        let peer = connection.service.peer().clone();
        let failed = |error: rmcp::ServiceError| {
            ToolFailure::new(
                ToolFailureCode::McpCallFailed,
                self.slot
                    .log
                    .scrub(&format!("`{}` on `{server}` failed: {error}", self.tool)),
            )
        };
        let handle = peer
            .send_cancellable_request(
                ClientRequest::CallToolRequest(Request::new(params)),
                PeerRequestOptions::no_options(),
            )
            .await
            .map_err(failed)?;
        // rmcp gives the request its own progress token: the server's progress for it, and
        // any form it asks for meanwhile, belong to this call.
        self.slot.calls.begin(&handle.progress_token, &ctx);
        let _registered = Registered {
            calls: &self.slot.calls,
            call_id: ctx.call_id.clone(),
        };
        let mut abandon = Abandon {
            peer: peer.clone(),
            id: Some(handle.id.clone()),
        };
        let response = handle.await_response().await.map_err(failed)?;
        abandon.id = None;
        let answer = match response {
            ServerResult::CallToolResult(result) => result,
            other => {
                return Err(ToolFailure::new(
                    ToolFailureCode::McpCallFailed,
                    format!(
                        "`{}` on `{server}` answered something other than a tool result: {}",
                        self.tool,
                        serde_json::to_string(&other).unwrap_or_default()
                    ),
                ))
            }
        };
        let raw = serde_json::to_value(&answer).unwrap_or(Value::Null);
        let (is_error, value) = result_value(&raw);
        if is_error {
            let message = value
                .get("text")
                .and_then(Value::as_str)
                .filter(|t| !t.is_empty())
                .unwrap_or("the tool reported an error")
                .to_owned();
            return Err(ToolFailure::new(ToolFailureCode::McpToolError, message));
        }
        Ok(value)
    }
}

impl ToolHandler for McpToolHandler {
    fn call(&self, arguments: Value, ctx: ToolContext) -> ToolFuture {
        let this = Arc::new(Self {
            slot: Arc::clone(&self.slot),
            tool: self.tool.clone(),
        });
        Box::pin(this.run(arguments, ctx))
    }
}

/// How long the tools of the servers may take to appear at a run's start, at most: a server
/// that needs longer joins the next run.
pub(crate) fn listing_wait(slots: &[Arc<ServerSlot>]) -> Duration {
    slots
        .iter()
        .map(|s| Duration::from_secs(s.config.startup_timeout_secs))
        .max()
        .unwrap_or_default()
        + Duration::from_secs(1)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    #[test]
    fn names_are_namespaced_and_cleaned() {
        assert_eq!(tool_name("fs", "read_file"), "fs__read_file");
        assert_eq!(tool_name("x", "a.b c"), "x__a_b_c");
        assert_eq!(tool_name("s", &"t".repeat(100)).len(), 64);
    }

    #[test]
    fn annotations_decide_the_kind_of_call() {
        let tool = |hints: Value| -> rmcp::model::Tool {
            serde_json::from_value(
                json!({"name": "t", "inputSchema": {"type": "object"}, "annotations": hints}),
            )
            .unwrap()
        };
        assert_eq!(
            safety_of(&tool(json!({"readOnlyHint": true}))),
            McpToolSafety::ReadOnly
        );
        assert_eq!(
            safety_of(&tool(json!({"destructiveHint": true}))),
            McpToolSafety::Destructive
        );
        assert_eq!(
            safety_of(&tool(json!({"destructiveHint": false}))),
            McpToolSafety::SideEffecting
        );
        // The MCP spec's defaults treat a tool that claims nothing as destructive; it is told
        // apart so that the person is not told the server said so.
        assert_eq!(safety_of(&tool(json!({}))), McpToolSafety::Unannotated);
        let bare: rmcp::model::Tool =
            serde_json::from_value(json!({"name": "t", "inputSchema": {"type": "object"}}))
                .unwrap();
        assert_eq!(safety_of(&bare), McpToolSafety::Unannotated);
    }

    #[test]
    fn a_server_marked_always_ask_has_no_claim_trusted() {
        let document = json!({"mcpServers": {
            "trusted": {"command": "srv"},
            "doubted": {"command": "srv", "alwaysAsk": true}
        }});
        let configs = crate::config::parse_document(&document).unwrap();
        let read_only: rmcp::model::Tool = serde_json::from_value(json!({"name": "look",
            "inputSchema": {"type": "object"}, "annotations": {"readOnlyHint": true}}))
        .unwrap();
        let keys: Arc<dyn tessera_secrets::KeyStore> =
            Arc::new(tessera_secrets::MemoryKeyStore::default());
        let spec = |i: usize| {
            let slot = ServerSlot::new(
                configs[i].clone(),
                keys.clone(),
                Arc::new(crate::log::ServerLog::new(None)),
            );
            spec_of(&slot, &read_only)
        };
        let (doubted, trusted) = if configs[0].name == "doubted" {
            (spec(0), spec(1))
        } else {
            (spec(1), spec(0))
        };
        assert_eq!(trusted.permission, PermissionLevel::None);
        assert!(trusted.is_concurrency_safe());
        assert_eq!(doubted.permission, PermissionLevel::AlwaysAsk);
        assert!(!doubted.is_concurrency_safe());
        // The flag is kept in the file.
        let entry =
            crate::config::to_document_entry(configs.iter().find(|c| c.always_ask).unwrap());
        assert_eq!(entry["alwaysAsk"], true);
        let refused =
            crate::config::parse_document(&json!({"s": {"command": "srv", "alwaysAsk": "yes"}}));
        assert!(refused.is_err());
    }

    #[test]
    fn a_result_keeps_its_text_and_notes_binary_content() {
        let (error, value) = result_value(&json!({"content": [
            {"type": "text", "text": "hello"},
            {"type": "image", "data": "AAAA", "mimeType": "image/png"}
        ], "structuredContent": {"n": 1}}));
        assert!(!error);
        assert_eq!(value["text"], "hello");
        assert_eq!(value["structuredContent"]["n"], 1);
        assert_eq!(value["otherContent"][0]["bytes_base64"], 4);
        let (error, _) = result_value(&json!({"content": [], "isError": true}));
        assert!(error);
    }
}
