//! Which models a provider serves, asked of the provider itself: `GET {base}/models` on
//! OpenAI-compatible servers, `GET {base}/v1/models` on Anthropic, `GET /api/tags` on Ollama;
//! and finding a local Ollama to offer without a key.

use std::time::Duration;

use reqwest::header::{HeaderMap, HeaderValue, AUTHORIZATION};
use reqwest::{Client, StatusCode};
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::config::{ModelPrice, ModelSettings, ProviderConfig, WireKind};
use crate::error::{ProviderError, Result};
use crate::http::{build_client, join_url};
use crate::keys::Secret;
use crate::limits::{
    read_response, read_start, WholeBodyError, MAX_ERROR_BYTES, MAX_MODEL_LIST_BYTES,
};

/// Where a local Ollama listens by default.
pub const OLLAMA_URL: &str = "http://127.0.0.1:11434";

/// The name a detected Ollama is offered under.
pub const OLLAMA_PROVIDER: &str = "ollama";

/// A listing is a settings-page action: no reason to wait as long as for an answer.
const LIST_TIMEOUT: Duration = Duration::from_secs(30);

/// Anthropic pages its model list; more pages than this means something is looping.
const MAX_PAGES: usize = 50;

/// One model a provider offers.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
#[ts(optional_fields)]
pub struct ModelInfo {
    pub id: String,
    /// A name for people, when the provider gives one (Anthropic does).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub display_name: Option<String>,
}

/// The models `config`'s provider serves, with a client built for it.
pub async fn list_models(config: &ProviderConfig, key: Option<&Secret>) -> Result<Vec<ModelInfo>> {
    let http = build_client(config)?;
    list_models_with(&http, config, key).await
}

/// [`list_models`] over an existing client (a `ProviderClient`'s, to share its connections).
///
/// An OpenAI-compatible server that has no `/models` but is an Ollama (`…/v1` answering 404)
/// is asked for its tags instead.
pub async fn list_models_with(
    http: &Client,
    config: &ProviderConfig,
    key: Option<&Secret>,
) -> Result<Vec<ModelInfo>> {
    let lister = Lister {
        http,
        config,
        key,
        timeout: config.timeouts.first_byte().min(LIST_TIMEOUT),
    };
    match config.kind {
        WireKind::Anthropic => lister.anthropic().await,
        WireKind::Openai => match lister.openai().await {
            Err(ProviderError::Http { status: 404, .. })
                if ollama_root(&config.base_url).is_some() =>
            {
                let root = ollama_root(&config.base_url).unwrap_or_default();
                lister.ollama(&root).await
            }
            other => other,
        },
    }
}

/// The server root of an OpenAI-compatible base URL ending in `/v1` (where Ollama keeps
/// `/api/tags`).
fn ollama_root(base_url: &str) -> Option<String> {
    base_url
        .trim()
        .trim_end_matches('/')
        .strip_suffix("/v1")
        .map(str::to_owned)
}

/// The models of the Ollama at `base` (its root, `http://127.0.0.1:11434`).
pub async fn list_ollama_models(
    http: &Client,
    base: &str,
    timeout: Duration,
) -> Result<Vec<ModelInfo>> {
    let config = ProviderConfig::new(OLLAMA_PROVIDER, WireKind::Openai, base);
    Lister {
        http,
        config: &config,
        key: None,
        timeout,
    }
    .ollama(base)
    .await
}

/// A local Ollama at `base` (normally [`OLLAMA_URL`]), as a provider ready to use: its
/// OpenAI-compatible endpoint, no key, its models at no cost, the first one as the default.
/// `None` when nothing there answers `/api/tags` like an Ollama within `timeout`.
pub async fn detect_ollama(base: &str, timeout: Duration) -> Option<ProviderConfig> {
    // Loopback never goes through a proxy, whatever HTTP_PROXY says.
    let http = Client::builder()
        .no_proxy()
        .connect_timeout(timeout)
        .build()
        .ok()?;
    let tags = match fetch_tags(&http, base, timeout).await {
        Ok(tags) => tags,
        Err(err) => {
            tracing::debug!(base, error = %err, "no Ollama found");
            return None;
        }
    };
    let mut config = ProviderConfig::new(OLLAMA_PROVIDER, WireKind::Openai, join_url(base, "v1"));
    config.requires_key = false;
    config.default_model = tags.first().map(|t| t.name.clone());
    for tag in tags {
        let settings = ModelSettings {
            image_input: tag.takes_images().then_some(true),
            price: Some(ModelPrice::default()),
            ..ModelSettings::default()
        };
        config.models.insert(tag.name, settings);
    }
    tracing::info!(base, models = config.models.len(), "found a local Ollama");
    Some(config)
}

