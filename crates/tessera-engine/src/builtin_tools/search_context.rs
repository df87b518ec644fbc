//! `search_context`: full-text search over the local context database (messages, evidences,
//! and this conversation's memories), Chinese included. Every hit becomes an evidence of the
//! current conversation, so the answer can cite what was found.
//!
//! A hit's evidence id is derived from what it found (`search-<kind>-<hash>`), so searching
//! again reuses the evidence instead of piling up copies; a hit that already is an evidence of
//! this conversation is returned under its own id. Evidences this tool made are indexed too, so
//! a later search may find the copy: it maps to the same id and shows the original's origin.

use std::collections::HashSet;
use std::sync::Arc;

use serde_json::{json, Value};
use tessera_protocol::context_doc::{
    BlockType, Evidence, EvidenceLinks, EvidenceSource, EvidenceType, SourceKind,
};
use tessera_store::cjk_bigrams::{match_expression, query_words};
use tessera_store::{HitKind, ReadTx, SearchOptions, Store, StoreError};
use xxhash_rust::xxh3::xxh3_64;

use super::args::{object, string_arg};
use super::error::{blocking, BuiltinError};
use super::save_memory::MEMORY_RESOURCE;
use crate::tools::{ToolContext, ToolFailure, ToolSpec};

pub const NAME: &str = "search_context";
pub const DEFAULT_LIMIT: usize = 8;
pub const MAX_LIMIT: usize = 50;
/// Longest text kept in a hit's evidence: enough to cite, small enough for a prompt.
const MAX_EVIDENCE_CHARS: usize = 4_000;
const MAX_MEMORY_SNIPPET_CHARS: usize = 120;

/// The declaration: safe (reads only; the evidences it writes are its own new rows), reads
/// `memory` so a `save_memory` in the same set waits for it.
pub fn spec() -> ToolSpec {
    ToolSpec::new(
        NAME,
        "Searches the local context database: earlier messages, tool results and other \
         evidences, and the memories saved in this conversation. Chinese, Japanese and Korean \
         words of two characters or more are found inside sentences. By default only this \
         conversation is searched; set `all_conversations` to search every conversation. \
         Each hit comes back with an `evidence_id` you can cite, a snippet around the match \
         and where it comes from (conversation, message or evidence, role).",
    )
    .input_schema(json!({
        "type": "object",
        "properties": {
            "query": {
                "type": "string",
                "minLength": 1,
                "maxLength": 500,
                "description": "Words to look for; every word must occur in a hit."
            },
            "limit": {
                "type": "integer",
                "minimum": 1,
                "maximum": MAX_LIMIT,
                "default": DEFAULT_LIMIT,
                "description": "Most hits to return."
            },
            "all_conversations": {
                "type": "boolean",
                "default": false,
                "description": "Search every conversation, not only this one."
            }
        },
        "required": ["query"],
        "additionalProperties": false
    }))
    .result_schema(json!({
        "type": "object",
        "properties": {
            "query": {"type": "string"},
            "scope": {"enum": ["conversation", "all_conversations"]},
            "count": {"type": "integer", "minimum": 0},
            "hits": {
                "type": "array",
                "items": {
                    "type": "object",
                    "properties": {
                        "evidence_id": {"type": "string"},
                        "kind": {"enum": ["message", "evidence", "memory"]},
                        "conversation_id": {"type": "string"},
                        "id": {"type": "string"},
                        "role": {"type": ["string", "null"]},
                        "snippet": {"type": "string"},
                        "uri": {"type": "string"},
                        "rank": {"type": ["number", "null"]}
                    },
                    "required": ["evidence_id", "kind", "conversation_id", "id", "snippet", "uri"]
                }
            }
        },
        "required": ["query", "scope", "count", "hits"]
    }))
    .safe(true)
    .reads([MEMORY_RESOURCE])
    .timeout_ms(10_000)
    .estimated_ms(50)
}

/// One thing found, before it becomes an evidence.
#[derive(Debug)]
struct Found {
    kind: &'static str,
    conversation_id: String,
    id: String,
    role: Option<Value>,
    snippet: String,
    rank: Option<f64>,
    /// The text kept in a new evidence.
    text: String,
    /// Already an evidence of this conversation: its id.
    existing: Option<String>,
}

