#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use common::{evidence, reference, say, with_refs};
use serde_json::{json, Value};
use tessera_protocol::context_doc::{
    BlockType, ContextBlock, EvidenceType, Priority, Task, TaskStatus,
};
use tessera_protocol::request::Role;
use tessera_protocol::wire::JsonObject;
use tessera_protocol::{validate, DocumentKind};
use tessera_store::{
    AttachmentRef, ConversationFilter, ConversationPatch, NewMessage, Parent, SearchOptions, Store,
    StoreError,
};

fn sample(store: &Store) -> String {
    let c = common::conversation(store, "示例");
    store
        .update_conversation(
            &c,
            ConversationPatch {
                pinned: Some(true),
                ..Default::default()
            },
        )
        .unwrap();
    let shot = store
        .put_attachment(b"png bytes", Some("image/png"))
        .unwrap();
    store
        .put_evidence(
            &c,
            evidence(
                "doc",
                EvidenceType::RagDoc,
                Some(json!("第一行\n包周期续订用 renew 接口\n第三行")),
            ),
            vec![AttachmentRef {
                sha256: shot.sha256,
                mime_type: Some("image/png".into()),
                file_name: None,
            }],
        )
        .unwrap();
    say(store, &c, Role::System, "你是助手");
    let q = say(store, &c, Role::User, "包周期续订的接口是？");
    say(store, &c, Role::Assistant, "renew");
    store
        .append_message(
            &c,
            NewMessage::new(with_refs(
                Role::Assistant,
                "是 renew 接口",
                vec![reference("doc", Some("lines:2,chars:0-5"))],
            ))
            .with_parent(Parent::Message(q.id.clone())),
        )
        .unwrap();
    store
        .put_task(
            &c,
            Task {
                task_id: "t1".into(),
                name: Some("查".into()),
                depends_on: Some(vec![]),
                status: Some(TaskStatus::Completed),
                result_evidence_ids: Some(vec!["doc".into()]),
                error: None,
                extra: JsonObject::new(),
            },
        )
        .unwrap();
    store
        .put_context_block(
            &c,
            ContextBlock {
                block_id: "b1".into(),
                block_type: BlockType::Evidence,
                priority: Priority::High,
                token_estimate: Some(12),
                content: None,
                refs: Some(vec![reference("doc", Some("lines:1-2"))]),
                expires_at: None,
                extra: JsonObject::new(),
            },
        )
        .unwrap();
    c
}

#[test]
fn export_is_a_valid_document_and_import_gives_it_back() {
    let (_a, source) = common::open();
    let c = sample(&source);
    let doc = source.export_document_json(&c).unwrap();
    assert!(
        validate(DocumentKind::Context, &doc).is_empty(),
        "{:?}",
        validate(DocumentKind::Context, &doc)
    );
    assert_eq!(
        doc["session"]["messages"].as_array().unwrap().len(),
        3,
        "the active branch"
    );
    assert_eq!(
        doc["session"]["branch_messages"].as_array().unwrap().len(),
        1,
        "the old answer"
    );
    assert_eq!(
        doc["meta"]["tessera"],
        json!({"title": "示例", "pinned": true, "archived": false})
    );
    assert_eq!(
        doc["evidences"]["doc"]["attachments"][0]["mime_type"],
        json!("image/png")
    );

    let (_b, target) = common::open();
    let report = target.import_document(&doc).unwrap();
    assert_eq!(
        (
            report.conversation_id.as_str(),
            report.messages,
            report.evidences
        ),
        (c.as_str(), 4, 1)
    );
    assert_eq!(target.export_document_json(&c).unwrap(), doc);
    assert_eq!(
        target.conversation(&c).unwrap(),
        source.conversation(&c).unwrap()
    );
    assert_eq!(
        target.read(|r| r.message_tree(&c)).unwrap(),
        source.read(|r| r.message_tree(&c)).unwrap()
    );
    assert_eq!(
        target
            .search("续订", &SearchOptions::default())
            .unwrap()
            .len(),
        2,
        "imported rows are indexed"
    );

    // Importing the same conversation again is refused; nothing changes.
    let err = target.import_document(&doc).unwrap_err();
    assert_eq!(err.problems()[0].path, "session.session_id");
    assert_eq!(target.read(|r| r.message_tree(&c)).unwrap().len(), 4);
}

