//! `import(export(x))` gives back `x`, for generated conversations.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use proptest::prelude::*;
use proptest::test_runner::{Config, TestRunner};
use serde_json::{json, Value};
use tessera_protocol::context_doc::{
    Author, AuthorKind, BlockType, ContextBlock, ContextToolStatus, EvidenceType,
    MessageIndexRange, ModelUsage, ModelUsageStatus, Priority, ProviderKind, SessionMessage,
    Summary, Task, TaskStatus, ToolCallKind, ToolCallRecord, ToolProvider, UsageStage,
};
use tessera_protocol::request::Role;
use tessera_protocol::wire::{JsonObject, Timestamp};
use tessera_protocol::{validate, DocumentKind};
use tessera_store::{AttachmentRef, ConversationPatch, NewConversation, NewMessage, Parent, Store};

const TEXT: &str = "[a-zA-Z0-9 ,.?\n包周期续订的接口是你好世界，。？]{1,30}";

#[derive(Clone, Debug)]
enum Content {
    Text(String),
    Structured(String),
    Nothing,
}

#[derive(Clone, Debug)]
struct GenEvidence {
    kind: usize,
    content: Content,
    confidence: Option<u8>,
    attach: bool,
}

#[derive(Clone, Debug)]
struct GenMessage {
    role: usize,
    content: String,
    /// Index of the parent among earlier messages (modulo), or a new root.
    parent: Option<usize>,
    refs: Vec<usize>,
    second: u8,
    author: bool,
}

#[derive(Clone, Debug)]
struct GenConversation {
    title: String,
    pinned: bool,
    archived: bool,
    evidences: Vec<GenEvidence>,
    messages: Vec<GenMessage>,
    switch_to: Option<usize>,
    tasks: Vec<(String, usize, bool)>,
    calls: Vec<(usize, u32, bool)>,
    usage: Vec<(usize, u32, u32)>,
    blocks: Vec<(usize, usize, Option<String>, Vec<usize>)>,
    summary: Option<(String, u8)>,
}

fn content() -> impl Strategy<Value = Content> {
    prop_oneof![
        TEXT.prop_map(Content::Text),
        TEXT.prop_map(Content::Structured),
        Just(Content::Nothing),
    ]
}

fn conversation() -> impl Strategy<Value = GenConversation> {
    let evidences = prop::collection::vec(
        (
            0usize..6,
            content(),
            prop::option::of(0u8..=100),
            any::<bool>(),
        )
            .prop_map(|(kind, content, confidence, attach)| GenEvidence {
                kind,
                content,
                confidence,
                attach,
            }),
        0..5,
    );
    let messages = prop::collection::vec(
        (
            0usize..4,
            TEXT,
            prop::option::weighted(0.85, 0usize..100),
            prop::collection::vec(0usize..100, 0..3),
            0u8..60,
            any::<bool>(),
        )
            .prop_map(|(role, content, parent, refs, second, author)| GenMessage {
                role,
                content,
                parent,
                refs,
                second,
                author,
            }),
        1..12,
    );
    (
        (
            TEXT,
            any::<bool>(),
            any::<bool>(),
            evidences,
            messages,
            prop::option::of(0usize..100),
        ),
        (
            prop::collection::vec((TEXT, 0usize..6, any::<bool>()), 0..4),
            prop::collection::vec((0usize..8, 0u32..100_000, any::<bool>()), 0..4),
            prop::collection::vec((0usize..6, 0u32..100_000, 0u32..5_000), 0..3),
            prop::collection::vec(
                (
                    0usize..6,
                    0usize..4,
                    prop::option::of(TEXT),
                    prop::collection::vec(0usize..100, 0..3),
                ),
                0..4,
            ),
            prop::option::of((TEXT, 0u8..20)),
        ),
    )
        .prop_map(
            |(
                (title, pinned, archived, evidences, messages, switch_to),
                (tasks, calls, usage, blocks, summary),
            )| GenConversation {
                title,
                pinned,
                archived,
                evidences,
                messages,
                switch_to,
                tasks,
                calls,
                usage,
                blocks,
                summary,
            },
        )
}

const EVIDENCE_TYPES: [EvidenceType; 6] = [
    EvidenceType::RagDoc,
    EvidenceType::ToolResult,
    EvidenceType::SkillOutput,
    EvidenceType::LlmOutput,
    EvidenceType::UserInput,
    EvidenceType::Other,
];

fn evidence_content(content: &Content) -> Option<Value> {
    match content {
        Content::Text(text) => Some(json!(text)),
        Content::Structured(text) => {
            Some(json!({"data": {"items": [{"name": text, "n": 1}]}, "ok": true}))
        }
        Content::Nothing => None,
    }
}

/// A selector that selects something from the content.
fn selector(content: &Content) -> Option<String> {
    match content {
        Content::Text(text) => {
            let first_line = text.split('\n').next().unwrap_or_default();
            if first_line.is_empty() {
                None
            } else {
                Some(format!("lines:1,chars:0-{}", first_line.chars().count()))
            }
        }
        Content::Structured(_) => Some("field:data.items[0].name".to_owned()),
        Content::Nothing => None,
    }
}

