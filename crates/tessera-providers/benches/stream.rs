//! The provider layer against the bytes it reads: a long answer from the scripted provider over
//! loopback, read raw (bytes only) and through `ProviderClient` (SSE framing, JSON decoding,
//! normalised items). Prints throughput and the latency the layer adds per delta.
//!
//! `cargo bench -p tessera-providers --bench stream` (release). `DELTAS=…` and `PACED=…` change
//! the sizes.

use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use futures_util::StreamExt;
use serde_json::json;
use tessera_providers::config::{ProviderConfig, WireKind};
use tessera_providers::keys::Secret;
use tessera_providers::stream::StreamItem;
use tessera_providers::{ChatMessage, ChatRequest, ProviderClient};
use tessera_testkit::scripted::{openai_chunk, Reply, ScriptedProvider, Step, NOW_NS};
use tokio_util::sync::CancellationToken;

fn env_usize(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

fn now_ns() -> u128 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_nanos())
        .unwrap_or(0)
}

/// An answer of `n` deltas; each delta's text is `text(i)`, optionally with a pause before it.
fn answer(n: usize, pause: Option<Duration>, text: impl Fn(usize) -> String) -> Reply {
    let mut steps = vec![Step::Raw(format!(
        "data: {}\n\n",
        openai_chunk("bench", json!({"role": "assistant", "content": ""}), None)
    ))];
    for i in 0..n {
        if let Some(p) = pause {
            steps.push(Step::DelayMs(p.as_millis() as u64));
        }
        steps.push(Step::Raw(format!(
            "data: {}\n\n",
            openai_chunk("bench", json!({"content": text(i)}), None)
        )));
    }
    steps.push(Step::Raw(format!(
        "data: {}\n\n",
        openai_chunk("bench", json!({}), Some("stop"))
    )));
    steps.push(Step::Raw("data: [DONE]\n\n".into()));
    Reply::sse(steps)
}

fn client(provider: &ScriptedProvider) -> ProviderClient {
    let mut config = ProviderConfig::new("bench", WireKind::Openai, provider.openai_base());
    config.proxy = Some("none".into());
    match ProviderClient::new(config, Some(Secret::new("bench"))) {
        Ok(c) => c,
        Err(err) => panic!("{err}"),
    }
}

fn request() -> ChatRequest {
    ChatRequest::new("bench", vec![ChatMessage::user("go")])
}

