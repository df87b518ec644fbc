//! `tessera chat` as a person or a script runs it, against the scripted provider on loopback:
//! plain text, the NDJSON events of the turn ending with `system/done`, what is recorded in the
//! data folder, errors with clear messages, and spending limits that stop a call before it is
//! sent.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::Path;
use std::process::Output;

use serde_json::Value;
use tessera_protocol::easyflow::{Event, EventBody};
use tessera_testkit::scripted::{Reply, ScriptedProvider};

const KEY: &str = "sk-chat-test-9f8e7d6c5b4a";

async fn chat(data: &Path, provider: &ScriptedProvider, args: &[&str]) -> Output {
    crate::support::chat_against(data, provider, KEY)
        .args(args)
        .env("NO_PROXY", "127.0.0.1")
        .output()
        .await
        .unwrap()
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

fn events(out: &Output) -> Vec<Event> {
    text(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}")))
        .collect()
}

/// The NDJSON lines as JSON, checked by the event-order checker.
fn checked(out: &Output) -> Vec<Value> {
    let json: Vec<Value> = text(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(tessera_testkit::event_order::check_run(&json), Ok(()));
    json
}

#[tokio::test(flavor = "multi_thread")]
async fn plain_text_is_the_answer() {
    let provider = ScriptedProvider::start().await.unwrap();
    provider.push(Reply::openai_text("m", &["你好", "，", "world"]));
    let data = tempfile::tempdir().unwrap();
    let out = chat(data.path(), &provider, &["--model", "m", "Say hi"]).await;
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert_eq!(text(&out.stdout), "你好，world\n");
    let sent = &provider.calls()[0];
    assert_eq!(
        sent.header("authorization"),
        Some(format!("Bearer {KEY}").as_str())
    );
    assert_eq!(sent.body["messages"][0]["content"], "Say hi");
    assert_eq!(sent.body["model"], "m");
}

#[tokio::test(flavor = "multi_thread")]
async fn ndjson_events_end_with_done_carrying_usage_and_latency() {
    let provider = ScriptedProvider::start().await.unwrap();
    provider.push(Reply::openai_reasoning(
        "m",
        &["Think", "ing"],
        &["An", "swer"],
    ));
    let data = tempfile::tempdir().unwrap();
    let out = chat(
        data.path(),
        &provider,
        &["--model", "m", "--events", "ndjson", "Q"],
    )
    .await;
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    checked(&out);
    let events = events(&out);
    // Every line is a valid easyflow-chat event of one conversation, seq strictly increasing.
    let conversation = &events[0].conversation_id;
    let mut last = 0;
    for e in &events {
        assert_eq!(&e.conversation_id, conversation);
        assert_eq!(e.protocol, "easyflow-chat");
        let seq = e.meta.as_ref().and_then(|m| m.seq).unwrap();
        assert!(seq > last, "seq {seq} after {last}");
        last = seq;
        let line = serde_json::to_value(e).unwrap();
        let report =
            tessera_protocol::validate::validate(tessera_protocol::DocumentKind::Event, &line);
        assert!(report.is_empty(), "{report:?} in {line}");
    }
    let thinking: String = events
        .iter()
        .filter_map(|e| match &e.body {
            EventBody::LlmThinking(p) => p.delta.clone(),
            _ => None,
        })
        .collect();
    let answer: String = events
        .iter()
        .filter_map(|e| match &e.body {
            EventBody::LlmMessage(p) => p.delta.clone(),
            _ => None,
        })
        .collect();
    assert_eq!((thinking.as_str(), answer.as_str()), ("Thinking", "Answer"));
    let done = events.last().unwrap();
    assert!(matches!(done.body, EventBody::Done(_)), "{done:?}");
    let meta = serde_json::to_value(done.meta.as_ref().unwrap()).unwrap();
    assert_eq!(meta["usage"]["m"]["prompt_tokens"], 20);
    assert_eq!(meta["usage"]["m"]["completion_tokens"], 4);
    assert!(meta["latency_ms"].is_u64());
    assert!(meta["first_token_latency_ms"].is_u64());
    let status: Vec<&str> = events
        .iter()
        .filter_map(|e| match &e.body {
            EventBody::SystemStatus(s) => Some(s.state.as_str()),
            _ => None,
        })
        .collect();
    assert_eq!(status, ["initializing", "running", "completed"]);

    // The turn is in the data folder: the messages, and a model_usage record.
    let export = tokio::process::Command::new(env!("CARGO_BIN_EXE_tessera"))
        .arg("--data-dir")
        .arg(data.path())
        .args(["context", "export", conversation])
        .output()
        .await
        .unwrap();
    let doc: Value = serde_json::from_slice(&export.stdout).unwrap();
    let messages = doc["session"]["messages"].as_array().unwrap();
    assert_eq!(messages[0]["content"], "Q");
    assert_eq!(messages[1]["content"], "Answer");
    let usage = &doc["session"]["model_usage"][0];
    assert_eq!(usage["stage"], "answer");
    assert_eq!(usage["status"], "success");
    assert_eq!(usage["prompt_tokens"], 20);
    assert!(usage["first_token_latency_ms"].is_u64());
}

#[tokio::test(flavor = "multi_thread")]
async fn a_rejected_key_is_a_clear_error_and_exit_1() {
    let provider = ScriptedProvider::start().await.unwrap();
    provider.push(Reply::openai_error(
        401,
        "invalid_api_key",
        "Incorrect API key provided",
    ));
    let data = tempfile::tempdir().unwrap();
    let out = chat(data.path(), &provider, &["--model", "m", "hi"]).await;
    assert_eq!(out.status.code(), Some(1));
    let err = text(&out.stderr);
    assert!(
        err.contains("HTTP 401") && err.contains("Incorrect API key"),
        "{err}"
    );
    assert!(!err.contains(KEY));

    provider.push(Reply::openai_error(401, "invalid_api_key", "bad key"));
    let out = chat(
        data.path(),
        &provider,
        &["--model", "m", "--events", "ndjson", "hi"],
    )
    .await;
    checked(&out);
    let events = events(&out);
    let error = events
        .iter()
        .find_map(|e| match &e.body {
            EventBody::SystemError(p) => Some(p.clone()),
            _ => None,
        })
        .unwrap();
    assert_eq!(error.code, "auth_failed");
    assert_eq!(error.retryable, Some(false));
    assert!(matches!(events.last().unwrap().body, EventBody::Done(_)));
}

#[tokio::test(flavor = "multi_thread")]
async fn usage_errors_name_what_is_missing() {
    let provider = ScriptedProvider::start().await.unwrap();
    let data = tempfile::tempdir().unwrap();
    let out = chat(data.path(), &provider, &["hi"]).await;
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).contains("no model"),
        "{}",
        text(&out.stderr)
    );

    let out = tokio::process::Command::new(env!("CARGO_BIN_EXE_tessera"))
        .arg("--data-dir")
        .arg(data.path())
        .args(["chat", "--provider", "nosuch", "hi"])
        .output()
        .await
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = text(&out.stderr);
    assert!(
        err.contains("no provider named nosuch") && err.contains("deepseek"),
        "{err}"
    );

    // A preset with its key variable unset and no keyring: the message says which variable.
    let out = tokio::process::Command::new(env!("CARGO_BIN_EXE_tessera"))
        .arg("--data-dir")
        .arg(data.path())
        .args(["chat", "--provider", "deepseek", "hi"])
        .env_remove("DEEPSEEK_API_KEY")
        .env_remove("TESSERA_DEEPSEEK_API_KEY")
        .env_remove("DBUS_SESSION_BUS_ADDRESS")
        .output()
        .await
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = text(&out.stderr);
    assert!(err.contains("DEEPSEEK_API_KEY"), "{err}");

    // An ad-hoc URL that is not one is refused before any call (not after three retries).
    for (url, says) in [
        ("/d/5/v1", "--base-url `/d/5/v1` is not a URL"),
        (
            "ftp://example.com/v1",
            "must start with http:// or https://",
        ),
    ] {
        let out = tokio::process::Command::new(env!("CARGO_BIN_EXE_tessera"))
            .arg("--data-dir")
            .arg(data.path())
            .args([
                "chat",
                "--kind",
                "openai",
                "--base-url",
                url,
                "--model",
                "m",
            ])
            .arg("hi")
            .env("OPENAI_API_KEY", "k")
            .output()
            .await
            .unwrap();
        assert_eq!(out.status.code(), Some(2));
        let err = text(&out.stderr);
        assert!(err.contains(says), "{err}");
        assert!(!err.contains("retrying"), "{err}");
    }
    assert!(provider.calls().is_empty());
}

