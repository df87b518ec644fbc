//! Retries, fallback, timeouts, cancellation and broken streams, against the scripted provider
//! over real HTTP.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use std::time::Duration;

use tessera_protocol::mcp_cp::FinishReason;
use tessera_providers::config::WireKind;
use tessera_providers::stream::StreamItem;
use tessera_providers::ProviderError;
use tessera_testkit::scripted::{Gate, Reply, ScriptedProvider, Step};
use tokio_util::sync::CancellationToken;

#[tokio::test]
async fn a_429_is_retried_after_the_wait_the_provider_asked_for() {
    let provider = ScriptedProvider::start().await.unwrap();
    provider.push(
        Reply::openai_error(429, "rate_limit_exceeded", "slow down")
            .with_header("retry-after-ms", "30"),
    );
    provider.push(Reply::openai_text("m", &["Hel", "lo"]));
    let client = common::client(common::config(&provider, WireKind::Openai));
    let o = common::run(&client, common::hello("m")).await;
    assert!(o.error.is_none(), "{:?}", o.error);
    assert_eq!(o.response.text, "Hello");
    let retry = o
        .items
        .iter()
        .find_map(|i| match i {
            StreamItem::Retrying {
                attempt,
                delay_ms,
                code,
                ..
            } => Some((*attempt, *delay_ms, code.to_string())),
            _ => None,
        })
        .expect("a retry was announced");
    assert_eq!(retry, (1, 30, "rate_limited".to_owned()));
    assert_eq!(provider.calls().len(), 2);
}

#[tokio::test]
async fn server_errors_are_retried_with_backoff_until_the_limit() {
    let provider = ScriptedProvider::start().await.unwrap();
    for _ in 0..3 {
        provider.push(Reply::openai_error(502, "bad_gateway", "upstream down"));
    }
    let mut config = common::config(&provider, WireKind::Openai);
    config.retry.max_retries = 2;
    let client = common::client(config);
    let o = common::run(&client, common::hello("m")).await;
    let err = o.error.clone().expect("fails after the retries");
    assert_eq!(err.code(), "provider_unavailable");
    assert_eq!(provider.calls().len(), 3, "first attempt + 2 retries");
    assert_eq!(o.count(|i| matches!(i, StreamItem::Retrying { .. })), 2);
}

#[tokio::test]
async fn a_client_error_is_not_retried() {
    let provider = ScriptedProvider::start().await.unwrap();
    provider.push(Reply::openai_error(
        400,
        "invalid_request_error",
        "bad tool schema",
    ));
    let client = common::client(common::config(&provider, WireKind::Openai));
    let o = common::run(&client, common::hello("m")).await;
    let err = o.error.expect("an error");
    assert_eq!(err.code(), "bad_request");
    assert!(err.to_string().contains("bad tool schema"), "{err}");
    assert_eq!(provider.calls().len(), 1);
}

#[tokio::test]
async fn overload_switches_to_the_fallback_model() {
    let provider = ScriptedProvider::start().await.unwrap();
    provider.push(Reply::anthropic_error(
        529,
        "overloaded_error",
        "Overloaded",
    ));
    provider.push(Reply::anthropic_text("claude-haiku", &["Fine", "."]));
    let mut config = common::config(&provider, WireKind::Anthropic);
    config.fallback_model = Some("claude-haiku".into());
    let client = common::client(config);
    let o = common::run(&client, common::hello("claude-sonnet")).await;
    assert!(o.error.is_none(), "{:?}", o.error);
    assert_eq!(o.response.text, "Fine.");
    assert!(o.items.contains(&StreamItem::FallbackModel {
        from: "claude-sonnet".into(),
        to: "claude-haiku".into()
    }));
    let calls = provider.calls();
    assert_eq!(calls[0].body["model"], "claude-sonnet");
    assert_eq!(calls[1].body["model"], "claude-haiku");
}

#[tokio::test]
async fn an_overloaded_error_event_before_any_output_also_falls_back() {
    let provider = ScriptedProvider::start().await.unwrap();
    provider.push(Reply::sse(vec![
        Step::Raw(format!(
            "event: message_start\ndata: {}\n\n",
            tessera_testkit::scripted::anthropic_start("big", 5)
        )),
        Step::Raw("event: error\ndata: {\"type\":\"error\",\"error\":{\"type\":\"overloaded_error\",\"message\":\"Overloaded\"}}\n\n".into()),
    ]));
    provider.push(Reply::anthropic_text("small", &["ok"]));
    let mut config = common::config(&provider, WireKind::Anthropic);
    config.fallback_model = Some("small".into());
    let client = common::client(config);
    let o = common::run(&client, common::hello("big")).await;
    assert!(o.error.is_none(), "{:?}", o.error);
    assert_eq!(o.response.text, "ok");
    assert_eq!(o.response.model.as_deref(), Some("small"));
}

