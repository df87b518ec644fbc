//! `CLEAR_HISTORY` (seed 000 §8.2.3, 清除部分或全部历史消息) on what the model reads: the
//! conversation's messages the filter selects are marked cleared (`context_cleared` in their
//! extra: the context version that cleared them and when), so that no prompt reads them again,
//! and the rolling summary that stood in for them is dropped (it is rebuilt from what remains).
//! The messages themselves stay, shown as cleared: nothing the person wrote is lost.

use rusqlite::{params, Connection};
use serde_json::{json, Value};
use tessera_protocol::mcp_cp::HistoryFilter;
use tessera_protocol::wire::Timestamp;

use crate::error::{Result, StoreError};
use crate::{clock, rows, sql};

/// The key of a cleared message's extra: `{version, at}`.
pub const CLEARED_KEY: &str = "context_cleared";

/// Whether a message's extra marks it cleared from the model's history.
pub fn is_cleared(extra: &serde_json::Map<String, Value>) -> bool {
    extra.contains_key(CLEARED_KEY)
}

/// The seed-004 role a filter's `role` (a role or an MCP-CP sender type) names.
fn role_of_sender(role: &str) -> String {
    match role.to_ascii_lowercase().as_str() {
        "model" => "assistant".into(),
        other => other.to_owned(),
    }
}

/// The seed-004 role of the messages an MCP-CP message type becomes; None for types that are
/// never a conversation message.
fn role_of_type(message_type: &str) -> Option<&'static str> {
    match message_type.to_ascii_uppercase().as_str() {
        "USER_INPUT" => Some("user"),
        "MODEL_RESPONSE" => Some("assistant"),
        "SYSTEM_MESSAGE" => Some("system"),
        "TOOL_CALL_RESPONSE" => Some("tool"),
        _ => None,
    }
}

/// A filter's `beforeTimestamp` in milliseconds (None: no time limit).
pub(crate) fn before_millis(filter: Option<&HistoryFilter>) -> Result<Option<i64>> {
    filter
        .and_then(|f| f.before_timestamp.as_ref())
        .map(|at| {
            clock::parse_millis(at.as_str()).ok_or_else(|| {
                StoreError::InvalidContextUpdate(format!(
                    "beforeTimestamp {at:?} is not an RFC 3339 timestamp"
                ))
            })
        })
        .transpose()
}

/// Marks the conversation messages `filter` selects (all without one) cleared by context
/// version `version`; returns how many were marked now.
pub(crate) fn clear_messages(
    conn: &Connection,
    conversation_id: &str,
    filter: Option<&HistoryFilter>,
    version: u64,
) -> Result<usize> {
    let before = before_millis(filter)?;
    let role = filter.and_then(|f| f.role.as_deref()).map(role_of_sender);
    let typed = filter.and_then(|f| f.message_type.as_deref());
    let type_role = typed.map(role_of_type);
    if type_role == Some(None) {
        return Ok(0);
    }
    let rows: Vec<(i64, String, Option<String>, Option<String>)> = rows::all(
        conn,
        "SELECT pk, role, at, extra_json FROM messages WHERE conversation_id = ?1 ORDER BY pk",
        [conversation_id],
    )?;
    let now: Timestamp = clock::now();
    let mark = json!({"version": version, "at": now.as_str()});
    let mut cleared = 0;
    for (pk, message_role, at, extra) in rows {
        let mut extra: serde_json::Map<String, Value> = sql::parse_extra(extra)?;
        if is_cleared(&extra)
            || role.as_deref().is_some_and(|r| r != message_role)
            || type_role.flatten().is_some_and(|r| r != message_role)
        {
            continue;
        }
        if let Some(before) = before {
            // A message with no time cannot be said to be before one.
            let earlier = at
                .as_deref()
                .and_then(clock::parse_millis)
                .is_some_and(|ms| ms < before);
            if !earlier {
                continue;
            }
        }
        extra.insert(CLEARED_KEY.into(), mark.clone());
        conn.prepare_cached("UPDATE messages SET extra_json = ?2 WHERE pk = ?1")?
            .execute(params![pk, sql::extra_json(&extra)?])?;
        cleared += 1;
    }
    if cleared > 0 {
        conn.prepare_cached("DELETE FROM summaries WHERE conversation_id = ?1")?
            .execute([conversation_id])?;
    }
    Ok(cleared)
}
