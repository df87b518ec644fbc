//! The engine the window talks to, opened over the data folder at start. When it cannot be
//! opened (the folder is locked by another process, a damaged database) the window still opens
//! and every API call answers 503 with the reason, so the person sees why instead of a window
//! that never appears.

use std::path::Path;

use axum::http::StatusCode;
use tessera_engine::engine::Engine;
use tessera_server::chat_cmd::ModelArgs;
use tessera_server::in_process::{
    error_answer, ApiRequest, ApiResponseHead, BodyText, InProcessApi,
};
use tessera_server::serve::{open_engine_with, ExtraTools, ModelFlags};

pub enum EngineHost {
    Ready { api: InProcessApi, engine: Engine },
    Failed(String),
}

impl EngineHost {
    pub async fn open(data_dir: &Path, args: ModelArgs, native_tools: ExtraTools) -> Self {
        let flags = ModelFlags::new(args).with_extra_tools(native_tools);
        match open_engine_with(data_dir, &flags).await {
            Ok(engine) => Self::Ready {
                api: InProcessApi::new(engine.clone(), flags),
                engine,
            },
            Err(error) => {
                let reason = format!("{error:#}");
                tracing::error!(%reason, "the engine did not open");
                Self::Failed(reason)
            }
        }
    }

    /// Runs one request: through the engine's router, or, when the engine did not open, the
    /// 503 every call gets, saying why (an ERROR_RESPONSE the UI shows like any other).
    pub async fn call(&self, request: ApiRequest) -> (ApiResponseHead, BodyText) {
        match self {
            Self::Ready { api, .. } => api.call(request).await,
            Self::Failed(reason) => error_answer(
                StatusCode::SERVICE_UNAVAILABLE,
                "ENGINE_UNAVAILABLE",
                format!("Tessera could not open its data: {reason}"),
            ),
        }
    }

    /// Quitting: cancel what runs (partial answers are kept) so no run is left half-written.
    pub fn shut_down(&self) {
        if let Self::Ready { engine, .. } = self {
            for run in engine.running() {
                tracing::info!(run = %run.run_id, "cancelling a run: the app is quitting");
                engine.cancel(&run.run_id);
            }
            // A cancelled run writes its partial answer and its end; give that a moment.
            let deadline = std::time::Instant::now() + std::time::Duration::from_secs(3);
            while !engine.running().is_empty() && std::time::Instant::now() < deadline {
                std::thread::sleep(std::time::Duration::from_millis(20));
            }
        }
    }
}
