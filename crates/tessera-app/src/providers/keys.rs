//! Removing providers, and their keys in the secret store (never anywhere else).

use std::sync::Arc;

use tessera_engine::provider_settings::DEFAULT_PROVIDER_SETTING;
use tessera_providers::keys::{delete_key, env_key, set_key, KeyStore, Secret};
use tessera_providers::{presets, ProviderError};
use tessera_store::Store;

use super::{default_provider, find_or_fail, invalid, Outcome, ProvidersError};

/// What removing a provider did.
pub struct Removal {
    /// Its saved settings were removed (false: only a key was found).
    pub settings: bool,
    /// Whether a key was removed from the keyring, or why it could not be looked for.
    pub key: Result<bool, ProviderError>,
    /// A preset of that name takes its place.
    pub preset_remains: bool,
    /// It was the default provider; there is none now.
    pub was_default: bool,
}

/// Forgets the saved provider `name` and its key. A keyring that cannot be reached does not
/// stop the settings from going; with no settings and no key there was nothing to remove.
pub async fn remove_provider(
    store: &Store,
    keyring: &Arc<dyn KeyStore>,
    name: &str,
) -> Outcome<Removal> {
    let settings = store.delete_provider_settings(name)?;
    let key = delete_key(keyring, name).await;
    let preset_remains = presets::preset(name).is_some();
    match (settings, &key) {
        (false, Ok(false)) => {
            return Err(invalid(format!(
                "no saved provider named {name}, and no key of it in the keyring"
            )))
        }
        (false, Err(err)) => {
            return Err(ProvidersError::KeyUnknown {
                name: name.to_owned(),
                error: err.to_string(),
            })
        }
        _ => {}
    }
    let mut was_default = false;
    if settings && !preset_remains && default_provider(store)?.as_deref() == Some(name) {
        store.delete_app_setting(DEFAULT_PROVIDER_SETTING)?;
        was_default = true;
    }
    Ok(Removal {
        settings,
        key,
        preset_remains,
        was_default,
    })
}

/// What the person may want to know after a key was stored.
pub struct KeyNotes {
    /// Where the key went: the keyring, or the key file the person chose.
    pub store: tessera_secrets::SecretBackend,
    /// This environment variable is set and wins over the keyring while it is.
    pub env_override: Option<String>,
    /// The provider is set up as needing no key, so this one is not used.
    pub not_required: bool,
}

/// Stores `key` as the key of the provider `name` (saved or a preset) in the keyring. The key
/// is never logged nor repeated in an error.
pub async fn save_key(
    store: &Store,
    keyring: &Arc<dyn KeyStore>,
    name: &str,
    key: &str,
) -> Outcome<KeyNotes> {
    let (config, _) = find_or_fail(store, name)?;
    let key = key.trim();
    if key.is_empty() {
        return Err(invalid("the key is empty"));
    }
    if key.chars().any(char::is_control) {
        return Err(invalid(
            "the key contains control characters; give it as one line",
        ));
    }
    let store = set_key(keyring, name, Secret::new(key)).await?;
    Ok(KeyNotes {
        store,
        env_override: env_key(&config, |var| std::env::var(var).ok()).map(|(var, _)| var),
        not_required: !config.requires_key,
    })
}

/// Removes the key of `name` from the keyring; whether there was one.
pub async fn remove_key(keyring: &Arc<dyn KeyStore>, name: &str) -> Outcome<bool> {
    Ok(delete_key(keyring, name).await?)
}
