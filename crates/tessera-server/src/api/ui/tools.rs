//! The tools the model may call, as the settings page lists them.

use axum::extract::{Query, State};
use axum::routing::get;
use axum::{Json, Router};
use tessera_protocol::error_codes::ErrorCode;

use tessera_app::App;

use crate::api::ApiError;
use tessera_app::views::tools::{ToolInfo, ToolList};

pub(super) fn routes() -> Router<crate::api::ApiState> {
    Router::new().route("/tools", get(list))
}

#[derive(Debug, Default, serde::Deserialize)]
struct ListQuery {
    /// The front-end tools a client announced in this conversation join the list.
    #[serde(default)]
    conversation_id: Option<String>,
}

/// `GET /v1/tools[?conversation_id=…]`: every tool a run may offer (the engine's, the ready MCP
/// servers' marked by `kind` `mcp` and `provider` the server's name, and with a conversation the
/// front-end tools its client announced): name, description, input schema, whether calls may
/// overlap others (`safe`) or have side effects, where it runs, which permission it needs.
async fn list(
    State(app): State<App>,
    Query(query): Query<ListQuery>,
) -> Result<Json<ToolList>, ApiError> {
    let conversation = query.conversation_id.unwrap_or_default();
    let registry = app
        .tools_for(&conversation)
        .await
        .map_err(|err| ApiError::new(ErrorCode::ToolsUnavailable, err.to_string()))?;
    let tools = registry
        .names()
        .filter_map(|name| registry.get(name))
        .map(|tool| {
            let spec = &tool.spec;
            let safe = spec.is_concurrency_safe();
            ToolInfo {
                name: spec.name.clone(),
                description: spec.description.clone(),
                input_schema: spec.input_schema.clone(),
                safe,
                side_effecting: !safe,
                runtime: spec.runtime,
                permission: spec.permission,
                kind: spec.kind,
                provider: spec.provider.clone(),
                reads: spec.reads.clone(),
                writes: spec.writes.clone(),
                timeout_ms: spec.timeout_ms,
            }
        })
        .collect();
    Ok(Json(ToolList { tools }))
}