#[tokio::test(flavor = "multi_thread")]
async fn a_spending_limit_stops_paid_calls_before_they_are_sent() {
    let provider = ScriptedProvider::start().await.unwrap();
    provider.push(Reply::openai_text("priced", &["paid ", "answer"]));
    provider.push(Reply::openai_text("priced", &["never"]));
    let data = tempfile::tempdir().unwrap();
    {
        // A saved provider whose model has a price (1000 USD per million tokens, so the first
        // answer spends 12*1000/1e6 + 2*1000/1e6 = 0.014 USD).
        let store = tessera_store::Store::open(data.path()).unwrap();
        store
            .set_provider_settings(
                "paid",
                serde_json::json!({
                    "name": "paid", "kind": "openai", "base_url": provider.openai_base(),
                    "default_model": "priced", "proxy": "none",
                    "models": {"priced": {"price": {"input_per_mtok": 1000.0, "output_per_mtok": 1000.0}}}
                }),
            )
            .unwrap();
        store
            .set_app_setting(
                "spending_limits",
                serde_json::json!({"per_conversation_usd": 0.01}),
            )
            .unwrap();
    }
    let run = |args: Vec<String>| {
        let data = data.path().to_owned();
        async move {
            tokio::process::Command::new(env!("CARGO_BIN_EXE_tessera"))
                .arg("--data-dir")
                .arg(&data)
                .args(["chat", "--provider", "paid", "--events", "ndjson"])
                .args(&args)
                .env("TESSERA_PAID_API_KEY", KEY)
                .output()
                .await
                .unwrap()
        }
    };
    let out = run(vec!["first".into()]).await;
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    checked(&out);
    let first = events(&out);
    let conversation = first[0].conversation_id.clone();
    let done = serde_json::to_value(first.last().unwrap().meta.as_ref().unwrap()).unwrap();
    assert_eq!(done["usage"]["priced"]["estimated_cost_usd"], 0.014);

    // The conversation has spent more than its limit: the next call is refused unsent.
    let out = run(vec!["--conversation".into(), conversation, "second".into()]).await;
    assert_eq!(out.status.code(), Some(1));
    checked(&out);
    // A business rule's refusal (seed 002 §9): business/error with its upper-case code.
    let error = events(&out)
        .iter()
        .find_map(|e| match &e.body {
            EventBody::BusinessError(p) => Some(p.clone()),
            _ => None,
        })
        .unwrap();
    assert_eq!(error.code, "SPENDING_LIMIT_REACHED");
    assert_eq!(error.extra["provider_code"], "spending_limit");
    assert!(error.message.contains("0.01"), "{}", error.message);
    assert!(!events(&out)
        .iter()
        .any(|e| matches!(e.body, EventBody::SystemError(_))));
    assert_eq!(provider.calls().len(), 1, "the second call was never sent");
}
