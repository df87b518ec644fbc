//! `/v1/local-models…` as the settings page uses them: the catalogue, a download in the
//! background with its progress, paused and resumed, cancelled, the model made the default and
//! deleted; the hub a real HTTP server on 127.0.0.1 (`tessera_testkit::hub`) named by HF_ENDPOINT.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::{json, Value};
use tessera_testkit::hub::{serve, Hosted};

use crate::support;
use support::api::Api;
use support::tessera_std;

const MODEL: &str = "tessera/tiny-GGUF:tiny-q8_0.gguf";
const FILE: &str = "tiny-q8_0.gguf";

fn start(data: &std::path::Path, endpoint: &str) -> Api {
    let mut cmd = tessera_std(data);
    cmd.env("HF_ENDPOINT", endpoint)
        .env_remove("HTTPS_PROXY")
        .env_remove("HTTP_PROXY")
        .env_remove("ALL_PROXY")
        .args(["serve", "--port", "0"]);
    Api::start(cmd)
}

/// A GGUF's magic, then a pattern: what `…/default` accepts as a model.
fn gguf_bytes(len: u32) -> Vec<u8> {
    let mut content = b"GGUF".to_vec();
    content.extend((4..len).map(|i| (i % 251) as u8));
    content
}

/// A hub serving `content` that holds the rest back after `after` bytes (once).
async fn stalling_hub(content: &[u8], after: usize) -> (Arc<Hosted>, String) {
    let hosted = Arc::new(Hosted {
        content: content.to_vec(),
        ..Hosted::default()
    });
    *hosted.stall_after.lock().unwrap() = Some(after);
    let endpoint = serve(hosted.clone()).await.unwrap();
    (hosted, endpoint)
}

/// The listing once `done` says so, polled as the page polls it.
async fn until(api: &Api, what: &str, done: impl Fn(&Value) -> bool) -> Value {
    let started = Instant::now();
    loop {
        let listing = api.get("/local-models").await.ok(200).clone();
        if done(&listing) {
            return listing;
        }
        assert!(
            started.elapsed() < Duration::from_secs(30),
            "{what}: never happened; last listing {listing:#}"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

fn download<'a>(listing: &'a Value, file: &str) -> Option<&'a Value> {
    listing["downloads"]
        .as_array()
        .unwrap()
        .iter()
        .find(|d| d["file"] == file)
}

fn file<'a>(listing: &'a Value, name: &str) -> Option<&'a Value> {
    listing["files"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["file"] == name)
}

