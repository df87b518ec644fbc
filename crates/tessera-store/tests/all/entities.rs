#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use common::{evidence, reference, with_refs};
use serde_json::json;
use tessera_protocol::context_doc::{
    BlockType, ContextBlock, ContextToolStatus, EvidenceLinks, EvidenceType, MessageIndexRange,
    ModelUsage, ModelUsageStatus, Priority, ProviderKind, Summary, Task, TaskStatus, ToolCallKind,
    ToolCallRecord, ToolProvider, UsageStage,
};
use tessera_protocol::request::Role;
use tessera_protocol::wire::{JsonObject, Timestamp};
use tessera_store::{
    AttachmentRef, ConversationFilter, ConversationPatch, Entity, NewMessage, SelectorError,
    StoreError,
};

fn object(value: serde_json::Value) -> JsonObject {
    match value {
        serde_json::Value::Object(map) => map,
        _ => JsonObject::new(),
    }
}

#[test]
fn evidences_round_trip_with_every_field_and_attachments() {
    let (_dir, store) = common::open();
    let c = common::conversation(&store, "ev");
    let shot = store
        .put_attachment(b"\x89PNG fake screenshot", Some("image/png"))
        .unwrap();
    let mut e = evidence(
        "ev1",
        EvidenceType::ToolResult,
        Some(json!({"data": {"items": [{"name": "续订"}]}})),
    );
    e.confidence = Some(serde_json::Number::from_f64(0.92).unwrap());
    e.metadata = Some(object(json!({"tags": ["a"], "dataField": []})));
    e.links = Some(EvidenceLinks {
        model_usage_id: Some("u1".into()),
        tool_call_id: Some("t1".into()),
        extra: JsonObject::new(),
    });
    e.extra = object(json!({"x_custom": 1}));
    let attachment = AttachmentRef {
        sha256: shot.sha256.clone(),
        mime_type: Some("image/png".into()),
        file_name: Some("shot.png".into()),
    };
    store
        .put_evidence(&c, e.clone(), vec![attachment.clone()])
        .unwrap();
    let stored = store.evidence(&c, "ev1").unwrap().unwrap();
    assert_eq!(stored.evidence, e);
    assert_eq!(stored.attachments, [attachment]);
    assert_eq!(
        serde_json::to_value(&stored.evidence.confidence).unwrap(),
        json!(0.92)
    );

    // Absent content and null content stay distinct.
    store
        .put_evidence(&c, evidence("none", EvidenceType::Other, None), vec![])
        .unwrap();
    store
        .put_evidence(
            &c,
            evidence("null", EvidenceType::Other, Some(serde_json::Value::Null)),
            vec![],
        )
        .unwrap();
    assert_eq!(
        store
            .evidence(&c, "none")
            .unwrap()
            .unwrap()
            .evidence
            .content,
        None
    );
    assert_eq!(
        store
            .evidence(&c, "null")
            .unwrap()
            .unwrap()
            .evidence
            .content,
        Some(serde_json::Value::Null)
    );

    // Replacing keeps the order.
    let mut replaced = e.clone();
    replaced.content = Some(json!("new"));
    store.put_evidence(&c, replaced, vec![]).unwrap();
    let ids: Vec<String> = store
        .evidences(&c)
        .unwrap()
        .into_iter()
        .map(|s| s.evidence.evidence_id)
        .collect();
    assert_eq!(ids, ["ev1", "none", "null"]);

    let err = store
        .put_evidence(
            &c,
            evidence("bad", EvidenceType::Other, None),
            vec![AttachmentRef::new("f".repeat(64))],
        )
        .unwrap_err();
    assert!(
        matches!(
            err,
            StoreError::NotFound {
                entity: Entity::Attachment,
                ..
            }
        ),
        "{err}"
    );
    assert!(
        store.evidence(&c, "bad").unwrap().is_none(),
        "nothing written"
    );
}

#[test]
fn attachments_are_content_addressed_and_deduplicated() {
    let (dir, store) = common::open();
    let a = store
        .put_attachment(b"same bytes", Some("text/plain"))
        .unwrap();
    let b = store.put_attachment(b"same bytes", None).unwrap();
    assert_eq!(a.sha256, b.sha256);
    assert_eq!(
        a.sha256,
        "58100dc8fc06562ce3e578231dc948e083520ee49c4b4ee5a5a28bb4b4003feb"
    );
    assert_eq!(a.path, dir.path().join("attachments").join(&a.sha256));
    assert_eq!(store.read_attachment(&a.sha256).unwrap(), b"same bytes");
    let files: Vec<_> = std::fs::read_dir(dir.path().join("attachments"))
        .unwrap()
        .collect();
    assert_eq!(files.len(), 1, "one file, no temp files left");
    assert!(matches!(
        store.read_attachment("zz"),
        Err(StoreError::InvalidSha256(_))
    ));
}

