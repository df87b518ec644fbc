//! The engine the window talks to, opened over the data folder at start. When it cannot be
//! opened (the folder is locked by another process, a damaged database) the window still opens
//! and every API call answers 503 with the reason, so the person sees why instead of a window
//! that never appears.

use std::path::Path;

use tessera_engine::engine::Engine;
use tessera_server::chat_cmd::ModelArgs;
use tessera_server::in_process::{ApiResponseHead, InProcessApi};
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

    pub fn api(&self) -> Option<&InProcessApi> {
        match self {
            Self::Ready { api, .. } => Some(api),
            Self::Failed(_) => None,
        }
    }

    /// The 503 every call gets when the engine did not open: an MCP-CP ERROR_RESPONSE as the
    /// API writes them, so the UI shows it like any other error.
    pub fn unavailable(&self) -> (ApiResponseHead, String) {
        let reason = match self {
            Self::Failed(reason) => reason.as_str(),
            Self::Ready { .. } => "the engine is running",
        };
        let body = serde_json::json!({
            "messageId": "engine-unavailable",
            "contextId": "none",
            "timestamp": jiff::Timestamp::now().to_string(),
            "type": "ERROR_RESPONSE",
            "sender": {"id": "tessera-desktop", "type": "SYSTEM"},
            "content": {
                "errorCode": "ENGINE_UNAVAILABLE",
                "message": format!("Tessera could not open its data: {reason}"),
                "recoverable": false
            }
        });
        let head = ApiResponseHead {
            status: 503,
            headers: vec![("content-type".into(), "application/json".into())],
        };
        (head, body.to_string())
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
