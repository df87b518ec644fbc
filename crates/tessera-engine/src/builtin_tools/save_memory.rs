//! `save_memory`: keeps a fact. With `scope: conversation` (the default) for the rest of the
//! conversation, as a seed-004 context block (`block_type: memory`, `priority: high`) the
//! assembler puts in every later prompt; with `scope: project` for every conversation of the
//! conversation's project, with `scope: everywhere` for every conversation: those two are kept
//! in the store's memories (with the conversation and the person's message they came from) and
//! need the person's consent through the one gate (`permission_for`). A `key` names the
//! memory so a later save with the same key replaces it (a changed preference replaces the old
//! one instead of contradicting it).

use std::sync::Arc;

use serde_json::{json, Value};
use tessera_protocol::context_doc::{BlockType, ContextBlock, Priority};
use tessera_protocol::mcp_cp::PermissionLevel;
use tessera_store::memories::{MemoryScope, NewMemory};
use tessera_store::Store;

use super::args::{object, optional_string_arg, string_arg};
use super::error::{blocking, BuiltinError};
use crate::tools::{ToolContext, ToolFailure, ToolSpec};

pub const NAME: &str = "save_memory";
/// The resource memory blocks are: `save_memory` writes it, `search_context` reads it, so the
/// scheduler never runs them side by side.
pub(crate) const MEMORY_RESOURCE: &str = "memory";
/// Longest memory, in characters: a memory is a fact, not a document.
pub const MAX_CONTENT_CHARS: usize = 4_000;
const KEY_PATTERN: &str = "^[A-Za-z0-9][A-Za-z0-9_.:-]{0,63}$";

/// The declaration: side-effecting, writes `memory`.
pub fn spec() -> ToolSpec {
    ToolSpec::new(
        NAME,
        "Saves a fact to remember for the rest of this conversation (a preference, a decision, \
         a detail the person gave). Saved memories are shown to you in every later turn. Give \
         a short `key` (e.g. `preferred_language`) to replace an earlier memory with the same \
         key instead of adding another. Only save what the person would expect you to keep; \
         never save passwords, tokens or other secrets.",
    )
    .input_schema(json!({
        "type": "object",
        "properties": {
            "content": {
                "type": "string",
                "minLength": 1,
                "maxLength": MAX_CONTENT_CHARS,
                "description": "The fact to remember, as a self-contained sentence."
            },
            "scope": {
                "enum": ["conversation", "project", "everywhere"],
                "default": "conversation",
                "description": "Where the memory applies: this conversation (default), every \
                                conversation of this conversation's project, or every \
                                conversation. `project` and `everywhere` ask the person first; \
                                use them only for what the person wants remembered beyond this \
                                conversation."
            },
            "key": {
                "type": "string",
                "pattern": KEY_PATTERN,
                "description": "Optional name of the memory (letters, digits, `_ . : -`, up to \
                                64); saving again with the same key replaces it."
            }
        },
        "required": ["content"],
        "additionalProperties": false
    }))
    .result_schema(json!({
        "type": "object",
        "properties": {
            "block_id": {"type": "string"},
            "memory_id": {"type": "string"},
            "scope": {"enum": ["conversation", "project", "everywhere"]},
            "key": {"type": ["string", "null"]},
            "replaced": {"type": "boolean"}
        },
        "required": ["key", "replaced"]
    }))
    .safe(false)
    .permission_by_arguments(permission_for)
    .writes([MEMORY_RESOURCE])
    .timeout_ms(5_000)
    .estimated_ms(20)
}

/// The scope a call asks for (conversation when it names none or an unknown one: the schema
/// refuses those before the handler runs).
fn scope_of(arguments: &Value) -> MemoryScope {
    arguments
        .get("scope")
        .and_then(Value::as_str)
        .and_then(MemoryScope::parse)
        .unwrap_or(MemoryScope::Conversation)
}

/// A memory kept beyond the conversation needs the person's consent.
pub(crate) fn permission_for(arguments: &Value) -> PermissionLevel {
    match scope_of(arguments) {
        MemoryScope::Conversation => PermissionLevel::None,
        MemoryScope::Project | MemoryScope::Everywhere => PermissionLevel::UserConsent,
    }
}

/// The block id of a memory: stable for a key (so saving again replaces it), fresh otherwise.
pub fn block_id(key: Option<&str>) -> String {
    match key {
        Some(key) => format!("memory:{key}"),
        None => format!("memory:{}", uuid::Uuid::now_v7()),
    }
}

fn now_rfc3339() -> String {
    jiff::Timestamp::now().to_string()
}

/// The handler.
pub async fn run(
    store: Arc<Store>,
    arguments: Value,
    ctx: ToolContext,
) -> Result<Value, ToolFailure> {
    save(store, arguments, ctx).await.map_err(ToolFailure::from)
}

async fn save(
    store: Arc<Store>,
    arguments: Value,
    ctx: ToolContext,
) -> Result<Value, BuiltinError> {
    let content = string_arg(&arguments, "content")?.trim().to_owned();
    if content.is_empty() {
        return Err(BuiltinError::invalid("content", "is only whitespace"));
    }
    let key = optional_string_arg(&arguments, "key")?.map(str::to_owned);
    let conversation_id = ctx.conversation_id().to_owned();
    let scope = scope_of(&arguments);
    if scope != MemoryScope::Conversation {
        return save_beyond(store, scope, key, content, conversation_id).await;
    }
    let block_id = block_id(key.as_deref());
    let block = ContextBlock {
        block_id: block_id.clone(),
        block_type: BlockType::Memory,
        priority: Priority::High,
        token_estimate: None,
        content: Some(content),
        refs: None,
        expires_at: None,
        extra: object(json!({
            "memory_key": key,
            "saved_at": now_rfc3339(),
            "saved_by": {"tool": NAME, "tool_call_id": ctx.call_id, "run_id": ctx.run_id()},
        })),
    };
    let replaced = blocking(move || {
        Ok(store.write(move |tx| {
            let replaced = tx
                .read()
                .context_block(&conversation_id, &block.block_id)?
                .is_some();
            tx.put_context_block(&conversation_id, &block)?;
            Ok(replaced)
        })?)
    })
    .await?;
    tracing::debug!(block = %block_id, replaced, "memory saved");
    Ok(json!({"block_id": block_id, "scope": "conversation", "key": key, "replaced": replaced}))
}

/// Keeps a memory for the project or everywhere, with the message it came from.
async fn save_beyond(
    store: Arc<Store>,
    scope: MemoryScope,
    key: Option<String>,
    content: String,
    conversation_id: String,
) -> Result<Value, BuiltinError> {
    let (memory, replaced) = blocking(move || {
        let project_id = match scope {
            MemoryScope::Project => Some(
                store
                    .conversation_project(&conversation_id)?
                    .map(|p| p.id)
                    .ok_or_else(|| {
                        BuiltinError::invalid(
                            "scope",
                            "this conversation belongs to no project; use `conversation` or \
                             `everywhere`",
                        )
                    })?,
            ),
            _ => None,
        };
        let message = store
            .conversation(&conversation_id)?
            .and_then(|c| c.active_leaf_id);
        Ok(store.save_memory(NewMemory {
            scope,
            project_id,
            key,
            content,
            source_conversation_id: Some(conversation_id),
            source_message_id: message,
        })?)
    })
    .await?;
    tracing::debug!(memory = %memory.id, replaced, scope = scope.as_str(), "memory saved");
    Ok(json!({
        "memory_id": memory.id,
        "scope": scope.as_str(),
        "key": memory.key,
        "replaced": replaced
    }))
}
