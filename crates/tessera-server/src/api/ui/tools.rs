//! The tools the model may call, as the settings page lists them.

use std::sync::Arc;

use axum::extract::State;
use axum::http::StatusCode;
use axum::routing::get;
use axum::{Json, Router};

use tessera_engine::engine::Engine;
use tessera_engine::tools::ToolRegistry;

use crate::api::ApiError;
use crate::views::tools::{ToolInfo, ToolList};

pub(super) fn routes() -> Router<Engine> {
    Router::new().route("/tools", get(list))
}

/// `GET /v1/tools`: name, description, input schema, whether calls may overlap others (`safe`)
/// or have side effects, where it runs, which permission it needs. Without a model yet, the
/// built-in tools a model will get (the same registration as `serve::model_choice`).
async fn list(State(engine): State<Engine>) -> Result<Json<ToolList>, ApiError> {
    let registry = match engine.tools() {
        Some(tools) => tools,
        None => {
            let mut tools = ToolRegistry::new();
            tessera_engine::builtin_tools::register_builtin_tools(
                &mut tools,
                engine.store().clone(),
            )
            .map_err(|err| {
                ApiError::new(
                    StatusCode::INTERNAL_SERVER_ERROR,
                    "TOOLS_UNAVAILABLE",
                    format!("cannot register the built-in tools: {err}"),
                )
            })?;
            Arc::new(tools)
        }
    };
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
