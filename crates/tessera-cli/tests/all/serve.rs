//! `tessera serve` as a person's browser and scripts meet it: a real process on loopback.
#![allow(clippy::unwrap_used, clippy::expect_used)] // a test may panic on what it set up itself

use std::{path::Path, process::Command};

use tessera_testkit::{http::request, server::RunningServer};

fn bin() -> &'static Path {
    Path::new(env!("CARGO_BIN_EXE_tessera"))
}

/// `tessera serve` over a fresh data folder (kept as long as the server runs), never the
/// person's own.
fn start(extra: &[&str]) -> (RunningServer, tempfile::TempDir) {
    let data = tempfile::tempdir().unwrap();
    let mut args = vec!["--data-dir", data.path().to_str().unwrap()];
    args.extend_from_slice(extra);
    let server = RunningServer::start(bin(), &args).unwrap();
    (server, data)
}

fn ui_dir() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("index.html"),
        "<!doctype html><title>Tessera</title><div id=root></div>",
    )
    .unwrap();
    std::fs::create_dir(dir.path().join("assets")).unwrap();
    std::fs::write(dir.path().join("assets/app.js"), "console.log('hi')").unwrap();
    dir
}

#[test]
fn healthz_is_open_and_the_api_needs_the_token() {
    let (server, _data) = start(&[]);
    assert!(server.base.starts_with("http://127.0.0.1:"));
    assert_eq!(server.token.len(), 64);

    let health = request(server.port, "GET", "/healthz", &[]).unwrap();
    assert_eq!(health.status, 200);
    let body: serde_json::Value = serde_json::from_str(&health.body).unwrap();
    assert_eq!(body["status"], "ok");

    let anonymous = request(server.port, "GET", "/api/v1/version", &[]).unwrap();
    assert_eq!(anonymous.status, 401);
    assert!(anonymous.body.contains("UNAUTHORIZED"));

    let wrong = request(
        server.port,
        "GET",
        "/api/v1/version",
        &[("Authorization", "Bearer not-the-token")],
    )
    .unwrap();
    assert_eq!(wrong.status, 401);

    let bearer = format!("Bearer {}", server.token);
    let ok = request(
        server.port,
        "GET",
        "/api/v1/version",
        &[("Authorization", &bearer)],
    )
    .unwrap();
    assert_eq!(ok.status, 200, "{}", ok.body);
    let body: serde_json::Value = serde_json::from_str(&ok.body).unwrap();
    assert_eq!(body["protocols"]["easyflow-chat"], "1.1");
}

#[test]
fn foreign_hosts_and_origins_are_refused() {
    let (server, _data) = start(&[]);
    let rebinding = request(
        server.port,
        "GET",
        "/healthz",
        &[("Host", "attacker.example")],
    )
    .unwrap();
    assert_eq!(rebinding.status, 421);

    let bearer = format!("Bearer {}", server.token);
    let cross_site = request(
        server.port,
        "GET",
        "/api/v1/version",
        &[
            ("Authorization", &bearer),
            ("Origin", "https://evil.example"),
        ],
    )
    .unwrap();
    assert_eq!(cross_site.status, 403);

    let same_origin = format!("http://127.0.0.1:{}", server.port);
    let fine = request(
        server.port,
        "GET",
        "/api/v1/version",
        &[("Authorization", &bearer), ("Origin", &same_origin)],
    )
    .unwrap();
    assert_eq!(fine.status, 200);
}

#[test]
fn serves_the_ui_with_a_fallback_to_index() {
    let ui = ui_dir();
    let (server, _data) = start(&["--ui-dir", ui.path().to_str().unwrap()]);
    let index = request(server.port, "GET", "/", &[]).unwrap();
    assert_eq!(index.status, 200);
    assert!(index.body.contains("<title>Tessera</title>"));
    let asset = request(server.port, "GET", "/assets/app.js", &[]).unwrap();
    assert_eq!(asset.status, 200);
    assert!(asset
        .header("content-type")
        .is_some_and(|c| c.contains("javascript")));
    let deep = request(server.port, "GET", "/conversations/42", &[]).unwrap();
    assert_eq!(deep.status, 200);
    assert!(deep.body.contains("<div id=root>"));
    // No other page may frame it (a consent dialog clicked through a hostile page's frame).
    for page in [&index, &asset, &deep] {
        assert_eq!(page.header("x-frame-options"), Some("DENY"));
        assert_eq!(
            page.header("content-security-policy"),
            Some("frame-ancestors 'none'")
        );
    }
}

