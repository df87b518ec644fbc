//! The whole path a person's answer takes: the scripted provider's delta → the provider layer →
//! the turn (each event stored in SQLite first) → the engine's bus → an SSE client of
//! `POST /v1/messages`. Prints the latency the path adds per delta beside the provider's raw
//! stream, the throughput of a long answer, the memory the server grows by over a long
//! answer, and how far behind 200 subscribers of one conversation fall.
//!
//! Every client of the bench (the raw stream's reader, the SSE clients) is a task of the
//! runtime, as the server's and the provider's are: a reader on the thread that blocks on the
//! runtime is parked and woken for each piece it reads, which capped the raw stream at ~50–90k
//! deltas/s and cost the path ~2 µs per delta. Each figure starts once the process is quiet.
//!
//! The memory figure is the RSS of this process (server and SSE client) before the long answer
//! and one second after it ended (what a person would see: the engine returns what a run freed
//! to the system shortly after it ends), with the scripted provider in a child process: its
//! script of a million pieces would otherwise count as the server's memory.
//!
//! `cargo bench -p tessera-server --bench serve`. Sizes: `DELTAS` (throughput, default
//! 100000), `PACED` (latency, 2000), `MEM_DELTAS` (memory, 1000000), `MEM_VOCABULARY` (the
//! words of the first memory answer, 5000), `SUBSCRIBERS` (200).

use std::borrow::Cow;
use std::sync::Arc;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use futures_util::StreamExt;
use serde_json::json;
use tessera_engine::engine::{Engine, ModelChoice};
use tessera_engine::turn::TurnOptions;
use tessera_providers::config::{ProviderConfig, WireKind};
use tessera_providers::ProviderClient;
use tessera_server::auth::Guard;
use tessera_server::router::{router, RouterConfig};
use tessera_store::Store;
use tessera_testkit::scripted::{openai_chunk, Reply, ScriptedProvider, Step, NOW_NS};

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

/// The text of each delta.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Text {
    /// `t0 `, `t1 `, …: every word different (the whole answer has as many distinct words as
    /// deltas: the worst case for the full-text index of the stored answer).
    Unique,
    /// The provider's clock in ns, for latency.
    Stamped,
    /// Words from a vocabulary of this many, as real text repeats its words.
    Words(usize),
}

fn answer(n: usize, pause_ms: Option<u64>, text: Text) -> Reply {
    let mut steps = vec![Step::Raw(format!(
        "data: {}\n\n",
        openai_chunk("m", json!({"role": "assistant", "content": ""}), None)
    ))];
    for i in 0..n {
        if let Some(ms) = pause_ms {
            steps.push(Step::DelayMs(ms));
        }
        let text = match text {
            Text::Unique => format!("t{i} "),
            Text::Stamped => format!("{NOW_NS} "),
            Text::Words(vocabulary) => format!("w{} ", i % vocabulary.max(1)),
        };
        steps.push(Step::Raw(format!(
            "data: {}\n\n",
            openai_chunk("m", json!({"content": text}), None)
        )));
    }
    steps.push(Step::Raw(format!(
        "data: {}\n\n",
        openai_chunk("m", json!({}), Some("stop"))
    )));
    steps.push(Step::Raw("data: [DONE]\n\n".into()));
    Reply::sse(steps)
}

fn percentile(sorted: &[f64], p: f64) -> f64 {
    if sorted.is_empty() {
        return f64::NAN;
    }
    let rank = ((p / 100.0) * (sorted.len() - 1) as f64).round() as usize;
    sorted[rank.min(sorted.len() - 1)]
}

/// A field of /proc/self/status in MB (`VmRSS`, `VmHWM`).
fn status_mb(field: &str) -> f64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find_map(|l| l.strip_prefix(field)?.strip_prefix(':'))
                .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<f64>().ok())
        })
        .map_or(f64::NAN, |kb| kb * 1024.0 / 1e6)
}

