//! Providers as a person configured them: saved in the data folder's provider settings (JSON,
//! never a key), else a preset of that name; and which one is the default. Every shell (the
//! command line, the server, the desktop app) finds providers through here.

use serde_json::Value;
use tessera_providers::{presets, ProviderConfig};
use tessera_store::{Store, StoreError};
use thiserror::Error;

/// The app setting naming the provider used when none is named.
pub const DEFAULT_PROVIDER_SETTING: &str = "default_provider";

/// Where a provider's configuration came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, ts_rs::TS)]
#[serde(rename_all = "snake_case")]
pub enum ProviderSource {
    /// Saved by the person (a preset of the same name is replaced by it).
    Saved,
    /// Built in (`openai`, `deepseek`, `ollama`…).
    Preset,
}

impl ProviderSource {
    pub fn as_str(self) -> &'static str {
        match self {
            ProviderSource::Saved => "saved",
            ProviderSource::Preset => "preset",
        }
    }
}

#[derive(Debug, Error)]
pub enum ProviderLookupError {
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error(
        "the saved settings of provider {name} are not readable ({message}); \
         `tessera provider remove {name}` and add it again"
    )]
    Unreadable { name: String, message: String },
    #[error("cannot encode the settings of provider {name}: {message}")]
    Unencodable { name: String, message: String },
    #[error(
        "the base URL of provider {name} (`{shown}`) holds credentials: give the URL without \
         them and the key as the provider's API key"
    )]
    CredentialsInUrl { name: String, shown: String },
    #[error(
        "no provider named {name}: add it with `tessera provider add {name} --kind …`, or use one of {presets}"
    )]
    Unknown { name: String, presets: String },
}

/// The saved provider `name`, if any.
pub fn saved_provider(
    store: &Store,
    name: &str,
) -> Result<Option<ProviderConfig>, ProviderLookupError> {
    let Some(value) = store.provider_settings(name)? else {
        return Ok(None);
    };
    let mut config: ProviderConfig =
        serde_json::from_value(value).map_err(|err| ProviderLookupError::Unreadable {
            name: name.to_owned(),
            message: err.to_string(),
        })?;
    config.name = name.to_owned();
    Ok(Some(config))
}

/// A provider by name: saved settings first, then a preset.
pub fn find_provider(
    store: &Store,
    name: &str,
) -> Result<Option<(ProviderConfig, ProviderSource)>, ProviderLookupError> {
    if let Some(config) = saved_provider(store, name)? {
        return Ok(Some((config, ProviderSource::Saved)));
    }
    Ok(presets::preset(name).map(|p| (p, ProviderSource::Preset)))
}

/// [`find_provider`], with an error naming the presets when there is no such provider.
pub fn require_provider(
    store: &Store,
    name: &str,
) -> Result<(ProviderConfig, ProviderSource), ProviderLookupError> {
    find_provider(store, name)?.ok_or_else(|| ProviderLookupError::Unknown {
        name: name.to_owned(),
        presets: presets::preset_names().collect::<Vec<_>>().join(", "),
    })
}

/// The name of the default provider, if one was chosen.
pub fn default_provider_name(store: &Store) -> Result<Option<String>, StoreError> {
    Ok(match store.app_setting(DEFAULT_PROVIDER_SETTING)? {
        Some(Value::String(name)) => Some(name),
        _ => None,
    })
}

/// Saves `config` under its name. A base URL holding credentials is refused: a key lives in
/// the secret store, never in the settings.
pub fn save_provider(store: &Store, config: &ProviderConfig) -> Result<(), ProviderLookupError> {
    let shown = tessera_protocol::secrets::redact_url_credentials(&config.base_url);
    if shown != config.base_url {
        return Err(ProviderLookupError::CredentialsInUrl {
            name: config.name.clone(),
            shown,
        });
    }
    let value = serde_json::to_value(config).map_err(|err| ProviderLookupError::Unencodable {
        name: config.name.clone(),
        message: err.to_string(),
    })?;
    store.set_provider_settings(&config.name, value)?;
    Ok(())
}
