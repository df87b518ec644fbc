#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use serde_json::json;
use tessera_protocol::context_doc::{ModelUsage, ModelUsageStatus, UsageStage};
use tessera_protocol::wire::JsonObject;
use tessera_store::StoreError;

/// A model call record as the providers' `CallRecord::to_model_usage` writes it.
fn call(id: &str, started_at: Option<&str>, cost: Option<f64>) -> ModelUsage {
    let mut extra = JsonObject::new();
    if let Some(at) = started_at {
        extra.insert("started_at".into(), json!(at));
    }
    if let Some(cost) = cost {
        extra.insert("estimated_cost_usd".into(), json!(cost));
    }
    extra.insert("agent".into(), json!("main"));
    ModelUsage {
        model_usage_id: id.into(),
        task_id: None,
        stage: Some(UsageStage::Answer),
        provider: Some("openai".into()),
        model: Some("gpt-4o".into()),
        params: None,
        prompt_tokens: Some(1000),
        completion_tokens: Some(100),
        total_tokens: Some(1100),
        first_token_latency_ms: Some(300),
        latency_ms: Some(900),
        status: Some(ModelUsageStatus::Success),
        error: None,
        extra,
    }
}

#[test]
fn spending_adds_up_by_day_and_by_conversation() {
    let (_dir, store) = common::open();
    let a = common::conversation(&store, "a");
    let b = common::conversation(&store, "b");
    // Yesterday evening in Shanghai, then this morning there (written with its offset).
    store
        .put_model_usage(&a, call("m1", Some("2026-01-19T15:59:59.999Z"), Some(1.5)))
        .unwrap();
    store
        .put_model_usage(
            &a,
            call("m2", Some("2026-01-20T08:30:00+08:00"), Some(0.25)),
        )
        .unwrap();
    store
        .put_model_usage(&b, call("m3", Some("2026-01-20T03:00:00.5Z"), Some(0.125)))
        .unwrap();
    // Unknown price, and a record that never said when it started: counted nowhere by day.
    store
        .put_model_usage(&b, call("m4", Some("2026-01-20T04:00:00Z"), None))
        .unwrap();
    store
        .put_model_usage(&b, call("m5", None, Some(2.0)))
        .unwrap();

    // Local midnight of 2026-01-20 in Shanghai, asked for with its own offset.
    let today = store.spend_since("2026-01-20T00:00:00+08:00").unwrap();
    assert_eq!(today, 0.375);
    assert_eq!(
        store.spend_since("2026-01-19T15:59:59.999Z").unwrap(),
        1.875
    );
    assert_eq!(store.spend_since("2030-01-01T00:00:00Z").unwrap(), 0.0);
    assert_eq!(store.conversation_spend(&a).unwrap(), 1.75);
    assert_eq!(store.conversation_spend(&b).unwrap(), 2.125);
    assert_eq!(store.conversation_spend("no-such").unwrap(), 0.0);

    // Rewriting a record replaces its cost rather than adding to it.
    store
        .put_model_usage(&a, call("m2", Some("2026-01-20T08:30:00+08:00"), Some(0.5)))
        .unwrap();
    assert_eq!(store.conversation_spend(&a).unwrap(), 2.0);

    // The record reads back as written: the extra fields are kept, offset and all.
    let calls = store.model_usage(&a).unwrap();
    assert_eq!(
        calls[1].extra["started_at"],
        json!("2026-01-20T08:30:00+08:00")
    );
    assert_eq!(calls[1].extra["estimated_cost_usd"], json!(0.5));

    let err = store.spend_since("this morning").unwrap_err();
    assert!(matches!(err, StoreError::InvalidTimestamp(_)), "{err}");
}

#[test]
fn spending_of_a_deleted_conversation_is_gone_with_it() {
    let (_dir, store) = common::open();
    let a = common::conversation(&store, "a");
    store
        .put_model_usage(&a, call("m1", Some("2026-01-20T01:00:00Z"), Some(0.75)))
        .unwrap();
    assert_eq!(store.spend_since("2026-01-20T00:00:00Z").unwrap(), 0.75);
    store.delete_conversation(&a).unwrap();
    assert_eq!(store.spend_since("2026-01-20T00:00:00Z").unwrap(), 0.0);
}

#[test]
fn app_settings_keep_json_values_and_refuse_secrets() {
    let (dir, store) = common::open();
    assert_eq!(store.app_setting("spending_limits").unwrap(), None);
    let limits = json!({"per_day_usd": 5.0, "per_conversation_usd": 1.0});
    store
        .set_app_setting("spending_limits", limits.clone())
        .unwrap();
    store
        .set_app_setting("spending_limits", json!({"per_day_usd": 2.5}))
        .unwrap();
    assert_eq!(
        store.app_setting("spending_limits").unwrap(),
        Some(json!({"per_day_usd": 2.5}))
    );

    let err = store
        .set_app_setting("proxy", json!({"url": "http://p", "password": "hunter2"}))
        .unwrap_err();
    assert!(
        matches!(err, StoreError::SecretInSettings { ref path } if path == "proxy.password"),
        "{err}"
    );
    let err = store.set_app_setting("api_key", json!("sk-1")).unwrap_err();
    assert!(matches!(err, StoreError::SecretInSettings { .. }), "{err}");
    assert_eq!(store.app_setting("proxy").unwrap(), None);

    // Kept across a restart.
    drop(store);
    let store = tessera_store::Store::open(dir.path()).unwrap();
    assert_eq!(
        store.app_setting("spending_limits").unwrap(),
        Some(json!({"per_day_usd": 2.5}))
    );
    assert!(store.delete_app_setting("spending_limits").unwrap());
    assert!(!store.delete_app_setting("spending_limits").unwrap());
    assert_eq!(store.app_setting("spending_limits").unwrap(), None);
}