/// CPU time this process used so far (user + system, all threads), in seconds: with other work
/// on the machine, a steadier figure for comparing builds than the wall clock.
fn cpu_secs() -> f64 {
    let Ok(stat) = std::fs::read_to_string("/proc/self/stat") else {
        return f64::NAN;
    };
    // The fields after the command name (which may hold spaces) closed by `)`: utime and stime
    // are the 12th and 13th, in clock ticks (100 a second on Linux).
    let fields: Vec<&str> = stat
        .rsplit_once(')')
        .map_or(Vec::new(), |(_, rest)| rest.split_whitespace().collect());
    let ticks = |i: usize| fields.get(i).and_then(|f| f.parse::<f64>().ok());
    match (ticks(11), ticks(12)) {
        (Some(user), Some(system)) => (user + system) / 100.0,
        _ => f64::NAN,
    }
}

/// The machine's CPU ticks so far (all CPUs): in total, and taken by the hypervisor (steal).
/// A figure measured while a neighbour of this VM was busy says so beside it.
fn machine_ticks() -> (f64, f64) {
    let Ok(stat) = std::fs::read_to_string("/proc/stat") else {
        return (f64::NAN, f64::NAN);
    };
    let fields: Vec<f64> = stat
        .lines()
        .next()
        .unwrap_or_default()
        .split_whitespace()
        .skip(1)
        .take(8)
        .filter_map(|f| f.parse().ok())
        .collect();
    (
        fields.iter().sum(),
        fields.get(7).copied().unwrap_or(f64::NAN),
    )
}

/// The share (%) of the machine's CPU time the hypervisor took since `from`.
fn steal_since(from: (f64, f64)) -> f64 {
    let now = machine_ticks();
    (now.1 - from.1) * 100.0 / (now.0 - from.0)
}

fn rss_mb() -> f64 {
    status_mb("VmRSS")
}

/// Restarts the peak (`VmHWM`) from the current RSS.
fn reset_peak() {
    let _ = std::fs::write("/proc/self/clear_refs", "5");
}

#[derive(Clone)]
struct Server {
    base: String,
    token: String,
    http: reqwest::Client,
    engine: Engine,
}

impl Server {
    /// Waits until no run is going on, its deltas folded too (a run folds them after its
    /// `done`: a write queued after that comes after the fold).
    async fn settled(&self) {
        while !self.engine.running().is_empty() {
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
        let store = Arc::clone(self.engine.store());
        let _ = tokio::task::spawn_blocking(move || store.write(|_| Ok(()))).await;
        // What a run does after its `done` (the rolling summary's token count of a long
        // answer, the store's checkpoint) goes on in the background: the next figure starts
        // once the process is quiet (under a tenth of a core over 100 ms, 10 s at most).
        for _ in 0..100 {
            let before = cpu_secs();
            tokio::time::sleep(Duration::from_millis(100)).await;
            if cpu_secs() - before < 0.01 {
                break;
            }
        }
    }

    /// [`Server::ask`] as a task of the runtime, like every other task of the bench (the
    /// server's, the provider's): a client on the thread that blocks on the runtime would be
    /// parked and woken for every piece it reads.
    fn ask_spawned(
        &self,
        rt: &tokio::runtime::Runtime,
        context: &str,
        mut on_delta: impl FnMut(&str, u128) + Send + 'static,
    ) -> Read {
        let (server, context) = (self.clone(), context.to_owned());
        let task = rt.spawn(async move { server.ask(&context, &mut on_delta).await });
        rt.block_on(task).unwrap_or_else(|e| panic!("{e}"))
    }

    /// POSTs a USER_INPUT and reads its SSE stream; `on_delta(text, arrival_ns)` per delta.
    async fn ask(&self, context: &str, mut on_delta: impl FnMut(&str, u128)) -> Read {
        let body = json!({
            "messageId": uuid::Uuid::now_v7().to_string(), "contextId": context, "timestamp": "2026-11-23T10:00:00Z",
            "type": "USER_INPUT", "sender": {"id": "u", "type": "USER"},
            "content": {"text": "go"}
        });
        let response = match self
            .http
            .post(format!("{}/v1/messages", self.base))
            .bearer_auth(&self.token)
            .header("accept", "text/event-stream")
            .json(&body)
            .send()
            .await
        {
            Ok(r) => r,
            Err(err) => panic!("{err}"),
        };
        read_sse(response, &mut on_delta).await
    }
}

/// The fields of an event the bench client looks at. Typed and borrowed: serde still reads
/// every event whole, but builds no `Value` tree for it (what a client of the API would do; the
/// client shares the machine with the server, so its cost shows in the figures).
#[derive(serde::Deserialize)]
struct WireEvent<'a> {
    #[serde(rename = "type", borrow)]
    kind: Cow<'a, str>,
    #[serde(default, borrow)]
    payload: Option<WirePayload<'a>>,
    #[serde(default)]
    meta: Option<WireMeta>,
}

