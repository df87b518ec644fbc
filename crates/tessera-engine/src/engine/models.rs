//! The model new runs use, and the clients of providers (the `on-device` one's go to the
//! local-model worker).

use std::sync::Arc;

use super::handle::{Engine, ModelChoice};

impl Engine {
    /// The model new runs use (runs going on keep theirs).
    pub fn set_model(&self, model: Option<ModelChoice>) {
        {
            let mut current = crate::sync::write(&self.model);
            *current = model.map(Arc::new);
        }
        // Built from providers as they were: the next run readies them again.
        {
            let mut picked = crate::sync::lock(&self.picked);
            picked.clear();
        }
    }

    /// The model new runs use, if one is set up.
    pub fn model(&self) -> Option<Arc<ModelChoice>> {
        crate::sync::read(&self.model).clone()
    }

    /// The client of the provider `config`, with `key`: the `on-device` provider's calls go to the
    /// local-model worker, started on the first one.
    pub fn provider_client(
        &self,
        config: tessera_providers::ProviderConfig,
        key: Option<tessera_providers::keys::Secret>,
    ) -> Result<tessera_providers::ProviderClient, tessera_providers::ProviderError> {
        if tessera_providers::presets::is_local(&config) {
            tessera_providers::ProviderClient::with_endpoint_source(
                config,
                self.local_models.clone(),
            )
        } else {
            tessera_providers::ProviderClient::new(config, key)
        }
    }

    /// The `on-device` provider's models and their worker.
    pub fn local_models(&self) -> &Arc<crate::local_models::LocalModels> {
        &self.local_models
    }
}
