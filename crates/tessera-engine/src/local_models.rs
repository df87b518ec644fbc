//! The `on-device` provider: models in the data folder's `models` folder, each answered by the
//! local-model worker ([`tessera_local::runtime`]), started on the first call for it. The
//! providers layer sees one more OpenAI-compatible provider whose address is known per call.

use std::future::Future;
use std::path::{Path, PathBuf};
use std::pin::Pin;
use std::sync::Arc;

use serde_json::Value;
use tessera_local::runtime::{LocalRuntime, RuntimeOptions, WorkerState};
use tessera_providers::endpoint::{DynamicEndpoint, EndpointSource};
use tessera_providers::keys::Secret;
use tessera_store::Store;

/// The app setting that holds the context local models are loaded with, in tokens (unset: the
/// worker's choice from the model and the machine's memory).
pub const CONTEXT_SETTING: &str = "local_models.context_tokens";

/// The contexts a person may ask for: less would not hold the app's tools and a question;
/// more is beyond what llama.cpp's CPU back-end is built for here.
pub(crate) const CONTEXT_RANGE: std::ops::RangeInclusive<u32> = 2_048..=262_144;

/// A context a person asked for that the worker will not be given.
#[derive(Debug, thiserror::Error)]
pub enum ContextError {
    #[error("a context of {0} tokens is outside what a local model can be given ({min} to {max})", min = CONTEXT_RANGE.start(), max = CONTEXT_RANGE.end())]
    OutOfRange(u64),
    #[error(transparent)]
    Store(#[from] tessera_store::StoreError),
}

/// `n` as a context a local model may be given.
fn usable_context(n: u64) -> Option<u32> {
    u32::try_from(n).ok().filter(|t| CONTEXT_RANGE.contains(t))
}

/// The data folder's local models and the one worker that runs them.
pub struct LocalModels {
    store: Arc<Store>,
    models_dir: PathBuf,
    options: RuntimeOptions,
    /// Made on the first call (it needs the async runtime).
    runtime: tokio::sync::OnceCell<Arc<LocalRuntime>>,
}

impl LocalModels {
    pub fn new(store: Arc<Store>) -> Self {
        Self::with_worker(store, tessera_local::worker::worker_binary())
    }

    /// The same, run by the worker program `worker`.
    pub fn with_worker(store: Arc<Store>, worker: PathBuf) -> Self {
        let models_dir = tessera_local::library::models_dir(&store.paths().root);
        Self {
            store,
            models_dir,
            options: RuntimeOptions::new(worker),
            runtime: tokio::sync::OnceCell::new(),
        }
    }

    /// The file a model name stands for: a name in the models folder, or a path.
    pub(crate) fn file_of(&self, model: &str) -> Result<PathBuf, String> {
        let named = Path::new(model);
        let path = if named.is_absolute() {
            named.to_owned()
        } else {
            self.models_dir.join(named)
        };
        if path.is_file() {
            Ok(path)
        } else {
            Err(format!(
                "no local model {model} in {} (tessera local list shows them; tessera local pull downloads one)",
                self.models_dir.display()
            ))
        }
    }

    async fn runtime(&self) -> Arc<LocalRuntime> {
        self.runtime
            .get_or_init(|| async { LocalRuntime::new(self.options.clone()) })
            .await
            .clone()
    }

    /// The worker's state, for a person to see (running, or stopped and why).
    pub async fn state(&self) -> WorkerState {
        match self.runtime.get() {
            Some(runtime) => runtime.state().await,
            None => WorkerState::NotRunning,
        }
    }

    /// The context a person chose for local models, in tokens; None leaves it to the worker. A
    /// stored value that is not a count in `CONTEXT_RANGE` counts as none (and is logged).
    pub fn context_tokens(&self) -> Result<Option<u32>, tessera_store::StoreError> {
        Ok(match self.store.app_setting(CONTEXT_SETTING)? {
            None | Some(Value::Null) => None,
            Some(value) => {
                let tokens = value.as_u64().and_then(usable_context);
                if tokens.is_none() {
                    tracing::warn!(%value, "the stored context of local models is not a usable count: the worker chooses");
                }
                tokens
            }
        })
    }

    /// Sets the context local models are loaded with (None: the worker chooses). A worker
    /// running with another context is reloaded with it at the next message to it.
    pub fn set_context_tokens(&self, tokens: Option<u64>) -> Result<Option<u32>, ContextError> {
        match tokens {
            None => {
                self.store.delete_app_setting(CONTEXT_SETTING)?;
                Ok(None)
            }
            Some(n) => {
                let tokens = usable_context(n).ok_or(ContextError::OutOfRange(n))?;
                self.store
                    .set_app_setting(CONTEXT_SETTING, Value::from(tokens))?;
                Ok(Some(tokens))
            }
        }
    }

    /// Stops the worker now; the next call starts it again.
    pub async fn unload(&self) {
        if let Some(runtime) = self.runtime.get() {
            runtime.unload().await;
        }
    }
}

impl EndpointSource for LocalModels {
    fn endpoint<'a>(
        &'a self,
        model: &'a str,
    ) -> Pin<Box<dyn Future<Output = Result<DynamicEndpoint, String>> + Send + 'a>> {
        Box::pin(async move {
            let file = self.file_of(model)?;
            let ctx = self.context_tokens().map_err(|err| err.to_string())?;
            let runtime = self.runtime().await;
            let endpoint = runtime
                .endpoint(&file, ctx)
                .await
                .map_err(|err| err.to_string())?;
            Ok(DynamicEndpoint {
                base_url: endpoint.base_url,
                key: Secret::new(endpoint.token),
            })
        })
    }
}
