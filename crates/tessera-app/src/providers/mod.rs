//! Model providers: the presets and the saved ones, their keys in the secret store, the
//! default, the models each serves, local model servers, the spending limits. The settings page
//! and `tessera provider` take the very same steps here, held to the same checks.

pub mod changes;
pub mod checks;
mod connection_check;
mod images;
pub mod keys;
pub mod listing;
pub mod models;
pub mod settings;

use std::sync::Arc;
use std::time::Duration;

use tessera_engine::provider_settings::{
    default_provider_name, find_provider, require_provider, save_provider, saved_provider,
    ProviderLookupError, ProviderSource,
};
use tessera_providers::cost::SpendingLimits;
use tessera_providers::models::{
    detect_at, detect_local, local_urls, ModelInfo, LMSTUDIO_PROVIDER,
};
use tessera_providers::{ProviderConfig, ProviderError};
use tessera_secrets::KeyStore;
use tessera_store::{Store, StoreError};
use thiserror::Error;

pub use keys::{KeyNotes, Removal};
pub use listing::{KeyFound, Listing, Row};

use crate::App;

/// Why a provider operation was refused or failed.
#[derive(Debug, Error)]
pub enum ProvidersError {
    /// The request was wrong: a name, URL, flag or field (the message names it).
    #[error("{0}")]
    Invalid(String),
    #[error(transparent)]
    Lookup(#[from] ProviderLookupError),
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error(transparent)]
    Provider(#[from] ProviderError),
    /// No saved settings, and the secret store could not say whether it holds a key.
    #[error(
        "no saved provider named {name}; a key of it in the keyring could not be looked for: \
         {error}"
    )]
    KeyUnknown { name: String, error: String },
    #[error(
        "no Ollama answered at {looked}, and no LM Studio either (is one running? `ollama \
         serve`, or LM Studio's local server)"
    )]
    NothingDetected { looked: String },
}

impl ProvidersError {
    /// Whether a provider, a local server or the keyring failed, rather than the request
    /// being wrong (the CLI's exit code 1 rather than 2; the API's 5xx rather than 4xx).
    pub fn is_remote(&self) -> bool {
        match self {
            Self::Provider(ProviderError::Config(_) | ProviderError::MissingKey { .. }) => false,
            Self::Provider(_) | Self::KeyUnknown { .. } | Self::NothingDetected { .. } => true,
            Self::Invalid(_) | Self::Lookup(_) | Self::Store(_) => false,
        }
    }
}

pub(crate) type Outcome<T = ()> = Result<T, ProvidersError>;

pub(crate) fn invalid(message: impl std::fmt::Display) -> ProvidersError {
    ProvidersError::Invalid(message.to_string())
}

pub(crate) fn saved(store: &Store, name: &str) -> Outcome<Option<ProviderConfig>> {
    Ok(saved_provider(store, name)?)
}

pub(crate) fn find_or_fail(store: &Store, name: &str) -> Outcome<(ProviderConfig, ProviderSource)> {
    Ok(require_provider(store, name)?)
}

pub(crate) fn default_provider(store: &Store) -> Outcome<Option<String>> {
    Ok(default_provider_name(store)?)
}

/// The providers of an app's data folder. Changing them does not change the model new runs
/// use until [`App::reload_model`].
pub struct Providers<'a> {
    store: &'a Store,
    keyring: Arc<dyn KeyStore>,
}

impl App {
    pub fn providers(&self) -> Providers<'_> {
        Providers {
            store: self.engine.store(),
            keyring: self.engine.secrets(),
        }
    }
}

