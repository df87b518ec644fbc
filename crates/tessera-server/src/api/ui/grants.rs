//! The permissions page: every consent grant (`GET /v1/grants[?include_revoked=true]`) and
//! revoking one (`DELETE /v1/grants/{id}`). A revoked grant lets nothing run again: the next
//! call of its tool asks the person.

use std::collections::HashMap;

use axum::extract::{Path, Query, State};
use axum::http::StatusCode;
use axum::routing::{delete, get};
use axum::{Json, Router};
use serde::Deserialize;
use serde_json::{json, Value};
use tessera_engine::engine::Engine;
use tessera_protocol::views::ConsentGrantView;
use tessera_store::{ConsentGrant, Store};

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

/// Grants as the page shows them, each with its conversation's title (looked up once per
/// conversation; a grant outlives nothing, its conversation's deletion removes it).
fn views(store: &Store, grants: Vec<ConsentGrant>) -> Result<Vec<ConsentGrantView>, ApiError> {
    let mut titles: HashMap<String, Option<String>> = HashMap::new();
    let mut out = Vec::with_capacity(grants.len());
    for grant in grants {
        let conversation_title = match &grant.conversation_id {
            Some(id) => match titles.get(id) {
                Some(title) => title.clone(),
                None => {
                    let title = store
                        .conversation(id)?
                        .map(|c| c.title)
                        .filter(|t| !t.trim().is_empty());
                    titles.insert(id.clone(), title.clone());
                    title
                }
            },
            None => None,
        };
        out.push(ConsentGrantView {
            grant_id: grant.grant_id,
            tool: grant.tool,
            scope: grant.scope,
            conversation_id: grant.conversation_id,
            conversation_title,
            created_at: grant.created_at,
            used_at: grant.used_at,
            revoked_at: grant.revoked_at,
        });
    }
    Ok(out)
}

/// `GET /v1/grants`: newest first; revoked ones only with `include_revoked=true`.
async fn list(
    State(engine): State<Engine>,
    query: Result<Query<ListQuery>, axum::extract::rejection::QueryRejection>,
) -> Result<Json<Value>, ApiError> {
    let Query(query) = query.map_err(|rejection| {
        ApiError::new(
            StatusCode::BAD_REQUEST,
            "BAD_REQUEST",
            format!("bad query: {}", rejection.body_text()),
        )
    })?;
    let store = engine.store();
    let grants = views(store, store.consent_grants(query.include_revoked)?)?;
    Ok(Json(json!({ "grants": grants })))
}

/// `DELETE /v1/grants/{id}`: revokes it and answers the grant; revoking a revoked grant
/// changes nothing and answers the same. An unknown id is a 404.
async fn revoke(
    State(engine): State<Engine>,
    Path(id): Path<String>,
) -> Result<Json<Value>, ApiError> {
    let store = engine.store();
    let newly = store.revoke_consent(&id)?;
    if newly {
        tracing::info!(grant_id = %id, "consent grant revoked");
    }
    let grant = store.consent_grant(&id)?.ok_or_else(|| {
        ApiError::new(
            StatusCode::NOT_FOUND,
            "NOT_FOUND",
            format!("no grant `{id}`"),
        )
    })?;
    let view = views(store, vec![grant])?.pop();
    Ok(Json(json!({ "grant": view })))
}
