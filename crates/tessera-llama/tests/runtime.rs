//! Tessera's side of the worker (`tessera_local::runtime`): started on the first request,
//! restarted after `kill -9`, stopped when idle or unloaded (its memory gone with its process),
//! a model that cannot load named with what llama.cpp said.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::PathBuf;
use std::time::{Duration, Instant};

use serde_json::{json, Value};
use tessera_local::runtime::{LocalRuntime, RuntimeError, RuntimeOptions, WorkerState};

fn model() -> PathBuf {
    PathBuf::from(
        std::env::var("TESSERA_TEST_GGUF").expect("TESSERA_TEST_GGUF names the test model"),
    )
}

fn options() -> RuntimeOptions {
    let mut options = RuntimeOptions::new(PathBuf::from(env!("CARGO_BIN_EXE_tessera-llama")));
    options.ctx = Some(1024);
    options.threads = Some(2);
    options
}

fn alive(pid: u32) -> bool {
    // A zombie is not alive: its memory is gone.
    std::fs::read_to_string(format!("/proc/{pid}/stat"))
        .map(|stat| !stat.contains(") Z "))
        .unwrap_or(false)
}

async fn ask(base_url: &str, token: &str) -> Value {
    reqwest::Client::builder()
        .no_proxy()
        .build()
        .unwrap()
        .post(format!("{base_url}/chat/completions"))
        .bearer_auth(token)
        .json(&json!({"model": "x", "messages": [{"role": "user", "content": "hi"}], "max_tokens": 2}))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap()
}

async fn until(what: &str, mut check: impl FnMut() -> bool) {
    let began = Instant::now();
    while !check() {
        assert!(began.elapsed() < Duration::from_secs(20), "{what}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

#[tokio::test]
async fn started_on_demand_restarted_after_kill_9_and_unloaded() {
    let runtime = LocalRuntime::new(options());
    assert_eq!(runtime.state().await, WorkerState::NotRunning);
    let first = runtime.endpoint(&model(), None).await.unwrap();
    assert_eq!(
        ask(&first.base_url, &first.token).await["usage"]["completion_tokens"],
        2
    );
    assert_eq!(
        runtime.endpoint(&model(), None).await.unwrap().pid,
        first.pid,
        "the same worker serves again"
    );

    // A crash in native code, as the OS ends it.
    std::process::Command::new("kill")
        .args(["-9", &first.pid.to_string()])
        .status()
        .unwrap();
    let mut died = None;
    let began = Instant::now();
    while died.is_none() {
        if let WorkerState::Died { status, .. } = runtime.state().await {
            died = Some(status);
        }
        assert!(
            began.elapsed() < Duration::from_secs(10),
            "the death was not noticed"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert!(
        died.unwrap().contains("signal: 9"),
        "the state says how it stopped"
    );

    let second = runtime.endpoint(&model(), None).await.unwrap();
    assert_ne!(second.pid, first.pid);
    assert_ne!(second.token, first.token, "a fresh token per start");
    assert_eq!(
        ask(&second.base_url, &second.token).await["usage"]["completion_tokens"],
        2
    );

    runtime.unload().await;
    assert!(
        !alive(second.pid),
        "unloaded: the process and its memory are gone"
    );
    assert_eq!(runtime.state().await, WorkerState::NotRunning);
}

#[tokio::test]
async fn another_context_loads_the_model_again_with_it_and_the_same_one_keeps_it() {
    let runtime = LocalRuntime::new(options());
    let first = runtime.endpoint(&model(), None).await.unwrap();
    assert_eq!(first.n_ctx, 1024, "the options' context when none is asked");
    let bigger = runtime.endpoint(&model(), Some(2048)).await.unwrap();
    assert_ne!(bigger.pid, first.pid, "loaded again");
    assert_eq!(bigger.n_ctx, 2048);
    until("the worker of the old context stopped", || {
        !alive(first.pid)
    })
    .await;
    assert_eq!(
        runtime.endpoint(&model(), Some(2048)).await.unwrap().pid,
        bigger.pid,
        "the same context: the same worker"
    );
    assert!(matches!(
        runtime.state().await,
        WorkerState::Running { n_ctx: 2048, .. }
    ));
    assert_eq!(
        ask(&bigger.base_url, &bigger.token).await["usage"]["completion_tokens"],
        2
    );
    runtime.unload().await;
}

#[tokio::test]
async fn an_idle_worker_stops_and_a_dropped_runtime_takes_its_worker_along() {
    let mut idle = options();
    idle.idle = Duration::from_millis(600);
    let runtime = LocalRuntime::new(idle);
    let endpoint = runtime.endpoint(&model(), None).await.unwrap();
    until("the idle worker stopped", || !alive(endpoint.pid)).await;
    assert_eq!(runtime.state().await, WorkerState::NotRunning);

    let runtime = LocalRuntime::new(options());
    let endpoint = runtime.endpoint(&model(), None).await.unwrap();
    drop(runtime);
    until("the worker outlived its runtime", || !alive(endpoint.pid)).await;
}

#[tokio::test]
async fn a_file_that_is_not_a_model_is_refused_with_what_llama_cpp_said() {
    let dir = std::env::temp_dir().join(format!("tessera-runtime-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let bad = dir.join("bad.gguf");
    std::fs::write(&bad, b"GGUF but not really a model").unwrap();
    let runtime = LocalRuntime::new(options());
    let err = runtime.endpoint(&bad, None).await.unwrap_err();
    match &err {
        RuntimeError::LoadFailed { said, .. } => assert!(said.contains("cannot load"), "{said}"),
        other => panic!("expected LoadFailed, got {other}"),
    }
    let missing = LocalRuntime::new(RuntimeOptions::new(dir.join("no-worker")));
    assert!(matches!(
        missing.endpoint(&model(), None).await,
        Err(RuntimeError::Spawn { .. })
    ));
    let _ = std::fs::remove_dir_all(dir);
}