/// Reads the answer as bytes only; calls `on_chunk(bytes, arrival)` for each chunk.
async fn read_raw(
    http: &reqwest::Client,
    provider: &ScriptedProvider,
    mut on_chunk: impl FnMut(&[u8], u128),
) -> usize {
    let response = match http
        .post(format!("{}/chat/completions", provider.openai_base()))
        .header("content-type", "application/json")
        .body(r#"{"model":"bench","messages":[],"stream":true}"#)
        .send()
        .await
    {
        Ok(r) => r,
        Err(err) => panic!("{err}"),
    };
    let mut body = response.bytes_stream();
    let mut total = 0;
    while let Some(Ok(chunk)) = body.next().await {
        let at = now_ns();
        total += chunk.len();
        on_chunk(&chunk, at);
    }
    total
}

/// Reads the answer through the provider layer; calls `on_delta(text, arrival)` per text delta.
async fn read_items(client: &ProviderClient, mut on_delta: impl FnMut(&str, u128)) -> usize {
    let mut stream = client.stream(request(), CancellationToken::new());
    let mut items = 0;
    while let Some(item) = stream.next().await {
        match item {
            Ok(StreamItem::TextDelta { text }) => {
                on_delta(&text, now_ns());
                items += 1;
            }
            Ok(_) => {}
            Err(err) => panic!("{err}"),
        }
    }
    items
}

fn percentile(sorted: &[f64], p: f64) -> f64 {
    if sorted.is_empty() {
        return f64::NAN;
    }
    let rank = ((p / 100.0) * (sorted.len() - 1) as f64).round() as usize;
    sorted[rank.min(sorted.len() - 1)]
}

/// Stamps in a raw chunk: the digits after each `"content":"`.
fn stamps(chunk: &[u8]) -> Vec<u128> {
    const MARK: &[u8] = b"\"content\":\"";
    let mut out = Vec::new();
    let mut i = 0;
    while i + MARK.len() <= chunk.len() {
        if &chunk[i..i + MARK.len()] == MARK {
            let start = i + MARK.len();
            let end = chunk[start..]
                .iter()
                .position(|b| !b.is_ascii_digit())
                .map_or(chunk.len(), |p| start + p);
            if end > start {
                if let Ok(v) = std::str::from_utf8(&chunk[start..end])
                    .unwrap_or("")
                    .parse()
                {
                    out.push(v);
                }
            }
            i = end;
        } else {
            i += 1;
        }
    }
    out
}

fn main() {
    let deltas = env_usize("DELTAS", 100_000);
    let paced = env_usize("PACED", 2_000);
    let rounds = env_usize("ROUNDS", 3);
    // The provider on its own runtime and thread, as a remote server would be.
    let server_rt = match tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
    {
        Ok(rt) => rt,
        Err(err) => panic!("{err}"),
    };
    let provider = match server_rt.block_on(ScriptedProvider::start()) {
        Ok(p) => p,
        Err(err) => panic!("{err}"),
    };
    let rt = match tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    {
        Ok(rt) => rt,
        Err(err) => panic!("{err}"),
    };

    // Clients are made once, outside the timings (making one loads the system's CA store).
    let http = reqwest::Client::builder()
        .no_proxy()
        .build()
        .unwrap_or_default();
    let client = client(&provider);
    println!("provider stream bench: {deltas} deltas, {rounds} rounds each (best round kept)");
    let text = |i: usize| format!("tok{i} ");
    let (mut raw_best, mut items_best) = (f64::MAX, f64::MAX);
    let mut bytes = 0;
    for _ in 0..rounds {
        provider.push(answer(deltas, None, text));
        let start = Instant::now();
        bytes = rt.block_on(read_raw(&http, &provider, |_, _| {}));
        raw_best = raw_best.min(start.elapsed().as_secs_f64());

        provider.push(answer(deltas, None, text));
        let start = Instant::now();
        let n = rt.block_on(read_items(&client, |_, _| {}));
        items_best = items_best.min(start.elapsed().as_secs_f64());
        assert_eq!(n, deltas, "every delta arrived as an item");
    }
    let raw_rate = deltas as f64 / raw_best;
    let items_rate = deltas as f64 / items_best;
    println!(
        "  raw bytes:        {:>10.0} deltas/s  ({:.1} MB in {:.1} ms)",
        raw_rate,
        bytes as f64 / 1e6,
        raw_best * 1e3
    );
    println!(
        "  provider layer:   {:>10.0} events/s  ({:.1} ms)",
        items_rate,
        items_best * 1e3
    );
    println!(
        "  ratio:            {:>10.1} %  (target >= 80 %)",
        100.0 * items_rate / raw_rate
    );

    // The same bytes parsed in memory: SSE framing and decoding alone, no network.
    let mut wire = Vec::new();
    if let tessera_testkit::scripted::Body::Sse(steps) = answer(deltas, None, text).body {
        for step in steps {
            if let Step::Raw(t) = step {
                wire.push(bytes::Bytes::from(t));
            }
        }
    }
    let mut parse_best = f64::MAX;
    for _ in 0..rounds {
        let chunks = wire.clone();
        let start = Instant::now();
        let n = rt.block_on(async move {
            let mut events = tessera_providers::sse::SseStream::new(futures_util::stream::iter(
                chunks
                    .into_iter()
                    .map(Ok::<_, tessera_providers::limits::BodyError>),
            ));
            let mut decoder = tessera_providers::openai::Decoder::new("bench");
            let mut out = Vec::new();
            let mut n = 0;
            while let Some(Ok(event)) = events.next().await {
                if decoder.feed(&event.data, &mut out).is_ok() {
                    n += out.len();
                    out.clear();
                }
            }
            n
        });
        parse_best = parse_best.min(start.elapsed().as_secs_f64());
        assert!(n >= deltas);
    }
    println!(
        "  parse in memory:  {:>10.0} events/s  ({:.2} µs per delta: SSE framing + decoding)",
        deltas as f64 / parse_best,
        parse_best * 1e6 / deltas as f64
    );
    // Issue 27's figure: what the layer costs beyond reading the bytes and parsing them.
    let per = |seconds: f64| seconds * 1e6 / deltas as f64;
    let beyond = per(items_best) - per(raw_best) - per(parse_best);
    println!(
        "  beyond reading and parsing: {beyond:.2} µs per delta (layer {:.2} - read {:.2} - parse {:.2}; target <= 0.1: {})",
        per(items_best),
        per(raw_best),
        per(parse_best),
        if beyond <= 0.1 { "met" } else { "MISSED" }
    );

    // Latency: one delta per millisecond, each stamped by the provider as it is sent.
    let stamped = |_: usize| NOW_NS.to_owned();
    let (mut raw_lat, mut item_lat) = (Vec::new(), Vec::new());
    for _ in 0..rounds {
        provider.push(answer(paced, Some(Duration::from_millis(1)), stamped));
        rt.block_on(read_raw(&http, &provider, |chunk, at| {
            for sent in stamps(chunk) {
                raw_lat.push(at.saturating_sub(sent) as f64 / 1e3);
            }
        }));
        provider.push(answer(paced, Some(Duration::from_millis(1)), stamped));
        rt.block_on(read_items(&client, |text, at| {
            if let Ok(sent) = text.parse::<u128>() {
                item_lat.push(at.saturating_sub(sent) as f64 / 1e3);
            }
        }));
    }
    raw_lat.sort_by(f64::total_cmp);
    item_lat.sort_by(f64::total_cmp);
    println!(
        "latency per delta, {} deltas 1 ms apart (µs from the provider's write to the reader):",
        raw_lat.len()
    );
    for (name, p) in [("p50", 50.0), ("p90", 90.0), ("p99", 99.0)] {
        let raw = percentile(&raw_lat, p);
        let items = percentile(&item_lat, p);
        println!(
            "  {name}: raw {raw:>7.1}  provider layer {items:>7.1}  added {:>7.1}  (target p99 < 1000)",
            items - raw
        );
    }
    drop(provider);
}
