//! `tessera provider …` as a person or a script runs it: saving providers with clear errors
//! naming the bad flag, listing them with where their key is found (never the key), listing a
//! provider's models from the scripted provider, finding an Ollama, the default provider that
//! `tessera chat` then uses, spending limits, removing. No keyring here (the session bus is
//! hidden): the keyring steps are in `provider_keyring.rs`, run by `make test-keyring`.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::support;

use std::path::Path;
use std::process::Output;

use serde_json::Value;
use support::{assert_exit, free_port, run, run_with_stdin, stderr, stdout, tessera};
use tessera_testkit::scripted::{Reply, ScriptedProvider};

const KEY: &str = "sk-provider-cli-7c1d2e3f4a5b";

async fn provider(data: &Path, args: &[&str]) -> Output {
    let mut cmd = tessera(data);
    cmd.arg("provider").args(args);
    run(cmd).await
}

async fn provider_env(data: &Path, env: &[(&str, &str)], args: &[&str]) -> Output {
    let mut cmd = tessera(data);
    cmd.arg("provider").args(args).envs(env.iter().copied());
    run(cmd).await
}

async fn list_json(data: &Path, env: &[(&str, &str)]) -> Vec<Value> {
    let out = provider_env(data, env, &["list", "--json"]).await;
    assert_exit(&out, 0);
    serde_json::from_slice::<Vec<Value>>(&out.stdout).unwrap()
}

fn entry<'a>(list: &'a [Value], name: &str) -> &'a Value {
    list.iter()
        .find(|p| p["name"] == name)
        .unwrap_or_else(|| panic!("{name} is not listed: {list:?}"))
}

/// The saved settings, as the data folder holds them.
fn saved(data: &Path, name: &str) -> Option<Value> {
    tessera_store::Store::open(data)
        .unwrap()
        .provider_settings(name)
        .unwrap()
}

