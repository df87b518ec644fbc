//! The API key lives in the OS keyring and nowhere else: after `tessera chat` runs that succeed
//! and one the provider refuses with 401, the key is in neither the database nor its -wal and
//! -shm files (read while a chat is mid-stream, when they exist), nor anything else in the
//! data folder, nor the logs (at trace level), nor an export — raw or base64 — and
//! `secret-tool` still reads it back from the keyring.
//!
//! Needs the throwaway Secret Service of `scripts/with-keyring.sh` (`make test-keyring`);
//! elsewhere it skips and says so.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::{Path, PathBuf};
use std::process::Stdio;

use base64::Engine;
use tessera_testkit::keyring::{secret_tool_lookup, secret_tool_store, should_run};
use tessera_testkit::scripted::{Gate, Reply, ScriptedProvider, Step};

/// Every way the key could be written: raw, and base64 (standard and URL-safe) at each of the
/// three alignments it could start at inside a longer encoded text.
fn forms(key: &str) -> Vec<Vec<u8>> {
    let mut forms = vec![key.as_bytes().to_vec()];
    for engine in [
        base64::engine::general_purpose::STANDARD,
        base64::engine::general_purpose::URL_SAFE,
    ] {
        for pad in 0..3 {
            let text = format!("{}{key}", "x".repeat(pad));
            let encoded = engine.encode(text.as_bytes());
            // Drop the characters that also depend on what surrounds the key.
            let core = &encoded[4..encoded.len() - 4];
            forms.push(core.as_bytes().to_vec());
        }
    }
    forms
}

fn contains(haystack: &[u8], needle: &[u8]) -> bool {
    haystack.windows(needle.len()).any(|w| w == needle)
}

fn assert_clean(what: &str, bytes: &[u8], key: &str) {
    for form in forms(key) {
        assert!(
            !contains(bytes, &form),
            "{what} holds the key (as {})",
            String::from_utf8_lossy(&form)
        );
    }
}

fn files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            out.extend(files(&path));
        } else {
            out.push(path);
        }
    }
    out
}

fn chat(
    data: &Path,
    provider: &ScriptedProvider,
    name: &str,
    extra: &[&str],
) -> tokio::process::Command {
    let mut cmd = tokio::process::Command::new(env!("CARGO_BIN_EXE_tessera"));
    cmd.arg("--data-dir")
        .arg(data)
        .args(["chat", "--provider", name, "--kind", "openai"])
        .args(["--base-url", &provider.openai_base(), "--model", "m"])
        .args(extra)
        .env("TESSERA_LOG", "trace")
        .env_remove("OPENAI_API_KEY")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    cmd
}

#[tokio::test(flavor = "multi_thread")]
async fn the_key_is_only_in_the_keyring() {
    if !should_run("chat keyring") {
        return;
    }
    let name = format!("leak-check-{}", std::process::id());
    let key = format!("sk-leak-{:x}-{}", std::process::id(), "Zq7Wm3Rt9Yp2Kd5X");
    assert!(
        secret_tool_store(&name, &key).unwrap(),
        "secret-tool store failed"
    );

    let provider = ScriptedProvider::start().await.unwrap();
    let data = tempfile::tempdir().unwrap();
    let mut logs = Vec::new();
    let mut outputs = Vec::new();

    // A chat held mid-stream: the database is open, with its -wal and -shm files.
    let gate = Gate::new();
    provider.push(
        Reply::openai_text("m", &["first ", "answer"]).insert_step(2, Step::Gate(gate.clone())),
    );
    let held = chat(data.path(), &provider, &name, &["Hello"])
        .spawn()
        .unwrap();
    let db = data.path().join("tessera.sqlite");
    let wal = data.path().join("tessera.sqlite-wal");
    let shm = data.path().join("tessera.sqlite-shm");
    // Wait (bounded) until the request reached the provider: the user message is committed.
    for _ in 0..200 {
        if !provider.calls().is_empty() {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    assert_eq!(provider.calls().len(), 1, "the chat reached the provider");
    assert!(
        wal.exists() && shm.exists(),
        "the database is open in WAL mode"
    );
    for file in [&db, &wal, &shm] {
        assert_clean(
            &file.display().to_string(),
            &std::fs::read(file).unwrap(),
            &key,
        );
    }
    gate.open();
    let out = held.wait_with_output().await.unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    logs.push(out.stderr);
    outputs.push(out.stdout);

    // Another that succeeds (events), and one the provider refuses.
    provider.push(Reply::openai_text("m", &["second"]));
    let out = chat(
        data.path(),
        &provider,
        &name,
        &["--events", "ndjson", "Again"],
    )
    .output()
    .await
    .unwrap();
    assert_eq!(out.status.code(), Some(0));
    logs.push(out.stderr);
    outputs.push(out.stdout);
    provider.push(Reply::openai_error(
        401,
        "invalid_api_key",
        &format!("Incorrect API key provided: {key}"),
    ));
    let out = chat(data.path(), &provider, &name, &["Refused"])
        .output()
        .await
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("401"));
    logs.push(out.stderr);
    outputs.push(out.stdout);

    // The key was taken from the keyring: the provider saw it.
    for call in provider.calls() {
        assert_eq!(
            call.header("authorization"),
            Some(format!("Bearer {key}").as_str())
        );
    }
    for (i, log) in logs.iter().enumerate() {
        assert!(!log.is_empty(), "trace logging is on");
        assert_clean(&format!("the log of run {i}"), log, &key);
    }
    for (i, out) in outputs.iter().enumerate() {
        assert_clean(&format!("the output of run {i}"), out, &key);
    }
    for file in files(data.path()) {
        assert_clean(
            &file.display().to_string(),
            &std::fs::read(&file).unwrap(),
            &key,
        );
    }
    // Every conversation's export.
    let list = tessera_store::Store::open(data.path())
        .unwrap()
        .conversations(&Default::default())
        .unwrap();
    assert_eq!(list.len(), 3);
    for conversation in list {
        let out = tokio::process::Command::new(env!("CARGO_BIN_EXE_tessera"))
            .arg("--data-dir")
            .arg(data.path())
            .args(["context", "export", &conversation.id])
            .output()
            .await
            .unwrap();
        assert_eq!(out.status.code(), Some(0));
        assert_clean("an export", &out.stdout, &key);
    }

    assert_eq!(
        secret_tool_lookup(&name).unwrap().as_deref(),
        Some(key.as_str())
    );
    let _ = std::process::Command::new("secret-tool")
        .args([
            "clear",
            "service",
            tessera_testkit::keyring::SERVICE,
            "username",
            &name,
        ])
        .status();
}
