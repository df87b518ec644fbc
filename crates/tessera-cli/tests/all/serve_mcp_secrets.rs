//! An MCP server's secrets stay out of everything the person sees and every file but the
//! secret store, with no keyring on the bus (the key file chosen): the real `tessera serve`.
//!
//! A URL holding a secret (user info, a token in its query) is shown redacted, without the
//! `${keyring}` placeholder, in the server's `uri`, its status and its handshake error, and
//! never reaches `logs/mcp/<name>.log`; env values under names such as `DB_PASS`,
//! `SMTP_PWD`, `X_AUTH`, `GOOGLE_CREDENTIALS` or `SSH_PRIVATE_KEY` leave `mcp.json` for the
//! secret store, while `PATH` or `AUTHOR_NAME` stay.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::support;

use serde_json::json;
use support::serve_without_keyring as serve;
use support::{files_holding, free_port};

#[tokio::test(flavor = "multi_thread")]
async fn a_secret_in_a_server_url_is_shown_redacted_and_never_logged() {
    let data = tempfile::tempdir().unwrap();
    let api = serve(data.path());
    api.put("/secrets/store", &json!({"store": "file"}))
        .await
        .ok(200);
    let password = format!("pw{}x7q", std::process::id());
    let token = format!("tk{}z9w", std::process::id());
    // Nothing listens there: the handshake fails, with the transport's own words.
    let port = free_port();
    let url = format!("http://me:{password}@127.0.0.1:{port}/mcp?sig={token}&v=2");
    let put = api
        .put("/mcp/servers/web", &json!({"type": "http", "url": url}))
        .await;
    let view = put.ok(200).clone();
    assert_eq!(view["secrets"], json!(["url"]));
    let shown = format!("http://[redacted]@127.0.0.1:{port}/mcp?sig=[redacted]&v=[redacted]");
    assert_eq!(view["uri"], shown.as_str(), "{view}");

    let restarted = api.post("/mcp/servers/web/restart", &json!({})).await;
    let status = restarted.ok(200)["status"].clone();
    let reason = status["reason"].as_str().unwrap_or_default().to_owned();
    assert!(reason.contains("handshake"), "{status}");
    assert!(reason.contains(&shown), "{reason}");
    let log = api.get("/mcp/servers/web/log").await;
    let listed = api.get("/mcp/servers").await;
    for seen in [&put.text, &restarted.text, &log.text, &listed.text] {
        assert!(!seen.contains(&password), "{seen}");
        assert!(!seen.contains(&token), "{seen}");
    }
    // The mark stays only in the settings to edit (where it keeps the secret on a save).
    for seen in [&reason, &log.text, &restarted.body["uri"].to_string()] {
        assert!(!seen.contains("${keyring}"), "{seen}");
    }
    drop(api);
    let file_log = std::fs::read_to_string(data.path().join("logs/mcp/web.log")).unwrap();
    assert!(file_log.contains("handshake"), "{file_log}");
    for secret in [&password, &token] {
        assert_eq!(files_holding(data.path(), secret), ["secrets.json"]);
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn env_values_named_as_secrets_leave_mcp_json() {
    let data = tempfile::tempdir().unwrap();
    let api = serve(data.path());
    api.put("/secrets/store", &json!({"store": "file"}))
        .await
        .ok(200);
    let env = json!({
        "DB_PASS": "hunter2-db",
        "SMTP_PWD": "hunter2-smtp",
        "X_AUTH": "hunter2-auth",
        "GOOGLE_CREDENTIALS": "hunter2-creds",
        "SSH_PRIVATE_KEY": "hunter2-ssh",
        "PGPASSWORD": "hunter2-pg",
        "AUTHOR_NAME": "Ada",
        "PATH": "/usr/bin",
        "PASSTHROUGH": "yes",
    });
    let put = api
        .put(
            "/mcp/servers/db",
            &json!({"command": "/nonexistent/db-mcp", "env": env}),
        )
        .await;
    let view = put.ok(200).clone();
    let mut secrets: Vec<&str> = view["secrets"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s.as_str().unwrap())
        .collect();
    secrets.sort_unstable();
    assert_eq!(
        secrets,
        [
            "DB_PASS",
            "GOOGLE_CREDENTIALS",
            "PGPASSWORD",
            "SMTP_PWD",
            "SSH_PRIVATE_KEY",
            "X_AUTH"
        ]
    );
    let file = std::fs::read_to_string(data.path().join("mcp.json")).unwrap();
    assert!(!file.contains("hunter2"), "{file}");
    for plain in ["Ada", "/usr/bin", "\"yes\""] {
        assert!(file.contains(plain), "{plain} left: {file}");
    }
}
