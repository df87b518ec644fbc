//! The model that embeds a project's chunks, as the person chose it in the setting
//! `knowledge_embedding` (`{"provider": NAME, "model": M}`: a saved provider or preset whose
//! OpenAI-compatible `/v1/embeddings` serves that model, such as Ollama's `bge-m3`). Without it
//! retrieval is by words alone, and the status says so.
//!
//! The calls run on a thread of their own with its own runtime: the index's worker and the
//! prompt's assembly ask from threads that may or may not be a runtime's, and a client's
//! connections belong to the runtime that opened them.

use std::sync::mpsc;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tessera_knowledge::vectors::Embedder;

use crate::models::{model_client, ModelOverrides};

/// The app setting naming the embedding model.
pub const SETTING: &str = "knowledge_embedding";
/// How long one call may wait for its answer.
const WAIT: Duration = Duration::from_secs(130);

pub use tessera_protocol::settings_api::KnowledgeEmbedding as EmbeddingChoice;

type Reply = mpsc::Sender<Result<Vec<Vec<f32>>, String>>;

/// Embeddings from a provider's `/v1/embeddings`.
pub struct ProviderEmbedder {
    model: String,
    requests: Mutex<mpsc::Sender<(Vec<String>, Reply)>>,
}

impl ProviderEmbedder {
    /// Starts the thread that talks to `choice`'s provider.
    pub fn start(
        engine: tessera_engine::engine::Engine,
        choice: EmbeddingChoice,
    ) -> Result<Self, String> {
        let (tx, rx) = mpsc::channel::<(Vec<String>, Reply)>();
        let overrides = ModelOverrides {
            provider: Some(choice.provider.clone()),
            model: Some(choice.model.clone()),
            ..ModelOverrides::default()
        };
        std::thread::Builder::new()
            .name("knowledge-embedder".into())
            .spawn(move || {
                let runtime = match tokio::runtime::Builder::new_current_thread()
                    .enable_all()
                    .build()
                {
                    Ok(rt) => rt,
                    Err(err) => {
                        for (_, reply) in rx {
                            let _ = reply.send(Err(format!("no runtime: {err}")));
                        }
                        return;
                    }
                };
                let client = runtime.block_on(model_client(&engine, &overrides));
                for (texts, reply) in rx {
                    let answer = match &client {
                        Ok((client, model)) => runtime
                            .block_on(client.embed(model, &texts))
                            .map_err(|e| e.to_string()),
                        Err(err) => Err(format!("the embedding model cannot be used: {err}")),
                    };
                    let _ = reply.send(answer);
                }
            })
            .map_err(|e| e.to_string())?;
        Ok(Self {
            model: format!("{}/{}", choice.provider, choice.model),
            requests: Mutex::new(tx),
        })
    }
}

impl Embedder for ProviderEmbedder {
    fn model(&self) -> String {
        self.model.clone()
    }

    fn embed(&self, texts: &[String]) -> Result<Vec<Vec<f32>>, String> {
        let (reply, answer) = mpsc::channel();
        self.requests
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .send((texts.to_vec(), reply))
            .map_err(|_| "the embedder has stopped".to_owned())?;
        answer
            .recv_timeout(WAIT)
            .map_err(|_| format!("no embeddings within {} s", WAIT.as_secs()))?
    }
}

/// The embedding model the setting names, if any.
pub fn choice(store: &tessera_store::Store) -> Option<EmbeddingChoice> {
    store
        .app_setting(SETTING)
        .ok()
        .flatten()
        .and_then(|v| serde_json::from_value(v).ok())
}

/// Sets (or with None clears) the embedding model; the provider must be one Tessera knows.
pub fn set_choice(
    engine: &tessera_engine::engine::Engine,
    choice: Option<&EmbeddingChoice>,
) -> Result<(), crate::CoreError> {
    let store = engine.store();
    match choice {
        Some(choice) => {
            if choice.model.trim().is_empty() {
                return Err(crate::CoreError::BadSetting(
                    "knowledge_embedding: the model is empty".into(),
                ));
            }
            crate::models::resolve_provider(
                store,
                &ModelOverrides {
                    provider: Some(choice.provider.clone()),
                    ..ModelOverrides::default()
                },
            )
            .map_err(|e| crate::CoreError::BadSetting(format!("knowledge_embedding: {e}")))?;
            let value = serde_json::to_value(choice)?;
            store.set_app_setting(SETTING, value)?;
        }
        None => {
            store.delete_app_setting(SETTING)?;
        }
    }
    Ok(())
}

/// The embedder the setting names, if any (a setting that cannot be read is logged).
pub fn configured(engine: &tessera_engine::engine::Engine) -> Option<Arc<dyn Embedder>> {
    let value = match engine.store().app_setting(SETTING) {
        Ok(Some(value)) if !value.is_null() => value,
        Ok(_) => return None,
        Err(err) => {
            tracing::warn!("knowledge: the embedding setting cannot be read: {err}");
            return None;
        }
    };
    let choice: EmbeddingChoice = match serde_json::from_value(value) {
        Ok(choice) => choice,
        Err(err) => {
            tracing::warn!("knowledge: the embedding setting is not {{provider, model}}: {err}");
            return None;
        }
    };
    match ProviderEmbedder::start(engine.clone(), choice) {
        Ok(embedder) => Some(Arc::new(embedder)),
        Err(err) => {
            tracing::warn!("knowledge: the embedder cannot start: {err}");
            None
        }
    }
}