#[test]
fn refuses_a_token_short_enough_to_guess() {
    let data = tempfile::tempdir().unwrap();
    for (how, token) in [
        ("env", "hunter2"),
        ("flag", "0123456789abcdef0123456789abcde"),
    ] {
        let mut cmd = Command::new(bin());
        cmd.args([
            "--data-dir",
            data.path().to_str().unwrap(),
            "serve",
            "--port",
            "0",
        ]);
        match how {
            "env" => cmd.env("TESSERA_TOKEN", token),
            _ => cmd.env_remove("TESSERA_TOKEN").args(["--token", token]),
        };
        let out = cmd.output().unwrap();
        assert_eq!(out.status.code(), Some(2), "{how}");
        let said = String::from_utf8_lossy(&out.stderr);
        assert!(said.contains("at least 32 characters"), "{said}");
        assert!(
            !said.contains(token),
            "the refused token was printed: {said}"
        );
    }
}

#[test]
fn ends_cleanly_on_sigterm() {
    let (mut server, _data) = start(&[]);
    let pid = server.pid().to_string();
    let status = Command::new("kill").args(["-TERM", &pid]).status().unwrap();
    assert!(status.success());
    assert_eq!(
        server.wait_for_exit(std::time::Duration::from_secs(10)),
        Some(0)
    );
}

#[test]
fn refuses_to_listen_beyond_loopback_and_a_missing_ui() {
    let data = tempfile::tempdir().unwrap();
    let data = data.path().to_str().unwrap();
    let out = Command::new(bin())
        .args(["--data-dir", data, "serve", "--host", "0.0.0.0"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("for this machine only"));

    let empty = tempfile::tempdir().unwrap();
    let out = Command::new(bin())
        .args(["--data-dir", data, "serve", "--ui-dir"])
        .arg(empty.path())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("has no index.html"));
}

#[test]
fn without_a_data_dir_the_default_data_folder_serves_the_ui_endpoints() {
    // HOME in a tempdir: the default folder is the desktop app's, under it, never the real one.
    let home = tempfile::tempdir().unwrap();
    let mut cmd = Command::new(bin());
    cmd.args(["serve", "--port", "0"])
        .env("HOME", home.path())
        .env_remove("XDG_DATA_HOME")
        .env_remove("TESSERA_DATA_DIR")
        .env_remove("TESSERA_TOKEN")
        .env_remove("DBUS_SESSION_BUS_ADDRESS");
    let server = RunningServer::spawn(cmd).unwrap();
    let bearer = format!("Bearer {}", server.token);
    let list = request(
        server.port,
        "GET",
        "/v1/conversations",
        &[("Authorization", &bearer)],
    )
    .unwrap();
    assert_eq!(list.status, 200, "{}", list.body);
    let body: serde_json::Value = serde_json::from_str(&list.body).unwrap();
    assert_eq!(body["conversations"], serde_json::json!([]));
    let folder = home.path().join(".local/share/dev.tessera.desktop");
    assert!(folder.is_dir(), "{} was not created", folder.display());
    assert!(
        server.stderr_shows("no model yet", std::time::Duration::from_secs(10)),
        "{}",
        server.stderr()
    );
}

#[cfg(unix)]
#[test]
fn the_data_folder_is_the_persons_only_whatever_the_umask() {
    use std::os::unix::fs::PermissionsExt;
    let data = tempfile::tempdir().unwrap();
    let folder = data.path().join("tessera");
    // A session whose umask lets everyone read everything.
    let mut cmd = Command::new("sh");
    cmd.arg("-c")
        .arg("umask 000; exec \"$0\" \"$@\"")
        .arg(bin())
        .arg("--data-dir")
        .arg(&folder)
        .args(["serve", "--port", "0"])
        .env_remove("TESSERA_TOKEN")
        .env_remove("DBUS_SESSION_BUS_ADDRESS");
    let server = RunningServer::spawn(cmd).unwrap();
    let bearer = format!("Bearer {}", server.token);
    let put = tessera_testkit::http::request_with_body(
        server.port,
        "PUT",
        "/v1/mcp/servers/notes",
        &[
            ("Authorization", &bearer),
            ("Content-Type", "application/json"),
        ],
        r#"{"command": "notes-mcp", "args": ["--stdio"]}"#,
    )
    .unwrap();
    assert_eq!(put.status, 200, "{}", put.body);
    let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode(&folder), 0o700);
    for sub in ["attachments", "backups", "logs/mcp"] {
        assert_eq!(mode(&folder.join(sub)), 0o700, "{sub}");
    }
    for file in [
        "tessera.sqlite",
        "tessera.sqlite-wal",
        "tessera.sqlite-shm",
        "tessera.lock",
        "mcp.json",
    ] {
        assert_eq!(mode(&folder.join(file)), 0o600, "{file}");
    }
}
