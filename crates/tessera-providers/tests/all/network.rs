//! The network settings of a provider, with real components on loopback: a forward proxy that
//! records what it forwards (testkit `proxy`), the scripted provider behind it, and a TLS front
//! whose certificate comes from a throwaway CA made with the `openssl` command line.
//!
//! The system proxy (HTTP_PROXY, NO_PROXY) is process-wide, so it is tested on the real
//! `tessera` binary as a child process: `crates/tessera-server/tests/system_proxy.rs`. Here every
//! client either names its proxy or says `"none"`, whatever the environment holds.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use std::sync::{Arc, Mutex};

use tessera_providers::config::WireKind;
use tessera_providers::keys::Secret;
use tessera_providers::models::list_models;
use tessera_providers::{ProviderClient, ProviderConfig, ProviderError};
use tessera_testkit::proxy::ForwardProxy;
use tessera_testkit::scripted::{Reply, ScriptedProvider};
use tokio::net::{TcpListener, TcpStream};
use tokio_native_tls::native_tls;

fn ids(models: &[tessera_providers::models::ModelInfo]) -> Vec<&str> {
    models.iter().map(|m| m.id.as_str()).collect()
}

// ---------------------------------------------------------------------------------------------
// A proxy per provider

#[tokio::test]
async fn a_proxy_set_for_the_provider_carries_its_calls() {
    let provider = ScriptedProvider::start().await.unwrap();
    provider.set_models(&["m1", "m2"]);
    provider.push(Reply::openai_text("m1", &["through ", "the proxy"]));
    let proxy = ForwardProxy::start().await.unwrap();

    let mut config = common::config(&provider, WireKind::Openai);
    config.proxy = Some(proxy.url());
    let models = list_models(&config, Some(&Secret::new(common::KEY)))
        .await
        .unwrap();
    assert_eq!(ids(&models), ["m1", "m2"]);
    let out = common::run(&common::client(config), common::hello("m1")).await;
    assert_eq!(out.error, None);
    assert_eq!(out.response.text, "through the proxy");

    let port = provider.addr().port();
    assert_eq!(
        proxy.requests(),
        [
            format!("GET http://127.0.0.1:{port}/v1/models HTTP/1.1"),
            format!("POST http://127.0.0.1:{port}/v1/chat/completions HTTP/1.1"),
        ]
    );
    // What the proxy forwarded is what the provider received, key included.
    let call = &provider.calls()[0];
    assert_eq!(
        call.header("authorization"),
        Some(format!("Bearer {}", common::KEY).as_str())
    );
}

#[tokio::test]
async fn proxy_none_goes_direct() {
    let provider = ScriptedProvider::start().await.unwrap();
    provider.push(Reply::openai_text("m", &["direct"]));
    let proxy = ForwardProxy::start().await.unwrap();
    let mut config = common::config(&provider, WireKind::Openai);
    config.proxy = Some("none".into());
    let out = common::run(&common::client(config), common::hello("m")).await;
    assert_eq!(out.response.text, "direct");
    assert!(proxy.requests().is_empty(), "{:?}", proxy.requests());
}

#[tokio::test]
async fn a_proxy_that_is_not_a_url_is_a_config_error() {
    let mut config = ProviderConfig::new("p", WireKind::Openai, "http://127.0.0.1:9/v1");
    config.proxy = Some("http://[not-a-host".into());
    let err = ProviderClient::new(config, Some(Secret::new(common::KEY))).unwrap_err();
    assert_eq!(err.code(), "config_error", "{err}");
    assert!(err.to_string().contains("http://[not-a-host"), "{err}");
}

// ---------------------------------------------------------------------------------------------
// Extra CA certificates

use tessera_testkit::pki::Pki;

fn make_pki() -> Pki {
    Pki::generate().unwrap()
}

/// TLS on 127.0.0.1 in front of `backend`: every connection is decrypted and its bytes copied
/// to and from the backend. Handshake failures are recorded (what the server saw).
struct TlsFront {
    port: u16,
    failed_handshakes: Arc<Mutex<Vec<String>>>,
}

async fn tls_front(pki: &Pki, backend: std::net::SocketAddr) -> TlsFront {
    let cert = std::fs::read(&pki.server_pem).unwrap();
    let key = std::fs::read(&pki.server_key).unwrap();
    let identity = native_tls::Identity::from_pkcs8(&cert, &key).unwrap();
    let acceptor = tokio_native_tls::TlsAcceptor::from(
        native_tls::TlsAcceptor::builder(identity).build().unwrap(),
    );
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    let failed_handshakes = Arc::new(Mutex::new(Vec::new()));
    let failures = Arc::clone(&failed_handshakes);
    tokio::spawn(async move {
        while let Ok((tcp, _)) = listener.accept().await {
            let acceptor = acceptor.clone();
            let failures = Arc::clone(&failures);
            tokio::spawn(async move {
                match acceptor.accept(tcp).await {
                    Ok(mut tls) => {
                        if let Ok(mut plain) = TcpStream::connect(backend).await {
                            let _ = tokio::io::copy_bidirectional(&mut tls, &mut plain).await;
                        }
                    }
                    Err(err) => failures.lock().unwrap().push(err.to_string()),
                }
            });
        }
    });
    TlsFront {
        port,
        failed_handshakes,
    }
}

fn tls_config(host: &str, port: u16) -> ProviderConfig {
    let mut config = ProviderConfig::new(
        "tls-test",
        WireKind::Openai,
        format!("https://{host}:{port}/v1"),
    );
    config.proxy = Some("none".into());
    config.retry.max_retries = 0;
    config
}

