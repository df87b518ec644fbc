//! `tessera serve --addr HOST:PORT` and `--allow-remote`, as real processes: loopback unless
//! asked, a clear refusal otherwise; reachable on every address with it, where a request must
//! still name the address it reached (Host), come from that very origin (Origin) and carry the
//! token.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::support;

use std::net::{IpAddr, UdpSocket};
use std::process::Command;
use std::time::Duration;

use reqwest::StatusCode;
use support::tessera_std;
use tessera_testkit::server::RunningServer;

fn http() -> reqwest::Client {
    reqwest::Client::builder().no_proxy().build().unwrap()
}

/// `tessera --data-dir DATA serve ARGS` (no --port: --addr replaces it).
fn serve(data: &tempfile::TempDir, args: &[&str]) -> Command {
    let mut cmd = tessera_std(data.path());
    cmd.arg("serve").args(args);
    cmd
}

/// GET `/api/v1/version` at `ip:port` (the URL names it, so Host does too).
async fn version(
    ip: &str,
    port: u16,
    token: Option<&str>,
    origin: Option<&str>,
) -> reqwest::Response {
    let mut request = http().get(format!("http://{ip}:{port}/api/v1/version"));
    if let Some(token) = token {
        request = request.bearer_auth(token);
    }
    if let Some(origin) = origin {
        request = request.header("origin", origin);
    }
    request.send().await.unwrap()
}

/// An address of this machine that is not loopback, if it has one (no packet is sent: a UDP
/// socket only picks the interface a route would use).
fn lan_ip() -> Option<IpAddr> {
    let socket = UdpSocket::bind("0.0.0.0:0").ok()?;
    socket.connect("192.0.2.1:9").ok()?;
    let ip = socket.local_addr().ok()?.ip();
    (!ip.is_loopback() && !ip.is_unspecified()).then_some(ip)
}

#[test]
fn addr_binds_loopback_and_a_network_address_needs_allow_remote() {
    let data = tempfile::tempdir().unwrap();
    let server = RunningServer::spawn(serve(&data, &["--addr", "127.0.0.1:0"])).unwrap();
    assert!(server.base.starts_with("http://127.0.0.1:"));
    assert!(!server.stderr().contains("reachable from the network"));
    drop(server);

    let out = serve(&data, &["--addr", "0.0.0.0:0"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("refusing to listen on 0.0.0.0") && stderr.contains("--allow-remote"),
        "{stderr}"
    );
    assert!(out.stdout.is_empty(), "no URL for a refused address");

    // --addr replaces --host and --port; giving both is a usage error.
    let out = serve(&data, &["--addr", "127.0.0.1:0", "--port", "0"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("cannot be used with"));
    let out = serve(&data, &["--addr", "example.com:80"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("HOST:PORT"));
}

#[tokio::test(flavor = "multi_thread")]
async fn allow_remote_warns_and_still_checks_host_origin_and_token() {
    let data = tempfile::tempdir().unwrap();
    let server =
        RunningServer::spawn(serve(&data, &["--addr", "0.0.0.0:0", "--allow-remote"])).unwrap();
    // The URL printed is the one for a browser on this machine.
    assert!(
        server.base.starts_with("http://127.0.0.1:"),
        "{}",
        server.base
    );
    let port = server.port;
    let token = server.token.as_str();
    assert!(
        server.stderr_shows("reachable from the network", Duration::from_secs(10)),
        "{}",
        server.stderr()
    );

    let ok = version("127.0.0.1", port, Some(token), None).await;
    assert_eq!(ok.status(), StatusCode::OK);
    let no_token = version("127.0.0.1", port, None, None).await;
    assert_eq!(no_token.status(), StatusCode::UNAUTHORIZED);
    let wrong = version("127.0.0.1", port, Some("not-the-token"), None).await;
    assert_eq!(wrong.status(), StatusCode::UNAUTHORIZED);

    // Another address of this machine (127.0.0.2 reaches the same socket): its Host is honest,
    // and a page served from it may call the API; a page from anywhere else may not.
    let here = format!("http://127.0.0.2:{port}");
    let other = version("127.0.0.2", port, Some(token), Some(&here)).await;
    assert_eq!(other.status(), StatusCode::OK);
    for origin in [
        "http://evil.example",
        "https://127.0.0.2",
        &format!("http://127.0.0.1:{port}"),
    ] {
        let foreign = version("127.0.0.2", port, Some(token), Some(origin)).await;
        assert_eq!(foreign.status(), StatusCode::FORBIDDEN, "Origin {origin}");
        let body: serde_json::Value = foreign.json().await.unwrap();
        assert_eq!(body["error"]["code"], "BAD_ORIGIN");
    }

    // A name the server does not answer to (DNS rebinding) is refused before the token is read.
    let rebinding = tessera_testkit::http::request(
        port,
        "GET",
        "/api/v1/version",
        &[
            ("Host", &format!("attacker.example:{port}")),
            ("Authorization", &format!("Bearer {token}")),
        ],
    )
    .unwrap();
    assert_eq!(rebinding.status, 421);
    // An address of this machine, but not the one the connection reached.
    let misnamed = tessera_testkit::http::request(
        port,
        "GET",
        "/api/v1/version",
        &[
            ("Host", &format!("127.0.0.2:{port}")),
            ("Authorization", &format!("Bearer {token}")),
        ],
    )
    .unwrap();
    assert_eq!(misnamed.status, 421);

    // And over a real network interface, when this machine has one.
    if let Some(ip) = lan_ip() {
        let shown = match ip {
            IpAddr::V4(ip) => ip.to_string(),
            IpAddr::V6(ip) => format!("[{ip}]"),
        };
        let origin = format!("http://{shown}:{port}");
        let lan = version(&shown, port, Some(token), Some(&origin)).await;
        assert_eq!(lan.status(), StatusCode::OK, "over {shown}");
        let foreign = version(&shown, port, Some(token), Some("http://evil.example")).await;
        assert_eq!(foreign.status(), StatusCode::FORBIDDEN);
    } else {
        eprintln!("no non-loopback address on this machine: the LAN part was not run");
    }
}

#[test]
fn allow_remote_on_loopback_says_nothing_about_the_network() {
    let data = tempfile::tempdir().unwrap();
    let server =
        RunningServer::spawn(serve(&data, &["--addr", "127.0.0.1:0", "--allow-remote"])).unwrap();
    assert!(!server.stderr().contains("reachable from the network"));
}
