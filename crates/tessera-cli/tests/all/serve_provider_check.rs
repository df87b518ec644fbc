//! `POST /v1/providers/{name}/check` ("test the connection" in Settings) against a real `tessera
//! serve` and real HTTP servers on 127.0.0.1: the scripted provider (OpenAI wire) for a
//! provider that answers, one that refuses every key with 401, a port nobody listens on. The
//! key comes from the provider's TESSERA_<NAME>_API_KEY variable (no keyring here).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::support;

use axum::http::{HeaderMap, StatusCode};
use axum::routing::get;
use axum::{Json, Router};
use serde_json::{json, Value};
use support::api::Api;
use support::{free_port, tessera_std};
use tessera_testkit::scripted::ScriptedProvider;

const KEY: &str = "sk-check-9f8e7d6c";

/// An OpenAI-compatible `/v1/models` that accepts no key but `good`; answers as OpenAI does.
async fn strict_models(good: &'static str) -> String {
    let listener = tokio::net::TcpListener::bind(("127.0.0.1", 0))
        .await
        .unwrap();
    let addr = listener.local_addr().unwrap();
    let app = Router::new().route(
        "/v1/models",
        get(move |headers: HeaderMap| async move {
            let auth = headers
                .get("authorization")
                .and_then(|v| v.to_str().ok())
                .unwrap_or_default();
            if auth == format!("Bearer {good}") {
                (
                    StatusCode::OK,
                    Json(json!({"object": "list", "data": [{"id": "m", "object": "model"}]})),
                )
            } else {
                (
                    StatusCode::UNAUTHORIZED,
                    Json(json!({"error": {"message": "Incorrect API key provided",
                        "type": "invalid_request_error", "code": "invalid_api_key"}})),
                )
            }
        }),
    );
    tokio::spawn(async move {
        let _ = axum::serve(listener, app).await;
    });
    format!("http://{addr}/v1")
}

async fn add(api: &Api, name: &str, base_url: &str, model: &str, requires_key: bool) {
    let config = json!({"name": name, "kind": "openai", "base_url": base_url,
        "default_model": model, "requires_key": requires_key, "proxy": "none"});
    api.post("/providers", &config).await.ok(201);
}

#[tokio::test(flavor = "multi_thread")]
async fn a_check_says_ok_with_latency_or_why_the_provider_cannot_be_used() {
    let scripted = ScriptedProvider::start().await.unwrap();
    scripted.set_models(&["m", "other"]);
    let strict = strict_models("sk-the-right-one").await;
    let data = tempfile::tempdir().unwrap();
    let mut cmd = tessera_std(data.path());
    cmd.args(["serve", "--port", "0"]);
    cmd.env("TESSERA_REFUSED_API_KEY", KEY);
    let api = Api::start(cmd);

    add(&api, "local", &scripted.openai_base(), "m", false).await;
    add(&api, "refused", &strict, "m", true).await;
    add(&api, "keyless", &strict, "m", true).await;
    let closed = format!("http://127.0.0.1:{}/v1", free_port());
    add(&api, "gone", &closed, "m", false).await;

    // Reachable, the model is served: OK with the time it took.
    let ok = api.post("/providers/local/check", &json!({})).await;
    let body = ok.ok(200).clone();
    assert_eq!(body["ok"], true, "{body}");
    assert_eq!(body["model"], "m");
    assert_eq!(body["models"], 2);
    assert!(body["latency_ms"].as_u64().is_some(), "{body}");
    assert_eq!(body["problem"], Value::Null);

    // Another model than the default, one the provider does not serve.
    let unknown = api
        .post("/providers/local/check", &json!({"model": "gpt-nope"}))
        .await;
    let body = unknown.ok(200);
    assert_eq!(
        (&body["ok"], &body["problem"]),
        (&json!(false), &json!("unknown_model"))
    );
    assert!(body["message"].as_str().unwrap().contains("gpt-nope"));

    // The key is refused (401): said so, and the key is nowhere in the answer.
    let refused = api.post("/providers/refused/check", &json!({})).await;
    let body = refused.ok(200);
    assert_eq!(body["problem"], "auth_failed", "{body}");
    assert!(body["message"].as_str().unwrap().contains("401"), "{body}");
    assert!(!refused.text.contains(KEY));

    // No key in the environment and no keyring reachable (no session bus): a 503 saying how
    // to give the key anyway.
    let keyless = api.post("/providers/keyless/check", &json!({})).await;
    let message = keyless.error(503, "KEYRING_UNAVAILABLE");
    assert!(message.contains("TESSERA_KEYLESS_API_KEY"), "{message}");

    // Nobody listens there.
    let gone = api.post("/providers/gone/check", &json!({})).await;
    let body = gone.ok(200);
    assert_eq!(body["problem"], "unreachable", "{body}");

    // An empty body is fine; a wrong one and an unknown provider are errors.
    let empty = api
        .raw(reqwest::Method::POST, "/providers/local/check", "")
        .await;
    assert_eq!(empty.ok(200)["ok"], true);
    api.post("/providers/local/check", &json!({"modle": "m"}))
        .await
        .error(400, "BAD_REQUEST");
    api.post("/providers/nobody/check", &json!({}))
        .await
        .error(404, "UNKNOWN_PROVIDER");
}
