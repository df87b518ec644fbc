//! Secrets where no keyring can be reached (no Secret Service on the bus, as on a minimal
//! desktop session): the real `tessera serve`, its API, a scripted provider that records the
//! key it is sent, and a real MCP server that reports the environment it was given.
//!
//! Storing a key fails with a clear 503 until the person chooses the key file; from then on
//! every secret — a provider's key, an MCP server's token — is kept in `secrets.json` (0600),
//! reaches the provider and the server, is never in an answer, `mcp.json`, the database or a
//! backup, and survives a restart; choosing the keyring again while it cannot be reached is
//! refused and loses nothing.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::support;

use std::path::Path;

use serde_json::json;
use support::mcp::{everything, tool_message};
use support::serve_without_keyring as serve;
use support::stream::Stream;
use support::{files_holding, has_key};
use tessera_testkit::scripted::{Reply, ScriptedProvider};

#[tokio::test(flavor = "multi_thread")]
async fn without_a_keyring_the_chosen_key_file_keeps_every_secret() {
    let key = format!("sk-key-file-{}-0a1b2c3d4e5f", std::process::id());
    let token = format!("mcp-file-token-{}-9f8e7d6c", std::process::id());
    let scripted = ScriptedProvider::start().await.unwrap();
    let data = tempfile::tempdir().unwrap();
    let api = serve(data.path());

    let store = api.get("/secrets/store").await;
    let view = store.ok(200);
    assert_eq!(view["store"], "keyring");
    assert_eq!(view["keyring"]["reachable"], false, "{view}");
    assert!(!view["keyring"]["reason"].as_str().unwrap().is_empty());
    let key_file = view["key_file"].as_str().unwrap().to_owned();
    assert_eq!(Path::new(&key_file), data.path().join("secrets.json"));

    let config = json!({"name": "work", "kind": "openai", "base_url": scripted.openai_base(),
                        "default_model": "m", "proxy": "none"});
    api.post("/providers", &config).await.ok(201);
    api.post("/providers/work/default", &json!({}))
        .await
        .ok(200);
    // The keyring cannot take it: said plainly, nothing written anywhere.
    let refused = api.put("/providers/work/key", &json!({"key": key})).await;
    refused.error(503, "KEYRING_UNAVAILABLE");
    assert!(!refused.text.contains(&key));
    assert!(!data.path().join("secrets.json").exists());

    // The person chooses the key file.
    let chose = api.put("/secrets/store", &json!({"store": "file"})).await;
    let moved = chose.ok(200);
    assert_eq!(moved["store"], "file");
    // What the unreachable keyring might hold is named, to be entered again.
    // Presets the person never used are not named.
    let named: Vec<&str> = moved["not_moved"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| n["account"].as_str().unwrap())
        .collect();
    assert_eq!(named, ["work"]);
    assert_eq!(api.get("/secrets/store").await.ok(200)["store"], "file");

    let stored = api.put("/providers/work/key", &json!({"key": key})).await;
    let body = stored.ok(200);
    assert!(!stored.text.contains(&key));
    assert_eq!(body["model"]["ready"], true, "{body}");
    assert_eq!(has_key(api.get("/providers").await.ok(200), "work"), true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(&key_file).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o600, "{mode:o}");
    }

    // An MCP server's token goes to the same file.
    let mut entry = everything();
    entry["env"] = json!({"MCP_API_TOKEN": token});
    let put = api.put("/mcp/servers/everything", &entry).await;
    put.ok(200);
    assert!(!put.text.contains(&token));

    // Both reach where they are used: the provider's header, the server's environment.
    scripted.push(Reply::openai_tool_calls(
        "m",
        &[("c_env", "everything__get-env", &["{}"])],
    ));
    scripted.push(Reply::openai_text("m", &["Seen."]));
    Stream::post(&api.server, "ctx_file", "show the env")
        .await
        .read_to_done()
        .await;
    let auth = scripted.calls()[0]
        .header("authorization")
        .map(str::to_owned);
    assert_eq!(auth, Some(format!("Bearer {key}")));
    assert!(tool_message(&scripted, 1, "c_env").contains(&token));

    // Only the key file holds the key (not mcp.json, the database, a log or a backup); the
    // token is also in the get-env result the server chose to return (stored with the
    // conversation, like any result), never in mcp.json or the server's log.
    drop(api);
    assert_eq!(files_holding(data.path(), &key), ["secrets.json"]);
    let holding = files_holding(data.path(), &token);
    assert!(holding.contains(&"secrets.json".to_owned()), "{holding:?}");
    assert!(
        holding
            .iter()
            .all(|f| f == "secrets.json" || f.starts_with("tessera.sqlite")),
        "{holding:?}"
    );

    // After a restart the choice and the secrets are still there.
    let api = serve(data.path());
    assert_eq!(api.get("/secrets/store").await.ok(200)["store"], "file");
    assert_eq!(has_key(api.get("/providers").await.ok(200), "work"), true);
    scripted.push(Reply::openai_text("m", &["Again."]));
    Stream::post(&api.server, "ctx_file", "again")
        .await
        .read_to_done()
        .await;
    let last = scripted.calls().last().cloned().unwrap();
    assert_eq!(
        last.header("authorization"),
        Some(format!("Bearer {key}").as_str())
    );

    // Back to a keyring that cannot be reached: refused, and the file keeps everything.
    let back = api
        .put("/secrets/store", &json!({"store": "keyring"}))
        .await;
    let why = back.error(503, "KEYRING_UNAVAILABLE");
    assert!(why.contains("stay in the key file"), "{why}");
    assert_eq!(files_holding(data.path(), &key), ["secrets.json"]);

    // A body that names no store is a clear 400.
    api.put("/secrets/store", &json!({"store": "usb-stick"}))
        .await
        .error(400, "BAD_REQUEST");
}
