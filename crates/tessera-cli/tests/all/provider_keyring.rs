//! `tessera provider set-key` / `delete-key` / `remove` with the real OS keyring: gnome-keyring's
//! Secret Service in the private D-Bus session of `scripts/with-keyring.sh` (`make
//! test-keyring`). Anywhere else it skips, saying so on stderr: it would be writing to the
//! person's own keyring.
//!
//! The key goes in on standard input, is read back by another program (`secret-tool`), is used
//! for a model listing and a chat, and is found nowhere in the output or the data folder.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::support;

use std::path::Path;
use std::process::Output;

use serde_json::Value;
use support::{
    assert_exit, files_holding, run, run_with_stdin, stderr, stdout, tessera_with_keyring,
};
use tessera_testkit::keyring::{secret_tool_lookup, should_run};
use tessera_testkit::scripted::{Reply, ScriptedProvider};

const SUITE: &str = "provider CLI keyring tests";

async fn provider(data: &Path, args: &[&str]) -> Output {
    let mut cmd = tessera_with_keyring(data);
    cmd.arg("provider").args(args);
    run(cmd).await
}

async fn set_key(data: &Path, name: &str, input: &str) -> Output {
    let mut cmd = tessera_with_keyring(data);
    cmd.args(["provider", "set-key", name]);
    run_with_stdin(cmd, input).await
}

fn key_state(out: &Output, name: &str) -> String {
    let list: Vec<Value> = serde_json::from_slice(&out.stdout).unwrap();
    let entry = list.iter().find(|p| p["name"] == name).unwrap();
    entry["key"].as_str().unwrap().to_owned()
}

#[tokio::test(flavor = "multi_thread")]
async fn a_key_set_from_stdin_lives_only_in_the_keyring_and_is_used() {
    if !should_run(SUITE) {
        return;
    }
    let name = format!("cli-keyring-{}", std::process::id());
    let key = format!("sk-cli-keyring-{}-5e6f7a8b9c", std::process::id());
    let scripted = ScriptedProvider::start().await.unwrap();
    scripted.set_models(&["kr-model"]);
    scripted.push(Reply::openai_text("kr-model", &["keyring ", "works"]));
    let data = tempfile::tempdir().unwrap();
    let base = scripted.openai_base();
    let out = provider(
        data.path(),
        &[
            "add",
            &name,
            "--kind",
            "openai",
            "--base-url",
            &base,
            "--default-model",
            "kr-model",
            "--proxy",
            "none",
        ],
    )
    .await;
    assert_exit(&out, 0);
    let out = provider(data.path(), &["list", "--json"]).await;
    assert_exit(&out, 0);
    assert_eq!(key_state(&out, &name), "missing");

    // Stored from stdin (surrounding blanks trimmed), readable by another program.
    let out = set_key(data.path(), &name, &format!("  {key}  \n")).await;
    assert_exit(&out, 0);
    assert_eq!(
        stdout(&out),
        format!("stored the key of {name} in the keyring\n")
    );
    assert_eq!(
        secret_tool_lookup(&name)
            .unwrap()
            .as_deref()
            .map(str::trim_end),
        Some(key.as_str())
    );
    let out = provider(data.path(), &["list", "--json"]).await;
    assert_exit(&out, 0);
    assert_eq!(key_state(&out, &name), "keyring");
    assert!(!stdout(&out).contains(&key));

    // Used: for the model listing and for a chat.
    let out = provider(data.path(), &["models", &name]).await;
    assert_exit(&out, 0);
    assert_eq!(stdout(&out), "kr-model\n");
    let mut chat = tessera_with_keyring(data.path());
    chat.args(["chat", "--provider", &name, "hi"]);
    let out = run(chat).await;
    assert_exit(&out, 0);
    assert_eq!(stdout(&out), "keyring works\n");
    let bearer = format!("Bearer {key}");
    assert!(scripted
        .requests()
        .iter()
        .all(|r| r.header("authorization") == Some(bearer.as_str())));
    assert_eq!(scripted.requests().len(), 2);
    assert!(
        files_holding(data.path(), &key).is_empty(),
        "the key is in {:?}",
        files_holding(data.path(), &key)
    );

    // delete-key: gone from the keyring; a second time says there was none.
    let out = provider(data.path(), &["delete-key", &name]).await;
    assert_exit(&out, 0);
    assert_eq!(
        stdout(&out),
        format!("removed the key of {name} from the keyring\n")
    );
    assert_eq!(secret_tool_lookup(&name).unwrap(), None);
    let out = provider(data.path(), &["delete-key", &name]).await;
    assert_exit(&out, 0);
    assert_eq!(stdout(&out), format!("{name} had no key in the keyring\n"));
    let out = provider(data.path(), &["list", "--json"]).await;
    assert_eq!(key_state(&out, &name), "missing");
    let out = provider(data.path(), &["models", &name]).await;
    assert_exit(&out, 2);
    assert!(stderr(&out).contains("no API key"), "{}", stderr(&out));

    // remove takes the key with it.
    let out = set_key(data.path(), &name, &format!("{key}\n")).await;
    assert_exit(&out, 0);
    let out = provider(data.path(), &["remove", &name]).await;
    assert_exit(&out, 0);
    assert_eq!(
        stdout(&out),
        format!("removed provider {name} and its key in the keyring\n")
    );
    assert_eq!(secret_tool_lookup(&name).unwrap(), None);
    assert!(files_holding(data.path(), &key).is_empty());
}