#[test]
fn refs_are_checked_when_written() {
    let (_dir, store) = common::open();
    let c = common::conversation(&store, "refs");
    let text = (1..=20)
        .map(|n| format!("line {n} of the doc"))
        .collect::<Vec<_>>()
        .join("\n");
    store
        .put_evidence(
            &c,
            evidence("doc", EvidenceType::RagDoc, Some(json!(text))),
            vec![],
        )
        .unwrap();
    store
        .put_evidence(
            &c,
            evidence(
                "data",
                EvidenceType::ToolResult,
                Some(json!({"items": [{"name": "x"}]})),
            ),
            vec![],
        )
        .unwrap();

    let ok = with_refs(
        Role::Assistant,
        "answer",
        vec![
            reference("doc", Some("lines:12-18,chars:0-7")),
            reference("data", Some("field:items[0].name")),
            reference("doc", None),
        ],
    );
    let stored = store.append_message(&c, NewMessage::new(ok)).unwrap();
    assert_eq!(stored.message.refs.as_ref().unwrap().len(), 3);
    let value = store
        .read(|r| r.resolve_ref(&c, &reference("doc", Some("lines:12-18,chars:0-7"))))
        .unwrap();
    assert_eq!(value, json!("line 12"));

    for (selector, malformed) in [
        ("lines:18-12", true),
        ("lines:19-25", false),
        ("field:items[3]", false),
        ("chars:x", true),
    ] {
        let bad = with_refs(
            Role::Assistant,
            "bad",
            vec![reference(
                if selector.starts_with("field") {
                    "data"
                } else {
                    "doc"
                },
                Some(selector),
            )],
        );
        let err = store.append_message(&c, NewMessage::new(bad)).unwrap_err();
        match &err {
            StoreError::InvalidRef {
                source: SelectorError::Malformed { .. },
                ..
            } => assert!(malformed, "{selector}: {err}"),
            StoreError::InvalidRef {
                source: SelectorError::OutOfRange { .. } | SelectorError::FieldNotFound { .. },
                ..
            } => assert!(!malformed, "{selector}: {err}"),
            other => panic!("{selector}: {other}"),
        }
    }
    let err = store
        .append_message(
            &c,
            NewMessage::new(with_refs(
                Role::Assistant,
                "x",
                vec![reference("missing", None)],
            )),
        )
        .unwrap_err();
    assert!(
        matches!(
            err,
            StoreError::NotFound {
                entity: Entity::Evidence,
                ..
            }
        ),
        "{err}"
    );
    assert_eq!(
        store.active_branch(&c).unwrap().len(),
        1,
        "refused messages are not written"
    );

    let block = ContextBlock {
        block_id: "b1".into(),
        block_type: BlockType::Evidence,
        priority: Priority::High,
        token_estimate: Some(40),
        content: None,
        refs: Some(vec![reference("doc", Some("lines:30"))]),
        expires_at: None,
        extra: JsonObject::new(),
    };
    let err = store.put_context_block(&c, block).unwrap_err();
    assert!(matches!(err, StoreError::InvalidRef { .. }), "{err}");
}

