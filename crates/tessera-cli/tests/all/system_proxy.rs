//! The system proxy settings (HTTP_PROXY, NO_PROXY) and a provider's own proxy, on the real
//! `tessera` binary: environment variables are process-wide, so each case is its own child
//! process. The proxy is testkit's forward proxy, which records the request lines it forwards.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::support;

use std::path::Path;
use std::process::Output;

use support::{assert_exit, run, stdout, tessera};
use tessera_testkit::proxy::ForwardProxy;
use tessera_testkit::scripted::{Reply, ScriptedProvider};

const KEY: &str = "sk-proxy-test-0a1b2c3d4e5f";

async fn chat(data: &Path, scripted: &ScriptedProvider, env: &[(&str, &str)]) -> Output {
    let mut cmd = tessera(data);
    cmd.args([
        "chat",
        "--kind",
        "openai",
        "--base-url",
        &scripted.openai_base(),
        "--model",
        "m",
        "hello",
    ])
    .env("OPENAI_API_KEY", KEY)
    .envs(env.iter().copied());
    run(cmd).await
}

#[tokio::test(flavor = "multi_thread")]
async fn chat_goes_through_the_system_proxy_unless_no_proxy_names_the_host() {
    let scripted = ScriptedProvider::start().await.unwrap();
    let proxy = ForwardProxy::start().await.unwrap();
    let data = tempfile::tempdir().unwrap();
    let port = scripted.addr().port();

    scripted.push(Reply::openai_text("m", &["via ", "proxy"]));
    let out = chat(data.path(), &scripted, &[("HTTP_PROXY", &proxy.url())]).await;
    assert_exit(&out, 0);
    assert_eq!(stdout(&out), "via proxy\n");
    assert_eq!(
        proxy.requests(),
        [format!(
            "POST http://127.0.0.1:{port}/v1/chat/completions HTTP/1.1"
        )]
    );
    assert_eq!(
        scripted.calls()[0].header("authorization"),
        Some(format!("Bearer {KEY}").as_str())
    );

    // NO_PROXY names the host: straight there, the proxy sees nothing more.
    scripted.push(Reply::openai_text("m", &["direct"]));
    let out = chat(
        data.path(),
        &scripted,
        &[("HTTP_PROXY", &proxy.url()), ("NO_PROXY", "127.0.0.1")],
    )
    .await;
    assert_exit(&out, 0);
    assert_eq!(stdout(&out), "direct\n");
    assert_eq!(proxy.requests().len(), 1, "{:?}", proxy.requests());
    assert_eq!(scripted.calls().len(), 2);
}

#[tokio::test(flavor = "multi_thread")]
async fn a_provider_proxy_of_none_ignores_the_system_proxy_and_its_own_proxy_is_used() {
    let scripted = ScriptedProvider::start().await.unwrap();
    scripted.set_models(&["m"]);
    let system = ForwardProxy::start().await.unwrap();
    let own = ForwardProxy::start().await.unwrap();
    let data = tempfile::tempdir().unwrap();
    let base = scripted.openai_base();
    let port = scripted.addr().port();
    let add = |name: &'static str, proxy: String| {
        let mut cmd = tessera(data.path());
        cmd.args([
            "provider",
            "add",
            name,
            "--kind",
            "openai",
            "--base-url",
            &base,
            "--default-model",
            "m",
            "--no-key",
            "--proxy",
            &proxy,
        ]);
        run(cmd)
    };
    assert_exit(&add("direct", "none".into()).await, 0);
    assert_exit(&add("proxied", own.url()).await, 0);
    let with_system_proxy = |args: &[&str]| {
        let mut cmd = tessera(data.path());
        cmd.args(args).env("HTTP_PROXY", system.url());
        run(cmd)
    };

    // "none": direct, though HTTP_PROXY is set.
    let out = with_system_proxy(&["provider", "models", "direct"]).await;
    assert_exit(&out, 0);
    assert_eq!(stdout(&out), "m\n");
    scripted.push(Reply::openai_text("m", &["no proxy"]));
    let out = with_system_proxy(&["chat", "--provider", "direct", "hi"]).await;
    assert_exit(&out, 0);
    assert_eq!(stdout(&out), "no proxy\n");
    assert!(system.requests().is_empty(), "{:?}", system.requests());

    // Its own proxy: that one, not the system's.
    scripted.push(Reply::openai_text("m", &["own proxy"]));
    let out = with_system_proxy(&["chat", "--provider", "proxied", "hi"]).await;
    assert_exit(&out, 0);
    assert_eq!(stdout(&out), "own proxy\n");
    assert_eq!(
        own.requests(),
        [format!(
            "POST http://127.0.0.1:{port}/v1/chat/completions HTTP/1.1"
        )]
    );
    assert!(system.requests().is_empty(), "{:?}", system.requests());
}
