//! A conversation's own model: the person picks a provider and one of its models for the next
//! message (the composer's picker, or `metadata.model` of a USER_INPUT); the conversation keeps
//! it, and its runs use it instead of the default provider's, with the same tools and options.
//! Clients are built ahead of the run (the key may come from a slow keyring) and kept until the
//! providers change.

use std::sync::Arc;

use tessera_providers::ProviderClient;
pub use tessera_store::conversation_model::ConversationModel;
use tessera_store::StoreError;

use super::{Engine, EngineError, ModelChoice};

impl Engine {
    /// Readies the model `conversation`'s next run uses: `pick` when the person picks one now
    /// (then kept as the conversation's), else the one the conversation has, if any. Fails,
    /// naming why, when that provider is gone, has no key, or the pick is malformed; nothing is
    /// kept then. A conversation that does not exist yet has no model of its own to read or
    /// keep: `pick` is readied only.
    pub async fn prepare_model(
        &self,
        conversation: &str,
        pick: Option<ConversationModel>,
    ) -> Result<Option<ConversationModel>, EngineError> {
        let requested = pick.is_some();
        let pick = match pick {
            Some(pick) => Some(pick),
            None => match self.store.conversation_model(conversation) {
                Ok(own) => own,
                // A conversation about to be created has none yet.
                Err(StoreError::NotFound { .. }) => None,
                Err(other) => return Err(other.into()),
            },
        };
        let Some(pick) = pick else {
            return Ok(None);
        };
        let unavailable = |reason: String| EngineError::ModelUnavailable {
            provider: pick.provider.clone(),
            model: pick.model.clone(),
            reason,
            requested,
        };
        if pick.provider.trim().is_empty() || pick.model.trim().is_empty() {
            return Err(unavailable(
                "a provider and a model must both be named".into(),
            ));
        }
        if !self.picked_choice_ready(&pick) {
            let default = self.model().ok_or(EngineError::NoModel)?;
            let choice = self
                .build_picked(&pick, &default)
                .await
                .map_err(unavailable)?;
            if let Ok(mut picked) = self.picked.lock() {
                picked.insert(pick.clone(), Arc::new(choice));
            }
        }
        if requested {
            // Kept by a conversation that exists; one about to be created is readied only (the
            // caller readies it again once created, to keep it: the client is built by then).
            match self
                .store
                .set_conversation_model(conversation, Some(pick.clone()))
            {
                Ok(()) | Err(StoreError::NotFound { .. }) => {}
                Err(other) => return Err(other.into()),
            }
        }
        Ok(Some(pick))
    }

    /// Forgets the conversation's own model: its runs use the default provider's again.
    pub fn clear_conversation_model(&self, conversation: &str) -> Result<(), EngineError> {
        Ok(self.store.set_conversation_model(conversation, None)?)
    }

    fn picked_choice_ready(&self, pick: &ConversationModel) -> bool {
        self.picked.lock().is_ok_and(|p| p.contains_key(pick))
    }

    async fn build_picked(
        &self,
        pick: &ConversationModel,
        default: &ModelChoice,
    ) -> Result<ModelChoice, String> {
        let store = self.store.clone();
        let name = pick.provider.clone();
        let found =
            crate::turn::blocking(move || crate::provider_settings::find_provider(&store, &name))
                .map_err(|e| e.to_string())?;
        let Some((config, _)) = found else {
            return Err(format!(
                "there is no provider named {} (it may have been removed)",
                pick.provider
            ));
        };
        let key = tessera_providers::keys::resolve_key(&config, self.secrets())
            .await
            .map_err(|e| e.to_string())?;
        let client = ProviderClient::new(config, key).map_err(|e| e.to_string())?;
        Ok(ModelChoice {
            client,
            model: pick.model.clone(),
            options: default.options.clone(),
        })
    }

    /// The model a run of a conversation whose own model is `pick` uses: that one when it was
    /// readied ([`Engine::prepare_model`]), else the default.
    pub(super) fn choice_for(
        &self,
        pick: Option<&ConversationModel>,
        default: Arc<ModelChoice>,
    ) -> (Arc<ModelChoice>, bool) {
        let Some(pick) = pick else {
            return (default, false);
        };
        match self.picked.lock().ok().and_then(|p| p.get(pick).cloned()) {
            Some(choice) => (choice, true),
            None => {
                tracing::warn!(
                    provider = %pick.provider,
                    "the conversation's own model was not readied; the default answers"
                );
                (default, false)
            }
        }
    }
}
