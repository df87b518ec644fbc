//! The calls of front-end tools waiting for a client's result, by conversation and call id.

use std::collections::HashMap;
use std::sync::Mutex;

use tessera_protocol::mcp_cp::ToolResult;
use tokio::sync::oneshot;

/// Whether each result of a `TOOL_CALL_RESPONSE` reached a waiting call.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Delivered {
    pub accepted: Vec<String>,
    /// Call ids nothing waits for (unknown, already answered, or timed out).
    pub unmatched: Vec<String>,
}

/// The calls waiting for a client's `TOOL_CALL_RESPONSE`.
#[derive(Default)]
pub(super) struct WaitingCalls(Mutex<HashMap<(String, String), oneshot::Sender<ToolResult>>>);

impl WaitingCalls {
    /// Waits for the client's result of call `call_id` (registered until the receiver drops).
    pub(super) fn wait_for(
        &self,
        conversation_id: &str,
        call_id: &str,
    ) -> oneshot::Receiver<ToolResult> {
        let (tx, rx) = oneshot::channel();
        {
            let mut waiting = crate::sync::lock(&self.0);
            waiting.insert((conversation_id.to_owned(), call_id.to_owned()), tx);
        }
        rx
    }

    pub(super) fn forget(&self, conversation_id: &str, call_id: &str) {
        {
            let mut waiting = crate::sync::lock(&self.0);
            waiting.remove(&(conversation_id.to_owned(), call_id.to_owned()));
        }
    }

    /// Hands each result of a client's `TOOL_CALL_RESPONSE` to the call waiting for it.
    pub(super) fn respond(&self, conversation_id: &str, results: Vec<ToolResult>) -> Delivered {
        let mut delivered = Delivered::default();
        for result in results {
            let key = (conversation_id.to_owned(), result.call_id.clone());
            let sender = crate::sync::lock(&self.0).remove(&key);
            let call_id = result.call_id.clone();
            match sender.map(|tx| tx.send(result)) {
                Some(Ok(())) => delivered.accepted.push(call_id),
                _ => delivered.unmatched.push(call_id),
            }
        }
        delivered
    }
}
