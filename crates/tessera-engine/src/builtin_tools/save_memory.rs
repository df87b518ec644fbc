//! `save_memory`: keeps a fact for the rest of the conversation as a seed-004 context block
//! (`block_type: memory`, `priority: high`), which the assembler puts in every later prompt.
//! A `key` names the memory so a later save with the same key replaces it (a changed
//! preference replaces the old one instead of contradicting it).

use std::sync::Arc;

use serde_json::{json, Value};
use tessera_protocol::context_doc::{BlockType, ContextBlock, Priority};
use tessera_store::Store;

use super::{blocking, object, optional_string_arg, string_arg, BuiltinError};
use crate::tools::{ToolContext, ToolFailure, ToolSpec};

pub const NAME: &str = "save_memory";
/// The resource memory blocks are: `save_memory` writes it, `search_context` reads it, so the
/// scheduler never runs them side by side.
pub const MEMORY_RESOURCE: &str = "memory";
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
            "key": {"type": ["string", "null"]},
            "replaced": {"type": "boolean"}
        },
        "required": ["block_id", "key", "replaced"]
    }))
    .safe(false)
    .writes([MEMORY_RESOURCE])
    .timeout_ms(5_000)
    .estimated_ms(20)
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
    let block_id = block_id(key.as_deref());
    let conversation_id = ctx.conversation_id().to_owned();
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
    Ok(json!({"block_id": block_id, "key": key, "replaced": replaced}))
}
