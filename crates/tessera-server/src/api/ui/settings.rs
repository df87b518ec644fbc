//! The app settings the UI may change, one key at a time: the spending limits (checked as
//! `tessera provider limits` checks them), the default provider, and where model downloads
//! come from (a mirror, a proxy; checked as `tessera local hub` checks them). Anything else is
//! refused.

use axum::body::Bytes;
use axum::extract::rejection::BytesRejection;
use axum::extract::{Path, State};
use axum::routing::{get, put};
use axum::{Json, Router};
use serde_json::Value;
use tessera_app::local_models::LocalModelsError;
use tessera_app::providers::settings::{check_limit, parse_limit};
use tessera_app::providers::ProvidersError;
use tessera_app::{error_chain, App};
use tessera_protocol::error_codes::ErrorCode;
use tessera_protocol::settings_api::{SettingValues, SettingsView};

use super::providers::providers_error;
use super::{bad_request, kind_of, object_body, only_field};
use crate::api::ApiError;

const PER_DAY: &str = "spending_limit_per_day_usd";
const PER_CONVERSATION: &str = "spending_limit_per_conversation_usd";
const DEFAULT_PROVIDER: &str = "default_provider";
const HUB_ADDRESS: &str = tessera_app::local_models::HUB_ADDRESS_SETTING;
const HUB_PROXY: &str = tessera_app::local_models::HUB_PROXY_SETTING;
const EMBEDDING: &str = tessera_app::embedding::SETTING;
const KEYS: [&str; 6] = [
    PER_DAY,
    PER_CONVERSATION,
    DEFAULT_PROVIDER,
    HUB_ADDRESS,
    HUB_PROXY,
    EMBEDDING,
];

pub(super) fn routes() -> Router<crate::api::ApiState> {
    Router::new()
        .route("/settings", get(show))
        .route("/settings/{key}", put(change))
}

/// The settings by key (null: not set), and what was spent today (estimated; read-only).
fn view(app: &App) -> Result<SettingsView, ApiError> {
    let providers = app.providers();
    let limits = providers.limits().map_err(providers_error)?;
    let default = providers.default().map_err(providers_error)?;
    let hub = app.local_models().hub_settings().map_err(hub_error)?;
    Ok(SettingsView {
        settings: SettingValues {
            spending_limit_per_day_usd: limits.per_day_usd,
            spending_limit_per_conversation_usd: limits.per_conversation_usd,
            default_provider: default,
            model_hub_address: hub.address,
            model_hub_proxy: hub.proxy,
            knowledge_embedding: app.knowledge_embedding(),
        },
        spent_today_usd: providers.spent_today(),
        model: None,
    })
}

/// `GET /v1/settings`.
async fn show(State(app): State<App>) -> Result<Json<SettingsView>, ApiError> {
    // With the model new runs use: the cheap way to ask "is a model set up?" (the providers'
    // list reads every provider's key).
    Ok(Json(SettingsView {
        model: Some(app.model_status()),
        ..view(&app)?
    }))
}

/// A value the person got wrong: 400 naming the setting.
fn invalid(err: ProvidersError) -> ApiError {
    if err.is_remote() || matches!(err, ProvidersError::Store(_)) {
        providers_error(err)
    } else {
        ApiError::new(ErrorCode::InvalidValue, error_chain(&err))
    }
}

/// A hub address or proxy the person got wrong: 400 naming it and what was wrong.
fn hub_error(err: LocalModelsError) -> ApiError {
    let code = if err.is_bad_request() {
        ErrorCode::InvalidValue
    } else {
        ErrorCode::StoreError
    };
    ApiError::new(code, error_chain(&err))
}

/// `PUT /v1/settings/{key}` with `{"value": …}`: a limit is an amount in USD (a number, or text
/// as the command line takes it: `5`, `$5`, `none`) or null for none; the default provider is
/// a provider's name, or null for none; the model hub's address and proxy are web addresses,
/// or null (or blank) for none. Answers with all the settings.
async fn change(
    State(app): State<App>,
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
    only_field(&body, "value", ": send {\"value\": …}")?;
    let Some(value) = body.remove("value") else {
        return Err(bad_request("send {\"value\": …}"));
    };
    if key == HUB_ADDRESS || key == HUB_PROXY {
        let text = match &value {
            Value::Null => None,
            Value::String(text) => Some(text.as_str()),
            other => {
                return Err(bad_request(format!(
                    "{key} must be a web address (text) or null, not {}",
                    kind_of(other)
                )))
            }
        };
        let local = app.local_models();
        if key == HUB_ADDRESS {
            local.set_hub_address(text).map_err(hub_error)?;
        } else {
            local.set_hub_proxy(text).map_err(hub_error)?;
        }
        return Ok(Json(view(&app)?));
    }
    if key == EMBEDDING {
        let choice: Option<tessera_app::embedding::EmbeddingChoice> = serde_json::from_value(value)
            .map_err(|err| {
                bad_request(format!(
                    "{key} must be {{\"provider\": NAME, \"model\": M}} or null: {err}"
                ))
            })?;
        let applied = app.clone();
        tokio::task::spawn_blocking(move || applied.set_knowledge_embedding(choice.as_ref()))
            .await
            .map_err(|e| bad_request(e.to_string()))?
            .map_err(ApiError::from)?;
        return Ok(Json(view(&app)?));
    }
    let providers = app.providers();
    if key == DEFAULT_PROVIDER {
        let name = match &value {
            Value::Null => None,
            Value::String(name) => Some(name.trim()),
            other => {
                return Err(bad_request(format!(
                    "{key} must be a provider's name or null, not {}",
                    kind_of(other)
                )))
            }
        };
        let changed = app.set_default_provider(name).await.map_err(invalid)?;
        let mut answer = view(&app)?;
        answer.model = Some(changed.model);
        return Ok(Json(answer));
    }
    let limit = match &value {
        Value::Null => None,
        Value::Number(n) => {
            let amount = n.as_f64().unwrap_or(f64::NAN);
            check_limit(&key, &n.to_string(), amount).map_err(invalid)?;
            Some(amount)
        }
        Value::String(text) => parse_limit(&key, text).map_err(invalid)?,
        other => {
            return Err(bad_request(format!(
                "{key} must be an amount in USD or null, not {}",
                kind_of(other)
            )))
        }
    };
    let mut limits = providers.limits().map_err(providers_error)?;
    if key == PER_DAY {
        limits.per_day_usd = limit;
    } else {
        limits.per_conversation_usd = limit;
    }
    providers.set_limits(limits).map_err(invalid)?;
    Ok(Json(view(&app)?))
}
