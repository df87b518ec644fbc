//! Scheduling figures (issue 5): for generated workloads of simulated tools, the makespan of the
//! executor, the lower bound (the larger of the precedence graph's critical path and the total
//! work divided by the concurrency limit), and the makespan of the seed 001 batch algorithm on
//! the same calls; then the scheduling overhead per call over 10k zero-latency calls.
//!
//! `cargo bench -p tessera-engine --bench schedule` (append `-- overhead` for the overhead
//! figures alone, e.g. under `perf`).
//!
//! Makespans are measured twice: on tokio's paused clock (virtual time: exactly what the
//! schedule achieves, timer granularity removed) and on the real clock (what a person would
//! see, timer overshoot included). Target: virtual makespan within 5% + 2 ms of the lower
//! bound; overhead under 20 µs per call.
#![allow(clippy::unwrap_used, clippy::expect_used)] // a benchmark may panic on its own set-up

use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::sync::Arc;
use std::time::{Duration, Instant};

use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use serde_json::{json, Value};
use tessera_engine::executor::{Executor, ExecutorOptions, NullSink};
use tessera_engine::tools::{ToolContext, ToolFailure, ToolRegistry, ToolSpec};
use tessera_protocol::mcp_cp::ToolCallRequest;
use tokio_util::sync::CancellationToken;

const LIMIT: usize = 10;
const RESOURCES: usize = 8;

#[derive(Clone, Debug)]
enum Kind {
    Safe,
    /// Side-effecting, declares what it reads and writes.
    Declared {
        reads: Vec<String>,
        writes: Vec<String>,
    },
    /// Side-effecting, declares nothing: conflicts with everything.
    Undeclared,
}

#[derive(Clone, Debug)]
struct Call {
    latency_ms: u64,
    kind: Kind,
    after: Vec<usize>,
}

struct Workload {
    name: String,
    calls: Vec<Call>,
}

fn latency(rng: &mut StdRng) -> u64 {
    rng.random_range(1..=50)
}

fn resource(rng: &mut StdRng) -> String {
    format!("r{}", rng.random_range(0..RESOURCES))
}

fn kind(rng: &mut StdRng, safe: f64, declared: f64) -> Kind {
    let x: f64 = rng.random();
    if x < safe {
        Kind::Safe
    } else if x < safe + declared {
        let mut writes = vec![resource(rng)];
        if rng.random_bool(0.3) {
            writes.push(resource(rng));
        }
        let reads = if rng.random_bool(0.5) {
            vec![resource(rng)]
        } else {
            vec![]
        };
        Kind::Declared { reads, writes }
    } else {
        Kind::Undeclared
    }
}

fn workloads() -> Vec<Workload> {
    let mut rng = StdRng::seed_from_u64(5);
    let mut out = Vec::new();
    // A chain: nothing can overlap.
    let calls = (0..100)
        .map(|i| Call {
            latency_ms: latency(&mut rng),
            kind: Kind::Safe,
            after: if i == 0 { vec![] } else { vec![i - 1] },
        })
        .collect();
    out.push(Workload {
        name: "chain 100, safe".into(),
        calls,
    });
    // A wide fan-out and fan-in.
    let mut calls = vec![Call {
        latency_ms: 20,
        kind: Kind::Safe,
        after: vec![],
    }];
    for _ in 0..300 {
        calls.push(Call {
            latency_ms: latency(&mut rng),
            kind: Kind::Safe,
            after: vec![0],
        });
    }
    calls.push(Call {
        latency_ms: 10,
        kind: Kind::Safe,
        after: (1..=300).collect(),
    });
    out.push(Workload {
        name: "fan-out 1→300→1, safe".into(),
        calls,
    });
    // Independent calls.
    for (n, safe, declared, label) in [
        (500, 1.0, 0.0, "safe"),
        (300, 0.0, 1.0, "side-effecting, declared resources"),
        (200, 0.8, 0.0, "80% safe, 20% side-effecting undeclared"),
        (200, 0.7, 0.27, "70% safe, 27% declared, 3% undeclared"),
    ] {
        let calls = (0..n)
            .map(|_| Call {
                latency_ms: latency(&mut rng),
                kind: kind(&mut rng, safe, declared),
                after: vec![],
            })
            .collect();
        out.push(Workload {
            name: format!("independent {n}, {label}"),
            calls,
        });
    }
    // Random graphs: each call depends on up to 3 of the 20 calls before it.
    for n in [50, 200, 500] {
        for (safe, declared, label) in [(1.0, 0.0, "safe"), (0.7, 0.27, "mixed")] {
            let calls = (0..n)
                .map(|i: usize| {
                    let mut after = Vec::new();
                    if i > 0 {
                        for _ in 0..rng.random_range(0..=3) {
                            let lo = i.saturating_sub(20);
                            let d = rng.random_range(lo..i);
                            if !after.contains(&d) {
                                after.push(d);
                            }
                        }
                    }
                    Call {
                        latency_ms: latency(&mut rng),
                        kind: kind(&mut rng, safe, declared),
                        after,
                    }
                })
                .collect();
            out.push(Workload {
                name: format!("random DAG {n}, {label}"),
                calls,
            });
        }
    }
    out
}

