//! A context's `messages` (seed 000 §1.3: 上下文 is the state container 包含历史消息; §8.1):
//! the messages of its conversation, the branch shown, as MCP-CP messages, without those
//! CLEAR_HISTORY cleared. A message ADD_MESSAGE added that joined the conversation is shown
//! as it was sent; one of a type that never joins (a TOOL_CALL_REQUEST, an INSTRUCTION…) is
//! placed among the conversation's messages by its time.

use std::collections::{HashMap, HashSet};

use rusqlite::Row;
use serde_json::Value;
use tessera_protocol::mcp_cp::ContextMessage;

use crate::conversations::Conversation;
use crate::error::{Result, StoreError};
use crate::history_clearing::is_cleared;
use crate::mcp_messages::to_mcp;
use crate::rows::{self, FromRow};
use crate::tx::ReadTx;
use crate::{clock, sql};

/// The key of a conversation message's extra naming the MCP-CP message ADD_MESSAGE added.
pub(crate) const MCP_MESSAGE_ID_KEY: &str = "mcp_message_id";

/// One message ADD_MESSAGE added, as stored.
struct Added {
    message_id: String,
    millis: Option<i64>,
    message: ContextMessage,
}

/// A row of `message_id, timestamp_ms, message_json`.
impl FromRow for Added {
    fn from_row(row: &Row<'_>) -> Result<Self> {
        Ok(Added {
            message_id: row.get(0)?,
            millis: row.get(1)?,
            message: sql::parse("context message", &row.get::<_, String>(2)?)?,
        })
    }
}

fn added(tx: &ReadTx<'_>, context_id: &str) -> Result<Vec<Added>> {
    rows::all(
        tx.conn,
        "SELECT message_id, timestamp_ms, message_json FROM context_messages
         WHERE conversation_id = ?1 ORDER BY pk",
        [context_id],
    )
}

/// The history of the context of `conversation`, oldest first.
pub(crate) fn history(tx: &ReadTx<'_>, conversation: &Conversation) -> Result<Vec<ContextMessage>> {
    let mut others: Vec<Added> = added(tx, &conversation.id)?;
    let mut joined: HashMap<String, ContextMessage> = HashMap::new();
    let branch = tx.active_branch(&conversation.id)?;
    let joined_ids: HashSet<&str> = branch
        .iter()
        .filter_map(|m| m.message.extra.get(MCP_MESSAGE_ID_KEY)?.as_str())
        .collect();
    others.retain(|a| {
        if joined_ids.contains(&a.message_id.as_str()) {
            joined.insert(a.message_id.clone(), a.message.clone());
            false
        } else {
            true
        }
    });
    let mut others = others.into_iter().peekable();
    let mut out = Vec::new();
    for stored in branch.iter().filter(|m| !is_cleared(&m.message.extra)) {
        let mcp_id = stored
            .message
            .extra
            .get(MCP_MESSAGE_ID_KEY)
            .and_then(Value::as_str);
        let message = match mcp_id.and_then(|id| joined.remove(id)) {
            Some(sent) => sent,
            None => as_context_message(&to_mcp(stored, conversation.created_at.as_str())?)?,
        };
        // What was added before this message (by the clock) comes first.
        let at = message
            .timestamp
            .as_ref()
            .and_then(|t| clock::parse_millis(t.as_str()));
        while let Some(next) =
            others.next_if(|o| matches!((o.millis, at), (Some(a), Some(b)) if a < b))
        {
            out.push(next.message);
        }
        out.push(message);
    }
    out.extend(others.map(|o| o.message));
    Ok(out)
}

fn as_context_message(message: &tessera_protocol::mcp_cp::Message) -> Result<ContextMessage> {
    let corrupt = |e: serde_json::Error| StoreError::Corrupt {
        what: "message as a context message",
        message: e.to_string(),
    };
    serde_json::from_value(serde_json::to_value(message).map_err(corrupt)?).map_err(corrupt)
}