#[tokio::test(flavor = "multi_thread")]
async fn a_provider_is_saved_listed_and_updated() {
    let data = tempfile::tempdir().unwrap();
    let pki = tessera_testkit::pki::Pki::generate().unwrap();
    let ca_arg = pki.ca_pem.to_str().unwrap();
    let out = provider(
        data.path(),
        &[
            "add",
            "my-vllm",
            "--kind",
            "openai",
            "--base-url",
            "http://127.0.0.1:8000/v1",
            "--model",
            "qwen3-8b",
            "--model",
            "llama-3.1-8b",
            "--default-model",
            "qwen3-8b",
            "--fallback-model",
            "llama-3.1-8b",
            "--context-window",
            "32768",
            "--max-output-tokens",
            "4096",
            "--proxy",
            "none",
            "--ca-cert",
            ca_arg,
            "--price",
            "qwen3-8b=0.1/0.4",
        ],
    )
    .await;
    assert_exit(&out, 0);
    assert_eq!(
        stdout(&out),
        "saved provider my-vllm: openai, http://127.0.0.1:8000/v1, default model qwen3-8b\n\
         its API key: `tessera provider set-key my-vllm` (stored in the OS keyring), or set \
         TESSERA_MY_VLLM_API_KEY\n"
    );
    let settings = saved(data.path(), "my-vllm").unwrap();
    assert_eq!(settings["kind"], "openai");
    assert_eq!(settings["base_url"], "http://127.0.0.1:8000/v1");
    assert_eq!(settings["default_model"], "qwen3-8b");
    assert_eq!(settings["fallback_model"], "llama-3.1-8b");
    assert_eq!(settings["proxy"], "none");
    assert_eq!(settings["requires_key"], true);
    assert_eq!(
        settings["extra_ca_certs"][0],
        pki.ca_pem.canonicalize().unwrap().to_str().unwrap()
    );
    assert_eq!(settings["models"]["qwen3-8b"]["context_window"], 32768);
    assert_eq!(settings["models"]["llama-3.1-8b"]["context_window"], 32768);
    assert_eq!(settings["models"]["qwen3-8b"]["max_output_tokens"], 4096);
    assert_eq!(
        settings["models"]["qwen3-8b"]["price"],
        serde_json::json!({"input_per_mtok": 0.1, "output_per_mtok": 0.4})
    );

    // Listed with the presets; the key is found in its variable, and never shown.
    let env = [("TESSERA_MY_VLLM_API_KEY", KEY)];
    let out = provider_env(data.path(), &env, &["list"]).await;
    assert_exit(&out, 0);
    let text = stdout(&out);
    assert!(!text.contains(KEY));
    let lines: Vec<&str> = text.lines().collect();
    assert!(
        lines[0].starts_with("  NAME") && lines[0].contains("DEFAULT MODEL"),
        "{text}"
    );
    let row: Vec<&str> = lines
        .iter()
        .find(|l| l.contains("my-vllm"))
        .unwrap()
        .split_whitespace()
        .collect();
    assert_eq!(
        row,
        [
            "my-vllm",
            "openai",
            "saved",
            "qwen3-8b",
            "env",
            "TESSERA_MY_VLLM_API_KEY",
            "http://127.0.0.1:8000/v1"
        ]
    );
    for preset in ["openai", "anthropic", "deepseek", "ollama"] {
        assert!(
            lines
                .iter()
                .any(|l| l.split_whitespace().next() == Some(preset)),
            "{preset} missing from\n{text}"
        );
    }
    let list = list_json(data.path(), &env).await;
    let mine = entry(&list, "my-vllm");
    assert_eq!(mine["source"], "saved");
    assert_eq!(mine["key"], "env");
    assert_eq!(mine["key_env_var"], "TESSERA_MY_VLLM_API_KEY");
    assert_eq!(
        mine["models"],
        serde_json::json!(["llama-3.1-8b", "qwen3-8b"])
    );
    assert_eq!(entry(&list, "ollama")["key"], "not_needed");
    assert_eq!(entry(&list, "deepseek")["source"], "preset");
    // Without the variable, and no keyring to look in: unknown, and stderr says why.
    let out = provider(data.path(), &["list", "--json"]).await;
    assert_exit(&out, 0);
    let list: Vec<Value> = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(entry(&list, "my-vllm")["key"], "unknown");
    assert!(stderr(&out).contains("keyring"), "{}", stderr(&out));

    // Adding again updates: the flags given change, the rest stays.
    let out = provider(
        data.path(),
        &[
            "add",
            "my-vllm",
            "--default-model",
            "llama-3.1-8b",
            "--proxy",
            "system",
            "--no-key",
        ],
    )
    .await;
    assert_exit(&out, 0);
    assert_eq!(
        stdout(&out),
        "updated provider my-vllm: openai, http://127.0.0.1:8000/v1, default model llama-3.1-8b\n"
    );
    let settings = saved(data.path(), "my-vllm").unwrap();
    assert_eq!(settings["default_model"], "llama-3.1-8b");
    assert_eq!(settings["requires_key"], false);
    assert!(settings.get("proxy").is_none(), "{settings}");
    assert_eq!(settings["models"]["qwen3-8b"]["context_window"], 32768);
    assert_eq!(
        entry(&list_json(data.path(), &[]).await, "my-vllm")["key"],
        "not_needed"
    );

    // A preset's name starts from the preset: only the flags given change.
    let out = provider(data.path(), &["add", "deepseek", "--proxy", "none"]).await;
    assert_exit(&out, 0);
    let settings = saved(data.path(), "deepseek").unwrap();
    assert_eq!(settings["base_url"], "https://api.deepseek.com/v1");
    assert_eq!(settings["default_model"], "deepseek-chat");
    assert_eq!(settings["proxy"], "none");
}