fn build(w: &Workload) -> (Executor, ToolCallRequest) {
    let mut registry = ToolRegistry::new();
    let mut calls = Vec::new();
    for (i, c) in w.calls.iter().enumerate() {
        let name = format!("t{i}");
        let mut spec = ToolSpec::new(&name, "")
            .estimated_ms(c.latency_ms)
            .timeout_ms(600_000);
        spec = match &c.kind {
            Kind::Safe => spec.safe(true),
            Kind::Declared { reads, writes } => {
                spec.safe(false).reads(reads.clone()).writes(writes.clone())
            }
            Kind::Undeclared => spec.safe(false),
        };
        let ms = c.latency_ms;
        registry
            .register(spec, move |_a: Value, _c: ToolContext| async move {
                tokio::time::sleep(Duration::from_millis(ms)).await;
                Ok::<_, ToolFailure>(Value::Null)
            })
            .unwrap();
        let after: Vec<String> = c.after.iter().map(|d| format!("c{d}")).collect();
        calls.push(json!({"callId": format!("c{i}"), "name": name, "parameters": {}, "requiredAfter": after}));
    }
    let executor = Executor::new(
        Arc::new(registry),
        Arc::new(NullSink),
        ExecutorOptions::new("bench").concurrency_limit(LIMIT),
    );
    let request =
        serde_json::from_value(json!({"executionMode": "PARALLEL", "calls": calls})).unwrap();
    (executor, request)
}

/// Greedy list scheduling of `jobs` (latencies, in order) on `limit` workers.
fn pool_makespan(jobs: &[u64], limit: usize) -> u64 {
    let mut free: BinaryHeap<Reverse<u64>> = (0..limit).map(|_| Reverse(0)).collect();
    let mut end = 0;
    for &j in jobs {
        let Reverse(t) = free.pop().unwrap();
        end = end.max(t + j);
        free.push(Reverse(t + j));
    }
    end
}

/// Seed 001 §4: consecutive safe calls form a batch run together; a side-effecting call first
/// waits for the batch, then runs alone. Extended only as far as correctness needs: a call that
/// depends on one in the open batch closes it first. Batches run with the same limit.
fn batch_makespan(calls: &[Call]) -> u64 {
    let mut time = 0;
    let mut batch: Vec<usize> = Vec::new();
    let flush = |batch: &mut Vec<usize>, time: &mut u64| {
        let jobs: Vec<u64> = batch.iter().map(|&i| calls[i].latency_ms).collect();
        *time += pool_makespan(&jobs, LIMIT);
        batch.clear();
    };
    for (i, c) in calls.iter().enumerate() {
        if c.after.iter().any(|d| batch.contains(d)) {
            flush(&mut batch, &mut time);
        }
        match c.kind {
            Kind::Safe => batch.push(i),
            Kind::Declared { .. } | Kind::Undeclared => {
                flush(&mut batch, &mut time);
                time += c.latency_ms;
            }
        }
    }
    flush(&mut batch, &mut time);
    time
}