/// Where LM Studio's local server listens by default.
pub const LMSTUDIO_URL: &str = "http://127.0.0.1:1234";

/// The provider name a detected LM Studio is saved under (the preset's).
pub const LMSTUDIO_PROVIDER: &str = "lmstudio";

/// LM Studio's local server at `base` (its root, e.g. [`LMSTUDIO_URL`]), as a provider with the
/// models it has loaded; None when nothing answers there in `timeout` or the answer is not a
/// model list.
pub async fn detect_lmstudio(base: &str, timeout: Duration) -> Option<ProviderConfig> {
    #[derive(Deserialize)]
    struct Model {
        id: String,
    }
    #[derive(Deserialize)]
    struct Models {
        data: Vec<Model>,
    }
    let http = Client::builder()
        .no_proxy()
        .connect_timeout(timeout)
        .build()
        .ok()?;
    let v1 = join_url(base, "v1");
    let mut config = ProviderConfig::new(LMSTUDIO_PROVIDER, WireKind::Openai, v1.clone());
    config.requires_key = false;
    let lister = Lister {
        http: &http,
        config: &config,
        key: None,
        timeout,
    };
    let body = match lister.get(&join_url(&v1, "models"), HeaderMap::new()).await {
        Ok(body) => body,
        Err(err) => {
            tracing::debug!(base, error = %err, "no LM Studio found");
            return None;
        }
    };
    let models: Models = serde_json::from_value(body).ok()?;
    config.default_model = models.data.first().map(|m| m.id.clone());
    for model in models.data {
        config.models.insert(model.id, ModelSettings::default());
    }
    tracing::info!(
        base,
        models = config.models.len(),
        "found a local LM Studio"
    );
    Some(config)
}

/// Where a local model server is looked for: its usual address, or the one the environment
/// names (`TESSERA_OLLAMA_URL`, `TESSERA_LMSTUDIO_URL`: another port, or a test's server).
fn local_url(var: &str, default: &str) -> String {
    std::env::var(var)
        .ok()
        .filter(|v| !v.trim().is_empty())
        .unwrap_or_else(|| default.to_owned())
}

/// Where Ollama and LM Studio are looked for on this machine: (Ollama's, LM Studio's).
pub fn local_urls() -> (String, String) {
    (
        local_url("TESSERA_OLLAMA_URL", OLLAMA_URL),
        local_url("TESSERA_LMSTUDIO_URL", LMSTUDIO_URL),
    )
}

/// Ollama and LM Studio running on this machine ([`local_urls`]), probed at once; those that
/// answered, Ollama first.
pub async fn detect_local(timeout: Duration) -> Vec<ProviderConfig> {
    let (ollama, lmstudio) = local_urls();
    let (ollama, lmstudio) = tokio::join!(
        detect_ollama(&ollama, timeout),
        detect_lmstudio(&lmstudio, timeout)
    );
    ollama.into_iter().chain(lmstudio).collect()
}

/// Whatever local model server answers at `base`: an Ollama (`/api/tags`), else an LM Studio
/// (`/v1/models`).
pub async fn detect_at(base: &str, timeout: Duration) -> Option<ProviderConfig> {
    match detect_ollama(base, timeout).await {
        Some(found) => Some(found),
        None => detect_lmstudio(base, timeout).await,
    }
}

/// One entry of Ollama's `/api/tags`.
#[derive(Debug, Deserialize)]
struct OllamaTag {
    name: String,
    #[serde(default)]
    details: Option<OllamaDetails>,
}

