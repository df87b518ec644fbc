//! `POST /v1/providers/{name}/check`: "test the connection" of the settings page. It asks the
//! provider for its models with the key it would use (free, unlike a completion), so one call
//! tells whether the server is reachable, whether the key is accepted, and whether the model
//! runs would use is one it serves. A check that ran answers 200 whatever it found; only an
//! unknown provider (404) or an unreachable keyring (503) are errors. The answer is
//! `tessera_protocol::settings_api::ProviderCheck`.

use std::time::Instant;

use axum::body::Bytes;
use axum::extract::rejection::BytesRejection;
use axum::extract::{Path, State};
use axum::Json;
use serde_json::Value;
use tessera_engine::engine::Engine;
use tessera_engine::provider_settings::require_provider;
use tessera_protocol::settings_api::{CheckProblem, ProviderCheck};
use tessera_providers::keys::resolve_key;
use tessera_providers::models::list_models;
use tessera_providers::ProviderError;

use super::providers::{api_error, keyring};
use super::{bad_request, json_body, kind_of};
use crate::api::ApiError;
use crate::provider_cmd::Failure;

fn problem_of(err: &ProviderError) -> CheckProblem {
    match err {
        ProviderError::Http {
            status: 401 | 403, ..
        } => CheckProblem::AuthFailed,
        ProviderError::Http { .. } => CheckProblem::HttpError,
        ProviderError::Network { .. } | ProviderError::ConnectTimeout { .. } => {
            CheckProblem::Unreachable
        }
        ProviderError::FirstByteTimeout { .. } | ProviderError::IdleTimeout { .. } => {
            CheckProblem::Timeout
        }
        ProviderError::Decode { .. } => CheckProblem::BadAnswer,
        ProviderError::MissingKey { .. } => CheckProblem::MissingKey,
        _ => CheckProblem::Failed,
    }
}

/// The model to check, from an optional body `{"model": "…"}`.
fn asked_model(body: Result<Bytes, BytesRejection>) -> Result<Option<String>, ApiError> {
    let empty = matches!(&body, Ok(bytes) if bytes.iter().all(u8::is_ascii_whitespace));
    if empty {
        return Ok(None);
    }
    match json_body(body)? {
        Value::Null => Ok(None),
        Value::Object(mut map) => {
            if let Some(field) = map.keys().find(|k| k.as_str() != "model") {
                return Err(bad_request(format!(
                    "unknown field `{field}`: send {{\"model\": \"…\"}} or nothing"
                )));
            }
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
    State(engine): State<Engine>,
    Path(name): Path<String>,
    body: Result<Bytes, BytesRejection>,
) -> Result<Json<ProviderCheck>, ApiError> {
    let asked = asked_model(body)?;
    let (config, _) = require_provider(engine.store(), &name)
        .map_err(|err| api_error(Failure::Usage(err.into())))?;
    let mut answer = ProviderCheck {
        provider: config.name.clone(),
        ok: false,
        model: asked.or_else(|| config.default_model.clone()),
        latency_ms: None,
        models: None,
        problem: None,
        message: None,
    };
    let key = match resolve_key(&config, keyring(&engine)).await {
        Ok(key) => key,
        Err(err @ ProviderError::MissingKey { .. }) => {
            answer.problem = Some(CheckProblem::MissingKey);
            answer.message = Some(err.to_string());
            return Ok(Json(answer));
        }
        Err(err) => return Err(api_error(Failure::Remote(err.into()))),
    };
    let started = Instant::now();
    let listed = list_models(&config, key.as_ref()).await;
    answer.latency_ms = Some(u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX));
    match listed {
        Ok(models) => {
            answer.models = Some(u64::try_from(models.len()).unwrap_or(u64::MAX));
            // A server that lists nothing (some OpenAI-compatible ones) cannot say no.
            let unknown = answer.model.as_deref().filter(|model| {
                !models.is_empty() && !models.iter().any(|m| m.id.as_str() == *model)
            });
            if let Some(model) = unknown {
                answer.problem = Some(CheckProblem::UnknownModel);
                answer.message = Some(format!(
                    "{} does not serve the model {model} ({} model(s) listed)",
                    config.name,
                    models.len()
                ));
            } else {
                answer.ok = true;
            }
        }
        Err(err) => {
            tracing::info!(provider = %config.name, code = err.code(), "provider check failed");
            answer.problem = Some(problem_of(&err));
            answer.message = Some(err.to_string());
        }
    }
    Ok(Json(answer))
}
