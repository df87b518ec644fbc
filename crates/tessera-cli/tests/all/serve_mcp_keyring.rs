//! An MCP server's secret with the real OS keyring: gnome-keyring's Secret Service in the
//! private D-Bus session of `scripts/with-keyring.sh` (`make test-keyring`). Anywhere else it
//! skips, saying so on stderr: it would be writing to the person's own keyring.
//!
//! A token pasted in a server's `env` goes to the keyring (another program reads it there),
//! never to `mcp.json`, an answer or the server's log; the server gets it in its environment,
//! and gets none of Tessera's own variables; `${keyring}` keeps it through an edit; removing
//! the server removes it.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::support;

use serde_json::json;
use support::api::Api;
use support::mcp::{everything, tool_message};
use support::stream::Stream;
use support::{save_scripted_provider, tessera_std_with_keyring};
use tessera_testkit::keyring::{secret_tool_lookup, should_run};
use tessera_testkit::scripted::{Reply, ScriptedProvider};

const SUITE: &str = "MCP keyring tests";

#[tokio::test(flavor = "multi_thread")]
async fn a_server_secret_lives_in_the_keyring_and_reaches_only_the_server() {
    if !should_run(SUITE) {
        return;
    }
    let secret = format!("mcp-token-{}-5e6f7a8b", std::process::id());
    let api_token = format!("tessera-api-token-{:0>24}", std::process::id());
    let provider = ScriptedProvider::start().await.unwrap();
    let data = tempfile::tempdir().unwrap();
    save_scripted_provider(data.path(), &provider);
    let mut cmd = tessera_std_with_keyring(data.path());
    cmd.args(["serve", "--port", "0", "--provider", "local"])
        .env("TESSERA_TOKEN", &api_token);
    let api = Api::start(cmd);

    let mut entry = everything();
    entry["env"] = json!({"MCP_API_TOKEN": secret, "PLAIN_SETTING": "visible"});
    let put = api.put("/mcp/servers/everything", &entry).await;
    let view = put.ok(200).clone();
    assert!(!put.text.contains(&secret), "{}", put.text);
    assert_eq!(view["secrets"], json!(["MCP_API_TOKEN"]));
    assert_eq!(view["config"]["env"]["MCP_API_TOKEN"], "${keyring}");
    let file = std::fs::read_to_string(data.path().join("mcp.json")).unwrap();
    assert!(
        !file.contains(&secret) && file.contains("${keyring}"),
        "{file}"
    );
    let account = "mcp/everything/env/MCP_API_TOKEN";
    assert_eq!(
        secret_tool_lookup(account).unwrap().as_deref(),
        Some(secret.as_str())
    );

    provider.push(Reply::openai_tool_calls(
        "m",
        &[("c_env", "everything__get-env", &["{}"])],
    ));
    provider.push(Reply::openai_text("m", &["Seen."]));
    Stream::post(&api.server, "ctx_env", "show the env")
        .await
        .read_to_done()
        .await;
    let env = tool_message(&provider, 1, "c_env");
    assert!(
        env.contains(&secret) && env.contains("PLAIN_SETTING"),
        "{env}"
    );
    assert!(
        !env.contains(&api_token),
        "Tessera's token reached the server: {env}"
    );

    let log = std::fs::read_to_string(data.path().join("logs/mcp/everything.log")).unwrap();
    assert!(!log.contains(&secret), "{log}");

    // An edit that keeps the mark keeps the secret.
    entry["env"] = json!({"MCP_API_TOKEN": "${keyring}", "PLAIN_SETTING": "changed"});
    api.put("/mcp/servers/everything", &entry).await.ok(200);
    assert_eq!(
        secret_tool_lookup(account).unwrap().as_deref(),
        Some(secret.as_str())
    );

    api.delete("/mcp/servers/everything").await.ok(204);
    assert_eq!(secret_tool_lookup(account).unwrap(), None);
}

#[tokio::test(flavor = "multi_thread")]
async fn a_secret_argument_reaches_the_server_and_no_record_of_its_identity() {
    if !should_run(SUITE) {
        return;
    }
    let secret = format!("ghp_{}0123456789abcdef", std::process::id());
    let provider = ScriptedProvider::start().await.unwrap();
    let data = tempfile::tempdir().unwrap();
    save_scripted_provider(data.path(), &provider);
    // Ending the server changes something: allowed beforehand, it runs without asking.
    tessera_store::Store::open(data.path())
        .unwrap()
        .grant_consent("flaky__exit_now", tessera_store::ConsentScope::Always, None)
        .unwrap();
    let mut cmd = tessera_std_with_keyring(data.path());
    cmd.args(["serve", "--port", "0", "--provider", "local"]);
    let api = Api::start(cmd);

    let seen = data.path().join("args-seen.json");
    let mut entry = support::mcp::own_server("flaky.mjs");
    entry["args"]
        .as_array_mut()
        .unwrap()
        .extend([json!("--token"), json!(secret)]);
    entry["env"] = json!({"ARGS_FILE": seen});
    let put = api.put("/mcp/servers/flaky", &entry).await;
    let view = put.ok(200).clone();
    assert!(!put.text.contains(&secret), "{}", put.text);
    assert_eq!(view["secrets"], json!(["args[2]"]));
    assert!(
        view["uri"]
            .as_str()
            .unwrap()
            .ends_with("--token [redacted]"),
        "{view}"
    );
    let file = std::fs::read_to_string(data.path().join("mcp.json")).unwrap();
    assert!(
        !file.contains(&secret) && file.contains("${keyring}"),
        "{file}"
    );
    assert_eq!(
        secret_tool_lookup("mcp/flaky/arg/2").unwrap().as_deref(),
        Some(secret.as_str())
    );

    provider.push(Reply::openai_tool_calls(
        "m",
        &[("c_exit", "flaky__exit_now", &["{}"])],
    ));
    provider.push(Reply::openai_text("m", &["Stopped."]));
    Stream::post(&api.server, "ctx_args", "stop the server")
        .await
        .read_to_done()
        .await;
    // The server got the real argument.
    let args = std::fs::read_to_string(&seen).unwrap();
    assert!(args.contains(&secret), "{args}");
    // Nothing that names the server keeps it: events, the exported conversation, the log.
    let events = api.get("/conversations/ctx_args/events").await;
    assert!(
        events.text.contains("flaky.mjs --token [redacted]"),
        "{}",
        events.text
    );
    assert!(!events.text.contains(&secret));
    for format in ["context", "messages", "markdown"] {
        let export = api
            .get(&format!("/conversations/ctx_args/export?format={format}"))
            .await;
        assert_eq!(export.status, 200, "{}", export.text);
        assert!(!export.text.contains(&secret), "{format}: {}", export.text);
    }
    let log = std::fs::read_to_string(data.path().join("logs/mcp/flaky.log")).unwrap();
    assert!(!log.contains(&secret), "{log}");
    assert!(log.contains("[redacted]"), "{log}");
}
