//! Helpers for the executor suites: a registry of real async tools, an executor that collects
//! events, and queries over the event stream.
#![allow(dead_code)]

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

use serde_json::Value;
use tessera_engine::executor::{CollectingSink, Executor, ExecutorOptions};
use tessera_engine::tools::{ToolContext, ToolFailure, ToolFailureCode, ToolRegistry, ToolSpec};
use tessera_protocol::easyflow::Event;

pub type R = Result<(), Box<dyn std::error::Error>>;

/// A TOOL_CALL_REQUEST content from JSON.
pub fn request(v: Value) -> Result<tessera_protocol::mcp_cp::ToolCallRequest, serde_json::Error> {
    serde_json::from_value(v)
}

/// A call of `name` with no arguments.
pub fn call(id: &str, name: &str) -> Value {
    serde_json::json!({"callId": id, "name": name, "parameters": {}})
}

pub struct Harness {
    pub sink: Arc<CollectingSink>,
    pub executor: Executor,
}

pub fn harness(registry: ToolRegistry) -> Harness {
    let sink = Arc::new(CollectingSink::new());
    let executor = Executor::new(
        Arc::new(registry),
        sink.clone(),
        ExecutorOptions::new("conv_test").run_id("run_1"),
    );
    Harness { sink, executor }
}

/// `(type, payload)` of every event.
pub fn stream(sink: &CollectingSink) -> Vec<(String, Value)> {
    sink.events()
        .into_iter()
        .map(|e: Event| {
            let v = serde_json::to_value(&e).unwrap_or(Value::Null);
            (
                v["type"].as_str().unwrap_or_default().to_owned(),
                v["payload"].clone(),
            )
        })
        .collect()
}

/// Position of the first event of `ty` about `id` (tool_call_id or node_id).
pub fn position(events: &[(String, Value)], ty: &str, id: &str) -> Option<usize> {
    events
        .iter()
        .position(|(t, p)| t == ty && (p["tool_call_id"] == id || p["node_id"] == id))
}

/// Whether `a`'s event `ta` comes before `b`'s event `tb`.
pub fn before(events: &[(String, Value)], ta: &str, a: &str, tb: &str, b: &str) -> bool {
    match (position(events, ta, a), position(events, tb, b)) {
        (Some(x), Some(y)) => x < y,
        _ => false,
    }
}

/// Counts how many calls run at once and the most seen.
#[derive(Default)]
pub struct Concurrency {
    now: AtomicUsize,
    pub max: AtomicUsize,
    pub calls: AtomicUsize,
}

impl Concurrency {
    pub fn enter(&self) {
        self.calls.fetch_add(1, Ordering::SeqCst);
        let now = self.now.fetch_add(1, Ordering::SeqCst) + 1;
        self.max.fetch_max(now, Ordering::SeqCst);
    }
    pub fn leave(&self) {
        self.now.fetch_sub(1, Ordering::SeqCst);
    }
    pub fn max(&self) -> usize {
        self.max.load(Ordering::SeqCst)
    }
    pub fn calls(&self) -> usize {
        self.calls.load(Ordering::SeqCst)
    }
}

/// Registers a tool that sleeps `ms` (tokio timer) and returns `{"tool": name, "args": …}`,
/// counting concurrency in `c`.
pub fn sleeper(r: &mut ToolRegistry, spec: ToolSpec, ms: u64, c: Arc<Concurrency>) -> R {
    let name = spec.name.clone();
    r.register(spec, move |args: Value, _ctx: ToolContext| {
        let c = c.clone();
        let name = name.clone();
        async move {
            c.enter();
            tokio::time::sleep(Duration::from_millis(ms)).await;
            c.leave();
            Ok::<_, ToolFailure>(serde_json::json!({"tool": name, "args": args}))
        }
    })?;
    Ok(())
}

/// Registers a tool that waits at `barrier` (so it only finishes if `n` of them overlap).
pub fn meeter(r: &mut ToolRegistry, spec: ToolSpec, barrier: Arc<tokio::sync::Barrier>) -> R {
    r.register(spec, move |_args: Value, _ctx: ToolContext| {
        let b = barrier.clone();
        async move {
            b.wait().await;
            Ok::<_, ToolFailure>(serde_json::json!({"met": true}))
        }
    })?;
    Ok(())
}

/// Registers a tool that always fails.
pub fn failing(r: &mut ToolRegistry, spec: ToolSpec, retryable: bool) -> R {
    r.register(spec, move |_args: Value, _ctx: ToolContext| async move {
        Err::<Value, _>(if retryable {
            ToolFailure::retryable(ToolFailureCode::Unavailable, "try later")
        } else {
            ToolFailure::reported("BROKEN", "it broke")
        })
    })?;
    Ok(())
}

pub fn statuses(
    response: &tessera_protocol::mcp_cp::ToolCallResponse,
) -> Vec<(String, &'static str)> {
    response
        .results
        .iter()
        .map(|r| (r.call_id.clone(), r.status.as_str()))
        .collect()
}