fn makespan(executor: &Executor, request: &ToolCallRequest, paused: bool) -> u64 {
    let rt = if paused {
        tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .start_paused(true)
            .build()
    } else {
        tokio::runtime::Builder::new_multi_thread()
            .enable_all()
            .build()
    }
    .unwrap();
    rt.block_on(async {
        let start = tokio::time::Instant::now();
        let resp = executor
            .run_tool_calls(request, &CancellationToken::new())
            .await
            .unwrap();
        assert!(resp.results.iter().all(|r| r.status.as_str() == "SUCCESS"));
        start.elapsed().as_millis() as u64
    })
}

fn overhead(n: usize, dag: bool) -> (f64, f64, f64) {
    let mut registry = ToolRegistry::new();
    registry
        .register(
            ToolSpec::new("noop", "").safe(true),
            |_a: Value, _c: ToolContext| async { Ok::<_, ToolFailure>(Value::Null) },
        )
        .unwrap();
    let mut rng = StdRng::seed_from_u64(7);
    let calls: Vec<Value> = (0..n)
        .map(|i| {
            let after: Vec<String> = if dag && i > 0 {
                (0..rng.random_range(0..=2)).map(|_| format!("c{}", rng.random_range(i.saturating_sub(50)..i))).collect()
            } else {
                vec![]
            };
            json!({"callId": format!("c{i}"), "name": "noop", "parameters": {"i": i}, "requiredAfter": after})
        })
        .collect();
    let request: ToolCallRequest = serde_json::from_value(json!({"calls": calls})).unwrap();
    let executor = Executor::new(
        Arc::new(registry),
        Arc::new(NullSink),
        ExecutorOptions::new("bench"),
    );
    let plan_start = Instant::now();
    let _ = executor.plan_tool_calls(&request).unwrap();
    let plan_us = plan_start.elapsed().as_secs_f64() * 1e6 / n as f64;
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    // Warm up once, then the median of five runs (the machine is shared).
    rt.block_on(executor.run_tool_calls(&request, &CancellationToken::new()))
        .unwrap();
    let mut runs: Vec<f64> = (0..5)
        .map(|_| {
            let start = Instant::now();
            let resp = rt
                .block_on(executor.run_tool_calls(&request, &CancellationToken::new()))
                .unwrap();
            assert_eq!(resp.results.len(), n);
            start.elapsed().as_secs_f64() * 1e6 / n as f64
        })
        .collect();
    runs.sort_by(f64::total_cmp);
    (plan_us, runs[2], runs[0])
}

fn main() {
    // `cargo bench … -- overhead` runs only the overhead figures (for profiling).
    let only_overhead = std::env::args().any(|a| a == "overhead");
    println!("concurrency limit {LIMIT}; latencies 1–50 ms; times in ms");
    println!(
        "{:<58} {:>6} {:>9} {:>9} {:>9} {:>9} {:>10}  target",
        "workload", "calls", "bound", "makespan", "real", "batch", "vs bound"
    );
    let mut misses = 0;
    for w in workloads().into_iter().filter(|_| !only_overhead) {
        let (executor, request) = build(&w);
        let plan = executor.plan_tool_calls(&request).unwrap();
        let cp = plan.graph.critical_path_ms();
        let work = plan.graph.total_work_ms();
        let bound = cp.max(work.div_ceil(LIMIT as u64));
        let virt = makespan(&executor, &request, true);
        let real = makespan(&executor, &request, false);
        let batch = batch_makespan(&w.calls);
        let ok = (virt as f64) <= bound as f64 * 1.05 + 2.0;
        if !ok {
            misses += 1;
        }
        println!(
            "{:<58} {:>6} {:>9} {:>9} {:>9} {:>9} {:>9.1}%  {}",
            w.name,
            w.calls.len(),
            bound,
            virt,
            real,
            batch,
            (virt as f64 / bound.max(1) as f64 - 1.0) * 100.0,
            if ok { "ok" } else { "MISS" }
        );
    }
    println!();
    for (label, dag) in [
        ("10k independent zero-latency calls", false),
        ("10k zero-latency calls, random DAG", true),
    ] {
        let (plan_us, median_us, best_us) = overhead(10_000, dag);
        println!(
            "{label}: {median_us:.2} µs per call end to end, median of 5 (best {best_us:.2}; \
             planning {plan_us:.2} µs); target < 20 µs: {}",
            if median_us < 20.0 { "ok" } else { "MISS" }
        );
    }
    if misses > 0 {
        println!("{misses} workload(s) missed the makespan target");
    }
}