fn stamp(second: u8) -> Timestamp {
    Timestamp::new(format!(
        "2026-02-10T10:{:02}:{:02}Z",
        second / 60 % 60,
        second % 60
    ))
}

fn write(store: &Store, id: &str, g: &GenConversation) {
    store
        .create_conversation(NewConversation {
            id: Some(id.into()),
            title: g.title.clone(),
            locale: Some("zh-CN".into()),
            ..Default::default()
        })
        .unwrap();
    store
        .update_conversation(
            id,
            ConversationPatch {
                pinned: Some(g.pinned),
                archived: Some(g.archived),
                ..Default::default()
            },
        )
        .unwrap();
    let mut evidence_ids = Vec::new();
    for (i, e) in g.evidences.iter().enumerate() {
        let evidence_id = format!("ev{i}");
        let mut evidence = common::evidence(
            &evidence_id,
            EVIDENCE_TYPES[e.kind],
            evidence_content(&e.content),
        );
        evidence.confidence = e
            .confidence
            .map(|c| serde_json::Number::from_f64(f64::from(c) / 100.0).unwrap());
        let attachments = if e.attach {
            let info = store
                .put_attachment(
                    format!("file of {evidence_id}").as_bytes(),
                    Some("image/png"),
                )
                .unwrap();
            vec![AttachmentRef {
                sha256: info.sha256,
                mime_type: Some("image/png".into()),
                file_name: Some(format!("{i}.png")),
            }]
        } else {
            vec![]
        };
        store.put_evidence(id, evidence, attachments).unwrap();
        evidence_ids.push((evidence_id, e.content.clone()));
    }
    let refs_for = |picks: &[usize]| -> Option<Vec<tessera_protocol::context_doc::EvidenceRef>> {
        if evidence_ids.is_empty() || picks.is_empty() {
            return None;
        }
        Some(
            picks
                .iter()
                .map(|p| {
                    let (evidence_id, content) = &evidence_ids[p % evidence_ids.len()];
                    common::reference(evidence_id, selector(content).as_deref())
                })
                .collect(),
        )
    };
    let mut message_ids: Vec<String> = Vec::new();
    for m in &g.messages {
        let role = [Role::System, Role::User, Role::Assistant, Role::Tool][m.role].clone();
        let message = SessionMessage {
            author: m.author.then(|| Author {
                kind: [
                    AuthorKind::System,
                    AuthorKind::User,
                    AuthorKind::Agent,
                    AuthorKind::Tool,
                ][m.role],
                id: Some("agent-001".into()),
                extra: JsonObject::new(),
            }),
            role,
            content: m.content.clone(),
            at: Some(stamp(m.second)),
            refs: refs_for(&m.refs),
            extra: JsonObject::new(),
        };
        let parent = match m.parent {
            Some(p) if !message_ids.is_empty() => {
                Parent::Message(message_ids[p % message_ids.len()].clone())
            }
            _ if message_ids.is_empty() => Parent::Root,
            Some(_) | None => Parent::Root,
        };
        message_ids.push(
            store
                .append_message(id, NewMessage::new(message).with_parent(parent))
                .unwrap()
                .id,
        );
    }
    if let Some(pick) = g.switch_to {
        store
            .switch_branch(id, &message_ids[pick % message_ids.len()])
            .unwrap();
    }
    for (i, (name, status, with_result)) in g.tasks.iter().enumerate() {
        store
            .put_task(
                id,
                Task {
                    task_id: format!("task{i}"),
                    name: Some(name.clone()),
                    depends_on: Some((0..i).map(|d| format!("task{d}")).collect()),
                    status: Some(
                        [
                            TaskStatus::Pending,
                            TaskStatus::Running,
                            TaskStatus::Completed,
                            TaskStatus::Failed,
                            TaskStatus::Skipped,
                            TaskStatus::Timeout,
                        ][*status],
                    ),
                    result_evidence_ids: with_result
                        .then(|| evidence_ids.iter().map(|(e, _)| e.clone()).collect()),
                    error: (*status == 3).then(|| "失败了".to_owned()),
                    extra: JsonObject::new(),
                },
            )
            .unwrap();
    }
    for (i, (status, duration, mcp)) in g.calls.iter().enumerate() {
        store
            .put_tool_call(
                id,
                ToolCallRecord {
                    tool_call_id: format!("call{i}"),
                    task_id: g.tasks.first().map(|_| "task0".to_owned()),
                    tool: Some("rag_search".into()),
                    provider: Some(ToolProvider {
                        kind: Some(if *mcp {
                            ProviderKind::Mcp
                        } else {
                            ProviderKind::Builtin
                        }),
                        name: mcp.then(|| "wiki".to_owned()),
                        uri: mcp.then(|| "mcp://wiki".to_owned()),
                        extra: JsonObject::new(),
                    }),
                    call_type: Some(ToolCallKind::Tool),
                    called_at: Some(stamp(i as u8)),
                    args_digest: Some(json!({"q": "续订", "n": i})),
                    status: Some(
                        [
                            ContextToolStatus::Success,
                            ContextToolStatus::Error,
                            ContextToolStatus::Timeout,
                            ContextToolStatus::Forbidden,
                            ContextToolStatus::NotFound,
                            ContextToolStatus::Skipped,
                            ContextToolStatus::Cancelled,
                            ContextToolStatus::Interrupted,
                        ][*status],
                    ),
                    duration_ms: Some(u64::from(*duration)),
                    result_evidence_ids: Some(
                        evidence_ids
                            .iter()
                            .take(1)
                            .map(|(e, _)| e.clone())
                            .collect(),
                    ),
                    extra: JsonObject::new(),
                },
            )
            .unwrap();
    }
    for (i, (stage, tokens, latency)) in g.usage.iter().enumerate() {
        store
            .put_model_usage(
                id,
                ModelUsage {
                    model_usage_id: format!("usage{i}"),
                    task_id: None,
                    stage: Some(
                        [
                            UsageStage::Route,
                            UsageStage::Plan,
                            UsageStage::ToolCall,
                            UsageStage::Answer,
                            UsageStage::Summary,
                            UsageStage::Other,
                        ][*stage],
                    ),
                    provider: Some("deepseek".into()),
                    model: Some("deepseek-chat".into()),
                    params: Some(match json!({"temperature": 0.2, "max_tokens": tokens}) {
                        Value::Object(m) => m,
                        _ => JsonObject::new(),
                    }),
                    prompt_tokens: Some(u64::from(*tokens)),
                    completion_tokens: Some(u64::from(tokens / 3)),
                    total_tokens: Some(u64::from(tokens + tokens / 3)),
                    first_token_latency_ms: Some(u64::from(latency / 4)),
                    latency_ms: Some(u64::from(*latency)),
                    status: Some(if i % 2 == 0 {
                        ModelUsageStatus::Success
                    } else {
                        ModelUsageStatus::Error
                    }),
                    error: (i % 2 == 1).then(|| "rate limited".to_owned()),
                    extra: JsonObject::new(),
                },
            )
            .unwrap();
    }
    for (i, (kind, priority, text, refs)) in g.blocks.iter().enumerate() {
        store
            .put_context_block(
                id,
                ContextBlock {
                    block_id: format!("block{i}"),
                    block_type: [
                        BlockType::Instruction,
                        BlockType::Conversation,
                        BlockType::State,
                        BlockType::Plan,
                        BlockType::Evidence,
                        BlockType::Memory,
                    ][*kind],
                    priority: [
                        Priority::Must,
                        Priority::High,
                        Priority::Medium,
                        Priority::Low,
                    ][*priority],
                    token_estimate: Some(text.as_ref().map_or(0, |t| t.len() as u64)),
                    content: text.clone(),
                    refs: refs_for(refs),
                    expires_at: (i == 1).then(|| Timestamp::new("2030-01-01T00:00:00+08:00")),
                    extra: JsonObject::new(),
                },
            )
            .unwrap();
    }
    if let Some((text, to)) = &g.summary {
        store
            .set_summary(
                id,
                Summary {
                    content: Some(text.clone()),
                    updated_at: Some(stamp(*to)),
                    message_index_range: Some(MessageIndexRange {
                        from: Some(0),
                        to: Some(u64::from(*to)),
                        extra: JsonObject::new(),
                    }),
                    extra: JsonObject::new(),
                },
            )
            .unwrap();
    }
}

