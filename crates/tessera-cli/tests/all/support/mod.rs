//! The `tessera` binary as a child process in a known environment: no proxy settings, no API
//! key variables, and (unless a test asks for it) no session bus, so the person's own keyring
//! is never read or written by a test.
#![allow(dead_code, clippy::unwrap_used, clippy::expect_used)]

pub mod api;
pub mod mcp;
pub mod stream;

use std::path::Path;
use std::process::{Output, Stdio};

use tokio::io::AsyncWriteExt;

/// Variables that would change where requests go or which key is used.
const CLEARED: &[&str] = &[
    "HTTP_PROXY",
    "http_proxy",
    "HTTPS_PROXY",
    "https_proxy",
    "ALL_PROXY",
    "all_proxy",
    "NO_PROXY",
    "no_proxy",
    "OPENAI_API_KEY",
    "ANTHROPIC_API_KEY",
    "DEEPSEEK_API_KEY",
    "TESSERA_LOG",
];

/// `tessera --data-dir DATA`, environment cleaned, without the session bus (no keyring).
pub fn tessera(data: &Path) -> tokio::process::Command {
    let mut cmd = tessera_with_keyring(data);
    cmd.env_remove("DBUS_SESSION_BUS_ADDRESS");
    cmd
}

/// `tessera --data-dir DATA chat` against `provider`'s OpenAI wire with the key `key`.
pub fn chat_against(
    data: &Path,
    provider: &tessera_testkit::scripted::ScriptedProvider,
    key: &str,
) -> tokio::process::Command {
    let mut cmd = tokio::process::Command::new(env!("CARGO_BIN_EXE_tessera"));
    cmd.arg("--data-dir")
        .arg(data)
        .args([
            "chat",
            "--kind",
            "openai",
            "--base-url",
            &provider.openai_base(),
        ])
        .env("OPENAI_API_KEY", key)
        .env_remove("HTTP_PROXY")
        .env_remove("http_proxy");
    cmd
}

/// `tessera --data-dir DATA`, environment cleaned, keeping the session bus (keyring tests run
/// inside scripts/with-keyring.sh's throwaway session).
pub fn tessera_with_keyring(data: &Path) -> tokio::process::Command {
    let mut cmd = tokio::process::Command::new(env!("CARGO_BIN_EXE_tessera"));
    cmd.arg("--data-dir").arg(data);
    for var in CLEARED {
        cmd.env_remove(var);
    }
    for (var, _) in std::env::vars_os() {
        if let Some(var) = var.to_str() {
            if var.starts_with("TESSERA_") && var.ends_with("_API_KEY") {
                cmd.env_remove(var);
            }
        }
    }
    cmd.kill_on_drop(true);
    cmd
}

/// Saves the scripted provider in `data` as the provider `local` (model `m`, no key, no proxy).
pub fn save_scripted_provider(data: &Path, provider: &tessera_testkit::scripted::ScriptedProvider) {
    let store = tessera_store::Store::open(data).unwrap();
    store
        .set_provider_settings(
            "local",
            serde_json::json!({"name": "local", "kind": "openai",
                "base_url": provider.openai_base(), "requires_key": false,
                "default_model": "m", "proxy": "none"}),
        )
        .unwrap();
}

/// `tessera serve --port 0 --provider local` over `data` (see [`save_scripted_provider`]);
/// with `test_tools`, the same command line with the testkit's tools added
/// (`tessera-with-test-tools`, crates/tessera-test-tools).
pub fn serve_local(data: &Path, test_tools: bool) -> std::process::Command {
    let mut cmd = if test_tools {
        let mut cmd = std::process::Command::new(with_test_tools_bin());
        clean(&mut cmd, data);
        cmd.env_remove("DBUS_SESSION_BUS_ADDRESS");
        cmd
    } else {
        tessera_std(data)
    };
    cmd.args(["serve", "--port", "0", "--provider", "local"]);
    cmd
}

/// `tessera-with-test-tools`, built beside this suite by `cargo test --workspace` (it is
/// another package's binary, so `cargo test -p tessera-cli` alone does not build it).
pub fn with_test_tools_bin() -> std::path::PathBuf {
    let bin = std::path::Path::new(env!("CARGO_BIN_EXE_tessera"))
        .with_file_name("tessera-with-test-tools");
    assert!(
        bin.exists(),
        "{} is missing: build it with `cargo build -p tessera-test-tools` (or run `cargo test --workspace`)",
        bin.display()
    );
    bin
}

/// [`serve_local`] answering with `provider`.
pub fn serve_scripted(
    data: &Path,
    provider: &tessera_testkit::scripted::ScriptedProvider,
    test_tools: bool,
) -> std::process::Command {
    save_scripted_provider(data, provider);
    serve_local(data, test_tools)
}

