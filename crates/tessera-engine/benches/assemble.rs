//! Assembly time for a 128k-token window from 10k messages, 5k evidences and 1k blocks, with the
//! token cache cold and warm. Prints figures; asserts nothing about time.
//!
//! `cargo bench -p tessera-engine --bench assemble` (targets: < 1 s cold, < 20 ms cached).

use std::hint::black_box;
use std::time::{Duration, Instant};

use serde_json::{json, Value};
use tessera_engine::assembler::{
    assemble, system_time_from_rfc3339, AssembleError, AssembleRequest, Assembly, DocumentResolver,
    Encoding, TokenCache,
};
use tessera_protocol::context_doc::ContextDocument;

const MESSAGES: usize = 10_000;
const EVIDENCES: usize = 5_000;
const BLOCKS: usize = 1_000;
const WINDOW: u64 = 128_000;
const RESERVED: u64 = 8_000;

const EN: &[&str] = &[
    "the", "renewal", "api", "returns", "an", "order", "with", "price", "and", "status", "when",
    "customer", "requests", "monthly", "billing", "cycle", "token", "budget", "context", "tool",
];
const ZH: &[&str] = &[
    "包周期",
    "续订",
    "接口",
    "订单",
    "价格",
    "状态",
    "用户",
    "请求",
    "账单",
    "上下文",
    "证据",
];

/// A small deterministic generator (64-bit LCG), so every run measures the same session.
struct Lcg(u64);

impl Lcg {
    fn next(&mut self) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        self.0 >> 33
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }

    fn text(&mut self, words: usize) -> String {
        let mut out = String::new();
        for i in 0..words {
            if i > 0 {
                out.push(' ');
            }
            if self.below(4) == 0 {
                out.push_str(ZH[self.below(ZH.len() as u64) as usize]);
            } else {
                out.push_str(EN[self.below(EN.len() as u64) as usize]);
            }
            if self.below(11) == 0 {
                out.push_str(&self.below(10_000).to_string());
            }
        }
        out
    }
}

fn session(with_summary: bool) -> ContextDocument {
    let mut rng = Lcg(42);
    let mut messages =
        vec![json!({"role": "system", "content": "You are Tessera, a desktop agent."})];
    for i in 1..MESSAGES {
        let role = if i % 2 == 1 { "user" } else { "assistant" };
        let words = 40 + rng.below(120) as usize;
        messages
            .push(json!({"role": role, "content": rng.text(words), "message_id": format!("m{i}")}));
    }
    let mut evidences = serde_json::Map::new();
    for i in 0..EVIDENCES {
        let words = 60 + rng.below(200) as usize;
        let content = if i % 5 == 0 {
            json!({"rows": [rng.text(words / 2), rng.text(words / 2)], "n": i})
        } else {
            Value::String(rng.text(words))
        };
        evidences.insert(
            format!("ev{i}"),
            json!({"evidence_id": format!("ev{i}"), "type": "rag_doc", "source": {"kind": "rag"},
                   "content": content}),
        );
    }
    let mut blocks = Vec::new();
    for i in 0..BLOCKS {
        let priority = match i % 50 {
            0 => "must",
            1..=10 => "high",
            11..=29 => "medium",
            _ => "low",
        };
        let mut block = json!({"block_id": format!("b{i}"), "block_type": "evidence",
                               "priority": priority});
        if priority == "must" {
            block["content"] = json!(rng.text(30));
        } else if rng.below(10) < 3 {
            let words = 50 + rng.below(300) as usize;
            block["content"] = json!(rng.text(words));
        } else {
            let refs: Vec<Value> = (0..1 + rng.below(3))
                .map(|_| json!({"evidence_id": format!("ev{}", rng.below(EVIDENCES as u64))}))
                .collect();
            block["refs"] = json!(refs);
        }
        if rng.below(20) == 0 {
            block["expires_at"] = json!("2026-01-01T00:00:00Z");
        }
        blocks.push(block);
    }
    let mut session = json!({"session_id": "bench", "messages": messages,
                             "task_state": {"todo_list": {"tasks": []}}});
    if with_summary {
        session["summary"] = json!({"content": rng.text(400), "updated_at": "2026-02-10T10:00:00Z",
                                    "message_index_range": {"from": 1, "to": 9_000}});
    }
    let doc = json!({"schema_version": "1.0", "session": session, "evidences": evidences,
                     "context_blocks": blocks});
    match serde_json::from_value(doc) {
        Ok(doc) => doc,
        Err(e) => panic!("bench document does not parse: {e}"),
    }
}

fn run(
    doc: &ContextDocument,
    request: &AssembleRequest,
    cache: &TokenCache,
) -> Result<Assembly, AssembleError> {
    let resolver = DocumentResolver::new(doc);
    assemble(black_box(doc), request, &resolver, cache)
}

fn ms(d: Duration) -> String {
    format!("{:.2} ms", d.as_secs_f64() * 1e3)
}

fn scenario(
    name: &str,
    doc: &ContextDocument,
    request: &AssembleRequest,
) -> Result<(), AssembleError> {
    let cache = TokenCache::new();
    let start = Instant::now();
    let cold = run(doc, request, &cache)?;
    let cold_time = start.elapsed();
    let misses = cache.stats().misses;
    let mut warm = Vec::new();
    for _ in 0..20 {
        let start = Instant::now();
        let out = run(doc, request, &cache)?;
        warm.push(start.elapsed());
        assert!(out == cold, "a warm run changed the result");
    }
    warm.sort();
    let e = &cold.explanation;
    println!("{name}:");
    println!(
        "  prompt: {} items, {} of {} tokens used ({} blocks, {} messages, summary {:?}, {} blocks dropped)",
        cold.prompt.len(), e.budget.used, e.budget.available, e.blocks.len(), e.messages.len(),
        e.summary.status, e.dropped_blocks.len()
    );
    println!(
        "  cold cache: {}  ({} texts counted)",
        ms(cold_time),
        misses
    );
    println!(
        "  warm cache: median {}, min {}, max {}  (20 runs)",
        ms(warm[warm.len() / 2]),
        ms(warm[0]),
        ms(warm[warm.len() - 1])
    );
    Ok(())
}

fn main() -> Result<(), AssembleError> {
    let start = Instant::now();
    let with_summary = session(true);
    let without_summary = session(false);
    println!(
        "generated 2 sessions ({MESSAGES} messages, {EVIDENCES} evidences, {BLOCKS} blocks each) in {}",
        ms(start.elapsed())
    );
    let start = Instant::now();
    Encoding::O200kBase.load()?;
    println!(
        "o200k_base tables built (once per process) in {}",
        ms(start.elapsed())
    );
    let now = system_time_from_rfc3339("2026-02-10T10:00:00Z").unwrap_or(std::time::UNIX_EPOCH);
    let request = AssembleRequest::new("gpt-4o", WINDOW, RESERVED, now);
    scenario(
        "128k window, summary covering messages 1-9000",
        &with_summary,
        &request,
    )?;
    scenario("128k window, no summary", &without_summary, &request)?;
    Ok(())
}