#[tokio::test]
async fn an_error_event_after_output_ends_the_stream_and_keeps_the_partial_answer() {
    let provider = ScriptedProvider::start().await.unwrap();
    let reply = Reply::anthropic_text("m", &["Part", "ial", " answer", " never seen"]);
    // After the third text delta: message_start, block start, ping, 3 deltas = 6 steps.
    let reply = reply.insert_step(
        6,
        Step::Raw("event: error\ndata: {\"type\":\"error\",\"error\":{\"type\":\"overloaded_error\",\"message\":\"Overloaded\"}}\n\n".into()),
    );
    provider.push(reply);
    let mut config = common::config(&provider, WireKind::Anthropic);
    config.fallback_model = Some("other".into());
    let client = common::client(config);
    let o = common::run(&client, common::hello("m")).await;
    let err = o.error.expect("the error is surfaced");
    assert_eq!(err.code(), "overloaded");
    assert_eq!(o.response.text, "Partial answer");
    assert_eq!(
        provider.calls().len(),
        1,
        "never retried once output started"
    );
}

#[tokio::test]
async fn a_connection_reset_mid_stream_keeps_what_arrived() {
    let provider = ScriptedProvider::start().await.unwrap();
    let full = Reply::openai_text("m", &["one ", "two ", "three ", "four"]);
    // Each chunk is a few hundred bytes; cut inside the fourth event.
    let steps_len = full.step_lengths();
    let cut = steps_len[..3].iter().sum::<usize>() + 20;
    provider.push(full.reset_after_bytes(cut));
    let client = common::client(common::config(&provider, WireKind::Openai));
    let o = common::run(&client, common::hello("m")).await;
    let err = o.error.expect("the break is reported");
    assert_eq!(err.code(), "network_error", "{err}");
    assert_eq!(o.response.text, "one two ");
    assert_eq!(provider.calls().len(), 1);
}

#[tokio::test]
async fn a_reset_before_any_output_is_retried() {
    let provider = ScriptedProvider::start().await.unwrap();
    provider.push(Reply::openai_text("m", &["x"]).reset_after_bytes(10));
    provider.push(Reply::openai_text("m", &["fine"]));
    let client = common::client(common::config(&provider, WireKind::Openai));
    let o = common::run(&client, common::hello("m")).await;
    assert!(o.error.is_none(), "{:?}", o.error);
    assert_eq!(o.response.text, "fine");
    assert_eq!(provider.calls().len(), 2);
}

#[tokio::test]
async fn a_stream_slower_than_the_timer_checks_but_never_idle_that_long_is_not_cut() {
    // Events 120 ms apart for about 1.3 s, with an idle timeout of 200 ms: the timer looks every
    // 25 ms, and each look finds an event since the one before or a silence shorter than 200 ms.
    let provider = ScriptedProvider::start().await.unwrap();
    let deltas: Vec<String> = (0..10).map(|i| format!("{i} ")).collect();
    let refs: Vec<&str> = deltas.iter().map(String::as_str).collect();
    let mut reply = Reply::openai_text("m", &refs);
    if let tessera_testkit::scripted::Body::Sse(steps) = &mut reply.body {
        let paced: Vec<Step> = std::mem::take(steps)
            .into_iter()
            .flat_map(|step| [Step::DelayMs(120), step])
            .collect();
        *steps = paced;
    }
    provider.push(reply);
    let mut config = common::config(&provider, WireKind::Openai);
    config.retry.max_retries = 0;
    config.timeouts.idle_ms = 200;
    let began = std::time::Instant::now();
    let o = common::run(&common::client(config), common::hello("m")).await;
    assert!(o.error.is_none(), "{:?}", o.error);
    assert_eq!(o.response.text, deltas.concat());
    assert!(began.elapsed() >= Duration::from_millis(1_200));
}

#[tokio::test]
async fn each_timeout_has_its_own_code() {
    let provider = ScriptedProvider::start().await.unwrap();
    // First byte: the reply waits longer than allowed.
    provider.push(Reply::openai_text("m", &["late"]).with_delay(Duration::from_millis(2_000)));
    let mut config = common::config(&provider, WireKind::Openai);
    config.retry.max_retries = 0;
    config.timeouts.first_byte_ms = 200;
    let o = common::run(&common::client(config.clone()), common::hello("m")).await;
    assert_eq!(
        o.error.map(|e| e.code().as_str()),
        Some("first_byte_timeout")
    );

    // Idle: two deltas, then silence.
    provider.push(Reply::openai_text("m", &["a", "b", "c"]).stall_after(3));
    config.timeouts.first_byte_ms = 5_000;
    config.timeouts.idle_ms = 200;
    let began = std::time::Instant::now();
    let o = common::run(&common::client(config.clone()), common::hello("m")).await;
    let took = began.elapsed();
    assert_eq!(o.error.map(|e| e.code().as_str()), Some("idle_timeout"));
    assert_eq!(o.response.text, "ab", "the partial answer is kept");
    // Never before the idle time, and not long after it.
    assert!(
        took >= Duration::from_millis(200) && took < Duration::from_millis(1_000),
        "{took:?}"
    );

    // Connect: an address that never answers the handshake (a listener that never accepts
    // still completes it in the kernel, so use a blackholed documentation address).
    let mut far = config.clone();
    far.base_url = "http://192.0.2.1:81/v1".into();
    far.timeouts.connect_ms = 200;
    let o = common::run(&common::client(far), common::hello("m")).await;
    let code = o.error.map(|e| e.code().as_str());
    assert!(
        code == Some("connect_timeout") || code == Some("network_error"),
        "{code:?}"
    );
}