impl Found {
    fn uri(&self) -> String {
        let what = match self.kind {
            "message" => "messages",
            "evidence" => "evidences",
            _ => "blocks",
        };
        format!(
            "tessera://conversations/{}/{what}/{}",
            self.conversation_id, self.id
        )
    }

    fn evidence_id(&self) -> String {
        if let Some(id) = &self.existing {
            return id.clone();
        }
        derived_evidence_id(&self.conversation_id, self.kind, &self.id)
    }
}

/// The evidence id of what search finds as `kind` `id` of a conversation. A person's message
/// is stored with its `user_input` evidence under this id, so finding the message and finding
/// its evidence is one hit.
pub(crate) fn derived_evidence_id(conversation_id: &str, kind: &str, id: &str) -> String {
    let key = format!("{conversation_id}\u{0}{kind}\u{0}{id}");
    format!("search-{kind}-{:016x}", xxh3_64(key.as_bytes()))
}

fn truncate(text: &str, max: usize) -> String {
    if text.chars().count() <= max {
        return text.to_owned();
    }
    let mut out: String = text.chars().take(max).collect();
    out.push('…');
    out
}

/// The strings of a JSON value, one per line (what the search index holds for an evidence).
fn flatten(value: &Value, out: &mut Vec<String>) {
    match value {
        Value::String(s) => out.push(s.clone()),
        Value::Array(items) => items.iter().for_each(|v| flatten(v, out)),
        Value::Object(map) => map.values().for_each(|v| flatten(v, out)),
        Value::Number(n) => out.push(n.to_string()),
        Value::Bool(_) | Value::Null => {}
    }
}

/// This conversation's live memories holding every word of the query (case-insensitive).
fn memories(
    r: &ReadTx<'_>,
    conversation_id: &str,
    words: &[String],
) -> Result<Vec<Found>, StoreError> {
    if words.is_empty() {
        return Ok(Vec::new());
    }
    let words: Vec<String> = words.iter().map(|w| w.to_lowercase()).collect();
    Ok(r.live_context_blocks(conversation_id)?
        .into_iter()
        .filter(|b| b.block_type == BlockType::Memory)
        .filter_map(|b| {
            let text = b.content?;
            let lower = text.to_lowercase();
            words.iter().all(|w| lower.contains(w)).then(|| Found {
                kind: "memory",
                conversation_id: conversation_id.to_owned(),
                id: b.block_id,
                role: None,
                snippet: truncate(&text, MAX_MEMORY_SNIPPET_CHARS),
                rank: None,
                text,
                existing: None,
            })
        })
        .collect())
}

/// Reads everything the search finds: memories first (few, and facts the person gave), then
/// the full-text hits best first.
fn find(
    r: &ReadTx<'_>,
    conversation_id: &str,
    query: &str,
    all: bool,
    limit: usize,
) -> Result<Vec<Found>, StoreError> {
    let mut found = memories(r, conversation_id, &query_words(query))?;
    let options = SearchOptions {
        conversation_id: (!all).then(|| conversation_id.to_owned()),
        // Some hits may fold into one evidence (a message and the copy a search made of it).
        limit: (limit * 2).min(2 * MAX_LIMIT),
    };
    for hit in r.search(query, &options)? {
        let mut item = Found {
            kind: "message",
            conversation_id: hit.conversation_id.clone(),
            id: hit.id.clone(),
            role: None,
            snippet: hit.snippet,
            rank: Some(hit.rank),
            text: String::new(),
            existing: None,
        };
        match hit.kind {
            HitKind::Message => {
                let Some(message) = r.message(&hit.conversation_id, &hit.id)? else {
                    continue;
                };
                item.role = serde_json::to_value(message.message.role).ok();
                item.text = message.message.content;
            }
            HitKind::Evidence => {
                let Some(stored) = r.evidence(&hit.conversation_id, &hit.id)? else {
                    continue;
                };
                let evidence = stored.evidence;
                item.kind = "evidence";
                if hit.conversation_id == conversation_id {
                    item.existing = Some(hit.id.clone());
                    // A copy this tool made: show where the original is.
                    let origin = evidence
                        .metadata
                        .as_ref()
                        .filter(|_| evidence.source.name.as_deref() == Some(NAME))
                        .and_then(|m| m.get("found"));
                    if let Some(origin) = origin {
                        if let (Some(kind), Some(conv), Some(id)) = (
                            origin["kind"].as_str(),
                            origin["conversation_id"].as_str(),
                            origin["id"].as_str(),
                        ) {
                            item.kind = match kind {
                                "message" => "message",
                                "memory" => "memory",
                                _ => "evidence",
                            };
                            item.conversation_id = conv.to_owned();
                            item.id = id.to_owned();
                            item.role = origin.get("role").cloned().filter(|v| !v.is_null());
                        }
                    }
                }
                let mut lines = Vec::new();
                if let Some(content) = &evidence.content {
                    flatten(content, &mut lines);
                }
                item.text = lines.join("\n");
            }
        }
        found.push(item);
    }
    Ok(found)
}