#[derive(serde::Deserialize)]
struct WirePayload<'a> {
    #[serde(default, borrow)]
    delta: Option<Cow<'a, str>>,
}

#[derive(serde::Deserialize)]
struct WireMeta {
    #[serde(default)]
    replaces: Option<WireRange>,
}

#[derive(serde::Deserialize)]
struct WireRange {
    from: u64,
    to: u64,
}

/// What a client read of one answer.
#[derive(Clone, Copy, Debug, Default)]
struct Read {
    /// Deltas received one by one.
    streamed: usize,
    /// Deltas received inside a folded whole message only (the client fell behind and caught
    /// up from the store after the run had folded them).
    folded: usize,
    last_id: u64,
    /// The highest seq received, a folded event's range included.
    covered: u64,
}

impl Read {
    fn deltas(&self) -> usize {
        self.streamed + self.folded
    }
}

/// Reads SSE until the stream ends, calling `on_delta` for each llm/message delta.
async fn read_sse(response: reqwest::Response, on_delta: &mut impl FnMut(&str, u128)) -> Read {
    let mut body = response.bytes_stream();
    let mut buffer: Vec<u8> = Vec::new();
    let mut read = Read::default();
    while let Some(Ok(chunk)) = body.next().await {
        let at = now_ns();
        // Only the new bytes (and the one before them) can complete a block.
        let mut scan = buffer.len().saturating_sub(1);
        buffer.extend_from_slice(&chunk);
        let mut consumed = 0;
        while let Some(end) = buffer[scan..].windows(2).position(|w| w == b"\n\n") {
            let block = &buffer[consumed..scan + end];
            scan += end + 2;
            consumed = scan;
            for line in block.split(|b| *b == b'\n') {
                if let Some(id) = line.strip_prefix(b"id:") {
                    if let Some(id) = std::str::from_utf8(id)
                        .ok()
                        .and_then(|t| t.trim().parse().ok())
                    {
                        read.last_id = id;
                    }
                } else if let Some(data) = line.strip_prefix(b"data:") {
                    let Ok(event) = serde_json::from_slice::<WireEvent>(data.trim_ascii_start())
                    else {
                        continue;
                    };
                    let range = event.meta.and_then(|m| m.replaces);
                    if event.kind == "message" {
                        if let Some(d) = event.payload.and_then(|p| p.delta) {
                            read.streamed += 1;
                            on_delta(&d, at);
                        } else if let Some(r) = &range {
                            // The folded range replaces deltas the client may have had already;
                            // the bench's answers have nothing else between their deltas.
                            let had = read.covered.max(r.from.saturating_sub(1));
                            read.folded += r.to.saturating_sub(had) as usize;
                        }
                    }
                    read.covered = read
                        .covered
                        .max(read.last_id)
                        .max(range.map_or(0, |r| r.to));
                }
            }
        }
        buffer.drain(..consumed);
    }
    read
}

/// The child process that serves the long answer of the memory figure: how many deltas, and
/// the vocabulary of their words (0: every word different).
const PROVIDER_CHILD: &str = "SERVE_BENCH_PROVIDER_DELTAS";
const PROVIDER_CHILD_WORDS: &str = "SERVE_BENCH_PROVIDER_WORDS";

