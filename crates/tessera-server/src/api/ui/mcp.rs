//! MCP servers in the settings: list them with their state, tools and log; add, change or
//! remove one (or paste a whole `mcpServers` document); restart one; list its resources and
//! prompts; attach a resource to a conversation as an evidence.

use std::sync::Arc;
use tessera_protocol::error_codes::ErrorCode;

use axum::body::Bytes;
use axum::extract::rejection::BytesRejection;
use axum::extract::{Path, Query, State};
use axum::http::StatusCode;
use axum::routing::{get, post, put};
use axum::{Json, Router};
use serde::Deserialize;
use serde_json::Value;
use tessera_app::App;
use tessera_mcp::McpHub;
use tessera_protocol::context_doc::Evidence;
use tessera_protocol::mcp_api::{
    McpImported, McpPromptList, McpResourceList, McpServerList, McpServerLog, McpServerView,
};

use super::json_body;
use crate::api::ApiError;

pub(super) fn routes() -> Router<crate::api::ApiState> {
    Router::new()
        .route("/mcp/servers", get(list))
        .route(
            "/mcp/servers/{name}",
            put(put_server).get(one).delete(remove),
        )
        .route("/mcp/import", post(import))
        .route("/mcp/servers/{name}/restart", post(restart))
        .route("/mcp/servers/{name}/log", get(log))
        .route("/mcp/servers/{name}/resources", get(resources))
        .route("/mcp/servers/{name}/prompts", get(prompts))
        .route("/conversations/{id}/mcp-resources", post(attach))
}

fn hub(app: &App) -> Result<Arc<McpHub>, ApiError> {
    app.mcp_hub()
        .ok_or_else(|| ApiError::from(tessera_app::CoreError::McpUnavailable))
}

#[derive(Deserialize)]
struct ListQuery {
    /// `1`: start every server first (each within its start-up timeout).
    #[serde(default)]
    connect: Option<String>,
}

/// `GET /v1/mcp/servers[?connect=1]`.
async fn list(
    State(app): State<App>,
    Query(query): Query<ListQuery>,
) -> Result<Json<McpServerList>, ApiError> {
    let hub = hub(&app)?;
    let servers = if query.connect.as_deref().is_some_and(|c| c != "0") {
        hub.start_all().await
    } else {
        hub.servers()
    };
    Ok(Json(McpServerList { servers }))
}

async fn one(
    State(app): State<App>,
    Path(name): Path<String>,
) -> Result<Json<McpServerView>, ApiError> {
    let view = hub(&app)?.server(&name)?;
    Ok(Json(view))
}

/// `PUT /v1/mcp/servers/{name}`: an entry of the `mcpServers` shape.
async fn put_server(
    State(app): State<App>,
    Path(name): Path<String>,
    body: Result<Bytes, BytesRejection>,
) -> Result<Json<McpServerView>, ApiError> {
    let entry = json_body(body)?;
    let view = hub(&app)?.put_server(&name, &entry).await?;
    Ok(Json(view))
}

async fn remove(State(app): State<App>, Path(name): Path<String>) -> Result<StatusCode, ApiError> {
    hub(&app)?.remove(&name).await?;
    Ok(StatusCode::NO_CONTENT)
}

#[derive(Deserialize)]
struct ImportQuery {
    /// `1`: servers of the same name are replaced (the person confirmed it).
    #[serde(default)]
    replace: Option<String>,
}

/// `POST /v1/mcp/import[?replace=1]`: `{"mcpServers": {…}}` as other apps write it. A server
/// of the same name is replaced only with `replace=1`; without it, 409 names them.
async fn import(
    State(app): State<App>,
    Query(query): Query<ImportQuery>,
    body: Result<Bytes, BytesRejection>,
) -> Result<Json<McpImported>, ApiError> {
    let document = json_body(body)?;
    let hub = hub(&app)?;
    let replace = query.replace.as_deref().is_some_and(|r| r != "0");
    let added = hub.import(&document, replace).await?;
    Ok(Json(McpImported {
        added,
        servers: hub.servers(),
    }))
}

async fn restart(
    State(app): State<App>,
    Path(name): Path<String>,
) -> Result<Json<McpServerView>, ApiError> {
    let view = hub(&app)?.restart(&name).await?;
    Ok(Json(view))
}

#[derive(Deserialize)]
struct LogQuery {
    #[serde(default)]
    lines: Option<usize>,
}

async fn log(
    State(app): State<App>,
    Path(name): Path<String>,
    Query(query): Query<LogQuery>,
) -> Result<Json<McpServerLog>, ApiError> {
    let lines = hub(&app)?.log(&name, query.lines.unwrap_or(200))?;
    Ok(Json(McpServerLog { lines }))
}

async fn resources(
    State(app): State<App>,
    Path(name): Path<String>,
) -> Result<Json<McpResourceList>, ApiError> {
    let resources = hub(&app)?.resources(&name).await?;
    Ok(Json(McpResourceList { resources }))
}

async fn prompts(
    State(app): State<App>,
    Path(name): Path<String>,
) -> Result<Json<McpPromptList>, ApiError> {
    let prompts = hub(&app)?.prompts(&name).await?;
    Ok(Json(McpPromptList { prompts }))
}

/// `POST /v1/conversations/{id}/mcp-resources` with `{"server": …, "uri": …}`.
async fn attach(
    State(app): State<App>,
    Path(conversation): Path<String>,
    body: Result<Bytes, BytesRejection>,
) -> Result<(StatusCode, Json<Evidence>), ApiError> {
    let body = json_body(body)?;
    let field = |key: &str| {
        body.get(key)
            .and_then(Value::as_str)
            .filter(|s| !s.trim().is_empty())
            .map(str::to_owned)
            .ok_or_else(|| {
                // INVALID_REQUEST as the route always said, with the 400 of a missing field.
                ApiError::new(
                    ErrorCode::InvalidRequest,
                    format!("`{key}` is required (a string)"),
                )
                .with_status(StatusCode::BAD_REQUEST)
            })
    };
    let (server, uri) = (field("server")?, field("uri")?);
    let evidence = app
        .attach_mcp_resource(&conversation, &server, &uri)
        .await?;
    Ok((StatusCode::CREATED, Json(evidence)))
}