#[test]
fn an_invalid_document_writes_nothing_and_lists_every_problem() {
    let (_dir, store) = common::open();
    let doc = json!({
        "schema_version": "2.0",
        "session": {
            "session_id": "s1",
            "messages": [{"role": "user"}, {"role": "assistant", "content": 3}],
            "task_state": {"todo_list": {"tasks": [{"status": "done"}]}}
        },
        "evidences": {"e1": {"evidence_id": "e2", "type": "rag_doc", "source": {"kind": "rag"}}}
    });
    let err = store.import_document(&doc).unwrap_err();
    let paths: Vec<&str> = err.problems().iter().map(|p| p.path.as_str()).collect();
    for expected in [
        "schema_version",
        "session.messages[0].content",
        "session.messages[1].content",
        "session.task_state.todo_list.tasks[0].task_id",
        "session.task_state.todo_list.tasks[0].status",
        "context_blocks",
        "evidences.e1.evidence_id",
    ] {
        assert!(
            paths.contains(&expected),
            "{expected} missing from {paths:?}"
        );
    }
    assert!(store
        .conversations(&ConversationFilter::default())
        .unwrap()
        .is_empty());

    // Seed 004's reference rules: `tessera validate context` and the import agree (the import
    // answers with the validator's problems); nothing written.
    let doc = json!({
        "schema_version": "1.0",
        "session": {
            "session_id": "s2",
            "messages": [
                {"role": "user", "content": "续订", "refs": [{"evidence_id": "nope"}]},
                {"role": "assistant", "content": "a", "refs": [{"evidence_id": "e1", "selector": "lines:9"}, {"evidence_id": "e1", "selector": "rows:1"}]}
            ],
            "task_state": {"todo_list": {"tasks": [{"task_id": "t"}, {"task_id": "t", "depends_on": ["ghost"]}]}}
        },
        "evidences": {"e1": {"evidence_id": "e1", "type": "rag_doc", "source": {"kind": "rag"}, "content": "one line"}},
        "context_blocks": [{"block_id": "b", "block_type": "memory", "priority": "low", "refs": [{"evidence_id": "e1", "selector": "field:x"}]}]
    });
    let problems = validate(DocumentKind::Context, &doc);
    let paths: Vec<&str> = problems.iter().map(|p| p.path.as_str()).collect();
    assert_eq!(
        paths,
        [
            "context_blocks[0].refs[0].selector",
            "session.messages[0].refs[0].evidence_id",
            "session.messages[1].refs[0].selector",
            "session.messages[1].refs[1].selector",
            "session.task_state.todo_list.tasks[1].depends_on[0]",
            "session.task_state.todo_list.tasks[1].task_id",
        ],
        "{problems:?}"
    );
    let err = store.import_document(&doc).unwrap_err();
    assert_eq!(err.problems(), problems.as_slice());

    // What only the store reads (its branch extension) is the import's own to check.
    let doc = json!({
        "schema_version": "1.0",
        "session": {
            "session_id": "s3",
            "messages": [{"role": "user", "content": "续订"}],
            "task_state": {"todo_list": {"tasks": []}},
            "branch_messages": [{"role": "user", "content": "x", "message_id": "b1", "parent_id": "ghost"}]
        },
        "evidences": {},
        "context_blocks": []
    });
    assert!(validate(DocumentKind::Context, &doc).is_empty());
    let err = store.import_document(&doc).unwrap_err();
    let paths: Vec<&str> = err.problems().iter().map(|p| p.path.as_str()).collect();
    assert_eq!(paths, ["session.branch_messages[0].parent_id"], "{err}");
    assert!(matches!(err, StoreError::InvalidDocument { .. }));
    assert!(store
        .conversations(&ConversationFilter::default())
        .unwrap()
        .is_empty());
    assert!(store
        .search("续订", &SearchOptions::default())
        .unwrap()
        .is_empty());
}

#[test]
fn mcp_messages_export_valid_messages_and_import_back() {
    let (_a, source) = common::open();
    let c = sample(&source);
    let messages = source.export_mcp_messages(&c).unwrap();
    assert_eq!(messages.len(), 3);
    let values: Vec<Value> = messages
        .iter()
        .map(|m| serde_json::to_value(m).unwrap())
        .collect();
    for v in &values {
        assert!(validate(DocumentKind::Message, v).is_empty(), "{v}");
    }
    assert_eq!(values[1]["type"], json!("USER_INPUT"));
    assert_eq!(values[2]["type"], json!("MODEL_RESPONSE"));
    assert_eq!(
        values[2]["metadata"]["refs"][0]["selector"],
        json!("lines:2,chars:0-5")
    );

    let (_b, target) = common::open();
    let report = target.import_mcp_messages(&values).unwrap();
    assert_eq!(report.messages, 3);
    let imported = target.active_branch(&c).unwrap();
    assert_eq!(
        common::contents(&imported),
        ["你是助手", "包周期续订的接口是？", "是 renew 接口"]
    );
    assert_eq!(imported[1].message.role, Role::User);

    let mut broken = values.clone();
    broken[1]["sender"]["type"] = json!("ROBOT");
    broken[2]["contextId"] = json!("elsewhere");
    let (_c, empty) = common::open();
    let err = empty.import_mcp_messages(&broken).unwrap_err();
    let paths: Vec<&str> = err.problems().iter().map(|p| p.path.as_str()).collect();
    assert_eq!(paths, ["[1].sender.type", "[2].contextId"], "{err}");
    assert!(empty
        .conversations(&ConversationFilter::default())
        .unwrap()
        .is_empty());
    // An id that is already a conversation is refused too.
    let err = target.import_mcp_messages(&values).unwrap_err();
    assert_eq!(err.problems()[0].path, "[0].contextId");
}