/// `tessera --data-dir DATA` as a blocking command (for `RunningServer::spawn`), environment
/// cleaned, without the session bus (no keyring).
pub fn tessera_std(data: &Path) -> std::process::Command {
    let mut cmd = tessera_std_with_keyring(data);
    cmd.env_remove("DBUS_SESSION_BUS_ADDRESS");
    cmd
}

/// [`tessera_std`] keeping the session bus (inside scripts/with-keyring.sh's session).
pub fn tessera_std_with_keyring(data: &Path) -> std::process::Command {
    let mut cmd = std::process::Command::new(env!("CARGO_BIN_EXE_tessera"));
    clean(&mut cmd, data);
    cmd
}

/// `--data-dir DATA`, and the environment cleaned of what would reach past the suite.
fn clean(cmd: &mut std::process::Command, data: &Path) {
    cmd.arg("--data-dir").arg(data);
    for var in CLEARED {
        cmd.env_remove(var);
    }
    for (var, _) in std::env::vars_os() {
        if let Some(var) = var.to_str() {
            if var.starts_with("TESSERA_") {
                cmd.env_remove(var);
            }
        }
    }
}

/// Runs `cmd` to the end.
pub async fn run(mut cmd: tokio::process::Command) -> Output {
    cmd.stdin(Stdio::null()).output().await.unwrap()
}

/// Runs `cmd` with `input` on its standard input.
pub async fn run_with_stdin(mut cmd: tokio::process::Command, input: &str) -> Output {
    let mut child = cmd
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    stdin.write_all(input.as_bytes()).await.unwrap();
    drop(stdin);
    child.wait_with_output().await.unwrap()
}

pub fn stdout(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

pub fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// Asserts the exit code, showing both outputs when it is not the expected one.
pub fn assert_exit(out: &Output, code: i32) {
    assert_eq!(
        out.status.code(),
        Some(code),
        "stdout:\n{}\nstderr:\n{}",
        stdout(out),
        stderr(out)
    );
}

/// A port nothing listens on (bound, then released).
pub fn free_port() -> u16 {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    listener.local_addr().unwrap().port()
}

/// A conversation written straight into `store`: `texts` alternate the person's and the
/// assistant's, the person first.
pub fn seed_conversation(store: &tessera_store::Store, id: &str, title: &str, texts: &[&str]) {
    use tessera_protocol::request::Role;
    store
        .create_conversation(tessera_store::conversations::NewConversation {
            id: Some(id.into()),
            title: title.into(),
            ..Default::default()
        })
        .unwrap();
    for (i, text) in texts.iter().enumerate() {
        let role = if i % 2 == 0 {
            Role::User
        } else {
            Role::Assistant
        };
        store
            .append_message(
                id,
                tessera_store::NewMessage::new(tessera_store::text_message(role, *text)),
            )
            .unwrap();
    }
}

/// The files under `dir` (the database and its -wal and -shm included) whose bytes hold
/// `needle`, by path relative to `dir`.
pub fn files_holding(dir: &Path, needle: &str) -> Vec<String> {
    let mut found = Vec::new();
    let mut stack = vec![dir.to_owned()];
    while let Some(here) = stack.pop() {
        for entry in std::fs::read_dir(&here).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
            } else if std::fs::read(&path)
                .is_ok_and(|bytes| bytes.windows(needle.len()).any(|w| w == needle.as_bytes()))
            {
                found.push(path.strip_prefix(dir).unwrap().display().to_string());
            }
        }
    }
    found
}

/// `has_key` of provider `name` in a `GET /v1/providers` answer.
pub fn has_key(list: &serde_json::Value, name: &str) -> serde_json::Value {
    list["providers"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["name"] == name)
        .map(|p| p["has_key"].clone())
        .unwrap()
}

/// `tessera serve --port 0` over `data` with a bus address where nothing listens: the keyring
/// fails at once, as on a minimal desktop session without one.
pub fn serve_without_keyring(data: &Path) -> api::Api {
    let mut cmd = tessera_std(data);
    cmd.env(
        "DBUS_SESSION_BUS_ADDRESS",
        "unix:path=/nonexistent/tessera-test-bus",
    )
    .args(["serve", "--port", "0"]);
    api::Api::start(cmd)
}

/// The most memory the process `pid` has held, in MiB (`VmHWM`).
pub fn peak_mib(pid: u32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.split_whitespace().next())
        .and_then(|v| v.parse::<u64>().ok())
        .unwrap()
        / 1024
}
