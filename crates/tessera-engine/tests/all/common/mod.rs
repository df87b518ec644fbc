//! Helpers shared by the assembler suites: a document builder and an independent recount.
#![allow(clippy::unwrap_used, clippy::expect_used, dead_code)]

use std::collections::BTreeSet;
use std::time::SystemTime;

use serde_json::{json, Map, Value};
use tessera_engine::assembler::{
    assemble, system_time_from_rfc3339, AssembleError, AssembleRequest, Assembly, DocumentResolver,
    Encoding, Explanation, TokenCache,
};
use tessera_protocol::context_doc::ContextDocument;

pub const NOW: &str = "2026-02-10T10:00:00Z";
pub const PAST: &str = "2026-02-10T09:59:59Z";
pub const FUTURE: &str = "2026-02-10T10:00:01Z";

pub fn now() -> SystemTime {
    system_time_from_rfc3339(NOW).unwrap()
}

/// A gpt-4o request at [`NOW`] with the default policy.
pub fn request(window: u64, reserved: u64) -> AssembleRequest {
    AssembleRequest::new("gpt-4o", window, reserved, now())
}

#[derive(Default)]
pub struct DocBuilder {
    messages: Vec<Value>,
    evidences: Map<String, Value>,
    blocks: Vec<Value>,
    summary: Option<Value>,
}

impl DocBuilder {
    pub fn new() -> Self {
        Self::default()
    }

    pub fn message(mut self, role: &str, content: &str) -> Self {
        self.messages
            .push(json!({"role": role, "content": content}));
        self
    }

    pub fn message_json(mut self, message: Value) -> Self {
        self.messages.push(message);
        self
    }

    pub fn system(self, content: &str) -> Self {
        self.message("system", content)
    }

    pub fn user(self, content: &str) -> Self {
        self.message("user", content)
    }

    pub fn assistant(self, content: &str) -> Self {
        self.message("assistant", content)
    }

    pub fn evidence(mut self, id: &str, content: Value) -> Self {
        self.evidences.insert(
            id.to_owned(),
            json!({"evidence_id": id, "type": "rag_doc", "source": {"kind": "rag"},
                   "content": content}),
        );
        self
    }

    /// A block with `content`.
    pub fn block(self, id: &str, priority: &str, content: &str) -> Self {
        self.block_json(
            json!({"block_id": id, "block_type": "memory", "priority": priority,
                               "content": content}),
        )
    }

    /// A block rendered from refs `(evidence_id, selector)`.
    pub fn block_refs(self, id: &str, priority: &str, refs: &[(&str, Option<&str>)]) -> Self {
        let refs: Vec<Value> = refs
            .iter()
            .map(|(e, s)| match s {
                Some(s) => json!({"evidence_id": e, "selector": s}),
                None => json!({"evidence_id": e}),
            })
            .collect();
        self.block_json(
            json!({"block_id": id, "block_type": "evidence", "priority": priority,
                               "refs": refs}),
        )
    }

    pub fn block_json(mut self, block: Value) -> Self {
        self.blocks.push(block);
        self
    }

    pub fn summary(mut self, content: &str, from: u64, to: u64) -> Self {
        self.summary = Some(json!({"content": content, "updated_at": NOW,
                                   "message_index_range": {"from": from, "to": to}}));
        self
    }

    pub fn build(self) -> ContextDocument {
        let mut session = json!({
            "session_id": "session-1",
            "messages": self.messages,
            "task_state": {"todo_list": {"tasks": []}}
        });
        if let Some(summary) = self.summary {
            session["summary"] = summary;
        }
        serde_json::from_value(json!({
            "schema_version": "1.0",
            "session": session,
            "evidences": self.evidences,
            "context_blocks": self.blocks
        }))
        .unwrap()
    }
}

/// Assembles with the document's own evidences and a fresh cache.
pub fn run(doc: &ContextDocument, request: &AssembleRequest) -> Result<Assembly, AssembleError> {
    assemble(
        doc,
        request,
        &DocumentResolver::new(doc),
        &TokenCache::new(),
    )
}

/// Tokens of one prompt item, counted without the assembler's cache.
pub fn item_tokens(encoding: Encoding, text: &str, overhead: u64) -> u64 {
    encoding.count(text).unwrap() + overhead
}

/// The prompt's tokens recounted from its text: every item plus the priming overhead.
pub fn recount(assembly: &Assembly, request: &AssembleRequest) -> u64 {
    let encoding = assembly.explanation.encoding;
    let items: u64 = assembly
        .prompt
        .iter()
        .map(|item| item_tokens(encoding, &item.content, request.policy.per_item_overhead))
        .sum();
    items + request.policy.priming_overhead
}

pub fn included_block_ids(e: &Explanation) -> BTreeSet<String> {
    e.blocks.iter().map(|b| b.block_id.clone()).collect()
}

pub fn dropped_block<'e>(
    e: &'e Explanation,
    id: &str,
) -> Option<&'e tessera_engine::assembler::DroppedBlock> {
    e.dropped_blocks.iter().find(|b| b.block_id == id)
}

pub fn included_message_indexes(e: &Explanation) -> BTreeSet<usize> {
    e.messages.iter().map(|m| m.index).collect()
}

/// The drop reason of message `index`, if dropped.
pub fn message_drop(
    e: &Explanation,
    index: usize,
) -> Option<tessera_engine::assembler::DropReason> {
    e.dropped_messages
        .iter()
        .find(|r| r.from <= index && index <= r.to)
        .map(|r| r.reason)
}

/// `n` words of filler.
pub fn words(n: usize) -> String {
    (0..n)
        .map(|i| format!("w{i}"))
        .collect::<Vec<_>>()
        .join(" ")
}