#[tokio::test(flavor = "multi_thread")]
async fn a_model_downloads_pauses_resumes_becomes_the_default_and_is_deleted() {
    let content = gguf_bytes(3_000_000);
    let (hosted, endpoint) = stalling_hub(&content, 1_000_000).await;
    let data = tempfile::tempdir().unwrap();
    let api = start(data.path(), &endpoint);

    let first = api.get("/local-models").await.ok(200).clone();
    let catalogue = first["catalogue"].as_array().unwrap();
    assert_eq!(catalogue.len(), 3, "{first:#}");
    assert_eq!(
        catalogue
            .iter()
            .filter(|m| m["recommended"] == true)
            .count(),
        1,
        "one model is the one for this machine"
    );
    assert!(catalogue
        .iter()
        .all(|m| m["good_at_zh"].as_str().is_some_and(|s| !s.is_empty())));
    assert_eq!(first["files"], json!([]));
    assert_eq!(first["downloads"], json!([]));
    assert_eq!(first["hub"], endpoint.as_str());
    assert_eq!(first["worker"], json!({"state": "not_running"}));
    assert_eq!(first["default_file"], Value::Null);
    assert!(first["free_bytes"].as_u64().unwrap() > 0);

    let started = api
        .post(
            "/local-models/downloads",
            &json!({"model": MODEL, "use_when_done": false}),
        )
        .await;
    assert_eq!(started.ok(202)["file"], FILE, "{}", started.text);

    // Progress while the hub holds the rest back: the bytes so far and the size.
    let listing = until(&api, "a third downloaded", |l| {
        download(l, FILE).is_some_and(|d| d["done"].as_u64() >= Some(1_000_000))
    })
    .await;
    let going = download(&listing, FILE).unwrap();
    assert_eq!(going["phase"], "downloading", "{going:#}");
    assert_eq!(going["total"], 3_000_000);
    assert_eq!(going["model"], MODEL);

    // Asked again while it runs: the running one answers, nothing starts twice.
    let again = api
        .post("/local-models/downloads", &json!({"model": MODEL}))
        .await;
    assert_eq!(again.ok(202)["phase"], "downloading");

    api.post(&format!("/local-models/downloads/{FILE}/pause"), &json!({}))
        .await
        .ok(200);
    let listing = until(&api, "paused", |l| {
        download(l, FILE).is_some_and(|d| d["phase"] == "paused")
    })
    .await;
    let kept = file(&listing, FILE).expect("the partial file is listed");
    assert_eq!(kept["partial"], true);
    assert_eq!(kept["bytes"], 1_000_000);

    // Resumed from where it stopped, with a range, to the end; the hash checked.
    api.post(
        &format!("/local-models/downloads/{FILE}/resume"),
        &json!({}),
    )
    .await
    .ok(202);
    let listing = until(&api, "done", |l| {
        l["downloads"] == json!([]) && file(l, FILE).is_some_and(|f| f["partial"] == false)
    })
    .await;
    assert_eq!(
        std::fs::read(data.path().join("models").join(FILE)).unwrap(),
        content
    );
    assert_eq!(*hosted.ranges_asked.lock().unwrap(), vec![1_000_000]);
    assert_eq!(listing["used_bytes"], 3_000_000);

    let chosen = api
        .post(&format!("/local-models/files/{FILE}/default"), &json!({}))
        .await;
    assert_eq!(
        chosen.ok(200)["model"],
        json!({"ready": true, "provider": "on-device", "model": FILE}),
        "{}",
        chosen.text
    );
    let listing = api.get("/local-models").await.ok(200).clone();
    assert_eq!(listing["default_file"], FILE);
    assert_eq!(file(&listing, FILE).unwrap()["default"], true);
    let settings = api.get("/settings").await.ok(200).clone();
    assert_eq!(settings["model"]["provider"], "on-device", "{settings:#}");

    // Downloading what is there already is refused; nothing is fetched.
    let gets = hosted.gets.load(Ordering::SeqCst);
    let twice = api
        .post("/local-models/downloads", &json!({"model": MODEL}))
        .await;
    twice.error(409, "ALREADY_EXISTS");
    assert_eq!(hosted.gets.load(Ordering::SeqCst), gets);

    let removed = api.delete(&format!("/local-models/files/{FILE}")).await;
    assert_eq!(removed.ok(200)["freed_bytes"], 3_000_000);
    assert!(!data.path().join("models").join(FILE).exists());
    let listing = api.get("/local-models").await.ok(200).clone();
    assert_eq!(listing["files"], json!([]));
}

