#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use serde_json::{json, Value};
use tessera_protocol::mcp_cp::{ContextOperation, ContextUpdate};
use tessera_protocol::{validate, DocumentKind};
use tessera_store::{Entity, StoreError};

fn update(value: Value) -> ContextUpdate {
    let message = json!({
        "messageId": "u1", "contextId": "c", "timestamp": "2025-12-01T10:00:00Z",
        "type": "CONTEXT_UPDATE", "sender": {"id": "client", "type": "USER"}, "content": value
    });
    assert!(
        validate(DocumentKind::Message, &message).is_empty(),
        "{message}"
    );
    serde_json::from_value(message["content"].clone()).unwrap()
}

fn add(
    context: &str,
    id: &str,
    kind: &str,
    sender: &str,
    at: &str,
    content: Value,
) -> ContextUpdate {
    update(json!({
        "operation": "ADD_MESSAGE",
        "message": {
            "messageId": id, "contextId": context, "timestamp": at, "type": kind,
            "sender": {"id": "s", "type": sender}, "content": content
        }
    }))
}

#[test]
fn updates_bump_the_version_and_are_logged() {
    let (_dir, store) = common::open();
    let c = common::conversation(&store, "ctx");
    // Seed 000 §1.3: a conversation is a context from the start, at version 0.
    let fresh = store.context(&c).unwrap().unwrap();
    assert_eq!((fresh.version, fresh.messages.len()), (Some(0), 0));
    assert!(store.context("nobody").unwrap().is_none());
    let first = store
        .apply_context_update(
            &c,
            update(
                json!({"operation": "UPDATE_STATE", "path": "currentTopic", "value": "天气查询"}),
            ),
        )
        .unwrap();
    assert_eq!(first.version, 1);
    store.apply_context_update(&c, update(json!({"operation": "UPDATE_STATE", "path": "userPreferences.language", "value": "中文"}))).unwrap();
    store.apply_context_update(&c, update(json!({"operation": "UPDATE_STATE", "path": "userPreferences.language", "value": "英文"}))).unwrap();
    store.apply_context_update(&c, update(json!({"operation": "UPDATE_STATE", "path": "customState.search.count", "value": 3}))).unwrap();
    store.apply_context_update(&c, update(json!({"operation": "UPDATE_STATE", "path": "activeTools", "value": ["weather_api"]}))).unwrap();
    let context = store.context(&c).unwrap().unwrap();
    assert_eq!(context.version, Some(5));
    assert_eq!(context.state.current_topic.as_deref(), Some("天气查询"));
    assert_eq!(
        Value::Object(context.state.user_preferences.clone().unwrap()),
        json!({"language": "英文"})
    );
    assert_eq!(
        Value::Object(context.state.custom_state.clone().unwrap()),
        json!({"search": {"count": 3}})
    );
    assert_eq!(
        context.state.active_tools,
        Some(vec!["weather_api".to_owned()])
    );
    let as_json = serde_json::to_value(&context).unwrap();
    assert!(
        validate(DocumentKind::McpContext, &as_json).is_empty(),
        "{as_json}"
    );

    let changes = store.context_changes(&c, 0).unwrap();
    assert_eq!(
        changes.iter().map(|ch| ch.version).collect::<Vec<_>>(),
        [1, 2, 3, 4, 5]
    );
    assert_eq!(
        changes[1].operation.path.as_deref(),
        Some("userPreferences.language")
    );
    assert_eq!(store.context_changes(&c, 4).unwrap().len(), 1);
}

#[test]
fn a_stale_expected_version_conflicts_and_changes_nothing() {
    let (_dir, store) = common::open();
    let c = common::conversation(&store, "conflict");
    store.apply_context_update(&c, update(json!({"operation": "UPDATE_STATE", "path": "currentTopic", "value": "a", "expectedVersion": 0}))).unwrap();
    // Two clients saw version 1; the first wins.
    store.apply_context_update(&c, update(json!({"operation": "UPDATE_STATE", "path": "currentTopic", "value": "b", "expectedVersion": 1}))).unwrap();
    let err = store.apply_context_update(&c, update(json!({"operation": "UPDATE_STATE", "path": "currentTopic", "value": "c", "expectedVersion": 1}))).unwrap_err();
    match &err {
        StoreError::VersionConflict {
            expected, current, ..
        } => assert_eq!((*expected, *current), (1, 2)),
        other => panic!("{other}"),
    }
    assert!(
        err.to_string().contains("expected version 1")
            && err.to_string().contains("current version is 2"),
        "{err}"
    );
    let context = store.context(&c).unwrap().unwrap();
    assert_eq!(
        (context.version, context.state.current_topic.as_deref()),
        (Some(2), Some("b"))
    );
    assert_eq!(store.context_changes(&c, 0).unwrap().len(), 2);
    // A conflict on a context never updated creates nothing.
    let fresh = common::conversation(&store, "fresh");
    assert!(matches!(
        store.apply_context_update(
            &fresh,
            update(json!({"operation": "CLEAR_HISTORY", "expectedVersion": 3}))
        ),
        Err(StoreError::VersionConflict { current: 0, .. })
    ));
    assert_eq!(store.context(&fresh).unwrap().unwrap().version, Some(0));
    assert!(store.context_changes(&fresh, 0).unwrap().is_empty());
}

