//! The engine the window talks to, opened over the data folder at start. When it cannot be
//! opened (the folder is locked by another process, a damaged database) the window still opens
//! and every API call answers 503 with the reason, so the person sees why instead of a window
//! that never appears.

use std::path::Path;
use tessera_protocol::error_codes::ErrorCode;

use axum::http::StatusCode;
use tessera_app::{App, ModelOverrides, ToolPlugin};
use tessera_server::in_process::{
    error_answer, ApiRequest, ApiResponseHead, BodyText, InProcessApi,
};

pub enum EngineHost {
    Ready { api: InProcessApi, app: App },
    Failed(String),
}

impl EngineHost {
    pub async fn open(
        data_dir: &Path,
        overrides: ModelOverrides,
        native_tools: ToolPlugin,
    ) -> Self {
        match App::open(data_dir, overrides, vec![native_tools]).await {
            Ok(app) => {
                for note in app.start_notes() {
                    tracing::warn!(%note, "the app opened without something");
                }
                Self::Ready {
                    api: InProcessApi::new(app.clone()),
                    app,
                }
            }
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
                ErrorCode::EngineUnavailable,
                format!("Tessera could not open its data: {reason}"),
            ),
        }
    }

    /// Quitting: the core cancels what runs (partial answers are kept).
    pub fn shut_down(&self) {
        if let Self::Ready { app, .. } = self {
            app.shut_down(std::time::Duration::from_secs(3));
        }
    }
}