#[tokio::test]
async fn a_reader_that_takes_its_time_is_not_a_silent_provider() {
    // Deltas 50 ms apart, read by a caller that spends 500 ms on each: the provider is never
    // silent for the idle timeout (200 ms), though the reader is away far longer.
    let provider = ScriptedProvider::start().await.unwrap();
    provider.push(
        Reply::openai_text("m", &["a", "b", "c", "d"]).with_step_delay(Duration::from_millis(50)),
    );
    let mut config = common::config(&provider, WireKind::Openai);
    config.retry.max_retries = 0;
    config.timeouts.idle_ms = 200;
    let client = common::client(config);
    let mut stream = client.stream(common::hello("m"), CancellationToken::new());
    let mut text = String::new();
    while let Some(item) = stream.next().await {
        match item {
            Ok(StreamItem::TextDelta { text: t }) => {
                text.push_str(&t);
                tokio::time::sleep(Duration::from_millis(500)).await;
            }
            Ok(_) => {}
            Err(err) => panic!("{err} after {text:?}"),
        }
    }
    assert_eq!(text, "abcd");
}

#[tokio::test]
async fn cancelling_closes_the_stream_at_once() {
    let provider = ScriptedProvider::start().await.unwrap();
    let gate = Gate::new();
    provider.push(
        Reply::openai_text("m", &["first", "second"]).insert_step(3, Step::Gate(gate.clone())),
    );
    let client = common::client(common::config(&provider, WireKind::Openai));
    let cancel = CancellationToken::new();
    let mut stream = client.stream(common::hello("m"), cancel.clone());
    let mut text = String::new();
    while let Some(item) = stream.next().await {
        if let StreamItem::TextDelta { text: t } = item.unwrap() {
            text.push_str(&t);
            break;
        }
    }
    assert_eq!(text, "first");
    cancel.cancel();
    match stream.next().await {
        Some(Err(ProviderError::Cancelled)) => {}
        other => panic!("expected Cancelled, got {other:?}"),
    }
    assert!(stream.next().await.is_none());
    gate.open();
}

#[tokio::test]
async fn a_whole_answer_is_read_when_not_streaming() {
    let provider = ScriptedProvider::start().await.unwrap();
    provider.push(Reply::openai_whole("m", "whole"));
    provider.push(Reply::anthropic_whole("c", "entire"));
    let client = common::client(common::config(&provider, WireKind::Openai));
    let r = client
        .complete(common::hello("m"), CancellationToken::new())
        .await
        .unwrap();
    assert_eq!(r.text, "whole");
    assert_eq!(r.finish_reason, Some(FinishReason::Stop));
    assert_eq!(r.usage.map(|u| u.total()), Some(15));
    assert_eq!(provider.calls()[0].body.get("stream"), None);
    let client = common::client(common::config(&provider, WireKind::Anthropic));
    let r = client
        .complete(common::hello("c"), CancellationToken::new())
        .await
        .unwrap();
    assert_eq!(r.text, "entire");
    assert_eq!(
        r.usage.map(|u| (u.input_tokens, u.output_tokens)),
        Some((12, 3))
    );
}

#[tokio::test]
async fn a_401_names_the_problem_and_never_echoes_the_key() {
    let provider = ScriptedProvider::start().await.unwrap();
    provider.push(Reply::openai_error(
        401,
        "invalid_api_key",
        &format!("Incorrect API key provided: {}", common::KEY),
    ));
    let client = common::client(common::config(&provider, WireKind::Openai));
    let o = common::run(&client, common::hello("m")).await;
    let err = o.error.expect("an error");
    assert_eq!(err.code(), "auth_failed");
    assert!(!err.to_string().contains(common::KEY), "{err}");
    assert_eq!(provider.calls().len(), 1, "a bad key is not retried");
    assert_eq!(
        provider.calls()[0].header("authorization"),
        Some(format!("Bearer {}", common::KEY).as_str())
    );
}

