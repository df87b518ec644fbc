//! Figures of the knowledge index, each beside the target it must meet (issue 47), on this
//! machine, in a release build: `make bench-knowledge`.
//!
//! - lexical indexing of 10,000 text files of about 5 KB: files per second (target ≥ 500);
//! - the memory the process grew by while indexing (target ≤ +300 MB);
//! - the index on disk per MB of text;
//! - lexical retrieval over 100,000 chunks: p50, p95, p99 of 300 queries (target p95 ≤ 30 ms).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::Path;
use std::time::{Duration, Instant};

use tessera_knowledge::{Knowledge, Limits};

const WORDS: &[&str] = &[
    "project",
    "invoice",
    "renewal",
    "schedule",
    "meeting",
    "quarterly",
    "report",
    "budget",
    "design",
    "review",
    "customer",
    "order",
    "payment",
    "server",
    "deploy",
    "release",
    "memory",
    "cache",
    "index",
    "search",
    "query",
    "answer",
    "network",
    "storage",
    "backup",
    "policy",
    "包周期",
    "续订",
    "接口",
    "订单",
    "查询",
    "状态",
    "发票",
    "会议",
    "预算",
    "报告",
    "部署",
];

/// A deterministic pseudo-random stream (no dependency, same corpus every run).
struct Lcg(u64);
impl Lcg {
    fn next(&mut self) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        self.0 >> 33
    }
}

fn write_corpus(root: &Path, files: usize, bytes: usize, seed: u64) -> u64 {
    let mut rng = Lcg(seed);
    let mut total = 0u64;
    for f in 0..files {
        let dir = root.join(format!("d{:03}", f % 200));
        std::fs::create_dir_all(&dir).unwrap();
        let mut text = format!("# Note {f}\n\n");
        while text.len() < bytes {
            for _ in 0..12 {
                text.push_str(WORDS[(rng.next() as usize) % WORDS.len()]);
                text.push(' ');
            }
            text.push_str(&format!("token{} ", rng.next() % 50_000));
            text.push('\n');
            if rng.next().is_multiple_of(6) {
                text.push('\n');
            }
        }
        total += text.len() as u64;
        std::fs::write(dir.join(format!("n{f}.md")), text).unwrap();
    }
    total
}

/// VmRSS and VmHWM of this process, in KB.
fn memory_kb() -> (u64, u64) {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    let field = |name: &str| {
        status
            .lines()
            .find(|l| l.starts_with(name))
            .and_then(|l| l.split_whitespace().nth(1))
            .and_then(|v| v.parse().ok())
            .unwrap_or(0)
    };
    (field("VmRSS:"), field("VmHWM:"))
}

fn index_size(data: &Path) -> u64 {
    ["knowledge.sqlite", "knowledge.sqlite-wal"]
        .iter()
        .filter_map(|f| std::fs::metadata(data.join(f)).ok())
        .map(|m| m.len())
        .sum()
}

