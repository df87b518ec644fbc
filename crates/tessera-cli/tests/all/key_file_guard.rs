//! The key file is only ever Tessera's own, owner-only file, with no keyring on the bus (as on
//! a minimal desktop session): the real `tessera serve` and `tessera provider`.
//!
//! A `secrets.json` of the person's own in a folder used as `--data-dir` is neither read as
//! keys nor rewritten, and choosing the key file is refused naming it; a key file or folder
//! loosened after the first start is set back to owner-only at the next open, and the person
//! is told (stderr of the CLI, the warnings of `GET /v1/secrets/store`); `provider set-key`
//! names the store the key went to.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::support;

use std::path::Path;

use serde_json::{json, Value};
use support::serve_without_keyring as serve;
use support::{assert_exit, has_key, run, run_with_stdin, stderr, stdout, tessera};

fn provider_entry() -> Value {
    json!({"name": "work", "kind": "openai", "base_url": "http://127.0.0.1:9/v1",
           "default_model": "m", "proxy": "none"})
}

#[tokio::test(flavor = "multi_thread")]
async fn a_secrets_json_tessera_did_not_write_is_never_read_as_keys_nor_rewritten() {
    let data = tempfile::tempdir().unwrap();
    let theirs = r#"{"notes": "my own vault", "secrets": {"work": "sk-theirs-0123456789"}}"#;
    let path = data.path().join("secrets.json");
    std::fs::write(&path, theirs).unwrap();
    let api = serve(data.path());

    let view = api.get("/secrets/store").await.ok(200).clone();
    assert_eq!(view["store"], "keyring", "{view}");
    let warning = view["warnings"][0].as_str().unwrap();
    assert!(
        warning.contains("secrets.json is not Tessera's key file"),
        "{warning}"
    );

    api.post("/providers", &provider_entry()).await.ok(201);
    // Its `secrets` map is not a key of Tessera's (the keyring, unreachable, cannot say).
    assert_ne!(has_key(api.get("/providers").await.ok(200), "work"), true);
    // A key goes to the store chosen (the keyring, unreachable here), not into their file.
    api.put("/providers/work/key", &json!({"key": "sk-mine-9876543210"}))
        .await
        .error(503, "KEYRING_UNAVAILABLE");
    // Choosing the key file is refused, naming the file and why.
    let refused = api.put("/secrets/store", &json!({"store": "file"})).await;
    let why = refused.error(409, "KEY_FILE_ERROR");
    assert!(why.contains(&path.display().to_string()), "{why}");
    assert!(why.contains("format marker"), "{why}");
    assert_eq!(std::fs::read_to_string(&path).unwrap(), theirs);
    assert_eq!(api.get("/secrets/store").await.ok(200)["store"], "keyring");
}

#[cfg(unix)]
fn mode(path: &Path) -> u32 {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(path).unwrap().permissions().mode() & 0o777
}

#[cfg(unix)]
fn loosen(data: &Path) {
    use std::os::unix::fs::PermissionsExt;
    let set = |p: &Path, m: u32| std::fs::set_permissions(p, std::fs::Permissions::from_mode(m));
    set(&data.join("secrets.json"), 0o644).unwrap();
    set(data, 0o755).unwrap();
}

#[cfg(unix)]
#[tokio::test(flavor = "multi_thread")]
async fn the_key_file_is_named_where_keys_go_and_kept_owner_only_at_every_open() {
    let data = tempfile::tempdir().unwrap();
    let key_file = data.path().join("secrets.json");
    let api = serve(data.path());
    api.post("/providers", &provider_entry()).await.ok(201);
    api.put("/secrets/store", &json!({"store": "file"}))
        .await
        .ok(200);
    drop(api);

    // set-key says where the key went: the key file, by its path.
    let mut cmd = tessera(data.path());
    cmd.args(["provider", "set-key", "work"]);
    let out = run_with_stdin(cmd, "sk-work-0123456789abcdef\n").await;
    assert_exit(&out, 0);
    assert_eq!(
        stdout(&out),
        format!(
            "stored the key of work in the key file {}\n",
            key_file.display()
        )
    );
    let written: Value = serde_json::from_slice(&std::fs::read(&key_file).unwrap()).unwrap();
    assert_eq!(written["format"], "tessera-secrets/1");
    assert_eq!(written["secrets"]["work"], "sk-work-0123456789abcdef");

    // Loosened after the first start: set back at the next open, and said on stderr.
    loosen(data.path());
    let mut cmd = tessera(data.path());
    cmd.args(["provider", "list"]);
    let out = run(cmd).await;
    assert_exit(&out, 0);
    let said = stderr(&out);
    assert!(
        said.contains("mode 0644") && said.contains("0600"),
        "{said}"
    );
    assert!(
        said.contains("mode 0755") && said.contains("0700"),
        "{said}"
    );
    assert_eq!(mode(&key_file), 0o600);
    assert_eq!(mode(data.path()), 0o700);

    // And on the settings page of the app.
    loosen(data.path());
    let api = serve(data.path());
    let view = api.get("/secrets/store").await.ok(200).clone();
    assert_eq!(view["store"], "file");
    let warnings = view["warnings"].to_string();
    assert!(warnings.contains("mode 0644"), "{view}");
    assert_eq!(mode(&key_file), 0o600);
    assert_eq!(has_key(api.get("/providers").await.ok(200), "work"), true);

    // delete-key names the key file too.
    drop(api);
    let mut cmd = tessera(data.path());
    cmd.args(["provider", "delete-key", "work"]);
    let out = run(cmd).await;
    assert_exit(&out, 0);
    assert_eq!(
        stdout(&out),
        format!(
            "removed the key of work from the key file {}\n",
            key_file.display()
        )
    );
}
