//! The permissions page: every consent grant (`GET /v1/grants[?include_revoked=true]`) and
//! revoking one (`DELETE /v1/grants/{id}`). A revoked grant lets nothing run again: the next
//! call of its tool asks the person.

use axum::extract::{Path, Query, State};
use axum::routing::{delete, get};
use axum::{Json, Router};
use serde::Deserialize;
use tessera_app::App;
use tessera_protocol::error_codes::ErrorCode;
use tessera_protocol::views::{GrantList, GrantRevoked};

use crate::api::ApiError;

pub(super) fn routes() -> Router<crate::api::ApiState> {
    Router::new()
        .route("/grants", get(list))
        .route("/grants/{id}", delete(revoke))
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct ListQuery {
    #[serde(default)]
    include_revoked: bool,
}

/// `GET /v1/grants`: newest first; revoked ones only with `include_revoked=true`.
async fn list(
    State(app): State<App>,
    query: Result<Query<ListQuery>, axum::extract::rejection::QueryRejection>,
) -> Result<Json<GrantList>, ApiError> {
    let Query(query) = query.map_err(|rejection| {
        ApiError::new(
            ErrorCode::BadRequest,
            format!("bad query: {}", rejection.body_text()),
        )
    })?;
    let grants = app.consent_grants(query.include_revoked)?;
    Ok(Json(GrantList { grants }))
}

/// `DELETE /v1/grants/{id}`: revokes it and answers the grant; revoking a revoked grant
/// changes nothing and answers the same. An unknown id is a 404.
async fn revoke(
    State(app): State<App>,
    Path(id): Path<String>,
) -> Result<Json<GrantRevoked>, ApiError> {
    Ok(Json(GrantRevoked {
        grant: app.revoke_grant(&id)?,
    }))
}
