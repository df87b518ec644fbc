//! Model providers for the settings page, by the very steps `tessera provider` takes (the same
//! checks, the same keyring calls): list, add or replace, remove, a key in and out of the OS
//! keyring, the default, the models a provider serves. A key is never logged nor echoed.

use axum::body::Bytes;
use axum::extract::rejection::BytesRejection;
use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post, put};
use axum::{Json, Router};
use serde_json::Value;
use tessera_app::providers::config::ProviderConfig;
use tessera_app::providers::listing::summary;
use tessera_app::providers::ProvidersError;
use tessera_app::App;
use tessera_protocol::error_codes::ErrorCode;
use tessera_providers::http::redact_userinfo;

use super::{bad_request, kind_of, object_body, only_field};
use crate::api::ApiError;
use tessera_app::providers::changes::Changed;
use tessera_app::views::providers::{
    DefaultProviderSet, ImageInput, KeyRemoved, KeyStored, LocalProviders, ProviderList,
    ProviderModels, ProviderRemoved, ProviderRow, ProviderSaved,
};

pub(super) fn routes() -> Router<crate::api::ApiState> {
    Router::new()
        .route("/providers", get(list).post(save))
        .route("/local-providers", get(local))
        .route("/providers/{name}", axum::routing::delete(remove))
        .route("/providers/{name}/key", put(set_key).delete(delete_key))
        .route("/providers/{name}/default", post(make_default))
        .route("/providers/{name}/models", get(models))
        .route("/providers/{name}/images", get(images))
        .route(
            "/providers/{name}/check",
            post(super::provider_check::check),
        )
}

/// How long a local server may take to answer the probe: it is on this machine.
const LOCAL_PROBE: std::time::Duration = std::time::Duration::from_millis(800);

/// `GET /v1/local-providers`: Ollama and LM Studio running on this machine, probed at once.
async fn local() -> Json<LocalProviders> {
    Json(LocalProviders {
        found: tessera_providers::models::detect_local(LOCAL_PROBE).await,
    })
}

/// A provider operation's failure as an API error (its [`tessera_app::Problem`]).
pub(super) fn providers_error(err: ProvidersError) -> ApiError {
    tessera_app::Problem::from(err).into()
}

/// The configuration as saved, with any credentials of old settings (in the proxy, in the
/// base URL) hidden.
fn shown_config(config: &ProviderConfig) -> ProviderConfig {
    let mut config = config.clone();
    config.proxy = config.proxy.as_deref().map(redact_userinfo);
    config.base_url = tessera_protocol::secrets::redact_url_credentials(&config.base_url);
    config
}

/// `GET /v1/providers`: every provider (presets, and saved ones in their place) as `tessera
/// provider list --json` shows it, plus `has_key` (null: the keyring could not be read) and the
/// whole configuration; which one is the default; the model new runs use.
async fn list(State(app): State<App>) -> Result<Json<ProviderList>, ApiError> {
    let listing = app.providers().list().await.map_err(providers_error)?;
    let providers = listing
        .rows
        .iter()
        .map(|row| ProviderRow {
            summary: summary(row, listing.default.as_deref()),
            has_key: row.key.has_key(),
            config: shown_config(&row.config),
        })
        .collect();
    Ok(Json(ProviderList {
        providers,
        default: listing.default,
        keyring_error: listing.keyring_error,
        model: app.model_status(),
    }))
}

/// `POST /v1/providers`: a whole configuration (the `config` of the list), saved under its
/// `name`, replacing a saved one of that name. Checked by `tessera provider add`'s rules first;
/// nothing is saved when anything is wrong. 201 when new, 200 when replaced.
async fn save(
    State(app): State<App>,
    body: Result<Bytes, BytesRejection>,
) -> Result<Response, ApiError> {
    let body = object_body(body)?;
    // A key sent along would be dropped silently by the configuration's fields: say where it goes.
    if let Some(field) = body
        .keys()
        .find(|k| tessera_protocol::secrets::is_secret_name(k))
    {
        return Err(bad_request(format!(
            "`{field}` is not saved with the configuration: an API key goes to \
             PUT /v1/providers/NAME/key (the OS keyring)"
        )));
    }
    let mut config: ProviderConfig = serde_json::from_value(Value::Object(body))
        .map_err(|err| bad_request(format!("not a provider configuration: {err}")))?;
    let Changed {
        value: replaced,
        model,
    } = app
        .save_provider(&mut config)
        .await
        .map_err(providers_error)?;
    let status = if replaced {
        StatusCode::OK
    } else {
        StatusCode::CREATED
    };
    let answer = ProviderSaved {
        config: shown_config(&config),
        name: config.name,
        replaced,
        model,
    };
    Ok((status, Json(answer)).into_response())
}

