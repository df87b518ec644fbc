//! A message longer than the model's window, and runs that end in an error, through the real
//! `tessera serve` and `tessera chat` with the scripted provider (issue 48):
//!
//! - a message that cannot fit the model's window even alone is refused before its run starts,
//!   naming the tokens it needs and the window (`MESSAGE_TOO_LONG`), on `/v1/messages` (JSON
//!   and SSE alike) and in `tessera chat`: nothing is stored, the model is not called;
//! - a run that fails once begun (here: the message fits alone, not with the request's system
//!   text) stores `system/error`, `failed` and `done`, and its stream ends;
//! - seed 001 §9.1/§9.3: a rate-limited call is retried once, then fails; a provider's
//!   settings may ask for more retries.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::support;

use std::path::Path;
use std::time::Duration;

use serde_json::{json, Value};
use support::api::{mcp_message, Api};
use tessera_testkit::scripted::{Reply, ScriptedProvider};

/// Saves the scripted provider as `local` (model `m`) with `more` merged into its settings.
fn save_provider(data: &Path, provider: &ScriptedProvider, more: Value) {
    let mut settings = json!({"name": "local", "kind": "openai",
        "base_url": provider.openai_base(), "requires_key": false,
        "default_model": "m", "proxy": "none"});
    if let (Some(base), Some(more)) = (settings.as_object_mut(), more.as_object()) {
        base.extend(more.clone());
    }
    tessera_store::Store::open(data)
        .unwrap()
        .set_provider_settings("local", settings)
        .unwrap();
}

/// A server over `provider` whose model `m` has a window of `window` tokens.
fn serve_with_window(data: &Path, provider: &ScriptedProvider, window: u64) -> Api {
    save_provider(
        data,
        provider,
        json!({"models": {"m": {"context_window": window}}}),
    );
    Api::start(support::serve_local(data, false))
}

/// About one token a word: `n` words of plain English.
fn words(n: usize) -> String {
    let sentence = [
        "the", "quick", "brown", "fox", "jumps", "over", "a", "lazy", "dog",
    ];
    (0..n)
        .map(|i| sentence[i % sentence.len()])
        .collect::<Vec<_>>()
        .join(" ")
}

#[tokio::test(flavor = "multi_thread")]
async fn a_message_past_a_small_window_is_refused_before_its_run_naming_the_window() {
    let provider = ScriptedProvider::start().await.unwrap();
    let data = tempfile::tempdir().unwrap();
    let api = serve_with_window(data.path(), &provider, 8192);
    // ~12k tokens against an 8k window (4k of it kept for the answer).
    let long = words(12_000);
    let refused = api
        .post(
            "/messages",
            &mcp_message("too_long", "USER_INPUT", json!({"text": long})),
        )
        .await;
    let message = refused.error(400, "MESSAGE_TOO_LONG");
    assert!(message.contains("the message needs ~"), "{message}");
    assert!(
        message.contains("the model's window is 8192 tokens"),
        "{message}"
    );
    let needed: u64 = message
        .split('~')
        .nth(1)
        .and_then(|rest| rest.split(' ').next())
        .and_then(|n| n.parse().ok())
        .unwrap();
    assert!((11_000..=13_000).contains(&needed), "{message}");

    // The same on the event-stream answer: refused before any stream starts.
    let streamed = support::stream::http()
        .post(format!("{}/v1/messages", api.server.base))
        .bearer_auth(&api.server.token)
        .header("accept", "text/event-stream")
        .json(&mcp_message(
            "too_long",
            "USER_INPUT",
            json!({"text": words(12_000)}),
        ))
        .send()
        .await
        .unwrap();
    let streamed = support::api::Answer::read(streamed).await;
    streamed.error(400, "MESSAGE_TOO_LONG");

    // Nothing was stored and the model was never called.
    api.get("/conversations/too_long")
        .await
        .error(404, "NOT_FOUND");
    assert!(provider.calls().is_empty());

    // A message that fits is answered as usual.
    provider.push(Reply::openai_text("m", &["Short and answered."]));
    let answered = api
        .post(
            "/messages",
            &mcp_message("too_long", "USER_INPUT", json!({"text": words(500)})),
        )
        .await;
    assert_eq!(
        answered.ok(200)["content"]["text"],
        "Short and answered.",
        "{}",
        answered.text
    );
}

/// The case: 1 MB of text against a 120k-token window, refused at once.
#[tokio::test(flavor = "multi_thread")]
async fn a_megabyte_against_a_120k_window_is_refused_not_left_waiting() {
    let provider = ScriptedProvider::start().await.unwrap();
    let data = tempfile::tempdir().unwrap();
    let api = serve_with_window(data.path(), &provider, 120_000);
    let megabyte = words(250_000);
    assert!(megabyte.len() >= 1_000_000, "{}", megabyte.len());
    let started = std::time::Instant::now();
    let refused = tokio::time::timeout(
        Duration::from_secs(60),
        api.post(
            "/messages",
            &mcp_message("mega", "USER_INPUT", json!({"text": megabyte})),
        ),
    )
    .await
    .expect("an answer, not a wait for ever");
    let message = refused.error(400, "MESSAGE_TOO_LONG");
    assert!(
        message.contains("the model's window is 120000 tokens"),
        "{message}"
    );
    eprintln!("refused 1 MB in {:?}", started.elapsed());
    assert!(provider.calls().is_empty());
}

