#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use serde_json::json;
use tessera_store::{
    ConsentScope, Entity, InteractionKind, InteractionState, NewInteraction, NewModelTurn,
    StoreError,
};

#[test]
fn model_turns_keep_request_response_and_assembly() {
    let (_dir, store) = common::open();
    let c = common::conversation(&store, "turns");
    let request =
        json!({"model": "claude", "messages": [{"role": "user", "content": "hi"}], "tools": []});
    let turn = store
        .start_model_turn(
            &c,
            NewModelTurn {
                turn_id: Some("turn1".into()),
                run_id: Some("run1".into()),
                provider: "anthropic".into(),
                model: "claude".into(),
                request: request.clone(),
                assembly: None,
            },
        )
        .unwrap();
    let response = json!({"content": [{"type": "thinking", "thinking": "…", "signature": "sig=="}, {"type": "tool_use", "id": "tu1", "name": "search", "input": {"q": "续订", "deep": {"a": [1, 2]}}}]});
    store
        .finish_model_turn(&c, "turn1", response.clone(), Some("m1".into()))
        .unwrap();
    let assembly = json!({"blocks": ["b1"], "evidences": ["e1"], "budget": 8000, "trimmed": []});
    store
        .set_turn_assembly(&c, "turn1", assembly.clone())
        .unwrap();
    let turns = store.model_turns(&c, Some("run1")).unwrap();
    assert_eq!(turns.len(), 1);
    assert_eq!(turns[0].request, request);
    assert_eq!(turns[0].response, Some(response));
    assert_eq!(turns[0].message_id.as_deref(), Some("m1"));
    assert!(turns[0].finished_at.is_some());
    assert_eq!(turns[0].started_at, turn.started_at);
    assert_eq!(store.turn_assembly(&c, "turn1").unwrap(), Some(assembly));
    assert!(store.model_turns(&c, Some("other")).unwrap().is_empty());
    assert!(matches!(
        store.set_turn_assembly(&c, "nope", json!({})),
        Err(StoreError::NotFound {
            entity: Entity::ModelTurn,
            ..
        })
    ));
}

#[test]
fn interactions_are_pending_until_answered_or_cancelled() {
    let (_dir, store) = common::open();
    let c = common::conversation(&store, "forms");
    let form = store
        .create_interaction(
            &c,
            NewInteraction {
                interaction_id: Some("form1".into()),
                run_id: Some("run1".into()),
                kind: InteractionKind::Form,
                request: json!({"form_id": "form1", "title": "地址", "schema": {"type": "object"}}),
            },
        )
        .unwrap();
    assert_eq!(form.state, InteractionState::Pending);
    store
        .create_interaction(
            &c,
            NewInteraction {
                interaction_id: Some("consent1".into()),
                run_id: None,
                kind: InteractionKind::Consent,
                request: json!({"tool": "screen_capture"}),
            },
        )
        .unwrap();
    assert_eq!(store.pending_interactions(None).unwrap().len(), 2);
    let answered = store
        .answer_interaction(
            &c,
            "form1",
            json!({"action": "accept", "values": {"city": "北京"}}),
        )
        .unwrap();
    assert_eq!(answered.state, InteractionState::Answered);
    assert_eq!(
        answered.answer,
        Some(json!({"action": "accept", "values": {"city": "北京"}}))
    );
    let err = store
        .answer_interaction(&c, "form1", json!({}))
        .unwrap_err();
    assert!(
        matches!(
            err,
            StoreError::InteractionNotPending {
                state: "answered",
                ..
            }
        ),
        "{err}"
    );
    let cancelled = store
        .cancel_interaction(&c, "consent1", Some(json!({"reason": "run cancelled"})))
        .unwrap();
    assert_eq!(cancelled.state, InteractionState::Cancelled);
    assert!(store.pending_interactions(Some(&c)).unwrap().is_empty());
    assert_eq!(
        store.interaction(&c, "form1").unwrap().unwrap().request["title"],
        json!("地址")
    );
}

#[test]
fn consent_grants_by_scope() {
    let (_dir, store) = common::open();
    let c1 = common::conversation(&store, "c1");
    let c2 = common::conversation(&store, "c2");
    assert!(store.use_consent("screen_capture", &c1).unwrap().is_none());
    let once = store
        .grant_consent("screen_capture", ConsentScope::Once, Some(&c1))
        .unwrap();
    assert_eq!(
        store
            .use_consent("screen_capture", &c1)
            .unwrap()
            .unwrap()
            .grant_id,
        once.grant_id
    );
    assert!(
        store.use_consent("screen_capture", &c1).unwrap().is_none(),
        "a once grant is spent"
    );

    let conv = store
        .grant_consent("clipboard", ConsentScope::Conversation, Some(&c1))
        .unwrap();
    assert!(store.use_consent("clipboard", &c1).unwrap().is_some());
    assert!(store.use_consent("clipboard", &c1).unwrap().is_some());
    assert!(store.use_consent("clipboard", &c2).unwrap().is_none());
    assert!(store.revoke_consent(&conv.grant_id).unwrap());
    assert!(store.use_consent("clipboard", &c1).unwrap().is_none());
    assert!(!store.revoke_consent(&conv.grant_id).unwrap());

    store
        .grant_consent("notify", ConsentScope::Always, None)
        .unwrap();
    assert!(store.use_consent("notify", &c2).unwrap().is_some());
    assert!(matches!(
        store.grant_consent("x", ConsentScope::Always, Some(&c1)),
        Err(StoreError::InvalidConsentScope { .. })
    ));
    assert!(matches!(
        store.grant_consent("x", ConsentScope::Conversation, None),
        Err(StoreError::InvalidConsentScope { .. })
    ));
    assert_eq!(store.consent_grants(false).unwrap().len(), 2);
    assert_eq!(store.consent_grants(true).unwrap().len(), 3);
}

#[test]
fn provider_settings_refuse_secrets() {
    let (_dir, store) = common::open();
    let settings = json!({"base_url": "https://api.example.invalid", "model": "m", "max_tokens": 4096, "temperature": 0.2});
    store
        .set_provider_settings("openai", settings.clone())
        .unwrap();
    assert_eq!(
        store.provider_settings("openai").unwrap(),
        Some(settings.clone())
    );
    for secret in [
        json!({"api_key": "sk-1"}),
        json!({"headers": {"Authorization": "Bearer x"}}),
        json!({"auth": {"refresh_token": "x"}}),
        json!({"password": "x"}),
    ] {
        let err = store
            .set_provider_settings("openai", secret.clone())
            .unwrap_err();
        assert!(
            matches!(err, StoreError::SecretInSettings { .. }),
            "{secret}: {err}"
        );
        assert!(err.to_string().contains("keyring"), "{err}");
    }
    assert_eq!(
        store.provider_settings("openai").unwrap(),
        Some(settings),
        "nothing was written"
    );
    assert!(store.delete_provider_settings("openai").unwrap());
    assert_eq!(store.provider_settings("openai").unwrap(), None);
}
