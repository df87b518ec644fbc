//! Peers that answer without end: a model server, a local model server found on the first-run
//! screen, an MCP server over HTTP. Each sends up to 512 MiB; a real `tessera serve` reads only
//! up to the limit it names in the error, and its memory stays far below what was sent.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::support;

use serde_json::{json, Value};
use support::api::Api;
use tokio::io::{AsyncReadExt, AsyncWriteExt};

/// How much a flood sends at most (it stops earlier when the reader hangs up).
const FLOOD_BYTES: usize = 512 * 1024 * 1024;

/// A server on 127.0.0.1 whose every answer is endless: the first segment of the path picks
/// the kind (`/json/…`: 200 with a JSON body of spaces; `/error/…`: 500 with endless text;
/// `/list/…`: 200 with a model list that never closes). Returns its address.
async fn flood_server() -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move {
        loop {
            let Ok((mut socket, _)) = listener.accept().await else {
                return;
            };
            tokio::spawn(async move {
                let mut head = Vec::new();
                let mut byte = [0u8; 1024];
                while !head.windows(4).any(|w| w == b"\r\n\r\n") && head.len() < 65536 {
                    match socket.read(&mut byte).await {
                        Ok(0) | Err(_) => return,
                        Ok(n) => head.extend_from_slice(&byte[..n]),
                    }
                }
                let head = String::from_utf8_lossy(&head).into_owned();
                let path = head.split_whitespace().nth(1).unwrap_or("/").to_owned();
                let (status, kind, start) = if path.starts_with("/error/") {
                    ("500 Internal Server Error", "text/plain", "")
                } else if path.starts_with("/list/") {
                    ("200 OK", "application/json", r#"{"data":["#)
                } else {
                    ("200 OK", "application/json", "")
                };
                let answer = format!(
                    "HTTP/1.1 {status}\r\nContent-Type: {kind}\r\nConnection: close\r\n\r\n{start}"
                );
                if socket.write_all(answer.as_bytes()).await.is_err() {
                    return;
                }
                let piece = if path.starts_with("/list/") {
                    r#"{"id":"m"},"#.repeat(64 * 1024).into_bytes()
                } else {
                    vec![b' '; 1024 * 1024]
                };
                let mut sent = 0;
                while sent < FLOOD_BYTES {
                    if socket.write_all(&piece).await.is_err() {
                        return;
                    }
                    sent += piece.len();
                }
            });
        }
    });
    format!("http://{addr}")
}

/// `tessera serve` with the provider `flood` at `base_url` (no key, model `m`).
fn serve_against(data: &std::path::Path, base_url: &str) -> Api {
    let store = tessera_store::Store::open(data).unwrap();
    store
        .set_provider_settings(
            "flood",
            json!({"name": "flood", "kind": "openai", "base_url": base_url,
                   "requires_key": false, "default_model": "m", "proxy": "none"}),
        )
        .unwrap();
    drop(store);
    let mut cmd = support::tessera_std(data);
    cmd.args(["serve", "--port", "0", "--provider", "flood"]);
    Api::start(cmd)
}

/// Sends a message and returns the run's `error` (or its `done`, when it ended well).
async fn ask(api: &Api, context: &str) -> Value {
    let mut stream = api
        .open_sse(
            "/messages",
            Some(&support::api::user_input_message(context, "hello")),
        )
        .await;
    let end = stream
        .until(|e| e["type"] == "error" || e["type"] == "done")
        .await;
    end.unwrap_or_else(|| panic!("the run ends: {:?}", stream.events))
}

/// What a person may let Tessera hold beyond its own working set while one peer floods it.
const PEAK_LIMIT_MIB: u64 = 200;

#[tokio::test(flavor = "multi_thread")]
async fn a_model_server_answering_without_end_is_cut_at_the_limit() {
    let flood = flood_server().await;

    // A whole answer (no event stream) that never ends.
    let data = tempfile::tempdir().unwrap();
    let api = serve_against(data.path(), &format!("{flood}/json/v1"));
    let done = ask(&api, "ctx_whole").await;
    let said = done.to_string();
    assert!(
        said.contains("the answer passed 16 MiB (16777216 bytes)"),
        "{said}"
    );
    let peak = support::peak_mib(api.server.pid());
    eprintln!("whole answer: peak {peak} MiB while 512 MiB were offered");
    assert!(peak < PEAK_LIMIT_MIB, "peak {peak} MiB");

    // The model list the settings page and the first-run screen read.
    let listed = api.get("/providers/flood/models").await;
    assert!(
        listed.text.contains("the model list passed 8 MiB"),
        "{}",
        listed.text
    );

    // An error whose body never ends: the error arrives, read from its start only.
    let data = tempfile::tempdir().unwrap();
    let api = serve_against(data.path(), &format!("{flood}/error/v1"));
    let done = ask(&api, "ctx_error").await;
    assert!(done.to_string().contains("500"), "{done}");
    let peak = support::peak_mib(api.server.pid());
    eprintln!("error body: peak {peak} MiB while 512 MiB were offered");
    assert!(peak < PEAK_LIMIT_MIB, "peak {peak} MiB");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_local_model_server_found_on_the_first_run_screen_cannot_flood_it() {
    let flood = flood_server().await;
    let data = tempfile::tempdir().unwrap();
    // What a person runs to find a model server at an address; LM Studio's list never ends.
    let out = support::run({
        let mut cmd = support::tessera(data.path());
        cmd.args(["provider", "detect", "--url", &format!("{flood}/list")]);
        cmd
    })
    .await;
    let said = format!("{}{}", support::stdout(&out), support::stderr(&out));
    assert!(!said.contains("found LM Studio"), "{said}");
}

#[tokio::test(flavor = "multi_thread")]
async fn an_mcp_server_over_http_answering_without_end_is_cut_at_the_limit() {
    let flood = flood_server().await;
    let data = tempfile::tempdir().unwrap();
    support::mcp::write_config(
        data.path(),
        json!({"remote": {"type": "http", "url": format!("{flood}/json/mcp")}}),
    );
    let provider = tessera_testkit::scripted::ScriptedProvider::start()
        .await
        .unwrap();
    let api = Api::start(support::serve_scripted(data.path(), &provider, false));
    let servers = api.get("/mcp/servers?connect=1").await;
    let said = servers.text;
    assert!(said.contains("16777216 bytes"), "{said}");
    let peak = support::peak_mib(api.server.pid());
    eprintln!("MCP over HTTP: peak {peak} MiB while 512 MiB were offered");
    assert!(peak < PEAK_LIMIT_MIB, "peak {peak} MiB");
}