fn new_evidence(item: &Found, evidence_id: String, query: &str, call_id: &str) -> Evidence {
    Evidence {
        evidence_id,
        evidence_type: EvidenceType::RagDoc,
        source: EvidenceSource {
            kind: SourceKind::Rag,
            name: Some(NAME.to_owned()),
            uri: Some(item.uri()),
            extra: Default::default(),
        },
        content: Some(Value::String(truncate(&item.text, MAX_EVIDENCE_CHARS))),
        confidence: None,
        metadata: Some(object(json!({
            "query": query,
            "found": {
                "kind": item.kind,
                "conversation_id": item.conversation_id,
                "id": item.id,
                "role": item.role,
            },
            "rank": item.rank,
        }))),
        links: Some(EvidenceLinks {
            tool_call_id: Some(call_id.to_owned()),
            ..Default::default()
        }),
        extra: Default::default(),
    }
}

/// The handler.
pub async fn run(
    store: Arc<Store>,
    arguments: Value,
    ctx: ToolContext,
) -> Result<Value, ToolFailure> {
    search(store, arguments, ctx)
        .await
        .map_err(ToolFailure::from)
}

async fn search(
    store: Arc<Store>,
    arguments: Value,
    ctx: ToolContext,
) -> Result<Value, BuiltinError> {
    let query = string_arg(&arguments, "query")?.to_owned();
    if match_expression(&query).is_none() {
        return Err(BuiltinError::invalid(
            "query",
            "holds no words to search for",
        ));
    }
    let limit = arguments
        .get("limit")
        .and_then(Value::as_u64)
        .map_or(DEFAULT_LIMIT, |n| usize::try_from(n).unwrap_or(MAX_LIMIT))
        .clamp(1, MAX_LIMIT);
    let all = arguments
        .get("all_conversations")
        .and_then(Value::as_bool)
        .unwrap_or(false);
    let conversation_id = ctx.conversation_id().to_owned();
    let call_id = ctx.call_id.clone();
    let q = query.clone();
    let hits = blocking(move || {
        store.catch_up_search_index()?;
        let found = store.read(|r| find(r, &conversation_id, &q, all, limit))?;
        let mut seen = HashSet::new();
        let mut hits = Vec::new();
        let mut evidences = Vec::new();
        for item in found {
            let evidence_id = item.evidence_id();
            if !seen.insert(evidence_id.clone()) {
                continue;
            }
            if hits.len() == limit {
                break;
            }
            if item.existing.is_none() {
                evidences.push(new_evidence(&item, evidence_id.clone(), &q, &call_id));
            }
            hits.push(json!({
                "evidence_id": evidence_id,
                "kind": item.kind,
                "conversation_id": item.conversation_id,
                "id": item.id,
                "role": item.role,
                "snippet": item.snippet,
                "uri": item.uri(),
                "rank": item.rank,
            }));
        }
        if !evidences.is_empty() {
            store.write(move |tx| {
                for evidence in &evidences {
                    // One already there (a message's own evidence, an earlier search's) stays.
                    if tx
                        .read()
                        .evidence(&conversation_id, &evidence.evidence_id)?
                        .is_none()
                    {
                        tx.put_evidence(&conversation_id, evidence, &[])?;
                    }
                }
                Ok(())
            })?;
        }
        Ok(hits)
    })
    .await?;
    tracing::debug!(query = %query, hits = hits.len(), all, "context searched");
    Ok(json!({
        "query": query,
        "scope": if all { "all_conversations" } else { "conversation" },
        "count": hits.len(),
        "hits": hits,
    }))
}