#[derive(Debug, Default, Deserialize)]
struct OllamaDetails {
    #[serde(default)]
    families: Option<Vec<String>>,
}

impl OllamaTag {
    /// Ollama lists a vision encoder among a model's families (`clip`, `mllama`).
    fn takes_images(&self) -> bool {
        self.details
            .as_ref()
            .and_then(|d| d.families.as_ref())
            .is_some_and(|f| f.iter().any(|x| x == "clip" || x == "mllama"))
    }
}

async fn fetch_tags(http: &Client, base: &str, timeout: Duration) -> Result<Vec<OllamaTag>> {
    #[derive(Deserialize)]
    struct Tags {
        models: Vec<OllamaTag>,
    }
    let config = ProviderConfig::new(OLLAMA_PROVIDER, WireKind::Openai, base);
    let lister = Lister {
        http,
        config: &config,
        key: None,
        timeout,
    };
    let body = lister
        .get(&join_url(base, "api/tags"), HeaderMap::new())
        .await?;
    let tags: Tags = serde_json::from_value(body).map_err(|err| lister.decode(&err))?;
    Ok(tags.models)
}

struct Lister<'a> {
    http: &'a Client,
    config: &'a ProviderConfig,
    key: Option<&'a Secret>,
    timeout: Duration,
}

impl Lister<'_> {
    async fn openai(&self) -> Result<Vec<ModelInfo>> {
        #[derive(Deserialize)]
        struct Page {
            data: Vec<Entry>,
        }
        #[derive(Deserialize)]
        struct Entry {
            id: String,
        }
        let mut headers = HeaderMap::new();
        if let Some(key) = self.key {
            headers.insert(
                AUTHORIZATION,
                self.header(&format!("Bearer {}", key.expose()))?,
            );
        }
        let body = self
            .get(&join_url(&self.config.base_url, "models"), headers)
            .await?;
        let page: Page = serde_json::from_value(body).map_err(|err| self.decode(&err))?;
        Ok(page
            .data
            .into_iter()
            .map(|e| ModelInfo {
                id: e.id,
                display_name: None,
            })
            .collect())
    }

    async fn anthropic(&self) -> Result<Vec<ModelInfo>> {
        #[derive(Deserialize)]
        struct Page {
            data: Vec<ModelInfo>,
            #[serde(default)]
            has_more: bool,
            #[serde(default)]
            last_id: Option<String>,
        }
        let mut headers = HeaderMap::new();
        if let Some(key) = self.key {
            headers.insert("x-api-key", self.header(key.expose())?);
        }
        headers.insert(
            "anthropic-version",
            HeaderValue::from_static(crate::anthropic::ANTHROPIC_VERSION),
        );
        let base = join_url(&self.config.base_url, "v1/models?limit=1000");
        let mut models = Vec::new();
        let mut url = base.clone();
        for _ in 0..MAX_PAGES {
            let body = self.get(&url, headers.clone()).await?;
            let page: Page = serde_json::from_value(body).map_err(|err| self.decode(&err))?;
            models.extend(page.data);
            match (page.has_more, page.last_id) {
                (true, Some(last)) => url = format!("{base}&after_id={last}"),
                _ => return Ok(models),
            }
        }
        Ok(models)
    }

    async fn ollama(&self, root: &str) -> Result<Vec<ModelInfo>> {
        Ok(fetch_tags(self.http, root, self.timeout)
            .await?
            .into_iter()
            .map(|t| ModelInfo {
                id: t.name,
                display_name: None,
            })
            .collect())
    }

    fn header(&self, value: &str) -> Result<HeaderValue> {
        let mut value = HeaderValue::from_str(value).map_err(|_| {
            ProviderError::Config(format!(
                "the API key of {} contains characters an HTTP header cannot carry",
                self.config.name
            ))
        })?;
        value.set_sensitive(true);
        Ok(value)
    }

    /// GETs `url` and returns its JSON body, or the provider's error.
    async fn get(&self, url: &str, headers: HeaderMap) -> Result<Value> {
        let provider = self.config.name.clone();
        let response = self
            .http
            .get(url)
            .headers(headers)
            .timeout(self.timeout)
            .send()
            .await
            .map_err(|err| self.transport(&err))?;
        let status = response.status();
        let retry_after = response
            .headers()
            .get(reqwest::header::RETRY_AFTER)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.trim().parse::<u64>().ok())
            .map(Duration::from_secs);
        if !status.is_success() {
            let text = read_start(response, MAX_ERROR_BYTES).await;
            let (kind, message) = error_message(status, &text);
            return Err(ProviderError::Http {
                provider,
                status: status.as_u16(),
                kind,
                message: self.redact(message),
                retry_after,
            });
        }
        let body = match read_response(response, MAX_MODEL_LIST_BYTES, "the model list").await {
            Ok(body) => body,
            Err(WholeBodyError::Transport(err)) => return Err(self.transport(&err)),
            Err(WholeBodyError::TooLarge(err)) => {
                return Err(ProviderError::Decode {
                    provider,
                    message: err.to_string(),
                })
            }
        };
        serde_json::from_slice(&body).map_err(|err| self.decode(&err))
    }

    fn transport(&self, err: &reqwest::Error) -> ProviderError {
        let provider = self.config.name.clone();
        if err.is_timeout() {
            return ProviderError::FirstByteTimeout {
                provider,
                timeout: self.timeout,
            };
        }
        let mut message = err.to_string();
        let mut source = std::error::Error::source(err);
        while let Some(inner) = source {
            message.push_str(": ");
            message.push_str(&inner.to_string());
            source = inner.source();
        }
        // A base URL saved with credentials before they were refused never shows them.
        let message = tessera_protocol::secrets::redact_text(&message);
        ProviderError::Network {
            provider,
            message: self.redact(message),
        }
    }

    fn decode(&self, err: &serde_json::Error) -> ProviderError {
        ProviderError::Decode {
            provider: self.config.name.clone(),
            message: format!("the model list is not in the expected form ({err})"),
        }
    }

    /// A provider may quote the key it refused; it never reaches an error message whole.
    fn redact(&self, text: String) -> String {
        match self.key {
            Some(key) if key.expose().len() >= 8 && text.contains(key.expose()) => {
                text.replace(key.expose(), "[redacted]")
            }
            _ => text,
        }
    }
}

