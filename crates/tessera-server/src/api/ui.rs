//! What the UI needs besides chatting: the conversation list (search, rename, pin, archive,
//! delete, export, import), regenerating and switching branches,
//! model providers and their keys, the tools, and the app settings. JSON in and out; every
//! error is an ERROR_RESPONSE naming what was wrong. A change that affects the model new runs
//! use rebuilds it (`App::reload_model`); a rebuild that fails leaves NO_MODEL, not a failed
//! change.

mod agents;
mod branches;
mod context;
mod conversations;
mod grants;
mod local_models;
mod mcp;
mod memories;
mod projects;
mod provider_check;
mod providers;
mod secrets;
mod settings;
mod tools;

use axum::body::Bytes;
use axum::extract::rejection::BytesRejection;
use axum::Router;
use serde_json::{Map, Value};
use tessera_protocol::error_codes::ErrorCode;

use super::ApiError;
pub(super) use tessera_protocol::wire::kind_of;

/// The UI's routes; `api::routes` merges them (the caller adds authentication).
pub fn ui_routes() -> Router<crate::api::ApiState> {
    Router::new()
        .merge(agents::routes())
        .merge(branches::routes())
        .merge(context::routes())
        .merge(conversations::routes())
        .merge(grants::routes())
        .merge(local_models::routes())
        .merge(mcp::routes())
        .merge(memories::routes())
        .merge(projects::routes())
        .merge(providers::routes())
        .merge(secrets::routes())
        .merge(settings::routes())
        .merge(tools::routes())
}

/// A request body that must be JSON, as a value; a body that cannot be read or parsed is a 400
/// (413 when too large). serde_json's messages give a position, never the text, so a key sent
/// in a malformed body is not echoed back.
fn json_body(body: Result<Bytes, BytesRejection>) -> Result<Value, ApiError> {
    let body = body.map_err(|rejection| {
        ApiError::new(
            ErrorCode::BadBody,
            format!("cannot read the request body: {}", rejection.body_text()),
        )
        .with_status(rejection.status())
    })?;
    serde_json::from_slice(&body).map_err(|err| {
        ApiError::new(
            ErrorCode::InvalidJson,
            format!("the body is not JSON: {err}"),
        )
    })
}

/// A body that must be a JSON object.
fn object_body(body: Result<Bytes, BytesRejection>) -> Result<Map<String, Value>, ApiError> {
    match json_body(body)? {
        Value::Object(map) => Ok(map),
        other => Err(bad_request(format!(
            "the body must be a JSON object, not {}",
            kind_of(&other)
        ))),
    }
}

/// Refuses a body with any field but `allowed`, naming the first other one, then `hint` (how
/// the body should look).
fn only_field(body: &Map<String, Value>, allowed: &str, hint: &str) -> Result<(), ApiError> {
    match body.keys().find(|k| k.as_str() != allowed) {
        Some(field) => Err(bad_request(format!("unknown field `{field}`{hint}"))),
        None => Ok(()),
    }
}

fn bad_request(message: impl Into<String>) -> ApiError {
    ApiError::new(ErrorCode::BadRequest, message)
}
