//! A conversation's own model: the person picks a provider and one of its models for the next
//! message (the composer's picker, or `metadata.model` of a USER_INPUT); the conversation keeps
//! it, and its runs use it instead of the default provider's, with the same tools and options.
//! Clients are built ahead of the run (the key may come from a slow keyring) and kept until the
//! providers change.

use std::sync::Arc;

pub use tessera_store::conversation_model::ConversationModel;
use tessera_store::StoreError;

use super::{Engine, EngineError, ModelChoice, ModelUnavailableReason};

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
        let unavailable = |reason: ModelUnavailableReason| EngineError::ModelUnavailable {
            provider: pick.provider.clone(),
            model: pick.model.clone(),
            reason: Box::new(reason),
            requested,
        };
        if pick.provider.trim().is_empty() || pick.model.trim().is_empty() {
            return Err(unavailable(ModelUnavailableReason::Unnamed));
        }
        if !self.picked_choice_ready(&pick) {
            let default = self.model().ok_or(EngineError::NoModel)?;
            let choice = self
                .build_picked(&pick, &default)
                .await
                .map_err(unavailable)?;
            {
                let mut picked = crate::sync::lock(&self.picked);
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
        crate::sync::lock(&self.picked).contains_key(pick)
    }

    async fn build_picked(
        &self,
        pick: &ConversationModel,
        default: &ModelChoice,
    ) -> Result<ModelChoice, ModelUnavailableReason> {
        let store = self.store.clone();
        let name = pick.provider.clone();
        let found =
            crate::sync::blocking(move || crate::provider_settings::find_provider(&store, &name))?;
        let Some((config, _)) = found else {
            return Err(ModelUnavailableReason::NoProvider(pick.provider.clone()));
        };
        let key = tessera_providers::keys::resolve_key(&config, self.secrets()).await?;
        let client = self.provider_client(config, key)?;
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
        let ready = crate::sync::lock(&self.picked).get(pick).cloned();
        match ready {
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

impl Engine {
    /// The model a request names (seed 003 §1.2 `model`), matched without regard to case
    /// against the default model and every configured provider's models (its default model and
    /// those its settings list): None for the default model, else the provider and model to
    /// pick. A name no provider has is [`EngineError::ModelUnavailable`] naming what is known.
    pub fn model_named(&self, name: &str) -> Result<Option<ConversationModel>, EngineError> {
        let wanted = name.trim();
        if self
            .model()
            .is_some_and(|m| m.model.eq_ignore_ascii_case(wanted))
        {
            return Ok(None);
        }
        let saved = self.store.read(|r| r.all_provider_settings())?;
        let mut known: Vec<String> = self.model().map(|m| m.model.clone()).into_iter().collect();
        for (provider, settings) in &saved {
            let listed = settings
                .get("models")
                .and_then(serde_json::Value::as_object)
                .map(|m| m.keys().cloned().collect::<Vec<_>>())
                .unwrap_or_default();
            let default = settings
                .get("default_model")
                .and_then(serde_json::Value::as_str)
                .map(str::to_owned);
            for model in default.into_iter().chain(listed) {
                if model.eq_ignore_ascii_case(wanted) {
                    return Ok(Some(ConversationModel {
                        provider: provider.clone(),
                        model,
                    }));
                }
                known.push(model);
            }
        }
        known.sort();
        known.dedup();
        Err(EngineError::ModelUnavailable {
            provider: "any".to_owned(),
            model: wanted.to_owned(),
            reason: Box::new(ModelUnavailableReason::NoSuchModel {
                wanted: wanted.to_owned(),
                known,
            }),
            requested: true,
        })
    }
}

impl Engine {
    /// Stores `history` (a request's earlier `user`/`assistant` resources, seed 003 §1.2) as
    /// the first messages of `conversation` when it has none yet, in one transaction; a
    /// conversation that has messages keeps its own history. Returns how many were stored.
    pub fn seed_history(
        &self,
        conversation: &str,
        history: &[(tessera_protocol::request::Role, String)],
    ) -> Result<usize, EngineError> {
        if history.is_empty() || !self.store.active_branch(conversation)?.is_empty() {
            return Ok(0);
        }
        let (conversation, history) = (conversation.to_owned(), history.to_vec());
        Ok(self.store.write(move |tx| {
            for (role, text) in &history {
                tx.append_message(
                    &conversation,
                    tessera_store::NewMessage::new(tessera_store::text_message(role.clone(), text)),
                )?;
            }
            Ok(history.len())
        })?)
    }
}
