//! Changes that decide what new runs use: a provider saved or removed, its key, the default,
//! where keys are kept, the specialists. Each rebuilds the model itself and says how that went,
//! so no shell has to remember to.

use tessera_protocol::settings_api::{ModelStatus, SecretStoreMoved, SecretStoreView};
use tessera_providers::ProviderConfig;
use tessera_secrets::SecretBackend;

use super::{KeyNotes, Outcome, Removal};
use crate::{App, CoreError};

/// What a change did, and the model new runs use after it.
#[derive(Debug)]
pub struct Changed<T> {
    pub value: T,
    pub model: ModelStatus,
}

impl App {
    pub(crate) async fn changed<T>(&self, value: T) -> Changed<T> {
        Changed {
            value,
            model: self.reload_model_status().await,
        }
    }

    /// Checks and saves a whole configuration (see `Providers::check_and_save`); whether it
    /// replaced saved settings.
    pub async fn save_provider(&self, config: &mut ProviderConfig) -> Outcome<Changed<bool>> {
        let replaced = self.providers().check_and_save(config)?;
        Ok(self.changed(replaced).await)
    }

    /// Forgets a saved provider and its key.
    pub async fn remove_provider(&self, name: &str) -> Outcome<Changed<Removal>> {
        let removal = self.providers().remove(name).await?;
        Ok(self.changed(removal).await)
    }

    /// Stores a provider's key in the secret store.
    pub async fn save_provider_key(&self, name: &str, key: &str) -> Outcome<Changed<KeyNotes>> {
        let notes = self.providers().save_key(name, key).await?;
        Ok(self.changed(notes).await)
    }

    /// Removes a provider's key; whether there was one.
    pub async fn remove_provider_key(&self, name: &str) -> Outcome<Changed<bool>> {
        let removed = self.providers().remove_key(name).await?;
        Ok(self.changed(removed).await)
    }

    /// The provider used when none is named; None: no default any more.
    pub async fn set_default_provider(&self, name: Option<&str>) -> Outcome<Changed<()>> {
        match name {
            Some(name) => self.providers().set_default(name)?,
            None => {
                self.providers().clear_default()?;
            }
        }
        Ok(self.changed(()).await)
    }

    /// Where secrets are kept, and what the store warns of.
    pub async fn secret_store_view(&self) -> SecretStoreView {
        let secrets = self.engine.secret_store();
        SecretStoreView {
            store: secrets.backend(),
            key_file: secrets.key_file().display().to_string(),
            keyring: secrets.keyring_health().await,
            warnings: secrets.warnings(),
        }
    }

    /// What the person must know about the key file: someone else's file at its path, modes
    /// set back to owner-only.
    pub fn secret_store_warnings(&self) -> Vec<String> {
        self.engine.secret_store().warnings()
    }

    /// Moves every secret to `to`; a key the model could not read before may be readable now.
    pub async fn choose_secret_store(
        &self,
        to: SecretBackend,
    ) -> Result<SecretStoreMoved, CoreError> {
        let moved = self.engine.choose_secret_store(to).await?;
        self.reload_model_status().await;
        Ok(moved)
    }

    /// The model new runs use, as the UI shows it.
    pub fn model_status(&self) -> ModelStatus {
        crate::model_status(&self.engine)
    }
}
