//! Every provider (presets, and saved ones in their place) and where each one's key is found.

use std::collections::BTreeMap;
use std::sync::Arc;

use tessera_engine::provider_settings::ProviderSource as Source;
use tessera_providers::http::redact_userinfo;
use tessera_providers::keys::{env_key, env_var_names, get_key, KeyStore};
use tessera_providers::{presets, ProviderConfig, ProviderError};
use tessera_store::Store;

use crate::views::providers::{KeyPlace, ProviderSummary};

use super::{default_provider, saved, Outcome};

/// Where a provider's key would come from, as `list` reports it. Never the key itself.
pub enum KeyFound {
    Env(String),
    Keyring,
    Missing,
    NotNeeded,
    Unknown,
}

impl KeyFound {
    pub fn label(&self) -> String {
        match self {
            KeyFound::Env(var) => format!("env {var}"),
            KeyFound::Keyring => "keyring".into(),
            KeyFound::Missing => "missing".into(),
            KeyFound::NotNeeded => "not needed".into(),
            KeyFound::Unknown => "unknown".into(),
        }
    }

    pub fn place(&self) -> KeyPlace {
        match self {
            KeyFound::Env(_) => KeyPlace::Env,
            KeyFound::Keyring => KeyPlace::Keyring,
            KeyFound::Missing => KeyPlace::Missing,
            KeyFound::NotNeeded => KeyPlace::NotNeeded,
            KeyFound::Unknown => KeyPlace::Unknown,
        }
    }
}

impl KeyFound {
    /// Whether a key would be found; None when the keyring could not be read.
    pub fn has_key(&self) -> Option<bool> {
        match self {
            KeyFound::Env(_) | KeyFound::Keyring => Some(true),
            KeyFound::Missing | KeyFound::NotNeeded => Some(false),
            KeyFound::Unknown => None,
        }
    }
}

/// Where the key of `config` is. After one keyring failure the keyring is not asked again
/// (`keyring_error` holds why), so a dead keyring costs one timeout, not one per provider.
pub async fn key_found(
    config: &ProviderConfig,
    keyring: &Arc<dyn KeyStore>,
    keyring_error: &mut Option<String>,
) -> KeyFound {
    if let Some((var, _)) = env_key(config, |var| std::env::var(var).ok()) {
        return KeyFound::Env(var);
    }
    if !config.requires_key {
        return KeyFound::NotNeeded;
    }
    if keyring_error.is_some() {
        return KeyFound::Unknown;
    }
    match get_key(keyring, &config.name).await {
        Ok(Some(key)) if !key.is_empty() => KeyFound::Keyring,
        Ok(_) => KeyFound::Missing,
        Err(ProviderError::Keyring(reason)) => {
            *keyring_error = Some(reason);
            KeyFound::Unknown
        }
        Err(err) => {
            *keyring_error = Some(err.to_string());
            KeyFound::Unknown
        }
    }
}

/// One provider as listed.
pub struct Row {
    pub name: String,
    pub config: ProviderConfig,
    pub source: Source,
    pub key: KeyFound,
}

/// Every provider (presets, and saved ones in their place), by name.
pub struct Listing {
    pub rows: Vec<Row>,
    pub default: Option<String>,
    /// Why the keyring could not be read (the keys kept there are `unknown`).
    pub keyring_error: Option<String>,
}

pub async fn provider_rows(store: &Store, keyring: &Arc<dyn KeyStore>) -> Outcome<Listing> {
    let mut providers: BTreeMap<String, (ProviderConfig, Source)> = BTreeMap::new();
    for name in presets::preset_names() {
        if let Some(config) = presets::preset(name) {
            providers.insert(name.to_owned(), (config, Source::Preset));
        }
    }
    for (name, _) in store.read(|r| r.all_provider_settings())? {
        if let Some(config) = saved(store, &name)? {
            providers.insert(name, (config, Source::Saved));
        }
    }
    let default = default_provider(store)?;
    let mut keyring_error = None;
    let mut rows = Vec::new();
    for (name, (config, source)) in providers {
        let key = key_found(&config, keyring, &mut keyring_error).await;
        rows.push(Row {
            name,
            config,
            source,
            key,
        });
    }
    Ok(Listing {
        rows,
        default,
        keyring_error,
    })
}

/// A provider as `list --json` prints it (and the settings API shows it): never a key.
pub fn summary(row: &Row, default: Option<&str>) -> ProviderSummary {
    let Row {
        name,
        config,
        source,
        key,
    } = row;
    ProviderSummary {
        name: name.clone(),
        kind: config.kind,
        source: *source,
        default: default == Some(name.as_str()),
        base_url: tessera_protocol::secrets::redact_url_credentials(&config.base_url),
        default_model: config.default_model.clone(),
        fallback_model: config.fallback_model.clone(),
        models: config.models.keys().cloned().collect(),
        requires_key: config.requires_key,
        key: key.place(),
        key_env_var: match key {
            KeyFound::Env(var) => Some(var.clone()),
            _ => None,
        },
        key_env_vars: env_var_names(config),
        // Settings saved before credentials were refused may hold some.
        proxy: config.proxy.as_deref().map(redact_userinfo),
        extra_ca_certs: config.extra_ca_certs.clone(),
    }
}