/// `DELETE /v1/providers/{name}`: forgets the saved provider and its key (a keyring that
/// cannot be reached is a warning in the answer); if it was the default there is none now.
async fn remove(
    State(app): State<App>,
    Path(name): Path<String>,
) -> Result<Json<ProviderRemoved>, ApiError> {
    let providers = app.providers();
    // The raw settings, not the parsed ones: unreadable settings must still be removable.
    if !providers
        .has_saved_settings(&name)
        .map_err(providers_error)?
    {
        let preset = tessera_providers::presets::preset(&name).is_some();
        return Err(ApiError::new(
            ErrorCode::UnknownProvider,
            if preset {
                format!("{name} is a preset, not a saved provider: there is nothing to remove")
            } else {
                format!("no saved provider named {name}")
            },
        ));
    }
    let Changed {
        value: removal,
        model,
    } = app.remove_provider(&name).await.map_err(providers_error)?;
    let (key_removed, keyring_warning) = match &removal.key {
        Ok(removed) => (Some(*removed), None),
        Err(err) => (
            None,
            Some(format!("a key of {name} may remain in the keyring: {err}")),
        ),
    };
    Ok(Json(ProviderRemoved {
        removed: name,
        key_removed,
        keyring_warning,
        preset_remains: removal.preset_remains,
        was_default: removal.was_default,
        model,
    }))
}

/// `PUT /v1/providers/{name}/key` with `{"key": "…"}`: into the OS keyring, nowhere else.
async fn set_key(
    State(app): State<App>,
    Path(name): Path<String>,
    body: Result<Bytes, BytesRejection>,
) -> Result<Json<KeyStored>, ApiError> {
    let body = object_body(body)?;
    only_field(&body, "key", ": send {\"key\": \"…\"}")?;
    let key = match body.get("key") {
        Some(Value::String(key)) => key,
        Some(other) => {
            return Err(bad_request(format!(
                "key must be a string, not {}",
                kind_of(other)
            )))
        }
        None => return Err(bad_request("send {\"key\": \"…\"}")),
    };
    let Changed {
        value: notes,
        model,
    } = app
        .save_provider_key(&name, key)
        .await
        .map_err(providers_error)?;
    Ok(Json(KeyStored {
        provider: name,
        stored: true,
        env_override: notes.env_override,
        not_required: notes.not_required,
        model,
    }))
}

/// `DELETE /v1/providers/{name}/key`: removes the key from the keyring; 404, the keyring
/// untouched, when no provider has that name.
async fn delete_key(
    State(app): State<App>,
    Path(name): Path<String>,
) -> Result<Json<KeyRemoved>, ApiError> {
    let providers = app.providers();
    let known = providers.find(&name).map_err(providers_error)?.is_some();
    if !known {
        return Err(ApiError::new(
            ErrorCode::UnknownProvider,
            format!("no provider named {name}; the keyring was not touched"),
        ));
    }
    let Changed {
        value: removed,
        model,
    } = app
        .remove_provider_key(&name)
        .await
        .map_err(providers_error)?;
    Ok(Json(KeyRemoved {
        provider: name,
        removed,
        model,
    }))
}

/// `POST /v1/providers/{name}/default`: the provider used when none is named.
async fn make_default(
    State(app): State<App>,
    Path(name): Path<String>,
) -> Result<Json<DefaultProviderSet>, ApiError> {
    let Changed { model, .. } = app
        .set_default_provider(Some(&name))
        .await
        .map_err(providers_error)?;
    Ok(Json(DefaultProviderSet {
        default: name,
        model,
    }))
}

/// `GET /v1/providers/{name}/models`: asked of the provider itself, with its key.
async fn models(
    State(app): State<App>,
    Path(name): Path<String>,
) -> Result<Json<ProviderModels>, ApiError> {
    let (_, models) = app
        .providers()
        .fetch_models(&name)
        .await
        .map_err(providers_error)?;
    Ok(Json(ProviderModels {
        provider: name,
        models,
    }))
}

#[derive(serde::Deserialize)]
struct ImagesQuery {
    model: Option<String>,
}

/// `GET /v1/providers/{name}/images?model=…`: whether the model takes images (no model: the
/// provider's default), by the rule the requests to it follow.
async fn images(
    State(app): State<App>,
    Path(name): Path<String>,
    axum::extract::Query(query): axum::extract::Query<ImagesQuery>,
) -> Result<Json<ImageInput>, ApiError> {
    let found = app
        .image_input(&name, query.model.as_deref().filter(|m| !m.is_empty()))
        .map_err(providers_error)?;
    Ok(Json(found))
}
