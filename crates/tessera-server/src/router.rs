//! The HTTP API. `tessera serve` binds it to loopback; the desktop shell calls the same router in
//! process, so both shells run the same code.

use std::{path::PathBuf, sync::Arc};
use tessera_protocol::error_codes::ErrorCode;

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
    /// The application behind `/v1` (conversations, runs, events); `None` answers those with
    /// 503.
    pub app: Option<tessera_app::App>,
}

/// `/v1/*` when no engine runs: a clear reason instead of a 404.
async fn no_engine() -> crate::api::ApiError {
    crate::api::ApiError::new(
        ErrorCode::NoModel,
        "no model is configured: start `tessera serve` with --data-dir DIR and a provider \
         (--provider NAME, or --kind openai|anthropic --base-url URL, and --model M)",
    )
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
    let v1 = match &config.app {
        Some(app) => crate::api::routes(app.clone()),
        None => Router::new().route("/{*rest}", axum::routing::any(no_engine)),
    }
    .route_layer(middleware::from_fn_with_state(
        config.guard.clone(),
        check_api,
    ));
    let mut app = Router::new()
        .route("/healthz", get(healthz))
        .nest("/api/v1", api)
        .nest("/v1", v1);
    if let Some(dir) = &config.ui_dir {
        // Unknown paths fall back to index.html so client-side routes survive a reload.
        let index = ServeFile::new(dir.join("index.html"));
        app = app.fallback_service(ServeDir::new(dir).fallback(index));
    }
    app.layer(middleware::from_fn_with_state(config.guard, check_host))
        .layer(middleware::from_fn(no_framing))
}

/// No other page may frame the UI or an answer (clickjacking a consent dialog): every
/// response says so, in the CSP that browsers read and the header older ones read.
async fn no_framing(
    request: axum::extract::Request,
    next: middleware::Next,
) -> axum::response::Response {
    use axum::http::{header, HeaderValue};
    let mut response = next.run(request).await;
    let headers = response.headers_mut();
    headers.append(
        header::CONTENT_SECURITY_POLICY,
        HeaderValue::from_static("frame-ancestors 'none'"),
    );
    headers.insert(header::X_FRAME_OPTIONS, HeaderValue::from_static("DENY"));
    response
}