fn main() {
    let work = tempfile::tempdir().unwrap();
    let corpus = work.path().join("corpus");
    let data = work.path().join("data");
    std::fs::create_dir_all(&data).unwrap();

    let text_bytes = write_corpus(&corpus, 10_000, 5_000, 7);
    let (rss_before, _) = memory_kb();
    let knowledge = Knowledge::open(&data, Limits::default()).unwrap();
    let started = Instant::now();
    knowledge.queue_scan("bench", &corpus);
    assert!(knowledge.wait_idle(Duration::from_secs(3600)));
    let seconds = started.elapsed().as_secs_f64();
    let (_, peak) = memory_kb();
    let status = knowledge.status(Some("bench")).unwrap();
    let rate = status.indexed_files as f64 / seconds;
    println!(
        "lexical indexing: {} files ({:.1} MB of text, {} chunks) in {seconds:.2} s = {rate:.0} files/s   (target >= 500 files/s)",
        status.indexed_files,
        text_bytes as f64 / 1e6,
        status.chunks
    );
    println!(
        "memory while indexing: +{:.0} MB over the {:.0} MB before (peak RSS)   (target <= +300 MB)",
        peak.saturating_sub(rss_before) as f64 / 1024.0,
        rss_before as f64 / 1024.0
    );
    println!(
        "index on disk: {:.2} MB per MB of text ({:.1} MB for {:.1} MB)",
        index_size(&data) as f64 / text_bytes as f64,
        index_size(&data) as f64 / 1e6,
        text_bytes as f64 / 1e6
    );

    // Grow to 100,000 chunks, then time queries.
    let more = work.path().join("more");
    let need = 100_000u64.saturating_sub(status.chunks);
    let per_file = (status.chunks / status.indexed_files.max(1)).max(1);
    write_corpus(
        &more,
        usize::try_from(need / per_file + 1).unwrap(),
        5_000,
        11,
    );
    knowledge.queue_scan("bench", &more);
    assert!(knowledge.wait_idle(Duration::from_secs(3600)));
    let chunks = knowledge.status(Some("bench")).unwrap().chunks;
    let mut rng = Lcg(3);
    for (label, rare) in [
        ("a rare word among common ones", true),
        ("common words only", false),
    ] {
        let mut times = Vec::new();
        for _ in 0..300 {
            let mut query = format!(
                "{} {} {}",
                WORDS[(rng.next() as usize) % WORDS.len()],
                WORDS[(rng.next() as usize) % WORDS.len()],
                WORDS[(rng.next() as usize) % WORDS.len()]
            );
            if rare {
                query.push_str(&format!(" token{}", rng.next() % 50_000));
            }
            let t = Instant::now();
            let hits = knowledge.search("bench", &query, 8).unwrap();
            times.push(t.elapsed());
            assert!(!hits.is_empty(), "{query}");
        }
        times.sort();
        let at = |p: f64| {
            times[((times.len() as f64 * p) as usize).min(times.len() - 1)].as_secs_f64() * 1000.0
        };
        println!(
            "lexical retrieval over {chunks} chunks, {label}: p50 {:.1} ms, p95 {:.1} ms, p99 {:.1} ms   (target p95 <= 30 ms)",
            at(0.50),
            at(0.95),
            at(0.99)
        );
    }
    // Vectors: every chunk embedded by a stand-in model (1,024 dimensions, as bge-m3 and
    // Qwen3-Embedding-0.6B give), the query's embedding apart, the fused search timed.
    let embedder = std::sync::Arc::new(StandIn);
    knowledge.set_embedder(Some(embedder));
    let started = Instant::now();
    assert!(knowledge.wait_idle(Duration::from_secs(3600)));
    let status = knowledge.status(Some("bench")).unwrap();
    println!(
        "vectors stored: {} chunks in {:.1} s (a stand-in model; a real one's time is its own), index now {:.1} MB",
        status.embedded_chunks,
        started.elapsed().as_secs_f64(),
        index_size(&data) as f64 / 1e6
    );
    let (_, before_scan) = memory_kb();
    let mut times = Vec::new();
    for i in 0..300 {
        let query = format!("{} token{}", WORDS[i % WORDS.len()], i * 97 % 50_000);
        let t = Instant::now();
        let hits = knowledge.search("bench", &query, 8).unwrap();
        times.push(t.elapsed());
        assert!(!hits.is_empty());
    }
    let (_, after_scan) = memory_kb();
    times.sort();
    let at = |p: f64| {
        times[((times.len() as f64 * p) as usize).min(times.len() - 1)].as_secs_f64() * 1000.0
    };
    println!(
        "hybrid retrieval over {} chunks (flat scan of int8 vectors + bm25, fused): p50 {:.1} ms, p95 {:.1} ms, p99 {:.1} ms   (target p95 <= 30 ms); vectors in memory +{:.0} MB",
        status.embedded_chunks,
        at(0.50),
        at(0.95),
        at(0.99),
        after_scan.saturating_sub(before_scan) as f64 / 1024.0
    );
    knowledge.shutdown();
}

/// A stand-in embedding model: 1,024 dimensions from the text's hash, instant, so the figures
/// above are the index's own.
struct StandIn;

impl tessera_knowledge::vectors::Embedder for StandIn {
    fn model(&self) -> String {
        "stand-in-1024".into()
    }

    fn embed(&self, texts: &[String]) -> Result<Vec<Vec<f32>>, String> {
        Ok(texts
            .iter()
            .map(|t| {
                let mut rng = Lcg(t.bytes().fold(1469598103934665603u64, |h, b| {
                    (h ^ u64::from(b)).wrapping_mul(1099511628211)
                }));
                (0..1024)
                    .map(|_| (rng.next() % 2001) as f32 / 1000.0 - 1.0)
                    .collect()
            })
            .collect())
    }
}