#[tokio::test]
async fn a_server_signed_by_an_unknown_ca_is_refused_with_a_certificate_error() {
    let pki = make_pki();
    let provider = ScriptedProvider::start().await.unwrap();
    provider.set_models(&["secure-model"]);
    provider.push(Reply::openai_text("m", &["never"]));
    let front = tls_front(&pki, provider.addr()).await;

    let config = tls_config("127.0.0.1", front.port);
    let err = list_models(&config, Some(&Secret::new(common::KEY)))
        .await
        .unwrap_err();
    assert_eq!(err.code(), "network_error", "{err}");
    assert!(err.to_string().contains("certificate"), "{err}");

    let out = common::run(
        &ProviderClient::new(config, Some(Secret::new(common::KEY))).unwrap(),
        common::hello("m"),
    )
    .await;
    let err = out.error.expect("the call fails");
    assert!(
        matches!(err, ProviderError::Network { .. }),
        "{err:?} ({})",
        err.code()
    );
    assert!(err.to_string().contains("certificate"), "{err}");
    assert!(
        provider.requests().is_empty(),
        "nothing got past the handshake"
    );
    assert!(!front.failed_handshakes.lock().unwrap().is_empty());
}

#[tokio::test]
async fn an_extra_ca_makes_its_server_trusted() {
    let pki = make_pki();
    let provider = ScriptedProvider::start().await.unwrap();
    provider.set_models(&["secure-model"]);
    provider.push(Reply::openai_text("secure-model", &["over ", "TLS"]));
    let front = tls_front(&pki, provider.addr()).await;

    for host in ["127.0.0.1", "localhost"] {
        let mut config = tls_config(host, front.port);
        config.extra_ca_certs = vec![pki.ca_pem.clone()];
        let models = list_models(&config, Some(&Secret::new(common::KEY)))
            .await
            .unwrap();
        assert_eq!(ids(&models), ["secure-model"], "{host}");
    }
    let mut config = tls_config("127.0.0.1", front.port);
    config.extra_ca_certs = vec![pki.ca_pem.clone()];
    let out = common::run(&common::client(config), common::hello("secure-model")).await;
    assert_eq!(out.error, None);
    assert_eq!(out.response.text, "over TLS");
    assert_eq!(provider.calls().len(), 1);
    assert!(front.failed_handshakes.lock().unwrap().is_empty());
}

#[tokio::test]
async fn https_through_a_provider_proxy_is_a_tunnel_to_the_trusted_server() {
    let pki = make_pki();
    let provider = ScriptedProvider::start().await.unwrap();
    provider.set_models(&["tunnelled"]);
    let front = tls_front(&pki, provider.addr()).await;
    let proxy = ForwardProxy::start().await.unwrap();

    let mut config = tls_config("127.0.0.1", front.port);
    config.extra_ca_certs = vec![pki.ca_pem.clone()];
    config.proxy = Some(proxy.url());
    let models = list_models(&config, Some(&Secret::new(common::KEY)))
        .await
        .unwrap();
    assert_eq!(ids(&models), ["tunnelled"]);
    assert_eq!(
        proxy.requests(),
        [format!("CONNECT 127.0.0.1:{} HTTP/1.1", front.port)]
    );
}

#[tokio::test]
async fn a_ca_file_that_is_missing_or_holds_no_pem_is_a_config_error_naming_it() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("no-such-ca.pem");
    let not_pem = dir.path().join("notes.txt");
    std::fs::write(&not_pem, "this is not a certificate\n").unwrap();
    for path in [&missing, &not_pem] {
        let mut config = tls_config("127.0.0.1", 9);
        config.extra_ca_certs = vec![path.clone()];
        let err = ProviderClient::new(config.clone(), Some(Secret::new(common::KEY))).unwrap_err();
        assert_eq!(err.code(), "config_error", "{err}");
        assert!(
            err.to_string().contains(&path.display().to_string()),
            "{err}"
        );
        // Listing models reports the same, before any connection is tried.
        let err = list_models(&config, None).await.unwrap_err();
        assert_eq!(err.code(), "config_error", "{err}");
    }
}

// ---------------------------------------------------------------------------------------------
// A plain-HTTP provider loads no TLS roots

#[tokio::test]
async fn a_plain_http_provider_that_redirects_to_https_is_told_what_to_change() {
    // A server that sends every call on to an https address of its own.
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    tokio::spawn(async move {
        use tokio::io::{AsyncReadExt, AsyncWriteExt};
        while let Ok((mut tcp, _)) = listener.accept().await {
            let mut request = vec![0u8; 65536];
            let _ = tcp.read(&mut request).await;
            let answer = format!(
                "HTTP/1.1 307 Temporary Redirect\r\nlocation: https://127.0.0.1:{port}/v1/chat/completions\r\ncontent-length: 0\r\nconnection: close\r\n\r\n"
            );
            let _ = tcp.write_all(answer.as_bytes()).await;
        }
    });
    let mut config = ProviderConfig::new(
        "plain",
        WireKind::Openai,
        format!("http://127.0.0.1:{port}/v1"),
    );
    config.proxy = Some("none".into());
    config.retry.max_retries = 0;
    let out = common::run(&common::client(config), common::hello("m")).await;
    let error = out.error.expect("the redirect is refused").to_string();
    assert!(
        error.contains(&format!(
            "redirected to https://127.0.0.1:{port}/v1/chat/completions: set its base URL to \
             that https address"
        )),
        "{error}"
    );
}
