//! The `on-device` provider: models in the data folder's `models` folder, each answered by the
//! local-model worker ([`tessera_local::runtime`]), started on the first call for it. The
//! providers layer sees one more OpenAI-compatible provider whose address is known per call.

use std::future::Future;
use std::path::{Path, PathBuf};
use std::pin::Pin;
use std::sync::Arc;

use tessera_local::runtime::{LocalRuntime, RuntimeOptions, WorkerState};
use tessera_providers::endpoint::{DynamicEndpoint, EndpointSource};
use tessera_providers::keys::Secret;

/// The data folder's local models and the one worker that runs them.
pub struct LocalModels {
    models_dir: PathBuf,
    options: RuntimeOptions,
    /// Made on the first call (it needs the async runtime).
    runtime: tokio::sync::OnceCell<Arc<LocalRuntime>>,
}

impl LocalModels {
    pub fn new(data_dir: &Path) -> Self {
        Self {
            models_dir: tessera_local::library::models_dir(data_dir),
            options: RuntimeOptions::new(tessera_local::worker::worker_binary()),
            runtime: tokio::sync::OnceCell::new(),
        }
    }

    /// The file a model name stands for: a name in the models folder, or a path.
    pub fn file_of(&self, model: &str) -> Result<PathBuf, String> {
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
            let runtime = self.runtime().await;
            let endpoint = runtime
                .endpoint(&file)
                .await
                .map_err(|err| err.to_string())?;
            Ok(DynamicEndpoint {
                base_url: endpoint.base_url,
                key: Secret::new(endpoint.token),
            })
        })
    }
}