/// A run that fails once begun ends as a failed run does: `system/error`, `failed`, `done`
/// (with its token figures), stored and streamed; the waiting client gets the error.
#[tokio::test(flavor = "multi_thread")]
async fn a_run_that_fails_after_it_began_stores_failed_and_done() {
    let provider = ScriptedProvider::start().await.unwrap();
    let data = tempfile::tempdir().unwrap();
    let api = serve_with_window(data.path(), &provider, 4096);
    // Each fits the 2k tokens left for the prompt alone; together they do not.
    let request = json!({
        "model": "m",
        "root_id": "fails_later",
        "resources": [
            {"role": "system", "content": words(1_500)},
            {"role": "user", "content": words(1_500)}
        ],
        "config": {"stream": false},
        "metadata": {"request_id": "req_long", "caller": "suite",
                     "timestamp": "2026-11-23T10:00:00Z"}
    });
    let answer = tokio::time::timeout(Duration::from_secs(60), api.post("/requests", &request))
        .await
        .expect("the run ends, so the request is answered");
    assert_eq!(answer.status, 400, "{}", answer.text);
    assert_eq!(answer.body["status"], "error", "{}", answer.text);
    assert_eq!(
        answer.body["error"]["code"], "MESSAGE_TOO_LONG",
        "{}",
        answer.text
    );
    assert!(provider.calls().is_empty());

    let run_id = answer.body["metadata"]["run_id"].as_str().unwrap();
    let conversation = answer.body["metadata"]["conversation_id"].as_str().unwrap();
    // The stream a client follows ends at the error (seed 002 §14); what comes after it is
    // read from there on.
    let mut events = api.run_events(conversation, 0, run_id).await;
    let error_seq = events.last().unwrap()["meta"]["seq"].as_u64().unwrap();
    let mut rest = support::stream::Stream::follow(&api.server, conversation, error_seq).await;
    rest.read_to_done().await;
    events.extend(rest.data());
    assert_eq!(
        tessera_testkit::event_order::check_run(&events),
        Ok(()),
        "{events:#?}"
    );
    let kinds: Vec<String> = events
        .iter()
        .map(|e| match e["payload"]["state"].as_str() {
            Some(state) => format!("{}:{state}", e["type"].as_str().unwrap()),
            None => e["type"].as_str().unwrap().to_owned(),
        })
        .collect();
    assert_eq!(
        kinds,
        ["status:initializing", "error", "status:failed", "done"],
        "{events:#?}"
    );
    let error = &events[1]["payload"];
    assert_eq!(error["code"], "context_window_exceeded", "{error}");
    assert!(
        error["message"].as_str().unwrap().contains("4096"),
        "{error}"
    );
    let done = &events[3]["meta"];
    assert_eq!(done["prompt_tokens"], 0, "{done}");
    assert_eq!(done["completion_tokens"], 0, "{done}");
    assert!(done["latency_ms"].is_u64(), "{done}");
}

/// `tessera chat` refuses the message the same way, before anything is stored.
#[tokio::test(flavor = "multi_thread")]
async fn the_cli_chat_refuses_a_message_past_the_window() {
    let provider = ScriptedProvider::start().await.unwrap();
    let data = tempfile::tempdir().unwrap();
    save_provider(
        data.path(),
        &provider,
        json!({"models": {"m": {"context_window": 4096}}}),
    );
    let mut cmd = support::tessera(data.path());
    cmd.args(["chat", "--provider", "local"]).arg(words(12_000));
    let out = support::run(cmd).await;
    support::assert_exit(&out, 2);
    let err = support::stderr(&out);
    assert!(err.contains("the message needs ~"), "{err}");
    assert!(err.contains("the model's window is 4096 tokens"), "{err}");
    assert!(provider.calls().is_empty());
    let store = tessera_store::Store::open(data.path()).unwrap();
    assert!(store.conversations(&Default::default()).unwrap().is_empty());
}

/// Seed 001 §9.1/§9.3: a rate-limited call is retried once with backoff (`maxRetries = 1`),
/// then the run fails; a provider's settings may ask for more.
#[tokio::test(flavor = "multi_thread")]
async fn a_rate_limited_call_is_retried_once_unless_the_provider_asks_for_more() {
    let provider = ScriptedProvider::start().await.unwrap();
    for _ in 0..8 {
        provider.push(
            Reply::openai_error(429, "rate_limit_exceeded", "slow down")
                .with_header("retry-after-ms", "20"),
        );
    }
    let data = tempfile::tempdir().unwrap();
    save_provider(data.path(), &provider, json!({}));
    let api = Api::start(support::serve_local(data.path(), false));
    let failed = api
        .post(
            "/messages",
            &mcp_message("limited", "USER_INPUT", json!({"text": "Hello"})),
        )
        .await;
    let message = failed.error(502, "MODEL_ERROR");
    assert!(message.contains("rate_limited"), "{message}");
    assert_eq!(provider.calls().len(), 2, "the call and one retry");
    drop(api);

    // Three retries when the provider's settings say so.
    let data = tempfile::tempdir().unwrap();
    save_provider(
        data.path(),
        &provider,
        json!({"retry": {"max_retries": 3, "base_delay_ms": 10, "max_delay_ms": 100}}),
    );
    let api = Api::start(support::serve_local(data.path(), false));
    let failed = api
        .post(
            "/messages",
            &mcp_message("limited", "USER_INPUT", json!({"text": "Hello"})),
        )
        .await;
    failed.error(502, "MODEL_ERROR");
    assert_eq!(provider.calls().len(), 2 + 4, "the call and three retries");
}
