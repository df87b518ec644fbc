//! What a client announces it can run (`CLIENT_CAPABILITIES`), each tool checked and made into
//! the declaration the model and the executor see.

use std::sync::Arc;
use std::time::Duration;

use serde_json::{json, Value};
use tessera_protocol::mcp_cp::{
    ClientCapabilities, FallbackBehavior, PermissionLevel, SupportedTool,
};

use crate::tools::{
    RegistryError, RetryPolicy, SharedHandler, ToolContext, ToolFailure, ToolKind, ToolRegistry,
    ToolSpec,
};

/// How long a client has to answer when neither the tool nor the client says (`timeout`,
/// `limitations.maxProcessingTime`).
pub(crate) const DEFAULT_CLIENT_TIMEOUT: Duration = Duration::from_secs(60);

/// An announcement that cannot be taken.
#[derive(Debug, thiserror::Error)]
pub enum AnnounceError {
    #[error("supportedTools[{index}] ({tool}): {message}")]
    BadTool {
        index: usize,
        tool: String,
        message: String,
    },
}

/// One front-end tool a client announced.
#[derive(Clone, Debug)]
pub struct ClientTool {
    pub client_id: String,
    pub announced: SupportedTool,
    /// The declaration the model and the executor see.
    pub spec: ToolSpec,
    /// How long the client has to answer.
    pub wait: Duration,
    pub fallback: FallbackBehavior,
    /// What the client said about consent (the client asks the person itself).
    pub permission: Option<PermissionLevel>,
}

/// What a client announced.
#[derive(Clone, Debug)]
pub struct Announcement {
    pub capabilities: ClientCapabilities,
    pub tools: Vec<ClientTool>,
}

fn string_field<'a>(tool: &'a SupportedTool, key: &str) -> Option<&'a str> {
    tool.extra.get(key).and_then(Value::as_str)
}

pub(super) fn parse_tool(
    index: usize,
    client: &ClientCapabilities,
    tool: &SupportedTool,
) -> Result<ClientTool, AnnounceError> {
    let bad = |message: String| AnnounceError::BadTool {
        index,
        tool: tool.tool_id.clone(),
        message,
    };
    if tool.tool_id.trim().is_empty() {
        return Err(bad("toolId is empty".into()));
    }
    let schema = match tool.extra.get("parameters") {
        None => json!({"type": "object"}),
        Some(Value::Object(o)) => Value::Object(o.clone()),
        Some(other) => {
            return Err(bad(format!(
                "parameters must be a JSON Schema object, not {other}"
            )))
        }
    };
    let field =
        |key: &str| -> Result<Option<Value>, AnnounceError> { Ok(tool.extra.get(key).cloned()) };
    let announced_fallback: Option<FallbackBehavior> = match field("fallbackBehavior")? {
        None => None,
        Some(v) => Some(serde_json::from_value(v.clone()).map_err(|_| {
            bad(format!(
                "fallbackBehavior must be ABORT, SKIP or USE_ALTERNATIVE, not {v}"
            ))
        })?),
    };
    let fallback = announced_fallback.unwrap_or(FallbackBehavior::Abort);
    let permission = match field("permissionLevel")? {
        None => None,
        Some(v) => Some(serde_json::from_value(v.clone()).map_err(|_| {
            bad(format!(
                "permissionLevel must be NONE, USER_CONSENT or ALWAYS_ASK, not {v}"
            ))
        })?),
    };
    let wait = match field("timeout")? {
        None => client
            .limitations
            .as_ref()
            .and_then(|l| l.max_processing_time)
            .filter(|ms| *ms > 0)
            .map_or(DEFAULT_CLIENT_TIMEOUT, Duration::from_millis),
        Some(v) => match v.as_f64() {
            Some(s) if s > 0.0 && s <= 86_400.0 => Duration::from_millis((s * 1000.0) as u64),
            _ => {
                return Err(bad(format!(
                    "timeout must be seconds above 0 (at most a day), not {v}"
                )))
            }
        },
    };
    let description = string_field(tool, "description").map_or_else(
        || {
            format!(
                "A front-end tool run by the client `{}` on the person's device.",
                client.client_id
            )
        },
        str::to_owned,
    );
    let mut spec = ToolSpec::new(tool.tool_id.clone(), description)
        .input_schema(schema)
        .kind(ToolKind::FrontEnd)
        .provider(format!("client:{}", client.client_id))
        .retry(RetryPolicy::none())
        // The handler keeps its own deadline (to apply the fallback); the executor's is later.
        .timeout_ms(
            u64::try_from(wait.as_millis())
                .unwrap_or(u64::MAX)
                .saturating_add(2_000),
        );
    if let Some(alt) = string_field(tool, "alternative") {
        spec = spec.alternative(alt);
    }
    spec.max_file_bytes = client.limitations.as_ref().and_then(|l| l.max_file_size);
    // Applied by the executor as if each call named it: an alternative runs through the same
    // consent gate as any call, and ABORT stops the rest of the set.
    if let Some(behavior) = announced_fallback {
        spec = spec.fallback(behavior);
    }
    // Checks the schema now, so a bad one is refused at the announcement.
    ToolRegistry::new()
        .with_extra([(spec.clone(), refusing())])
        .map_err(|e| match e {
            RegistryError::BadSchema { message, .. } => {
                bad(format!("parameters is not a valid JSON Schema: {message}"))
            }
            other => bad(other.to_string()),
        })?;
    Ok(ClientTool {
        client_id: client.client_id.clone(),
        announced: tool.clone(),
        spec,
        wait,
        fallback,
        permission,
    })
}

/// A handler that never runs anything (to check a declaration without a real handler).
fn refusing() -> SharedHandler {
    Arc::new(|_args: Value, _ctx: ToolContext| async {
        Err::<Value, _>(ToolFailure::new(
            crate::tools::ToolFailureCode::NotRunnable,
            "this tool is only being checked",
        ))
    })
}