#[tokio::test(flavor = "multi_thread")]
async fn a_cancelled_download_leaves_nothing_and_a_bad_file_says_why() {
    let content = gguf_bytes(2_000_000);
    let (hosted, endpoint) = stalling_hub(&content, 500_000).await;
    let data = tempfile::tempdir().unwrap();
    let api = start(data.path(), &endpoint);

    api.post(
        "/local-models/downloads",
        &json!({"model": MODEL, "use_when_done": true}),
    )
    .await
    .ok(202);
    until(&api, "half a megabyte", |l| {
        download(l, FILE).is_some_and(|d| d["done"].as_u64() >= Some(500_000))
    })
    .await;
    let cancelled = api.delete(&format!("/local-models/downloads/{FILE}")).await;
    assert_eq!(cancelled.ok(200)["file"], FILE);
    assert!(
        cancelled.ok(200)["freed_bytes"].as_u64() >= Some(500_000),
        "{}",
        cancelled.text
    );
    let listing = api.get("/local-models").await.ok(200).clone();
    assert_eq!(listing["downloads"], json!([]), "{listing:#}");
    assert_eq!(listing["files"], json!([]), "{listing:#}");
    let left: Vec<_> = std::fs::read_dir(data.path().join("models"))
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert!(
        left.is_empty(),
        "the partial file and its note are gone: {left:?}"
    );

    // A download whose bytes are not the hub's: failed, named, and nothing kept as a model.
    hosted.corrupt.store(true, Ordering::SeqCst);
    api.post(
        "/local-models/downloads",
        &json!({"model": MODEL, "use_when_done": true}),
    )
    .await
    .ok(202);
    let listing = until(&api, "failed", |l| {
        download(l, FILE).is_some_and(|d| d["phase"] == "failed")
    })
    .await;
    let failed = download(&listing, FILE).unwrap();
    assert!(
        failed["problem"].as_str().unwrap().contains("SHA-256"),
        "{failed:#}"
    );
    assert!(file(&listing, FILE).is_none_or(|f| f["partial"] == true));
    assert_eq!(
        listing["default_file"],
        Value::Null,
        "a bad file is never used"
    );
    api.delete(&format!("/local-models/downloads/{FILE}"))
        .await
        .ok(200);

    // A file that is not a model cannot be the default; the provider settings are untouched.
    std::fs::write(data.path().join("models/notes.gguf"), b"hello").unwrap();
    let refused = api
        .post("/local-models/files/notes.gguf/default", &json!({}))
        .await;
    assert!(
        refused
            .error(400, "INVALID_VALUE")
            .contains("does not start with GGUF"),
        "{}",
        refused.text
    );
    assert_eq!(api.get("/settings").await.ok(200)["model"]["ready"], false);

    // A GGUF elsewhere on this computer is used where it is, by its full path.
    let elsewhere = tempfile::tempdir().unwrap();
    let own = elsewhere.path().join("my-model.gguf");
    std::fs::write(&own, gguf_bytes(1000)).unwrap();
    let used = api
        .post(
            "/local-models/import",
            &json!({"path": own.to_str().unwrap()}),
        )
        .await;
    let own_path = own.canonicalize().unwrap();
    assert_eq!(
        used.ok(200)["model"],
        json!({"ready": true, "provider": "on-device", "model": own_path.to_str().unwrap()}),
        "{}",
        used.text
    );
    assert!(own.exists(), "nothing moved");
    for (body, says) in [
        (json!({"path": "my-model.gguf"}), "full path"),
        (
            json!({"path": elsewhere.path().to_str().unwrap()}),
            "not a file",
        ),
        (
            json!({"path": data.path().join("models/notes.gguf").to_str().unwrap()}),
            "does not start with GGUF",
        ),
    ] {
        let refused = api.post("/local-models/import", &body).await;
        assert!(
            refused.error(400, "INVALID_VALUE").contains(says),
            "{body}: {}",
            refused.text
        );
    }
    api.post("/local-models/import", &json!({"path": "/no/such.gguf"}))
        .await
        .error(404, "NOT_FOUND");
}