/// In the child: serves one `n`-delta answer, prints its base URL, and stays until its
/// standard input closes.
fn provider_child(n: usize, text: Text) {
    let rt = tokio::runtime::Runtime::new().unwrap_or_else(|e| panic!("{e}"));
    let provider = rt
        .block_on(ScriptedProvider::start())
        .unwrap_or_else(|e| panic!("{e}"));
    provider.push(answer(n, None, text));
    println!("{}", provider.openai_base());
    let _ = std::io::Write::flush(&mut std::io::stdout());
    let _ = std::io::Read::read_to_end(&mut std::io::stdin(), &mut Vec::new());
}

/// Starts [`provider_child`]; the child and its base URL.
fn spawn_provider(n: usize, text: Text) -> (std::process::Child, String) {
    use std::io::BufRead;
    use std::process::{Command, Stdio};
    let exe = std::env::current_exe().unwrap_or_else(|e| panic!("{e}"));
    let mut child = Command::new(exe)
        .env(PROVIDER_CHILD, n.to_string())
        .env(
            PROVIDER_CHILD_WORDS,
            match text {
                Text::Words(v) => v.to_string(),
                _ => "0".into(),
            },
        )
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("{e}"));
    let mut line = String::new();
    if let Some(out) = child.stdout.take() {
        let _ = std::io::BufReader::new(out).read_line(&mut line);
    }
    (child, line.trim().to_owned())
}

/// Reads the provider's next answer straight from it (no server in between), as a task of the
/// runtime like every client of the bench; `on_chunk(state, bytes, arrival_ns)` per piece.
fn read_raw<T: Send + 'static>(
    rt: &tokio::runtime::Runtime,
    http: &reqwest::Client,
    provider: &ScriptedProvider,
    mut state: T,
    on_chunk: fn(&mut T, &[u8], u128),
) -> T {
    let (http, url) = (
        http.clone(),
        format!("{}/chat/completions", provider.openai_base()),
    );
    rt.block_on(rt.spawn(async move {
        let response = http
            .post(url)
            .body("{}")
            .send()
            .await
            .unwrap_or_else(|e| panic!("{e}"));
        let mut body = response.bytes_stream();
        while let Some(Ok(chunk)) = body.next().await {
            on_chunk(&mut state, &chunk, now_ns());
        }
        state
    }))
    .unwrap_or_else(|e| panic!("{e}"))
}

fn bench_client(base: String) -> ProviderClient {
    let mut config = ProviderConfig::new("bench", WireKind::Openai, base);
    config.proxy = Some("none".into());
    config.requires_key = false;
    ProviderClient::new(config, None).unwrap_or_else(|e| panic!("{e}"))
}

