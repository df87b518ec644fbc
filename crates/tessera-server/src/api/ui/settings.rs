//! The app settings the UI may change, one key at a time: the spending limits (checked as
//! `tessera provider limits` checks them) and the default provider. Anything else is refused.

use axum::body::Bytes;
use axum::extract::rejection::BytesRejection;
use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::routing::{get, put};
use axum::{Json, Router};
use serde_json::Value;
use tessera_engine::engine::Engine;
use tessera_engine::provider_settings::default_provider_name;
use tessera_protocol::settings_api::{SettingValues, SettingsView};
use tessera_store::Store;

use super::providers::api_error;
use super::{bad_request, kind_of, object_body, refresh_model};
use crate::api::ApiError;
use crate::provider_cmd::{self as cmd, Failure};

const PER_DAY: &str = "spending_limit_per_day_usd";
const PER_CONVERSATION: &str = "spending_limit_per_conversation_usd";
const DEFAULT_PROVIDER: &str = "default_provider";
const KEYS: [&str; 3] = [PER_DAY, PER_CONVERSATION, DEFAULT_PROVIDER];

pub(super) fn routes() -> Router<crate::api::ApiState> {
    Router::new()
        .route("/settings", get(show))
        .route("/settings/{key}", put(change))
}

/// The settings by key (null: not set), and what was spent today (estimated; read-only).
fn view(store: &Store) -> Result<SettingsView, ApiError> {
    let limits = cmd::read_limits(store).map_err(api_error)?;
    let default = default_provider_name(store)?;
    Ok(SettingsView {
        settings: SettingValues {
            spending_limit_per_day_usd: limits.per_day_usd,
            spending_limit_per_conversation_usd: limits.per_conversation_usd,
            default_provider: default,
        },
        spent_today_usd: cmd::spent_today(store),
        model: None,
    })
}

/// `GET /v1/settings`.
async fn show(State(engine): State<Engine>) -> Result<Json<SettingsView>, ApiError> {
    // With the model new runs use: the cheap way to ask "is a model set up?" (the providers'
    // list reads every provider's key).
    Ok(Json(SettingsView {
        model: Some(super::model_status(&engine)),
        ..view(engine.store())?
    }))
}

/// A value the person got wrong: 400 naming the setting.
fn invalid(failure: Failure) -> ApiError {
    match failure {
        Failure::Usage(err) => {
            ApiError::new(StatusCode::BAD_REQUEST, "INVALID_VALUE", format!("{err:#}"))
        }
        remote => api_error(remote),
    }
}

/// `PUT /v1/settings/{key}` with `{"value": …}`: a limit is an amount in USD (a number, or text
/// as the command line takes it: `5`, `$5`, `none`) or null for none; the default provider is
/// a provider's name, or null for none. Answers with all the settings.
async fn change(
    State(engine): State<Engine>,
    State(app): State<tessera_app::App>,
    Path(key): Path<String>,
    body: Result<Bytes, BytesRejection>,
) -> Result<Json<SettingsView>, ApiError> {
    if !KEYS.contains(&key.as_str()) {
        return Err(bad_request(format!(
            "no setting named `{key}`: the settings are {}",
            KEYS.join(", ")
        )));
    }
    let mut body = object_body(body)?;
    if let Some(field) = body.keys().find(|k| k.as_str() != "value") {
        return Err(bad_request(format!(
            "unknown field `{field}`: send {{\"value\": …}}"
        )));
    }
    let Some(value) = body.remove("value") else {
        return Err(bad_request("send {\"value\": …}"));
    };
    let store = engine.store();
    if key == DEFAULT_PROVIDER {
        match value {
            Value::Null => {
                cmd::clear_default(store).map_err(invalid)?;
            }
            Value::String(name) => cmd::set_default(store, name.trim()).map_err(invalid)?,
            other => {
                return Err(bad_request(format!(
                    "{key} must be a provider's name or null, not {}",
                    kind_of(&other)
                )))
            }
        }
        let mut answer = view(store)?;
        answer.model = Some(refresh_model(&app).await);
        return Ok(Json(answer));
    }
    let limit = match &value {
        Value::Null => None,
        Value::Number(n) => {
            let amount = n.as_f64().unwrap_or(f64::NAN);
            cmd::check_limit(&key, &n.to_string(), amount).map_err(invalid)?;
            Some(amount)
        }
        Value::String(text) => cmd::parse_limit(&key, text).map_err(invalid)?,
        other => {
            return Err(bad_request(format!(
                "{key} must be an amount in USD or null, not {}",
                kind_of(other)
            )))
        }
    };
    let mut limits = cmd::read_limits(store).map_err(api_error)?;
    if key == PER_DAY {
        limits.per_day_usd = limit;
    } else {
        limits.per_conversation_usd = limit;
    }
    cmd::write_limits(store, limits).map_err(invalid)?;
    Ok(Json(view(store)?))
}