#[tokio::test(flavor = "multi_thread")]
async fn bad_flags_are_usage_errors_naming_the_flag_and_nothing_is_saved() {
    let data = tempfile::tempdir().unwrap();
    let files = tempfile::tempdir().unwrap();
    let not_pem = files.path().join("notes.txt");
    std::fs::write(&not_pem, "not a certificate\n").unwrap();
    let missing = files.path().join("missing.pem");
    let base = ["add", "p", "--kind", "openai"];
    let cases: Vec<(Vec<&str>, &str)> = vec![
        (vec!["add", "p"], "--kind"),
        (vec!["add", "p", "--kind", "gemini"], "--kind"),
        (vec!["--base-url", "not a url"], "--base-url"),
        (vec!["--base-url", "ftp://example.com"], "--base-url"),
        (vec!["--ca-cert", missing.to_str().unwrap()], "--ca-cert"),
        (vec!["--ca-cert", not_pem.to_str().unwrap()], "--ca-cert"),
        (vec!["--price", "m=cheap/1"], "--price"),
        (vec!["--price", "m=1"], "--price"),
        (vec!["--price", "m=-1/2"], "--price"),
        (vec!["--proxy", "socks5://127.0.0.1:1080"], "--proxy"),
        (vec!["--proxy", "http://[broken"], "--proxy"),
        (vec!["--context-window", "many"], "--context-window"),
        (
            vec!["--context-window", "0", "--model", "m"],
            "--context-window",
        ),
        (vec!["--context-window", "1000"], "--context-window"),
        (
            vec!["--max-output-tokens", "0", "--model", "m"],
            "--max-output-tokens",
        ),
        (vec!["--max-output-tokens", "100"], "--max-output-tokens"),
        (
            vec!["add", "has space", "--kind", "openai"],
            "provider name",
        ),
    ];
    for (args, flag) in cases {
        let args: Vec<&str> = if args[0] == "add" {
            args
        } else {
            base.iter().copied().chain(args).collect()
        };
        let out = provider(data.path(), &args).await;
        assert_exit(&out, 2);
        assert!(
            stderr(&out).contains(flag),
            "{args:?}: the error should name {flag}: {}",
            stderr(&out)
        );
        assert_eq!(stdout(&out), "", "{args:?}");
    }
    assert_eq!(saved(data.path(), "p"), None);
}

#[tokio::test(flavor = "multi_thread")]
async fn proxy_credentials_are_refused_never_saved_nor_shown() {
    let data = tempfile::tempdir().unwrap();
    let secret = "s3cret-proxy-pw";
    let with_credentials = [
        format!("http://alice:{secret}@127.0.0.1:3128"),
        format!("https://alice:{secret}@proxy.example:8443/"),
        format!("alice:{secret}@127.0.0.1:3128"),
        format!("socks5://alice:{secret}@127.0.0.1:1080"),
    ];
    for proxy in &with_credentials {
        let out = provider(
            data.path(),
            &["add", "p", "--kind", "openai", "--proxy", proxy],
        )
        .await;
        assert_exit(&out, 2);
        let err = stderr(&out);
        assert!(
            err.contains("--proxy") && err.contains("[redacted]@"),
            "{err}"
        );
        assert!(err.contains("HTTPS_PROXY or HTTP_PROXY"), "{err}");
        assert!(!err.contains(secret) && !err.contains("alice"), "{err}");
        assert_eq!(stdout(&out), "");
    }
    assert_eq!(saved(data.path(), "p"), None);

    // A saved provider keeps its proxy when credentials are refused.
    let out = provider(
        data.path(),
        &[
            "add",
            "p",
            "--kind",
            "openai",
            "--proxy",
            "http://127.0.0.1:3128",
        ],
    )
    .await;
    assert_exit(&out, 0);
    let out = provider(data.path(), &["add", "p", "--proxy", &with_credentials[0]]).await;
    assert_exit(&out, 2);
    assert_eq!(
        saved(data.path(), "p").unwrap()["proxy"],
        "http://127.0.0.1:3128"
    );

    // Settings saved before the refusal: listed without the credentials, and refused when a
    // client would be built, with the same advice.
    let mut old = saved(data.path(), "p").unwrap();
    old["proxy"] = Value::String(with_credentials[0].clone());
    tessera_store::Store::open(data.path())
        .unwrap()
        .set_provider_settings("p", old)
        .unwrap();
    let out = provider_env(data.path(), &[], &["list", "--json"]).await;
    assert_exit(&out, 0);
    assert!(!stdout(&out).contains(secret), "{}", stdout(&out));
    let list: Vec<Value> = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        entry(&list, "p")["proxy"],
        "http://[redacted]@127.0.0.1:3128"
    );
    let out = provider(data.path(), &["add", "p", "--model", "m"]).await;
    assert_exit(&out, 2);
    let err = stderr(&out);
    assert!(err.contains("HTTPS_PROXY or HTTP_PROXY"), "{err}");
    assert!(!err.contains(secret), "{err}");
    // Going back to the system proxy is the way out.
    let out = provider(data.path(), &["add", "p", "--proxy", "system"]).await;
    assert_exit(&out, 0);
    assert!(saved(data.path(), "p").unwrap().get("proxy").is_none());
}

