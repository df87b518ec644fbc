//! A call to a client's front-end tool: the executor has already put its `tool/tool_call`
//! event (runtime FRONTEND) on the conversation's stream; the handler waits for the client's
//! result, and when none comes in time applies the tool's `fallbackBehavior`.

use std::sync::Arc;
use std::time::Duration;

use serde_json::Value;
use tessera_protocol::mcp_cp::{FallbackBehavior, McpToolStatus, ToolResult};

use super::announcement::ClientTool;
use super::waiting::WaitingCalls;
use crate::tools::{ToolContext, ToolFailure, ToolFailureCode, ToolFuture, ToolHandler};

/// Runs a front-end tool by waiting for the client that announced it. Cheap to clone.
#[derive(Clone)]
pub(crate) struct ClientToolHandler(Arc<Inner>);

struct Inner {
    hub: Arc<WaitingCalls>,
    conversation_id: String,
    tool: String,
    client_id: String,
    wait: Duration,
    fallback: FallbackBehavior,
}

impl ClientToolHandler {
    pub(super) fn new(hub: Arc<WaitingCalls>, conversation_id: &str, tool: &ClientTool) -> Self {
        Self(Arc::new(Inner {
            hub,
            conversation_id: conversation_id.to_owned(),
            tool: tool.spec.name.clone(),
            client_id: tool.client_id.clone(),
            wait: tool.wait,
            fallback: tool.fallback,
        }))
    }
}

/// Removes the waiting entry however the wait ends (answer, timeout, cancellation).
struct Forget<'a> {
    hub: &'a WaitingCalls,
    conversation_id: &'a str,
    call_id: &'a str,
}

impl Drop for Forget<'_> {
    fn drop(&mut self) {
        self.hub.forget(self.conversation_id, self.call_id);
    }
}

/// The client's result as the tool's outcome.
fn from_client(result: ToolResult) -> Result<Value, ToolFailure> {
    let code = match result.status {
        McpToolStatus::Success => return Ok(result.result.unwrap_or(Value::Null)),
        // Seed 000 §3.4: a TIMEOUT carries no `error`; it stays a timeout.
        McpToolStatus::Timeout => {
            return Err(ToolFailure::new(
                ToolFailureCode::Timeout,
                "the client reported that the call timed out",
            ))
        }
        McpToolStatus::Error => ToolFailureCode::ClientError,
        McpToolStatus::Denied => ToolFailureCode::ClientDenied,
        McpToolStatus::Skipped => ToolFailureCode::ClientSkipped,
        McpToolStatus::Cancelled => ToolFailureCode::ClientCancelled,
        McpToolStatus::Interrupted => ToolFailureCode::ClientInterrupted,
        McpToolStatus::NotFound => ToolFailureCode::ClientNotFound,
    };
    Err(match result.error {
        // The client's own code, as it gave it.
        Some(error) => ToolFailure::reported(error.code, error.message).with_details(error.details),
        None => ToolFailure::new(
            code,
            format!("the client reported {}", result.status.as_str()),
        ),
    })
}

impl Inner {
    async fn run(
        self: Arc<Self>,
        _arguments: Value,
        ctx: ToolContext,
    ) -> Result<Value, ToolFailure> {
        let answer = self.hub.wait_for(&self.conversation_id, &ctx.call_id);
        let forget = Forget {
            hub: &self.hub,
            conversation_id: &self.conversation_id,
            call_id: &ctx.call_id,
        };
        let received = tokio::time::timeout(self.wait, answer).await;
        drop(forget);
        match received {
            Ok(Ok(result)) => {
                if let Some(info) = result
                    .client_info
                    .as_ref()
                    .and_then(|i| serde_json::to_value(i).ok())
                {
                    ctx.note(crate::executor::outcome::CLIENT_INFO_NOTE, info);
                }
                from_client(result)
            }
            // Nobody answered in time (or the engine let go of the call).
            _ => self.fall_back(),
        }
    }

    fn fall_back(&self) -> Result<Value, ToolFailure> {
        let why = format!(
            "no client ran `{}` within {} s (the client `{}` announced it)",
            self.tool,
            self.wait.as_secs_f64(),
            self.client_id
        );
        match self.fallback {
            FallbackBehavior::Abort => Err(ToolFailure::new(
                ToolFailureCode::ClientTimeout,
                format!("{why}; its fallbackBehavior is ABORT"),
            )),
            FallbackBehavior::Skip => Err(ToolFailure::new(
                ToolFailureCode::Skipped,
                format!("{why}; skipped, as its fallbackBehavior SKIP says"),
            )),
            // The executor runs the alternative (through the consent gate) when this fails.
            FallbackBehavior::UseAlternative => Err(ToolFailure::new(
                ToolFailureCode::ClientTimeout,
                format!("{why}; its fallbackBehavior is USE_ALTERNATIVE"),
            )),
        }
    }
}

impl ToolHandler for ClientToolHandler {
    fn call(&self, arguments: Value, ctx: ToolContext) -> ToolFuture {
        Box::pin(Arc::clone(&self.0).run(arguments, ctx))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn result(status: McpToolStatus, error: Option<serde_json::Value>) -> ToolResult {
        let mut doc = serde_json::json!({"callId": "c1", "status": status.as_str()});
        if let Some(error) = error {
            doc["error"] = error;
        }
        serde_json::from_value(doc).unwrap_or_else(|e| panic!("{e}"))
    }

    #[test]
    fn a_clients_timeout_stays_a_timeout_and_its_error_decides_an_error() {
        let timeout = from_client(result(McpToolStatus::Timeout, None));
        assert!(matches!(timeout, Err(f) if f.code == ToolFailureCode::Timeout));
        // An `error` sent beside TIMEOUT anyway does not turn it into something else.
        let timeout = from_client(result(
            McpToolStatus::Timeout,
            Some(serde_json::json!({"code": "E", "message": "m"})),
        ));
        assert!(matches!(timeout, Err(f) if f.code == ToolFailureCode::Timeout));
        let error = from_client(result(
            McpToolStatus::Error,
            Some(serde_json::json!({"code": "CAMERA_BUSY", "message": "busy"})),
        ));
        assert!(matches!(error, Err(f) if f.code == "CAMERA_BUSY"));
    }
}
