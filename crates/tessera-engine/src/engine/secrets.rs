//! The data folder's secrets (API keys, MCP servers' secrets): the keyring or the key file, as
//! the person chose, and moving them from one to the other.

use std::sync::Arc;

use super::error::EngineError;
use super::handle::Engine;

impl Engine {
    /// Where the data folder's secrets are kept (the keyring or the key file), with the
    /// person's choice between them.
    pub fn secret_store(&self) -> &Arc<tessera_secrets::SecretStore> {
        &self.secrets
    }

    /// Moves every secret of the data folder to `to` (the person's choice): the providers'
    /// keys (saved providers and presets) and the secrets of every tool source.
    pub async fn choose_secret_store(
        &self,
        to: tessera_secrets::SecretBackend,
    ) -> Result<tessera_secrets::SecretStoreMoved, EngineError> {
        let saved: Vec<String> =
            crate::sync::blocking(|| self.store.read(|r| r.all_provider_settings()))?
                .into_iter()
                .map(|(name, _)| name)
                .collect();
        let sources: Vec<_> = crate::sync::read(&self.tool_sources).clone();
        // Secrets known to exist: the MCP servers' (their config marks each) and, maybe, the
        // saved providers' keys. A preset's key is carried when found, but a keyring that
        // cannot be asked is no reason to name every preset the person never used.
        let known: Vec<String> = saved
            .into_iter()
            .chain(sources.iter().flat_map(|s| s.secret_accounts()))
            .collect();
        let accounts: Vec<String> = known
            .iter()
            .cloned()
            .chain(tessera_providers::presets::preset_names().map(str::to_owned))
            .collect();
        let mut moved = self
            .secrets
            .switch(to, &accounts)
            .await
            .map_err(EngineError::Secrets)?;
        moved.not_moved.retain(|n| known.contains(&n.account));
        Ok(moved)
    }

    /// The data folder's secrets, as the key store every reader of one uses.
    pub fn secrets(&self) -> Arc<dyn tessera_secrets::KeyStore> {
        self.secrets.clone()
    }
}