impl Providers<'_> {
    /// Every provider by name, where each one's key is found, and the default.
    pub async fn list(&self) -> Outcome<Listing> {
        listing::provider_rows(self.store, &self.keyring).await
    }

    /// The saved settings of `name`, when they are readable.
    pub fn saved(&self, name: &str) -> Outcome<Option<ProviderConfig>> {
        saved(self.store, name)
    }

    /// Whether `name` has saved settings, readable or not.
    pub fn has_saved_settings(&self, name: &str) -> Outcome<bool> {
        Ok(self.store.provider_settings(name)?.is_some())
    }

    /// `name`, saved or a preset, and which; None when neither.
    pub fn find(&self, name: &str) -> Outcome<Option<(ProviderConfig, ProviderSource)>> {
        Ok(find_provider(self.store, name)?)
    }

    /// `name`, saved or a preset, and which; an unknown name is an error naming it.
    pub fn require(&self, name: &str) -> Outcome<(ProviderConfig, ProviderSource)> {
        find_or_fail(self.store, name)
    }

    /// Saves `config` under its name, as it is (check it first with
    /// [`checks::check_config`]).
    pub fn save(&self, config: &ProviderConfig) -> Outcome {
        Ok(save_provider(self.store, config)?)
    }

    /// Checks a whole configuration by the rules `tessera provider add` applies to its flags,
    /// then saves it, replacing saved settings of that name (even unreadable ones); whether it
    /// replaced some.
    pub fn check_and_save(&self, config: &mut ProviderConfig) -> Outcome<bool> {
        checks::check_config(config)?;
        let replaced = self.has_saved_settings(&config.name)?;
        self.save(config)?;
        Ok(replaced)
    }

    pub async fn remove(&self, name: &str) -> Outcome<Removal> {
        keys::remove_provider(self.store, &self.keyring, name).await
    }

    pub async fn save_key(&self, name: &str, key: &str) -> Outcome<KeyNotes> {
        keys::save_key(self.store, &self.keyring, name, key).await
    }

    /// Where keys are kept now: the keyring, or the key file the person chose.
    pub fn keys_kept_in(&self) -> tessera_secrets::SecretBackend {
        self.keyring.kept_in()
    }

    /// The key file's path (it exists only while keys are kept in it).
    pub fn key_file(&self) -> std::path::PathBuf {
        self.store.paths().root.join(tessera_secrets::KEY_FILE_NAME)
    }

    /// Removes the key of `name` from the secret store; whether there was one.
    pub async fn remove_key(&self, name: &str) -> Outcome<bool> {
        keys::remove_key(&self.keyring, name).await
    }

    pub fn default(&self) -> Outcome<Option<String>> {
        default_provider(self.store)
    }

    pub fn set_default(&self, name: &str) -> Outcome {
        settings::set_default(self.store, name)
    }

    /// No default provider any more; whether there was one.
    pub fn clear_default(&self) -> Outcome<bool> {
        settings::clear_default(self.store)
    }

    /// The provider `name` and the models it says it serves, asked with its key.
    pub async fn fetch_models(&self, name: &str) -> Outcome<(ProviderConfig, Vec<ModelInfo>)> {
        models::fetch_models(self.store, self.keyring.clone(), name).await
    }

    /// Local model servers: at `url`, or at Ollama's and LM Studio's usual addresses; none
    /// found is an error saying where it looked.
    pub async fn detect(
        &self,
        url: Option<&str>,
        timeout: Duration,
    ) -> Outcome<Vec<ProviderConfig>> {
        let (found, looked) = match url {
            Some(url) => (
                detect_at(url, timeout).await.into_iter().collect(),
                url.to_owned(),
            ),
            None => {
                let (ollama, lmstudio) = local_urls();
                (
                    detect_local(timeout).await,
                    format!("{ollama} or {lmstudio}"),
                )
            }
        };
        if found.is_empty() {
            return Err(ProvidersError::NothingDetected { looked });
        }
        Ok(found)
    }

    /// Saves a local server found by [`Providers::detect`] under its name, keeping what the
    /// person set on an earlier save: settings of models still there, a default still served,
    /// the network settings.
    pub fn save_detected(&self, mut found: ProviderConfig) -> Outcome<ProviderConfig> {
        if let Some(previous) = self.saved(&found.name)? {
            for (model, settings) in previous.models {
                if let Some(current) = found.models.get_mut(&model) {
                    *current = models::merge_settings(settings, current.clone());
                }
            }
            if let Some(model) = previous.default_model {
                if found.models.contains_key(&model) {
                    found.default_model = Some(model);
                }
            }
            found.proxy = previous.proxy;
            found.extra_ca_certs = previous.extra_ca_certs;
            found.timeouts = previous.timeouts;
            found.retry = previous.retry;
        }
        self.save(&found)?;
        Ok(found)
    }

    pub fn limits(&self) -> Outcome<SpendingLimits> {
        settings::read_limits(self.store)
    }

    /// Saves the spending limits, checked first.
    pub fn set_limits(&self, limits: SpendingLimits) -> Outcome {
        settings::write_limits(self.store, limits)
    }

    /// What was spent since local midnight (estimated), if it can be added up.
    pub fn spent_today(&self) -> Option<f64> {
        settings::spent_today(self.store)
    }
}

/// Whether `name` is LM Studio's provider (rather than Ollama's), for saying what was found.
pub fn is_lmstudio(name: &str) -> bool {
    name == LMSTUDIO_PROVIDER
}

/// The provider layer's types the shells name when they build or show a configuration.
pub mod config {
    pub use tessera_providers::config::{ModelPrice, ModelSettings};
    pub use tessera_providers::cost::limits::format_usd;
    pub use tessera_providers::cost::SpendingLimits;
    pub use tessera_providers::keys::{env_key, env_var_names};
    pub use tessera_providers::models::ModelInfo;
    pub use tessera_providers::{presets, ProviderConfig, WireKind};
}
