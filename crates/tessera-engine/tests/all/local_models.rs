//! The context a person chose for local models reaches the worker: it is started with
//! `--ctx` of the setting, started again when the setting changes, and without it when the
//! setting is cleared. The worker here is a script that records its arguments and says it is
//! ready (the real worker's handling of `--ctx` is tested in crates/tessera-llama).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::os::unix::fs::PermissionsExt;
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::json;
use tessera_engine::local_models::{ContextError, LocalModels, CONTEXT_SETTING};
use tessera_providers::endpoint::EndpointSource;
use tessera_store::Store;

async fn args_of_a_start(models: &LocalModels, record: &std::path::Path) -> String {
    let _ = std::fs::remove_file(record);
    models.endpoint("m.gguf").await.unwrap();
    let began = Instant::now();
    loop {
        if let Ok(args) = std::fs::read_to_string(record) {
            return args;
        }
        assert!(
            began.elapsed() < Duration::from_secs(10),
            "the worker was not started"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn the_chosen_context_starts_the_worker_and_a_change_starts_it_again() {
    let dir = tempfile::tempdir().unwrap();
    let store = Arc::new(Store::open(dir.path()).unwrap());
    let models_dir = tessera_local::library::models_dir(dir.path());
    std::fs::create_dir_all(&models_dir).unwrap();
    std::fs::write(models_dir.join("m.gguf"), b"GGUF").unwrap();
    let record = dir.path().join("args");
    let worker = dir.path().join("worker.sh");
    std::fs::write(
        &worker,
        format!(
            "#!/bin/sh\necho \"$@\" > {record}.part && mv {record}.part {record}\n\
             echo '{{\"port\":9,\"pid\":'$$',\"model\":\"m\",\"n_ctx\":4096}}'\nexec cat > /dev/null\n",
            record = record.display()
        ),
    )
    .unwrap();
    std::fs::set_permissions(&worker, std::fs::Permissions::from_mode(0o755)).unwrap();
    let models = LocalModels::with_worker(store.clone(), worker);

    assert_eq!(models.context_tokens().unwrap(), None);
    let args = args_of_a_start(&models, &record).await;
    assert!(!args.contains("--ctx"), "the worker chooses: {args}");

    assert_eq!(
        models.set_context_tokens(Some(32_768)).unwrap(),
        Some(32_768)
    );
    let args = args_of_a_start(&models, &record).await;
    assert!(args.contains("--ctx 32768"), "{args}");
    // The same context: the worker that runs serves on.
    let _ = std::fs::remove_file(&record);
    models.endpoint("m.gguf").await.unwrap();
    tokio::time::sleep(Duration::from_millis(200)).await;
    assert!(!record.exists(), "not started again for the same context");

    assert!(matches!(
        models.set_context_tokens(Some(100)),
        Err(ContextError::OutOfRange(100))
    ));
    assert!(matches!(
        models.set_context_tokens(Some(u64::MAX)),
        Err(ContextError::OutOfRange(_))
    ));
    assert_eq!(
        models.context_tokens().unwrap(),
        Some(32_768),
        "a refused value changes nothing"
    );

    assert_eq!(models.set_context_tokens(None).unwrap(), None);
    let args = args_of_a_start(&models, &record).await;
    assert!(!args.contains("--ctx"), "{args}");

    // A stored value that is no usable count (an older build, a hand edit): the worker chooses.
    store
        .set_app_setting(CONTEXT_SETTING, json!("lots"))
        .unwrap();
    assert_eq!(models.context_tokens().unwrap(), None);
    store.set_app_setting(CONTEXT_SETTING, json!(64)).unwrap();
    assert_eq!(models.context_tokens().unwrap(), None);
    models.unload().await;
}
