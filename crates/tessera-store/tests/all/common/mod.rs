//! Helpers the store's integration suites share.
#![allow(dead_code, clippy::unwrap_used, clippy::expect_used)]

use serde_json::Value;
use tempfile::TempDir;
use tessera_protocol::context_doc::{
    Evidence, EvidenceRef, EvidenceSource, EvidenceType, SessionMessage, SourceKind,
};
use tessera_protocol::request::Role;
use tessera_protocol::wire::JsonObject;
use tessera_store::{text_message, NewConversation, NewMessage, Store, StoredMessage};

/// A store in a fresh temporary data folder (kept alive by the returned guard).
pub fn open() -> (TempDir, Store) {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(dir.path()).unwrap();
    (dir, store)
}

pub fn conversation(store: &Store, title: &str) -> String {
    store
        .create_conversation(NewConversation {
            title: title.into(),
            ..Default::default()
        })
        .unwrap()
        .id
}

pub fn evidence(id: &str, kind: EvidenceType, content: Option<Value>) -> Evidence {
    Evidence {
        evidence_id: id.into(),
        evidence_type: kind,
        source: EvidenceSource {
            kind: match kind {
                EvidenceType::UserInput => SourceKind::User,
                EvidenceType::ToolResult => SourceKind::Tool,
                EvidenceType::LlmOutput => SourceKind::Llm,
                EvidenceType::RagDoc => SourceKind::Rag,
                EvidenceType::SkillOutput => SourceKind::Skill,
                EvidenceType::Other => SourceKind::System,
            },
            name: Some("test".into()),
            uri: None,
            extra: JsonObject::new(),
        },
        content,
        confidence: None,
        metadata: None,
        links: None,
        extra: JsonObject::new(),
    }
}

pub fn reference(evidence_id: &str, selector: Option<&str>) -> EvidenceRef {
    EvidenceRef {
        evidence_id: evidence_id.into(),
        selector: selector.map(str::to_owned),
        extra: JsonObject::new(),
    }
}

pub fn say(store: &Store, conversation: &str, role: Role, text: &str) -> StoredMessage {
    store
        .append_message(conversation, NewMessage::new(text_message(role, text)))
        .unwrap()
}

pub fn contents(messages: &[StoredMessage]) -> Vec<&str> {
    messages
        .iter()
        .map(|m| m.message.content.as_str())
        .collect()
}

pub fn with_refs(role: Role, text: &str, refs: Vec<EvidenceRef>) -> SessionMessage {
    let mut message = text_message(role, text);
    message.refs = Some(refs);
    message
}