/// The provider's error type and message from an error body (OpenAI `{"error": {...}}`,
/// Anthropic `{"type": "error", "error": {...}}`, Ollama `{"error": "..."}`), else the text.
fn error_message(status: StatusCode, text: &str) -> (Option<String>, String) {
    match serde_json::from_str::<Value>(text) {
        Ok(value) => {
            let error = value.get("error").unwrap_or(&value);
            crate::openai::decode_error_fields(error)
        }
        Err(_) if text.trim().is_empty() => (
            None,
            status.canonical_reason().unwrap_or("error").to_owned(),
        ),
        Err(_) => (None, text.chars().take(500).collect()),
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use std::net::SocketAddr;

    use axum::extract::Query;
    use axum::http::{HeaderMap as Headers, StatusCode as Status};
    use axum::response::IntoResponse;
    use axum::routing::get;
    use axum::{Json, Router};
    use serde_json::json;

    use super::*;

    /// Serves `app` on 127.0.0.1, a port the system picks; ends with the test's runtime.
    async fn serve(app: Router) -> SocketAddr {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
        addr
    }

    fn config(kind: WireKind, base: String) -> ProviderConfig {
        let mut config = ProviderConfig::new("test", kind, base);
        config.proxy = Some("none".into());
        config
    }

    fn ids(models: &[ModelInfo]) -> Vec<&str> {
        models.iter().map(|m| m.id.as_str()).collect()
    }

    fn tags() -> Json<Value> {
        Json(json!({"models": [
            {"name": "qwen2.5:7b", "model": "qwen2.5:7b", "size": 4_683_087_332u64,
             "details": {"family": "qwen2", "families": ["qwen2"]}},
            {"name": "llava:13b", "model": "llava:13b",
             "details": {"family": "llama", "families": ["llama", "clip"]}},
        ]}))
    }

    #[tokio::test]
    async fn openai_compatible_models_are_listed_with_the_bearer_key() {
        let app = Router::new().route(
            "/v1/models",
            get(|headers: Headers| async move {
                if headers.get("authorization").and_then(|v| v.to_str().ok())
                    != Some("Bearer sk-good-key-123")
                {
                    return (
                        Status::UNAUTHORIZED,
                        Json(json!({"error": {"message": "Incorrect API key provided: sk-bad-key-456", "type": "invalid_request_error", "code": "invalid_api_key"}})),
                    )
                        .into_response();
                }
                Json(json!({"object": "list", "data": [
                    {"id": "gpt-4o", "object": "model", "owned_by": "system"},
                    {"id": "gpt-4o-mini", "object": "model", "owned_by": "system"},
                ]}))
                .into_response()
            }),
        );
        let addr = serve(app).await;
        let cfg = config(WireKind::Openai, format!("http://{addr}/v1/"));
        let models = list_models(&cfg, Some(&Secret::new("sk-good-key-123")))
            .await
            .unwrap();
        assert_eq!(ids(&models), ["gpt-4o", "gpt-4o-mini"]);

        let err = list_models(&cfg, Some(&Secret::new("sk-bad-key-456")))
            .await
            .unwrap_err();
        assert_eq!(err.code(), "auth_failed");
        assert_eq!(
            err.to_string(),
            "test answered HTTP 401: Incorrect API key provided: [redacted]"
        );
        let err = list_models(&cfg, None).await.unwrap_err();
        assert!(
            matches!(err, ProviderError::Http { status: 401, .. }),
            "{err}"
        );
    }

    #[derive(Deserialize)]
    struct PageQuery {
        limit: Option<u32>,
        after_id: Option<String>,
    }

    #[tokio::test]
    async fn anthropic_models_are_listed_page_by_page() {
        let app = Router::new().route(
            "/v1/models",
            get(|headers: Headers, Query(q): Query<PageQuery>| async move {
                let header = |name: &str| headers.get(name).and_then(|v| v.to_str().ok()).map(str::to_owned);
                if header("x-api-key").as_deref() != Some("sk-ant-key")
                    || header("anthropic-version").as_deref() != Some("2023-06-01")
                {
                    return (
                        Status::UNAUTHORIZED,
                        Json(json!({"type": "error", "error": {"type": "authentication_error", "message": "invalid x-api-key"}})),
                    )
                        .into_response();
                }
                assert_eq!(q.limit, Some(1000));
                let page = match q.after_id.as_deref() {
                    None => json!({"data": [
                        {"type": "model", "id": "claude-sonnet-4-5-20250929", "display_name": "Claude Sonnet 4.5", "created_at": "2025-09-29T00:00:00Z"},
                        {"type": "model", "id": "claude-haiku-4-5-20251001", "display_name": "Claude Haiku 4.5", "created_at": "2025-10-01T00:00:00Z"},
                    ], "has_more": true, "first_id": "claude-sonnet-4-5-20250929", "last_id": "claude-haiku-4-5-20251001"}),
                    Some("claude-haiku-4-5-20251001") => json!({"data": [
                        {"type": "model", "id": "claude-opus-4-1-20250805", "display_name": "Claude Opus 4.1", "created_at": "2025-08-05T00:00:00Z"},
                    ], "has_more": false, "first_id": "claude-opus-4-1-20250805", "last_id": "claude-opus-4-1-20250805"}),
                    Some(other) => panic!("unexpected after_id {other}"),
                };
                Json(page).into_response()
            }),
        );
        let addr = serve(app).await;
        let cfg = config(WireKind::Anthropic, format!("http://{addr}"));
        let models = list_models(&cfg, Some(&Secret::new("sk-ant-key")))
            .await
            .unwrap();
        assert_eq!(
            ids(&models),
            [
                "claude-sonnet-4-5-20250929",
                "claude-haiku-4-5-20251001",
                "claude-opus-4-1-20250805"
            ]
        );
        assert_eq!(models[0].display_name.as_deref(), Some("Claude Sonnet 4.5"));
        let err = list_models(&cfg, Some(&Secret::new("wrong")))
            .await
            .unwrap_err();
        assert_eq!(
            err,
            ProviderError::Http {
                provider: "test".into(),
                status: 401,
                kind: Some("authentication_error".into()),
                message: "invalid x-api-key".into(),
                retry_after: None,
            }
        );
    }

    #[tokio::test]
    async fn server_failures_and_odd_answers_are_typed_errors() {
        let app = Router::new()
            .route(
                "/busy/models",
                get(|| async {
                    (
                        Status::TOO_MANY_REQUESTS,
                        [("retry-after", "7")],
                        "slow down",
                    )
                }),
            )
            .route("/html/models", get(|| async { "<html>hello</html>" }))
            .route("/down/models", get(|| async { Status::BAD_GATEWAY }));
        let addr = serve(app).await;
        let list = |path: &str| {
            let cfg = config(WireKind::Openai, format!("http://{addr}/{path}"));
            async move { list_models(&cfg, None).await.unwrap_err() }
        };
        let busy = list("busy").await;
        assert_eq!(busy.code(), "rate_limited");
        assert_eq!(busy.retry_after(), Some(Duration::from_secs(7)));
        assert!(busy.to_string().ends_with("HTTP 429: slow down"), "{busy}");
        let html = list("html").await;
        assert_eq!(html.code(), "decode_error");
        let down = list("down").await;
        assert_eq!(down.code(), "provider_unavailable");
        assert_eq!(down.to_string(), "test answered HTTP 502: Bad Gateway");

        // Nothing listening at all.
        let free = {
            let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
            l.local_addr().unwrap()
        };
        let cfg = config(WireKind::Openai, format!("http://{free}/v1"));
        let err = list_models(&cfg, None).await.unwrap_err();
        assert_eq!(err.code(), "network_error", "{err}");
    }

    #[tokio::test]
    async fn an_ollama_behind_its_openai_endpoint_is_asked_for_its_tags() {
        // An Ollama too old for /v1/models.
        let addr = serve(Router::new().route("/api/tags", get(|| async { tags() }))).await;
        let cfg = config(WireKind::Openai, format!("http://{addr}/v1"));
        let models = list_models(&cfg, None).await.unwrap();
        assert_eq!(ids(&models), ["qwen2.5:7b", "llava:13b"]);
        let http = Client::new();
        let models = list_ollama_models(&http, &format!("http://{addr}"), LIST_TIMEOUT)
            .await
            .unwrap();
        assert_eq!(models.len(), 2);
    }

    #[tokio::test]
    async fn a_local_ollama_is_offered_without_a_key() {
        let addr = serve(Router::new().route("/api/tags", get(|| async { tags() }))).await;
        let found = detect_ollama(&format!("http://{addr}"), Duration::from_secs(5))
            .await
            .unwrap();
        assert_eq!(found.name, "ollama");
        assert_eq!(found.kind, WireKind::Openai);
        assert_eq!(found.base_url, format!("http://{addr}/v1"));
        assert!(!found.requires_key);
        assert_eq!(found.default_model.as_deref(), Some("qwen2.5:7b"));
        assert_eq!(
            found.models.keys().map(String::as_str).collect::<Vec<_>>(),
            ["llava:13b", "qwen2.5:7b"]
        );
        assert!(found.accepts_images("llava:13b"));
        assert_eq!(
            found.models["qwen2.5:7b"].price,
            Some(ModelPrice::default())
        );
        // Its models cost nothing in the estimates.
        assert_eq!(
            crate::cost::PriceTable::builtin().price_for(&found, "qwen2.5:7b"),
            Some(ModelPrice::default())
        );

        // Something else on the port, or nothing at all: no Ollama.
        let other = serve(Router::new().route("/", get(|| async { "hi" }))).await;
        assert!(
            detect_ollama(&format!("http://{other}"), Duration::from_secs(5))
                .await
                .is_none()
        );
        let free = {
            let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
            l.local_addr().unwrap()
        };
        assert!(
            detect_ollama(&format!("http://{free}"), Duration::from_secs(5))
                .await
                .is_none()
        );
    }
}
