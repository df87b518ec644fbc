//! "Test the connection": the provider is asked for its models with the key it would use (free,
//! unlike a completion), so one call tells whether the server is reachable, whether the key is
//! accepted, and whether the model runs would use is one it serves.

use std::time::Instant;

use tessera_protocol::settings_api::{CheckProblem, ProviderCheck};
use tessera_providers::keys::resolve_key;
use tessera_providers::models::list_models;
use tessera_providers::ProviderError;

use super::{Outcome, Providers};

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

impl Providers<'_> {
    /// Checks provider `name` with `model` (default: its default model). A check that ran
    /// answers whatever it found; only an unknown provider or an unreachable keyring are
    /// errors.
    pub async fn check(&self, name: &str, model: Option<String>) -> Outcome<ProviderCheck> {
        let (config, _) = self.require(name)?;
        let mut answer = ProviderCheck {
            provider: config.name.clone(),
            ok: false,
            model: model.or_else(|| config.default_model.clone()),
            latency_ms: None,
            models: None,
            problem: None,
            message: None,
        };
        let key = match resolve_key(&config, self.keyring.clone()).await {
            Ok(key) => key,
            Err(err @ ProviderError::MissingKey { .. }) => {
                answer.problem = Some(CheckProblem::MissingKey);
                answer.message = Some(err.to_string());
                return Ok(answer);
            }
            Err(err) => return Err(err.into()),
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
                tracing::info!(provider = %config.name, code = %err.code(), "provider check failed");
                answer.problem = Some(problem_of(&err));
                answer.message = Some(err.to_string());
            }
        }
        Ok(answer)
    }
}
