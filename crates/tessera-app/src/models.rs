//! Which model new runs use: the overrides a shell was started with (`--provider`, `--kind`,
//! `--base-url`, `--model`), else the data folder's default provider; its key from the
//! environment or the secret store.

use tessera_engine::provider_settings::{
    default_provider_name, require_provider, ProviderLookupError,
};
use tessera_providers::keys::resolve_key;
use tessera_providers::{presets, ProviderClient, ProviderConfig, ProviderError, WireKind};
use tessera_store::{Store, StoreError};
use thiserror::Error;

/// The model a shell asks for instead of the data folder's default provider. Empty: the
/// default provider and its default model.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ModelOverrides {
    /// A saved provider, or a preset name.
    pub provider: Option<String>,
    /// The wire of an ad-hoc provider.
    pub kind: Option<WireKind>,
    /// The ad-hoc provider's base URL.
    pub base_url: Option<String>,
    /// The model (default: the provider's default model).
    pub model: Option<String>,
}

impl ModelOverrides {
    pub fn is_empty(&self) -> bool {
        self.provider.is_none()
            && self.kind.is_none()
            && self.base_url.is_none()
            && self.model.is_none()
    }
}

/// Why there is no model to answer with. The words name the flags, since the overrides come
/// from them.
#[derive(Debug, Error)]
pub enum ModelError {
    #[error("--base-url needs --kind openai|anthropic")]
    BaseUrlWithoutKind,
    /// The ad-hoc provider's URL is not an http(s) URL with a host (the message says how).
    #[error("{0}")]
    BadBaseUrl(String),
    #[error(
        "no provider: pass --provider NAME (saved, or one of {presets}) or --kind \
         openai|anthropic --base-url URL"
    )]
    NoProvider { presets: String },
    #[error("no model: pass --model M (provider {provider} has no default)")]
    NoDefaultModel { provider: String },
    #[error(transparent)]
    Lookup(#[from] ProviderLookupError),
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error(transparent)]
    Provider(#[from] ProviderError),
    #[error("cannot register the {what}: {source}")]
    Tools {
        what: &'static str,
        source: tessera_engine::tools::RegistryError,
    },
}

/// The provider to talk to: ad hoc from `kind`/`base_url`, else saved settings or a preset by
/// name, else the default provider.
pub fn resolve_provider(
    store: &Store,
    overrides: &ModelOverrides,
) -> Result<ProviderConfig, ModelError> {
    if let Some(kind) = overrides.kind {
        let base = overrides
            .base_url
            .clone()
            .unwrap_or_else(|| kind.default_base_url().to_owned());
        // Refused here, before any call: a request to it would fail only after its retries.
        let base = crate::providers::checks::check_url("--base-url", &base)
            .map_err(|err| ModelError::BadBaseUrl(err.to_string()))?;
        // Unnamed: the key comes from the kind's well-known variable (or the provider's).
        return Ok(ProviderConfig::new(
            overrides.provider.clone().unwrap_or_default(),
            kind,
            base,
        ));
    }
    if overrides.base_url.is_some() {
        return Err(ModelError::BaseUrlWithoutKind);
    }
    let name = match &overrides.provider {
        Some(name) => name.clone(),
        None => default_provider_name(store)?.ok_or_else(|| ModelError::NoProvider {
            presets: presets::preset_names().collect::<Vec<_>>().join(", "),
        })?,
    };
    Ok(require_provider(store, &name)?.0)
}

/// The client and model for `overrides`: the provider resolved, its key found.
pub async fn model_client(
    engine: &tessera_engine::engine::Engine,
    overrides: &ModelOverrides,
) -> Result<(ProviderClient, String), ModelError> {
    let config = resolve_provider(engine.store(), overrides)?;
    let model = overrides
        .model
        .clone()
        .or_else(|| config.default_model.clone())
        .ok_or_else(|| ModelError::NoDefaultModel {
            provider: config.name.clone(),
        })?;
    let key = resolve_key(&config, engine.secrets()).await?;
    Ok((engine.provider_client(config, key)?, model))
}