#[test]
fn tasks_tool_calls_usage_blocks_and_summary_round_trip() {
    let (_dir, store) = common::open();
    let c = common::conversation(&store, "all");
    store
        .put_evidence(
            &c,
            evidence("r1", EvidenceType::ToolResult, Some(json!("result text"))),
            vec![],
        )
        .unwrap();
    let mut task = Task {
        task_id: "t1".into(),
        name: Some("查询".into()),
        depends_on: Some(vec![]),
        status: Some(TaskStatus::Pending),
        result_evidence_ids: Some(vec![]),
        error: Some(String::new()),
        extra: JsonObject::new(),
    };
    store.put_task(&c, task.clone()).unwrap();
    store
        .put_task(
            &c,
            Task {
                task_id: "t2".into(),
                name: None,
                depends_on: Some(vec!["t1".into()]),
                status: None,
                result_evidence_ids: None,
                error: None,
                extra: JsonObject::new(),
            },
        )
        .unwrap();
    task.status = Some(TaskStatus::Completed);
    task.result_evidence_ids = Some(vec!["r1".into()]);
    store.put_task(&c, task.clone()).unwrap();
    let tasks = store.tasks(&c).unwrap();
    assert_eq!(tasks[0], task, "updated in place, first still");
    assert_eq!(tasks[1].depends_on, Some(vec!["t1".into()]));

    let call = ToolCallRecord {
        tool_call_id: "call1".into(),
        task_id: Some("t1".into()),
        tool: Some("rag_search".into()),
        provider: Some(ToolProvider {
            kind: Some(ProviderKind::Mcp),
            name: Some("wiki".into()),
            uri: Some("mcp://wiki".into()),
            extra: JsonObject::new(),
        }),
        call_type: Some(ToolCallKind::Tool),
        called_at: Some(Timestamp::new("2026-02-10T10:06:30Z")),
        args_digest: Some(json!({"q": "续订"})),
        status: Some(ContextToolStatus::Success),
        duration_ms: Some(120),
        result_evidence_ids: Some(vec!["r1".into()]),
        extra: JsonObject::new(),
    };
    store.put_tool_call(&c, call.clone()).unwrap();
    assert_eq!(store.tool_calls(&c).unwrap(), [call.into()]);

    let usage = ModelUsage {
        model_usage_id: "u1".into(),
        task_id: Some("t1".into()),
        stage: Some(UsageStage::Answer),
        provider: Some("deepseek".into()),
        model: Some("deepseek-chat".into()),
        params: Some(object(json!({"temperature": 0.2}))),
        prompt_tokens: Some(100),
        completion_tokens: Some(20),
        total_tokens: Some(120),
        first_token_latency_ms: Some(300),
        latency_ms: Some(900),
        status: Some(ModelUsageStatus::Success),
        error: None,
        extra: JsonObject::new(),
    };
    store.put_model_usage(&c, usage.clone()).unwrap();
    assert_eq!(store.model_usage(&c).unwrap(), [usage]);

    let live = ContextBlock {
        block_id: "live".into(),
        block_type: BlockType::Instruction,
        priority: Priority::Must,
        token_estimate: Some(350),
        content: Some("规则".into()),
        refs: Some(vec![reference("r1", Some("chars:0-6"))]),
        expires_at: Some(Timestamp::new("2999-01-01T00:00:00Z")),
        extra: JsonObject::new(),
    };
    let expired = ContextBlock {
        block_id: "old".into(),
        expires_at: Some(Timestamp::new("2000-01-01T00:00:00+08:00")),
        refs: None,
        ..live.clone()
    };
    store.put_context_block(&c, live.clone()).unwrap();
    store.put_context_block(&c, expired.clone()).unwrap();
    assert_eq!(store.context_blocks(&c).unwrap(), [live.clone(), expired]);
    assert_eq!(store.read(|r| r.live_context_blocks(&c)).unwrap(), [live]);

    let summary = Summary {
        content: Some("截至目前：…".into()),
        updated_at: Some(Timestamp::new("2026-02-10T10:07:00Z")),
        message_index_range: Some(MessageIndexRange {
            from: Some(1),
            to: Some(18),
            extra: JsonObject::new(),
        }),
        extra: JsonObject::new(),
    };
    store.set_summary(&c, summary.clone()).unwrap();
    assert_eq!(store.summary(&c).unwrap(), Some(summary));

    let err = store
        .put_model_usage(
            &c,
            ModelUsage {
                prompt_tokens: Some(u64::MAX),
                ..store.model_usage(&c).unwrap()[0].clone()
            },
        )
        .unwrap_err();
    assert!(matches!(err, StoreError::OutOfRange { .. }), "{err}");
}

#[test]
fn conversations_list_pinned_first_then_recent() {
    let (_dir, store) = common::open();
    let a = common::conversation(&store, "a");
    let b = common::conversation(&store, "b");
    let c = common::conversation(&store, "c");
    common::say(&store, &a, Role::User, "touch a");
    store
        .update_conversation(
            &c,
            ConversationPatch {
                pinned: Some(true),
                ..Default::default()
            },
        )
        .unwrap();
    store
        .update_conversation(
            &b,
            ConversationPatch {
                archived: Some(true),
                title: Some("B".into()),
                ..Default::default()
            },
        )
        .unwrap();
    let active: Vec<String> = store
        .conversations(&ConversationFilter {
            archived: Some(false),
            ..Default::default()
        })
        .unwrap()
        .into_iter()
        .map(|c| c.id)
        .collect();
    assert_eq!(active, [c.clone(), a.clone()]);
    let archived = store
        .conversations(&ConversationFilter {
            archived: Some(true),
            ..Default::default()
        })
        .unwrap();
    assert_eq!(archived.len(), 1);
    assert_eq!(
        (archived[0].title.as_str(), archived[0].archived),
        ("B", true)
    );
    assert_eq!(
        store
            .conversations(&ConversationFilter::default())
            .unwrap()
            .len(),
        3
    );
    assert_eq!(
        store
            .conversations(&ConversationFilter {
                limit: Some(1),
                offset: 1,
                ..Default::default()
            })
            .unwrap()
            .len(),
        1
    );
}