#[test]
fn import_of_export_gives_back_the_conversation() {
    let (_dir, store) = common::open();
    let mut runner = TestRunner::new(Config {
        cases: 96,
        failure_persistence: None,
        ..Config::default()
    });
    let n = std::sync::atomic::AtomicU32::new(0);
    let branched = std::sync::atomic::AtomicU32::new(0);
    runner
        .run(&conversation(), |g| {
            let id = format!(
                "conv-{}",
                n.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
            );
            write(&store, &id, &g);
            let conversation = store.conversation(&id).unwrap();
            let tree = store.read(|r| r.message_tree(&id)).unwrap();
            let evidences = store.evidences(&id).unwrap();
            let document = store.export_document(&id).unwrap();
            let json = serde_json::to_value(&document).unwrap();
            let problems = validate(DocumentKind::Context, &json);
            prop_assert!(problems.is_empty(), "{problems:?}\n{json}");
            if json["session"].get("branch_messages").is_some() {
                branched.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            }

            store.delete_conversation(&id).unwrap();
            prop_assert!(store.conversation(&id).unwrap().is_none());
            store.import_document(&json).unwrap();

            prop_assert_eq!(store.conversation(&id).unwrap(), conversation);
            prop_assert_eq!(store.read(|r| r.message_tree(&id)).unwrap(), tree);
            prop_assert_eq!(store.evidences(&id).unwrap(), evidences);
            prop_assert_eq!(store.export_document(&id).unwrap(), document);
            store.delete_conversation(&id).unwrap();
            Ok(())
        })
        .unwrap();
    assert!(
        branched.into_inner() > 10,
        "the generator makes trees with several branches"
    );
}
