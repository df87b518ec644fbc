//! Where secrets are kept: `GET /v1/secrets/store` (the store in use, the key file's path,
//! whether the keyring answers now, and warnings about the key file) and `PUT /v1/secrets/store {"store": "keyring"|"file"}`,
//! which moves every secret (API keys, MCP servers' secrets) to the chosen store. No secret's
//! value is ever in an answer.

use axum::body::Bytes;
use axum::extract::rejection::BytesRejection;
use axum::extract::State;
use axum::routing::get;
use axum::{Json, Router};
use tessera_app::App;
use tessera_protocol::settings_api::{SecretStoreChoice, SecretStoreMoved, SecretStoreView};

use super::{bad_request, json_body};
use crate::api::ApiError;

pub(super) fn routes() -> Router<crate::api::ApiState> {
    Router::new().route("/secrets/store", get(show).put(choose))
}

async fn show(State(app): State<App>) -> Json<SecretStoreView> {
    Json(app.secret_store_view().await)
}

async fn choose(
    State(app): State<App>,
    body: Result<Bytes, BytesRejection>,
) -> Result<Json<SecretStoreMoved>, ApiError> {
    let choice: SecretStoreChoice = serde_json::from_value(json_body(body)?).map_err(|err| {
        bad_request(format!(
            "the body must be {{\"store\": \"keyring\"}} or {{\"store\": \"file\"}}: {err}"
        ))
    })?;
    Ok(Json(app.choose_secret_store(choice.store).await?))
}
