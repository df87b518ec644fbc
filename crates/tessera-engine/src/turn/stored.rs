//! What a run's stored events say about it: the person's message it answers, the bytes its
//! tool calls hold.

use tessera_store::StoredEvent;

/// The field of a run's first `running` status naming the person's message it answers
/// ([`tessera_protocol::easyflow::SystemStatusPayload::user_message_id`]), as the store looks
/// runs up by it.
pub(crate) const USER_MESSAGE_KEY: &str = "user_message_id";

/// The person's message a run answers, as its first `running` status names it.
pub(crate) fn user_message_of(events: &[StoredEvent]) -> Option<String> {
    events.iter().find_map(|e| match &e.event.body {
        tessera_protocol::easyflow::EventBody::SystemStatus(s) => s.user_message_id.clone(),
        _ => None,
    })
}

/// The bytes of a tool call's arguments or a tool result's value, as the run limit counts them.
pub(crate) fn tool_bytes_of(body: &tessera_protocol::easyflow::EventBody) -> usize {
    use crate::executor::limits::json_size;
    use tessera_protocol::easyflow::EventBody;
    match body {
        EventBody::ToolCall(p) => json_size(&p.arguments),
        EventBody::ToolResult(p) => p.result.as_ref().map_or(0, json_size),
        _ => 0,
    }
}