#[tokio::test(flavor = "multi_thread")]
async fn models_are_listed_from_the_provider_one_per_line() {
    let scripted = ScriptedProvider::start().await.unwrap();
    scripted.set_models(&["alpha-1", "beta-2"]);
    let data = tempfile::tempdir().unwrap();
    let base = scripted.openai_base();
    let out = provider(
        data.path(),
        &[
            "add",
            "scripted",
            "--kind",
            "openai",
            "--base-url",
            &base,
            "--proxy",
            "none",
        ],
    )
    .await;
    assert_exit(&out, 0);

    let env = [("TESSERA_SCRIPTED_API_KEY", KEY)];
    let out = provider_env(data.path(), &env, &["models", "scripted"]).await;
    assert_exit(&out, 0);
    assert_eq!(stdout(&out), "alpha-1\nbeta-2\n");
    assert!(!stderr(&out).contains(KEY));
    let asked = scripted.requests();
    assert_eq!(asked.last().unwrap().path, "/v1/models");
    assert_eq!(
        asked.last().unwrap().header("authorization"),
        Some(format!("Bearer {KEY}").as_str())
    );

    // --save adds them to the saved provider.
    let out = provider_env(data.path(), &env, &["models", "scripted", "--save"]).await;
    assert_exit(&out, 0);
    assert_eq!(stdout(&out), "alpha-1\nbeta-2\n");
    let settings = saved(data.path(), "scripted").unwrap();
    let models: Vec<&String> = settings["models"].as_object().unwrap().keys().collect();
    assert_eq!(models, ["alpha-1", "beta-2"]);

    // No key anywhere (no variable, no keyring): exit 1, saying where a key could come from.
    let out = provider(data.path(), &["models", "scripted"]).await;
    assert_exit(&out, 1);
    assert!(
        stderr(&out).contains("TESSERA_SCRIPTED_API_KEY"),
        "{}",
        stderr(&out)
    );

    // A server that needs no key gets no Authorization header.
    let out = provider(data.path(), &["add", "scripted", "--no-key"]).await;
    assert_exit(&out, 0);
    let out = provider(data.path(), &["models", "scripted"]).await;
    assert_exit(&out, 0);
    assert_eq!(stdout(&out), "alpha-1\nbeta-2\n");
    assert_eq!(
        scripted.requests().last().unwrap().header("authorization"),
        None
    );

    // Nothing listening: a failure talking to the provider, exit 1.
    let down = format!("http://127.0.0.1:{}/v1", free_port());
    let out = provider(
        data.path(),
        &[
            "add",
            "down",
            "--kind",
            "openai",
            "--base-url",
            &down,
            "--no-key",
            "--proxy",
            "none",
        ],
    )
    .await;
    assert_exit(&out, 0);
    let out = provider(data.path(), &["models", "down"]).await;
    assert_exit(&out, 1);
    assert!(stderr(&out).contains("network error"), "{}", stderr(&out));

    // An unknown name is a usage error listing the presets.
    let out = provider(data.path(), &["models", "nosuch"]).await;
    assert_exit(&out, 2);
    assert!(
        stderr(&out).contains("no provider named nosuch") && stderr(&out).contains("deepseek"),
        "{}",
        stderr(&out)
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn a_local_ollama_is_detected_and_saved_without_a_key() {
    let ollama = ScriptedProvider::start().await.unwrap();
    ollama.set_models(&["qwen2.5:7b", "llava:13b"]);
    let data = tempfile::tempdir().unwrap();
    let url = ollama.url();
    let out = provider(data.path(), &["detect", "--url", &url]).await;
    assert_exit(&out, 0);
    assert_eq!(
        stdout(&out),
        format!(
            "found Ollama at {url}: base URL {url}/v1, no key needed, 2 model(s)\n  llava:13b\n  qwen2.5:7b\n"
        )
    );
    assert_eq!(
        saved(data.path(), "ollama"),
        None,
        "not saved without --save"
    );

    let out = provider(data.path(), &["detect", "--url", &url, "--save"]).await;
    assert_exit(&out, 0);
    assert!(
        stdout(&out).ends_with("saved as provider ollama (default model qwen2.5:7b)\n"),
        "{}",
        stdout(&out)
    );
    let list = list_json(data.path(), &[]).await;
    let found = entry(&list, "ollama");
    assert_eq!(found["source"], "saved");
    assert_eq!(found["base_url"], format!("{url}/v1"));
    assert_eq!(found["key"], "not_needed");
    // And it answers as a provider, without a key.
    let out = provider(data.path(), &["models", "ollama"]).await;
    assert_exit(&out, 0);
    assert_eq!(stdout(&out), "qwen2.5:7b\nllava:13b\n");

    // Nothing there: exit 1 with a hint.
    let nothing = format!("http://127.0.0.1:{}", free_port());
    let out = provider(data.path(), &["detect", "--url", &nothing]).await;
    assert_exit(&out, 1);
    assert!(
        stderr(&out).contains("no Ollama answered"),
        "{}",
        stderr(&out)
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn lm_studio_is_detected_beside_ollama_where_each_usually_listens() {
    // An LM Studio answers `/v1/models` only; an Ollama `/api/tags`.
    let lmstudio = ScriptedProvider::start().await.unwrap();
    lmstudio.act_as_lmstudio();
    lmstudio.set_models(&["qwen2.5-7b-instruct", "gemma-3-4b"]);
    let ollama = ScriptedProvider::start().await.unwrap();
    ollama.set_models(&["llama3.2"]);
    let (lm, ol) = (lmstudio.url(), ollama.url());
    let data = tempfile::tempdir().unwrap();

    // Given an address: whatever answers there.
    let out = provider(data.path(), &["detect", "--url", &lm]).await;
    assert_exit(&out, 0);
    assert_eq!(
        stdout(&out),
        format!(
            "found LM Studio at {lm}: base URL {lm}/v1, no key needed, 2 model(s)\n  gemma-3-4b\n  qwen2.5-7b-instruct\n"
        )
    );

    // No address: both usual places at once, each saved under its own name.
    let env = [
        ("TESSERA_OLLAMA_URL", ol.as_str()),
        ("TESSERA_LMSTUDIO_URL", lm.as_str()),
    ];
    let out = provider_env(data.path(), &env, &["detect", "--save"]).await;
    assert_exit(&out, 0);
    let printed = stdout(&out);
    assert!(
        printed.starts_with(&format!("found Ollama at {ol}:")),
        "{printed}"
    );
    assert!(
        printed.contains(&format!("found LM Studio at {lm}:")),
        "{printed}"
    );
    assert!(
        printed.ends_with("saved as provider lmstudio (default model qwen2.5-7b-instruct)\n"),
        "{printed}"
    );
    let list = list_json(data.path(), &[]).await;
    assert_eq!(entry(&list, "lmstudio")["base_url"], format!("{lm}/v1"));
    assert_eq!(entry(&list, "lmstudio")["key"], "not_needed");
    assert_eq!(entry(&list, "ollama")["base_url"], format!("{ol}/v1"));
    let out = provider(data.path(), &["models", "lmstudio"]).await;
    assert_exit(&out, 0);
    assert_eq!(stdout(&out), "qwen2.5-7b-instruct\ngemma-3-4b\n");

    // Only one running: that one, and no complaint about the other.
    let closed = format!("http://127.0.0.1:{}", free_port());
    let env = [
        ("TESSERA_OLLAMA_URL", closed.as_str()),
        ("TESSERA_LMSTUDIO_URL", lm.as_str()),
    ];
    let out = provider_env(data.path(), &env, &["detect"]).await;
    assert_exit(&out, 0);
    assert!(
        stdout(&out).starts_with("found LM Studio"),
        "{}",
        stdout(&out)
    );

    // Neither: exit 1 naming both places.
    let env = [
        ("TESSERA_OLLAMA_URL", closed.as_str()),
        ("TESSERA_LMSTUDIO_URL", closed.as_str()),
    ];
    let out = provider_env(data.path(), &env, &["detect"]).await;
    assert_exit(&out, 1);
    assert!(
        stderr(&out).contains("no LM Studio either"),
        "{}",
        stderr(&out)
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn the_default_provider_is_what_chat_uses_without_provider() {
    let scripted = ScriptedProvider::start().await.unwrap();
    scripted.push(Reply::openai_text("local-m", &["from the ", "default"]));
    let data = tempfile::tempdir().unwrap();
    let base = scripted.openai_base();
    let out = provider(
        data.path(),
        &[
            "add",
            "local",
            "--kind",
            "openai",
            "--base-url",
            &base,
            "--default-model",
            "local-m",
            "--no-key",
            "--proxy",
            "none",
        ],
    )
    .await;
    assert_exit(&out, 0);
    let out = provider(data.path(), &["default"]).await;
    assert_exit(&out, 0);
    assert_eq!(
        stdout(&out),
        "(none: `tessera provider default NAME` sets one)\n"
    );
    let out = provider(data.path(), &["default", "local"]).await;
    assert_exit(&out, 0);
    assert_eq!(stdout(&out), "default provider: local\n");
    let out = provider(data.path(), &["default"]).await;
    assert_eq!(stdout(&out), "local\n");
    let list = list_json(data.path(), &[]).await;
    assert_eq!(entry(&list, "local")["default"], true);
    assert_eq!(entry(&list, "openai")["default"], false);
    let listed = stdout(&provider(data.path(), &["list"]).await);
    assert!(
        listed.lines().any(|l| l.starts_with("* local ")),
        "{listed}"
    );

    let mut chat = tessera(data.path());
    chat.args(["chat", "hello"]);
    let out = run(chat).await;
    assert_exit(&out, 0);
    assert_eq!(stdout(&out), "from the default\n");
    assert_eq!(scripted.calls()[0].body["model"], "local-m");

    let out = provider(data.path(), &["default", "nosuch"]).await;
    assert_exit(&out, 2);
    assert!(stderr(&out).contains("no provider named nosuch"));
    assert_eq!(
        stdout(&provider(data.path(), &["default"]).await),
        "local\n"
    );

    // Removing it removes it as the default too (and tolerates the missing keyring).
    let out = provider(data.path(), &["remove", "local"]).await;
    assert_exit(&out, 0);
    assert_eq!(
        stdout(&out),
        "removed provider local\nlocal was the default provider; there is none now\n"
    );
    assert!(
        stderr(&out).contains("may remain in the keyring"),
        "{}",
        stderr(&out)
    );
    assert_eq!(saved(data.path(), "local"), None);
    assert!(!list_json(data.path(), &[])
        .await
        .iter()
        .any(|p| p["name"] == "local"));
    let mut chat = tessera(data.path());
    chat.args(["chat", "hello"]);
    let out = run(chat).await;
    assert_exit(&out, 2);
    assert!(stderr(&out).contains("no provider"), "{}", stderr(&out));

    // Removing a saved preset brings the preset back.
    assert_exit(
        &provider(data.path(), &["add", "openai", "--proxy", "none"]).await,
        0,
    );
    let out = provider(data.path(), &["remove", "openai"]).await;
    assert_exit(&out, 0);
    assert_eq!(
        stdout(&out),
        "removed provider openai (the openai preset remains available)\n"
    );
    assert_eq!(
        entry(&list_json(data.path(), &[]).await, "openai")["source"],
        "preset"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn spending_limits_are_shown_set_and_validated() {
    let data = tempfile::tempdir().unwrap();
    let out = provider(data.path(), &["limits"]).await;
    assert_exit(&out, 0);
    assert_eq!(
        stdout(&out),
        "per day:          none\nper conversation: none\nspent today:      $0.00 (estimated)\n"
    );
    let out = provider(
        data.path(),
        &["limits", "--per-day", "5", "--per-conversation", "$0.5"],
    )
    .await;
    assert_exit(&out, 0);
    assert!(
        stdout(&out).starts_with("per day:          $5.00\nper conversation: $0.50\n"),
        "{}",
        stdout(&out)
    );
    let store = tessera_store::Store::open(data.path()).unwrap();
    assert_eq!(
        store.app_setting("spending_limits").unwrap().unwrap(),
        serde_json::json!({"per_day_usd": 5.0, "per_conversation_usd": 0.5})
    );
    drop(store);

    for (flag, bad) in [
        ("--per-day", "-1"),
        ("--per-conversation", "lots"),
        ("--per-day", "NaN"),
    ] {
        let out = provider(data.path(), &["limits", flag, bad]).await;
        assert_exit(&out, 2);
        assert!(stderr(&out).contains(flag), "{}", stderr(&out));
    }
    // Unchanged by the refused ones; `none` lifts one limit only.
    let out = provider(data.path(), &["limits", "--per-day", "none"]).await;
    assert_exit(&out, 0);
    assert!(
        stdout(&out).starts_with("per day:          none\nper conversation: $0.50\n"),
        "{}",
        stdout(&out)
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn set_key_refuses_empty_input_and_unknown_providers_before_the_keyring() {
    let data = tempfile::tempdir().unwrap();
    let mut cmd = tessera(data.path());
    cmd.args(["provider", "set-key", "openai"]);
    let out = run_with_stdin(cmd, "   \n").await;
    assert_exit(&out, 2);
    assert!(
        stderr(&out).contains("no key on standard input"),
        "{}",
        stderr(&out)
    );

    let mut cmd = tessera(data.path());
    cmd.args(["provider", "set-key", "nosuch"]);
    let out = run_with_stdin(cmd, &format!("{KEY}\n")).await;
    assert_exit(&out, 2);
    assert!(stderr(&out).contains("no provider named nosuch"));

    // A key given but no keyring to keep it in: exit 1, the key not echoed anywhere.
    let mut cmd = tessera(data.path());
    cmd.args(["provider", "set-key", "openai"]);
    let out = run_with_stdin(cmd, &format!("{KEY}\n")).await;
    assert_exit(&out, 1);
    assert!(stderr(&out).contains("keyring"), "{}", stderr(&out));
    assert!(!stderr(&out).contains(KEY) && !stdout(&out).contains(KEY));

    let out = provider(data.path(), &["remove", "nosuch"]).await;
    assert_exit(&out, 1);
    assert!(stderr(&out).contains("no saved provider named nosuch"));
}