#[test]
fn paths_through_non_objects_and_invalid_states_are_refused() {
    let (_dir, store) = common::open();
    let c = common::conversation(&store, "paths");
    store
        .apply_context_update(
            &c,
            update(json!({"operation": "UPDATE_STATE", "path": "currentTopic", "value": "x"})),
        )
        .unwrap();
    store
        .apply_context_update(
            &c,
            update(json!({"operation": "UPDATE_STATE", "path": "activeTools", "value": ["a"]})),
        )
        .unwrap();
    for (path, value) in [
        ("currentTopic.sub", json!(1)),
        ("activeTools.first", json!("b")),
        ("userPreferences", json!("not an object")),
        ("currentTopic", json!(42)),
    ] {
        let err = store
            .apply_context_update(
                &c,
                update(json!({"operation": "UPDATE_STATE", "path": path, "value": value})),
            )
            .unwrap_err();
        assert!(matches!(err, StoreError::StatePath { .. }), "{path}: {err}");
    }
    let err = store
        .apply_context_update(
            &c,
            update(json!({"operation": "UPDATE_STATE", "path": "currentTopic.sub", "value": 1})),
        )
        .unwrap_err();
    assert!(
        err.to_string().contains("\"currentTopic\" is a string"),
        "{err}"
    );
    assert_eq!(
        store.context(&c).unwrap().unwrap().version,
        Some(2),
        "nothing changed"
    );
    let err = store
        .apply_context_update("missing", update(json!({"operation": "CLEAR_HISTORY"})))
        .unwrap_err();
    assert!(
        matches!(
            err,
            StoreError::NotFound {
                entity: Entity::Conversation,
                ..
            }
        ),
        "{err}"
    );
    let mut incomplete = update(json!({"operation": "UPDATE_STATE", "path": "a", "value": 1}));
    incomplete.value = None;
    assert!(matches!(
        store.apply_context_update(&c, incomplete),
        Err(StoreError::InvalidContextUpdate(_))
    ));
    let mut no_message = update(json!({"operation": "CLEAR_HISTORY"}));
    no_message.operation = ContextOperation::AddMessage;
    assert!(matches!(
        store.apply_context_update(&c, no_message),
        Err(StoreError::InvalidContextUpdate(_))
    ));
}

#[test]
fn history_is_added_and_cleared_by_filter() {
    let (_dir, store) = common::open();
    let c = common::conversation(&store, "history");
    store
        .apply_context_update(
            &c,
            add(
                &c,
                "m1",
                "USER_INPUT",
                "USER",
                "2025-12-01T08:00:00Z",
                json!({"text": "早"}),
            ),
        )
        .unwrap();
    store
        .apply_context_update(
            &c,
            add(
                &c,
                "m2",
                "MODEL_RESPONSE",
                "MODEL",
                "2025-12-01T08:30:00Z",
                json!({"text": "早上好", "finishReason": "STOP"}),
            ),
        )
        .unwrap();
    store
        .apply_context_update(
            &c,
            add(
                &c,
                "m3",
                "USER_INPUT",
                "USER",
                "2025-12-01T17:30:00+08:00",
                json!({"text": "天气？"}),
            ),
        )
        .unwrap();
    store
        .apply_context_update(
            &c,
            add(
                &c,
                "m4",
                "MODEL_RESPONSE",
                "MODEL",
                "2025-12-01T10:00:00Z",
                json!({"text": "晴", "finishReason": "STOP"}),
            ),
        )
        .unwrap();
    let ids = |store: &tessera_store::Store| -> Vec<String> {
        store
            .context(&c)
            .unwrap()
            .unwrap()
            .messages
            .into_iter()
            .map(|m| m.message_id)
            .collect()
    };
    assert_eq!(ids(&store), ["m1", "m2", "m3", "m4"]);
    let err = store
        .apply_context_update(
            &c,
            add(
                "elsewhere",
                "m9",
                "USER_INPUT",
                "USER",
                "2025-12-01T08:00:00Z",
                json!({"text": "x"}),
            ),
        )
        .unwrap_err();
    assert!(matches!(err, StoreError::InvalidContextUpdate(_)), "{err}");

    // Before 09:00Z are m1 and m2 (m3's 17:30+08:00 is 09:30Z); of those, the assistant's.
    let outcome = store.apply_context_update(&c, update(json!({"operation": "CLEAR_HISTORY", "filter": {"beforeTimestamp": "2025-12-01T09:00:00Z", "role": "assistant"}}))).unwrap();
    assert_eq!(outcome.removed_messages, 1);
    assert_eq!(ids(&store), ["m1", "m3", "m4"]);
    let outcome = store
        .apply_context_update(
            &c,
            update(json!({"operation": "CLEAR_HISTORY", "filter": {"type": "USER_INPUT"}})),
        )
        .unwrap();
    assert_eq!(outcome.removed_messages, 2);
    assert_eq!(ids(&store), ["m4"]);
    let outcome = store
        .apply_context_update(&c, update(json!({"operation": "CLEAR_HISTORY"})))
        .unwrap();
    assert_eq!((outcome.removed_messages, outcome.version), (1, 7));
    assert!(ids(&store).is_empty());
}
