//! The context inspector (seed 004 explainability): `GET /v1/runs/{run_id}/context` answers
//! every model call of a run with the assembler's explanation of its prompt, plus the blocks
//! and evidences the explanation names (so the UI can say where each came from) and what the
//! answer cites.

use axum::extract::{Path, State};
use axum::routing::get;
use axum::{Json, Router};
use tessera_app::App;
use tessera_protocol::views::RunContext;

use crate::api::ApiError;

pub(super) fn routes() -> Router<crate::api::ApiState> {
    Router::new()
        .route("/runs/{id}/context", get(show))
        .route("/conversations/{id}/context", get(mcp_context))
}

/// `GET /v1/runs/{run_id}/context`; 404 for a run with no model call.
async fn show(
    State(app): State<App>,
    Path(run_id): Path<String>,
) -> Result<Json<RunContext>, ApiError> {
    Ok(Json(app.run_context(&run_id)?))
}

/// `GET /v1/conversations/{id}/context`: the conversation's MCP-CP context (seed 000 §8: state,
/// history, version) and its change log; 404 for an unknown conversation.
async fn mcp_context(
    State(app): State<App>,
    Path(id): Path<String>,
) -> Result<Json<tessera_protocol::views::ContextView>, ApiError> {
    Ok(Json(app.context_view(&id)?))
}