#[tokio::test(flavor = "multi_thread")]
async fn wrong_requests_are_named() {
    let data = tempfile::tempdir().unwrap();
    let api = start(data.path(), "http://127.0.0.1:9");
    let cases = [
        (json!({}), "`model` is missing"),
        (json!({"model": 3}), "not a number"),
        (
            json!({"model": "no-such-model"}),
            "neither a model of the catalogue",
        ),
        (
            json!({"model": MODEL, "use_when_done": "yes"}),
            "`use_when_done` must be a boolean",
        ),
        (
            json!({"model": MODEL, "path": "/etc"}),
            "unknown field `path`",
        ),
    ];
    for (body, says) in cases {
        let answer = api.post("/local-models/downloads", &body).await;
        let message = answer.error(400, "BAD_REQUEST");
        assert!(message.contains(says), "{body}: {message}");
    }
    api.post("/local-models/downloads/x.gguf/pause", &json!({}))
        .await
        .error(404, "NOT_FOUND");
    api.post("/local-models/downloads/x.gguf/resume", &json!({}))
        .await
        .error(404, "NOT_FOUND");
    api.delete("/local-models/downloads/x.gguf")
        .await
        .error(404, "NOT_FOUND");
    api.delete("/local-models/files/x.gguf")
        .await
        .error(404, "NOT_FOUND");
    // Names only: nothing outside the models folder is reached.
    api.delete("/local-models/files/..%2Ftessera.sqlite")
        .await
        .error(400, "BAD_REQUEST");
    api.post(
        "/local-models/files/..%2Ftessera.sqlite/default",
        &json!({}),
    )
    .await
    .error(400, "BAD_REQUEST");
    assert!(data.path().join("tessera.sqlite").exists());
    // An unreachable hub: the download fails and says where it looked.
    api.post("/local-models/downloads", &json!({"model": MODEL}))
        .await
        .ok(202);
    let listing = until(&api, "failed", |l| {
        download(l, FILE).is_some_and(|d| d["phase"] == "failed")
    })
    .await;
    let problem = download(&listing, FILE).unwrap()["problem"]
        .as_str()
        .unwrap()
        .to_owned();
    assert!(problem.contains("127.0.0.1:9"), "{problem}");
    let stopped = api.post("/local-models/worker/stop", &json!({})).await;
    assert_eq!(stopped.ok(200)["state"], "not_running");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_download_cut_by_a_crash_resumes_after_the_restart() {
    // A catalogue model the catalogue pins no hash for: this hub's bytes are not the real file.
    const SMALL: &str = "Qwen2.5-7B-Instruct-Q4_K_M.gguf";
    let content = gguf_bytes(2_000_000);
    let (hosted, endpoint) = stalling_hub(&content, 700_000).await;
    let data = tempfile::tempdir().unwrap();
    let api = start(data.path(), &endpoint);
    api.post(
        "/local-models/downloads",
        &json!({"model": "qwen2.5-7b-instruct"}),
    )
    .await
    .ok(202);
    until(&api, "700 kB downloaded", |l| {
        download(l, SMALL).is_some_and(|d| d["done"].as_u64() >= Some(700_000))
    })
    .await;
    drop(api); // SIGKILL: the app is gone mid-download

    let api = start(data.path(), &endpoint);
    let listing = api.get("/local-models").await.ok(200).clone();
    assert_eq!(
        listing["downloads"],
        json!([]),
        "nothing runs after a restart"
    );
    let kept = file(&listing, SMALL).expect("what was downloaded is kept");
    assert_eq!(kept["partial"], true);
    assert_eq!(kept["bytes"], 700_000);
    assert_eq!(kept["catalogue_id"], "qwen2.5-7b-instruct");

    api.post(
        &format!("/local-models/downloads/{SMALL}/resume"),
        &json!({}),
    )
    .await
    .ok(202);
    until(&api, "whole", |l| {
        l["downloads"] == json!([]) && file(l, SMALL).is_some_and(|f| f["partial"] == false)
    })
    .await;
    assert_eq!(
        std::fs::read(data.path().join("models").join(SMALL)).unwrap(),
        content
    );
    assert_eq!(*hosted.ranges_asked.lock().unwrap(), vec![700_000]);
}

#[tokio::test(flavor = "multi_thread")]
async fn the_context_of_local_models_is_kept_across_restarts_and_a_wrong_one_is_named() {
    let data = tempfile::tempdir().unwrap();
    let api = start(data.path(), "http://127.0.0.1:9");
    assert_eq!(
        api.get("/local-models").await.ok(200)["context_tokens"],
        Value::Null
    );
    let set = api
        .put("/local-models/context", &json!({"tokens": 32768}))
        .await;
    assert_eq!(set.ok(200)["context_tokens"], 32768);
    let cases = [
        (
            json!({"tokens": 100}),
            "outside what a local model can be given (2048 to 262144)",
        ),
        (json!({"tokens": 1_000_000}), "outside"),
        (
            json!({"tokens": 8192.5}),
            "must be a whole number of tokens or null, not 8192.5",
        ),
        (
            json!({"tokens": -1}),
            "must be a whole number of tokens or null, not -1",
        ),
        (json!({"tokens": "big"}), "not a string"),
        (json!({}), "`tokens` is missing"),
        (json!({"tokens": 8192, "ctx": 1}), "unknown field `ctx`"),
    ];
    for (body, says) in cases {
        let message = api
            .put("/local-models/context", &body)
            .await
            .error(400, "BAD_REQUEST");
        assert!(message.contains(says), "{body}: {message}");
    }
    drop(api);

    let api = start(data.path(), "http://127.0.0.1:9");
    assert_eq!(
        api.get("/local-models").await.ok(200)["context_tokens"],
        32768,
        "kept, and no wrong request changed it"
    );
    let back = api
        .put("/local-models/context", &json!({"tokens": null}))
        .await;
    assert_eq!(back.ok(200)["context_tokens"], Value::Null);
    assert_eq!(
        api.get("/local-models").await.ok(200)["context_tokens"],
        Value::Null
    );
}

/// A port on 127.0.0.1 where nothing listens: a hub that cannot be reached.
fn closed_port() -> String {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    drop(listener);
    format!("http://127.0.0.1:{port}")
}

#[tokio::test(flavor = "multi_thread")]
async fn an_unreachable_hub_is_named_as_such_and_a_mirror_and_proxy_from_settings_are_used() {
    let unreachable = closed_port();
    let data = tempfile::tempdir().unwrap();
    let api = start(data.path(), &unreachable);

    // The hub cannot be reached: the failure is a code and the address, for the page to say.
    api.post("/local-models/downloads", &json!({"model": MODEL}))
        .await
        .ok(202);
    let listing = until(&api, "failed", |l| {
        download(l, FILE).is_some_and(|d| d["phase"] == "failed")
    })
    .await;
    let failed = download(&listing, FILE).unwrap();
    assert_eq!(
        failed["failure"],
        json!({"code": "hub_unreachable", "hub": unreachable, "proxy": null, "status": null,
               "needed_bytes": null, "free_bytes": null}),
        "{failed:#}"
    );
    assert_eq!(listing["hub_address"], Value::Null);
    assert_eq!(listing["hub_proxy"], Value::Null);

    // Wrong addresses are refused, naming what was wrong, and nothing is kept.
    for (key, value, says) in [
        (
            "model_hub_address",
            "hf-mirror.com",
            "the model hub address `hf-mirror.com` is not a web address",
        ),
        (
            "model_hub_address",
            "ftp://hf-mirror.com",
            "starts with `ftp:`; it must start with https://",
        ),
        (
            "model_hub_proxy",
            "socks5://127.0.0.1:1080",
            "the download proxy `socks5://127.0.0.1:1080` starts with `socks5:`",
        ),
        (
            "model_hub_proxy",
            "http://me:secret@127.0.0.1:3128",
            "never stores",
        ),
    ] {
        let refused = api
            .put(&format!("/settings/{key}"), &json!({"value": value}))
            .await;
        let message = refused.error(400, "INVALID_VALUE");
        assert!(message.contains(says), "{key} {value}: {message}");
        assert!(!message.contains("secret"), "{message}");
    }
    api.put("/settings/model_hub_proxy", &json!({"value": 5}))
        .await
        .error(400, "BAD_REQUEST");
    let settings = api.get("/settings").await.ok(200).clone();
    assert_eq!(settings["settings"]["model_hub_address"], Value::Null);
    assert_eq!(settings["settings"]["model_hub_proxy"], Value::Null);

    // A mirror that answers, reached through a proxy: both set in settings, both used.
    let content = gguf_bytes(300_000);
    let hosted = Arc::new(Hosted {
        content: content.clone(),
        ..Hosted::default()
    });
    let mirror = serve(hosted.clone()).await.unwrap();
    let proxy = tessera_testkit::proxy::ForwardProxy::start().await.unwrap();
    let set = api
        .put(
            "/settings/model_hub_address",
            &json!({"value": format!("{mirror}/")}),
        )
        .await;
    assert_eq!(
        set.ok(200)["settings"]["model_hub_address"],
        mirror.as_str(),
        "{}",
        set.text
    );
    api.put("/settings/model_hub_proxy", &json!({"value": proxy.url()}))
        .await
        .ok(200);
    let listing = api.get("/local-models").await.ok(200).clone();
    assert_eq!(listing["hub"], mirror.as_str());
    assert_eq!(listing["hub_address"], mirror.as_str());
    assert_eq!(listing["hub_proxy"], proxy.url().as_str());

    api.post(
        &format!("/local-models/downloads/{FILE}/resume"),
        &json!({}),
    )
    .await
    .ok(202);
    let listing = until(&api, "downloaded from the mirror", |l| {
        file(l, FILE).is_some_and(|f| f["partial"] == false)
    })
    .await;
    assert_eq!(listing["downloads"], json!([]), "{listing:#}");
    assert_eq!(
        std::fs::read(data.path().join("models").join(FILE)).unwrap(),
        content
    );
    let through: Vec<String> = proxy.requests();
    let mirror_host = mirror.trim_start_matches("http://");
    assert!(
        through
            .iter()
            .any(|r| r.starts_with("HEAD ") && r.contains(mirror_host))
            && through
                .iter()
                .any(|r| r.starts_with("GET ") && r.contains(mirror_host)),
        "the hub was asked through the proxy: {through:?}"
    );

    // Kept across restarts; cleared, HF_ENDPOINT is the hub again.
    drop(api);
    let api = start(data.path(), &unreachable);
    let settings = api.get("/settings").await.ok(200).clone();
    assert_eq!(settings["settings"]["model_hub_address"], mirror.as_str());
    assert_eq!(
        settings["settings"]["model_hub_proxy"],
        proxy.url().as_str()
    );
    api.put("/settings/model_hub_address", &json!({"value": null}))
        .await
        .ok(200);
    api.put("/settings/model_hub_proxy", &json!({"value": "  "}))
        .await
        .ok(200);
    let listing = api.get("/local-models").await.ok(200).clone();
    assert_eq!(listing["hub"], unreachable.as_str());
    assert_eq!(listing["hub_address"], Value::Null);
    assert_eq!(listing["hub_proxy"], Value::Null);
}

#[tokio::test(flavor = "multi_thread")]
async fn a_cancel_can_keep_the_partial_file_and_the_next_download_goes_on_from_it() {
    let content = gguf_bytes(2_000_000);
    let (hosted, endpoint) = stalling_hub(&content, 700_000).await;
    let data = tempfile::tempdir().unwrap();
    let api = start(data.path(), &endpoint);

    api.post("/local-models/downloads", &json!({"model": MODEL}))
        .await
        .ok(202);
    until(&api, "700 kB", |l| {
        download(l, FILE).is_some_and(|d| d["done"].as_u64() >= Some(700_000))
    })
    .await;
    api.delete(&format!(
        "/local-models/downloads/{FILE}?keep_partial=maybe"
    ))
    .await
    .error(400, "BAD_REQUEST");
    let cancelled = api
        .delete(&format!("/local-models/downloads/{FILE}?keep_partial=true"))
        .await;
    assert_eq!(cancelled.ok(200)["freed_bytes"], 0, "{}", cancelled.text);
    assert_eq!(
        cancelled.ok(200)["kept_bytes"],
        700_000,
        "{}",
        cancelled.text
    );
    let listing = api.get("/local-models").await.ok(200).clone();
    assert_eq!(
        listing["downloads"],
        json!([]),
        "it left the list: {listing:#}"
    );
    let kept = file(&listing, FILE).expect("the partial file stays");
    assert_eq!(kept["partial"], true);
    assert_eq!(kept["bytes"], 700_000);

    // The next download goes on from where it stopped.
    api.post("/local-models/downloads", &json!({"model": MODEL}))
        .await
        .ok(202);
    until(&api, "whole", |l| {
        file(l, FILE).is_some_and(|f| f["partial"] == false)
    })
    .await;
    assert_eq!(*hosted.ranges_asked.lock().unwrap(), vec![700_000]);
    assert_eq!(
        std::fs::read(data.path().join("models").join(FILE)).unwrap(),
        content
    );
}
