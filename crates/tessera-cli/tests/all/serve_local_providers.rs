//! `GET /v1/local-providers`: model servers running on this machine (Ollama, LM Studio), found
//! for the first run, each as the provider it is saved as; scripted servers stand in for them
//! (`/api/tags`, `/v1/models` as the real ones answer).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::support;

use serde_json::json;
use support::api::Api;
use support::{free_port, tessera_std};
use tessera_testkit::scripted::ScriptedProvider;

fn serve(data: &std::path::Path, ollama: &str, lmstudio: &str) -> Api {
    let mut cmd = tessera_std(data);
    cmd.env("TESSERA_OLLAMA_URL", ollama)
        .env("TESSERA_LMSTUDIO_URL", lmstudio)
        .args(["serve", "--port", "0"]);
    Api::start(cmd)
}

#[tokio::test(flavor = "multi_thread")]
async fn ollama_and_lm_studio_on_this_machine_are_found_and_can_be_used_without_a_key() {
    let ollama = ScriptedProvider::start().await.unwrap();
    ollama.set_models(&["llama3.2"]);
    let lmstudio = ScriptedProvider::start().await.unwrap();
    lmstudio.set_models(&["qwen2.5-7b-instruct", "gemma-3-4b"]);
    let data = tempfile::tempdir().unwrap();
    let api = serve(data.path(), &ollama.url(), &lmstudio.url());

    let listed = api.get("/local-providers").await;
    let found = listed.ok(200)["found"].as_array().unwrap().clone();
    let names: Vec<&str> = found.iter().map(|f| f["name"].as_str().unwrap()).collect();
    assert_eq!(names, ["ollama", "lmstudio"], "{}", listed.text);
    assert_eq!(found[0]["base_url"], format!("{}/v1", ollama.url()));
    assert_eq!(found[0]["requires_key"], false);
    assert_eq!(found[0]["default_model"], "llama3.2");
    assert_eq!(found[1]["base_url"], format!("{}/v1", lmstudio.url()));
    assert_eq!(found[1]["default_model"], "qwen2.5-7b-instruct");

    // Saved as found and made the default: a model is ready, no key asked.
    let mut lm = found[1].clone();
    lm["proxy"] = json!("none");
    api.post("/providers", &lm).await.ok(201);
    let made = api.post("/providers/lmstudio/default", &json!({})).await;
    assert_eq!(
        made.ok(200)["model"],
        json!({"ready": true, "provider": "lmstudio", "model": "qwen2.5-7b-instruct"})
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn nothing_running_is_nothing_found_quickly() {
    let data = tempfile::tempdir().unwrap();
    let closed = format!("http://127.0.0.1:{}", free_port());
    let api = serve(data.path(), &closed, &closed);
    let started = std::time::Instant::now();
    let listed = api.get("/local-providers").await;
    assert_eq!(listed.ok(200)["found"], json!([]));
    assert!(started.elapsed() < std::time::Duration::from_secs(5));
}
