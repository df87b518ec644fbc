//! The HTTP API. `tessera serve` binds it to loopback; the desktop shell calls the same router in
//! process, so both shells run the same code.

use std::{path::PathBuf, sync::Arc};

use axum::{middleware, routing::get, Json, Router};
use serde_json::{json, Value};
use tower_http::services::{ServeDir, ServeFile};

use crate::auth::{check_api, check_host, Guard};

/// What the router needs to know.
#[derive(Debug, Clone)]
pub struct RouterConfig {
    pub guard: Arc<Guard>,
    /// The built web UI (`ui/dist`); `None` serves the API only.
    pub ui_dir: Option<PathBuf>,
}

async fn healthz() -> Json<Value> {
    Json(json!({ "status": "ok", "version": env!("CARGO_PKG_VERSION") }))
}

async fn api_version() -> Json<Value> {
    Json(json!({
        "version": env!("CARGO_PKG_VERSION"),
        "protocols": {
            "mcp-cp": "1.0",
            "easyflow-chat": "1.1",
            "context": "1.0"
        }
    }))
}

/// The whole router: `/healthz` (open), `/api/*` (token), and the UI as static files.
pub fn router(config: RouterConfig) -> Router {
    let api = Router::new()
        .route("/version", get(api_version))
        .route_layer(middleware::from_fn_with_state(
            config.guard.clone(),
            check_api,
        ));
    let mut app = Router::new()
        .route("/healthz", get(healthz))
        .nest("/api/v1", api);
    if let Some(dir) = &config.ui_dir {
        // Unknown paths fall back to index.html so client-side routes survive a reload.
        let index = ServeFile::new(dir.join("index.html"));
        app = app.fallback_service(ServeDir::new(dir).fallback(index));
    }
    app.layer(middleware::from_fn_with_state(config.guard, check_host))
}
