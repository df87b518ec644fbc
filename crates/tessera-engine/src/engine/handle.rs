//! The engine's handle and what it holds: the store, the event bus, the runs going on, the
//! model, the tools, the secrets. Its methods are in the files of their concerns beside this
//! one (runs, models, tools, secrets, interactions).

use std::collections::HashMap;
use std::sync::{Arc, Mutex, RwLock};

use tessera_providers::ProviderClient;
use tessera_store::conversation_model::ConversationModel;
use tessera_store::Store;
use tokio_util::sync::CancellationToken;

use super::bus::EventBus;
use crate::turn::TurnOptions;

/// The model the engine talks to.
#[derive(Clone, Debug)]
pub struct ModelChoice {
    pub client: ProviderClient,
    pub model: String,
    pub options: TurnOptions,
}

/// A run going on, in the engine's list of them.
pub(super) struct RunEntry {
    pub(super) conversation_id: String,
    pub(super) cancel: CancellationToken,
    /// Tells this stretch of the run from a later one (a resume) under the same run id.
    pub(super) stretch: u64,
}

/// Cheap to clone; every clone is the same engine.
#[derive(Clone)]
pub struct Engine {
    pub(super) store: Arc<Store>,
    pub(super) bus: Arc<EventBus>,
    pub(super) runs: Arc<Mutex<HashMap<String, RunEntry>>>,
    /// Replaced when the person changes providers; a run keeps the model it started with.
    pub(super) model: Arc<RwLock<Option<Arc<ModelChoice>>>>,
    /// Conversations' own models, readied ([`Engine::prepare_model`]); forgotten with the
    /// default when the providers change.
    pub(super) picked: Arc<Mutex<HashMap<ConversationModel, Arc<ModelChoice>>>>,
    /// Front-end tools clients announced, and their calls waiting for an answer.
    pub(super) client_tools: Arc<crate::client_tools::ClientTools>,
    /// Forms running tools wait for (MCP elicitation).
    pub(super) live_forms: Arc<crate::interactions::LiveForms>,
    /// The tools that need no model (built-in, native, the app's): what direct runs call and
    /// `GET /v1/tools` lists while no model is set up. A model's own registry (with its
    /// specialists) takes their place when there is one.
    pub(super) base_tools: Arc<RwLock<Option<Arc<crate::tools::ToolRegistry>>>>,
    /// Tools that come and go while the engine runs (MCP servers), asked at each run's start.
    pub(super) tool_sources: Arc<RwLock<Vec<Arc<dyn crate::tools::ToolSource>>>>,
    /// The engine's tools with the sources', kept until either changes.
    pub(super) served: Arc<crate::tools::MergedTools>,
    /// Every secret of the data folder (API keys, MCP servers' secrets): the keyring or the
    /// key file, as the person chose.
    pub(super) secrets: Arc<tessera_secrets::SecretStore>,
    /// The `on-device` provider's models and their worker.
    pub(super) local_models: Arc<crate::local_models::LocalModels>,
}

impl std::fmt::Debug for Engine {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Engine")
            .field("model", &self.model())
            .finish_non_exhaustive()
    }
}

impl Engine {
    pub fn new(store: Arc<Store>, model: ModelChoice) -> Self {
        let engine = Self::without_model(store);
        engine.set_model(Some(model));
        engine
    }

    /// An engine with no model yet: history, settings and interactions work; a new run is
    /// refused with [`EngineError::NoModel`](super::EngineError::NoModel) until
    /// [`Engine::set_model`].
    pub fn without_model(store: Arc<Store>) -> Self {
        // Long answers pass multi-megabyte texts around; see `heap`.
        crate::heap::keep_large_blocks_apart();
        let bus = Arc::new(EventBus::new());
        let secrets = Arc::new(tessera_secrets::SecretStore::open(&store.paths().root));
        let local_models = Arc::new(crate::local_models::LocalModels::new(store.clone()));
        Self {
            secrets,
            local_models,
            live_forms: Arc::new(crate::interactions::LiveForms::new(
                store.clone(),
                bus.clone(),
            )),
            store,
            bus,
            runs: Arc::new(Mutex::new(HashMap::new())),
            model: Arc::new(RwLock::new(None)),
            picked: Arc::new(Mutex::new(HashMap::new())),
            client_tools: Arc::new(crate::client_tools::ClientTools::new()),
            tool_sources: Arc::new(RwLock::new(Vec::new())),
            served: Arc::default(),
            base_tools: Arc::new(RwLock::new(None)),
        }
    }

    pub fn store(&self) -> &Arc<Store> {
        &self.store
    }
}

/// What a trim does first for `store`: its idle readers drop their cached pages. The store is
/// held weakly, so a trim waiting to run never keeps a closed store (and its lock) alive.
pub(super) fn cached_pages_of(store: &Arc<Store>) -> impl FnOnce() + Send + 'static {
    let store = Arc::downgrade(store);
    move || {
        if let Some(store) = store.upgrade() {
            store.release_cached_pages();
        }
    }
}
