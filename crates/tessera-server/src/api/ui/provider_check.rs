//! `POST /v1/providers/{name}/check`: "test the connection" of the settings page. It asks the
//! provider for its models with the key it would use (free, unlike a completion), so one call
//! tells whether the server is reachable, whether the key is accepted, and whether the model
//! runs would use is one it serves. A check that ran answers 200 whatever it found; only an
//! unknown provider (404) or an unreachable keyring (503) are errors. The answer is
//! `tessera_protocol::settings_api::ProviderCheck`.

use axum::body::Bytes;
use axum::extract::rejection::BytesRejection;
use axum::extract::{Path, State};
use axum::Json;
use serde_json::Value;
use tessera_app::App;
use tessera_protocol::settings_api::ProviderCheck;

use super::providers::providers_error;
use super::{bad_request, json_body, kind_of, only_field};
use crate::api::ApiError;

/// The model to check, from an optional body `{"model": "…"}`.
fn asked_model(body: Result<Bytes, BytesRejection>) -> Result<Option<String>, ApiError> {
    let empty = matches!(&body, Ok(bytes) if bytes.iter().all(u8::is_ascii_whitespace));
    if empty {
        return Ok(None);
    }
    match json_body(body)? {
        Value::Null => Ok(None),
        Value::Object(mut map) => {
            only_field(&map, "model", ": send {\"model\": \"…\"} or nothing")?;
            match map.remove("model") {
                None | Some(Value::Null) => Ok(None),
                Some(Value::String(model)) if !model.trim().is_empty() => {
                    Ok(Some(model.trim().to_owned()))
                }
                Some(Value::String(_)) => Err(bad_request("model must not be blank")),
                Some(other) => Err(bad_request(format!(
                    "model must be a string, not {}",
                    kind_of(&other)
                ))),
            }
        }
        other => Err(bad_request(format!(
            "the body must be a JSON object, not {}",
            kind_of(&other)
        ))),
    }
}

pub(super) async fn check(
    State(app): State<App>,
    Path(name): Path<String>,
    body: Result<Bytes, BytesRejection>,
) -> Result<Json<ProviderCheck>, ApiError> {
    let asked = asked_model(body)?;
    Ok(Json(
        app.providers()
            .check(&name, asked)
            .await
            .map_err(providers_error)?,
    ))
}