#[tokio::test]
async fn a_call_cut_by_a_broken_connection_is_reported_incomplete() {
    let provider = ScriptedProvider::start().await.unwrap();
    let full = Reply::openai_tool_calls(
        "m",
        &[("call_a", "save_file", &["{\"path\":", "\"a.txt\"}"])],
    );
    let sizes = full.step_lengths();
    // Role chunk, the call's start, its first fragment; the connection breaks in the second.
    let cut = sizes[..3].iter().sum::<usize>() + 10;
    provider.push(full.reset_after_bytes(cut));
    let client = common::client(common::config(&provider, WireKind::Openai));
    let o = common::run(&client, common::hello("m")).await;
    assert_eq!(o.error.map(|e| e.code().as_str()), Some("network_error"));
    assert!(o.response.tool_calls.is_empty(), "never a call to run");
    assert_eq!(o.response.incomplete_tool_calls.len(), 1);
    let cut = &o.response.incomplete_tool_calls[0];
    assert_eq!(
        (cut.id.as_str(), cut.name.as_str()),
        ("call_a", "save_file")
    );
    assert_eq!(cut.partial_arguments, "{\"path\":");
}

/// A model on this machine, its worker's address known per call (as the on-device provider's).
struct Worker {
    base: Option<String>,
    starts: std::sync::atomic::AtomicUsize,
}

impl tessera_providers::endpoint::EndpointSource for Worker {
    fn endpoint<'a>(
        &'a self,
        _model: &'a str,
    ) -> std::pin::Pin<
        Box<
            dyn std::future::Future<
                    Output = Result<tessera_providers::endpoint::DynamicEndpoint, String>,
                > + Send
                + 'a,
        >,
    > {
        Box::pin(async move {
            self.starts
                .fetch_add(1, std::sync::atomic::Ordering::SeqCst);
            match &self.base {
                Some(base) => Ok(tessera_providers::endpoint::DynamicEndpoint {
                    base_url: base.clone(),
                    key: tessera_providers::keys::Secret::new("per-start-token"),
                }),
                None => Err(
                    "the local-model worker exited before it was ready (exit status: 1): \
                             llama_model_load: error loading model"
                        .to_owned(),
                ),
            }
        })
    }
}

#[tokio::test]
async fn a_local_model_whose_worker_stops_says_so_not_a_network_error() {
    let provider = ScriptedProvider::start().await.unwrap();
    let full = Reply::openai_text("m", &["one ", "two ", "three ", "four"]);
    let cut = full.step_lengths()[..3].iter().sum::<usize>() + 20;
    provider.push(full.reset_after_bytes(cut));
    let worker = std::sync::Arc::new(Worker {
        base: Some(provider.openai_base()),
        starts: Default::default(),
    });
    let client = tessera_providers::ProviderClient::with_endpoint_source(
        common::config(&provider, WireKind::Openai),
        worker.clone(),
    )
    .unwrap();
    let o = common::run(&client, common::hello("m")).await;
    let err = o.error.expect("the break is reported");
    assert_eq!(err.code(), "local_model_stopped", "{err}");
    assert!(
        err.to_string()
            .starts_with("the model on this computer stopped"),
        "{err}"
    );
    assert_eq!(o.response.text, "one two ", "what arrived is kept");
    assert_eq!(
        provider.calls()[0].header("authorization"),
        Some("Bearer per-start-token")
    );

    // A worker that cannot start: its own words, once (a model that fails to load fails again).
    let broken = std::sync::Arc::new(Worker {
        base: None,
        starts: Default::default(),
    });
    let client = tessera_providers::ProviderClient::with_endpoint_source(
        common::config(&provider, WireKind::Openai),
        broken.clone(),
    )
    .unwrap();
    let o = common::run(&client, common::hello("m")).await;
    let err = o.error.expect("the failure is reported");
    assert_eq!(err.code(), "local_model_stopped", "{err}");
    assert!(err.to_string().contains("error loading model"), "{err}");
    assert_eq!(broken.starts.load(std::sync::atomic::Ordering::SeqCst), 1);
}

#[tokio::test]
async fn a_conversation_too_long_for_the_model_is_said_and_not_retried() {
    let provider = ScriptedProvider::start().await.unwrap();
    provider.push(Reply::openai_error(
        400,
        "context_length_exceeded",
        "the conversation takes 4387 tokens, more than this model's context of 4096",
    ));
    let client = common::client(common::config(&provider, WireKind::Openai));
    let o = common::run(&client, common::hello("m")).await;
    let err = o.error.expect("refused");
    assert_eq!(err.code(), "context_length", "{err}");
    assert!(err.to_string().contains("4387 tokens"), "{err}");
    assert_eq!(provider.calls().len(), 1, "never retried");
}