fn main() {
    if let Some(n) = std::env::var(PROVIDER_CHILD)
        .ok()
        .and_then(|v| v.parse().ok())
    {
        let text = match env_usize(PROVIDER_CHILD_WORDS, 0) {
            0 => Text::Unique,
            v => Text::Words(v),
        };
        return provider_child(n, text);
    }
    let deltas = env_usize("DELTAS", 100_000);
    let paced = env_usize("PACED", 2_000);
    let mem_deltas = env_usize("MEM_DELTAS", 1_000_000);
    let mem_vocabulary = env_usize("MEM_VOCABULARY", 5_000);
    let subscribers = env_usize("SUBSCRIBERS", 200);
    let rt = match tokio::runtime::Runtime::new() {
        Ok(rt) => rt,
        Err(err) => panic!("{err}"),
    };
    let dir = match tempfile::tempdir() {
        Ok(d) => d,
        Err(err) => panic!("{err}"),
    };
    let (provider, server) = rt.block_on(async {
        let provider = ScriptedProvider::start()
            .await
            .unwrap_or_else(|e| panic!("{e}"));
        let client = bench_client(provider.openai_base());
        let store = Arc::new(Store::open(dir.path()).unwrap_or_else(|e| panic!("{e}")));
        let engine = Engine::new(
            store,
            ModelChoice {
                client,
                model: "m".into(),
                options: TurnOptions::default(),
            },
        );
        let listener = tokio::net::TcpListener::bind(("127.0.0.1", 0))
            .await
            .unwrap_or_else(|e| panic!("{e}"));
        let port = listener.local_addr().map(|a| a.port()).unwrap_or(0);
        let token = "bench-token".to_owned();
        let app = router(RouterConfig {
            guard: Arc::new(Guard::new(token.clone(), port)),
            ui_dir: None,
            app: Some(tessera_app::App::over_engine(engine.clone())),
        });
        tokio::spawn(async move {
            let _ = axum::serve(listener, app).await;
        });
        let http = reqwest::Client::builder()
            .no_proxy()
            .build()
            .unwrap_or_default();
        (
            provider,
            Server {
                base: format!("http://127.0.0.1:{port}"),
                token,
                http,
                engine,
            },
        )
    });

    // Throughput: raw provider stream against the whole path.
    provider.push(answer(deltas, None, Text::Unique));
    let start = Instant::now();
    let raw = read_raw(&rt, &server.http, &provider, 0usize, |n, chunk, _| {
        *n += chunk.len()
    });
    let raw_secs = start.elapsed().as_secs_f64();
    provider.push(answer(deltas, None, Text::Unique));
    let start = Instant::now();
    let cpu_start = cpu_secs();
    let machine_start = machine_ticks();
    let got = server.ask_spawned(&rt, "ctx_throughput", |_, _| {});
    let path_secs = start.elapsed().as_secs_f64();
    let path_cpu = cpu_secs() - cpu_start;
    let path_steal = steal_since(machine_start);
    // Each figure alone: the run folds its deltas after its `done`.
    rt.block_on(server.settled());
    println!("serve bench: {deltas}-delta answer");
    println!(
        "  raw provider stream: {:>9.0} deltas/s ({:.1} MB in {:.0} ms)",
        deltas as f64 / raw_secs,
        raw as f64 / 1e6,
        raw_secs * 1e3
    );
    // Every delta reached the client within the time measured, one by one or (when the client
    // fell behind and the run had ended) inside the folded message: all of them count.
    println!(
        "  to an SSE client:    {:>9.0} events/s ({} deltas in {:.0} ms: {} one by one, {} folded; target >= 50000); CPU {:.2} µs per delta (server and client); hypervisor steal meanwhile {path_steal:.0} %",
        got.deltas() as f64 / path_secs,
        got.deltas(),
        path_secs * 1e3,
        got.streamed,
        got.folded,
        path_cpu * 1e6 / got.deltas().max(1) as f64
    );

    // Latency: one delta per millisecond, stamped by the provider as it writes it.
    provider.push(answer(paced, Some(1), Text::Stamped));
    let mut raw_lat = read_raw(
        &rt,
        &server.http,
        &provider,
        Vec::new(),
        |lat, chunk, at| {
            let text = String::from_utf8_lossy(chunk);
            for part in text.split("\"content\":\"").skip(1) {
                let digits: String = part.chars().take_while(char::is_ascii_digit).collect();
                if let Ok(sent) = digits.parse::<u128>() {
                    lat.push(at.saturating_sub(sent) as f64 / 1e3);
                }
            }
        },
    );
    provider.push(answer(paced, Some(1), Text::Stamped));
    let arrivals = Arc::new(std::sync::Mutex::new(Vec::new()));
    let gathered = Arc::clone(&arrivals);
    let machine_start = machine_ticks();
    server.ask_spawned(&rt, "ctx_latency", move |d, at| {
        if let (Ok(sent), Ok(mut lat)) = (d.trim().parse::<u128>(), gathered.lock()) {
            lat.push(at.saturating_sub(sent) as f64 / 1e3);
        }
    });
    let mut path_lat = arrivals.lock().map(|l| l.clone()).unwrap_or_default();
    let latency_steal = steal_since(machine_start);
    rt.block_on(server.settled());
    raw_lat.sort_by(f64::total_cmp);
    path_lat.sort_by(f64::total_cmp);
    println!("latency per delta, {paced} deltas 1 ms apart (µs, provider write → reader; hypervisor steal meanwhile {latency_steal:.0} %):");
    for (name, p) in [("p50", 50.0), ("p99", 99.0)] {
        let (a, b) = (percentile(&raw_lat, p), percentile(&path_lat, p));
        println!(
            "  {name}: raw {a:>8.1}  SSE client {b:>8.1}  added {:>8.1}  (target p99 < 1000)",
            b - a
        );
    }

    // Memory: what this process grows by over a long answer from a provider in another
    // process (the run folded at its end included: measured once no run is going on), and its
    // peak meanwhile. First an answer of ordinary words, then the one of all different words:
    // the stored answer's full-text index needs memory by distinct word, and what the process
    // freed stays its RSS, so the order matters (the second may reuse the first's).
    let choice = |client| ModelChoice {
        client,
        model: "m".into(),
        options: TurnOptions::default(),
    };
    for (text, context) in [
        (Text::Words(mem_vocabulary), "ctx_memory_words"),
        (Text::Unique, "ctx_memory"),
    ] {
        let (mut child, base) = spawn_provider(mem_deltas, text);
        server
            .engine
            .set_model(Some(choice(bench_client(base.clone()))));
        let before = rss_mb();
        reset_peak();
        let started = Instant::now();
        let got = server.ask_spawned(&rt, context, |_, _| {});
        let n = got.streamed;
        let streamed = started.elapsed().as_secs_f64();
        rt.block_on(server.settled());
        std::thread::sleep(Duration::from_secs(1));
        let (after, peak) = (rss_mb(), status_mb("VmHWM"));
        drop(child.stdin.take());
        let _ = child.wait();
        let words = match text {
            Text::Words(v) => format!("words of a {v}-word vocabulary"),
            _ => "every word different".to_owned(),
        };
        println!(
            "memory over a {mem_deltas}-delta answer, {words} (provider in a child process; {n} reached the client as deltas, the rest folded, in {:.0} ms): {before:.1} MB before, {after:.1} MB after, growth {:.1} MB (target < 50 MB); peak {peak:.1} MB",
            streamed * 1e3,
            after - before
        );
    }
    server
        .engine
        .set_model(Some(choice(bench_client(provider.openai_base()))));

    // Subscribers: many clients follow one conversation while a paced answer streams.
    provider.push(answer(5, None, Text::Unique));
    let last = rt.block_on(server.ask("ctx_subs", |_, _| {})).last_id;
    rt.block_on(server.settled());
    let lags = rt.block_on(async {
        let mut readers = Vec::new();
        for _ in 0..subscribers {
            let http = server.http.clone();
            let url = format!("{}/v1/conversations/ctx_subs/events", server.base);
            let token = server.token.clone();
            // Only what comes from now on.
            let response = http
                .get(url)
                .bearer_auth(token)
                .header("last-event-id", last.to_string())
                .send()
                .await
                .unwrap_or_else(|e| panic!("{e}"));
            readers.push(tokio::spawn(async move {
                let mut worst = 0f64;
                read_sse(response, &mut |d, at| {
                    if let Ok(sent) = d.trim().parse::<u128>() {
                        worst = worst.max(at.saturating_sub(sent) as f64 / 1e6);
                    }
                })
                .await;
                worst
            }));
        }
        provider.push(answer(paced / 2, Some(1), Text::Stamped));
        let cpu_start = cpu_secs();
        server.ask("ctx_subs", |_, _| {}).await;
        let mut lags = Vec::new();
        for r in readers {
            if let Ok(Ok(lag)) = tokio::time::timeout(Duration::from_secs(60), r)
                .await
                .map(|j| j.map_err(|_| ()))
            {
                lags.push(lag);
            }
        }
        (lags, cpu_secs() - cpu_start)
    });
    let (mut lags, subs_cpu) = lags;
    lags.sort_by(f64::total_cmp);
    let worst = lags.last().copied().unwrap_or(f64::NAN);
    println!(
        "{} of {subscribers} subscribers followed to the end; the furthest behind was {worst:.1} ms (target < 100 ms), the median subscriber's worst {:.1} ms; CPU {:.0} ms for {} deltas to each",
        lags.len(),
        percentile(&lags, 50.0),
        subs_cpu * 1e3,
        paced / 2
    );
}
