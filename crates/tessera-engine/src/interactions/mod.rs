//! Forms and consent requests that suspend a run (docs/design.md "Wire decisions": forms, consent).
//! Each is an interaction kept in the store with its event, so it survives a restart; its answer
//! is validated here, recorded with its event in one transaction, and resumes the run once no
//! other interaction of the run is pending.
//!
//! - [`request_form`]: the `request_form` tool the model calls: its declaration and arguments.
//! - [`consent`]: which calls must ask first, and what the dialog shows.
//! - [`answer`]: answering (idempotent), cancelling and expiring interactions.

pub mod answer;
pub mod consent;
pub mod live;
pub mod request_form;

use serde_json::Value;
use tessera_protocol::easyflow::{Event, EventBody, EventMeta};
use tessera_store::interactions::Interaction;

pub use answer::{answer_interaction, cancel_interaction, Answer, AnswerError, Answered};
pub use live::{LiveFormError, LiveForms, LiveReply};

/// Keys the coordinator adds to a stored request (and its event's payload).
pub(crate) mod keys {
    /// The model's tool call the interaction stands for.
    pub const TOOL_CALL_ID: &str = "tool_call_id";
    /// When an unanswered interaction is cancelled (RFC 3339), if it expires.
    pub const EXPIRES_AT: &str = "expires_at";
    /// The message of the run (events of the run carry it).
    pub const MESSAGE_ID: &str = "message_id";
}

fn request_str<'a>(interaction: &'a Interaction, key: &str) -> Option<&'a str> {
    interaction.request.get(key).and_then(Value::as_str)
}

/// The model's tool call an interaction answers.
pub fn tool_call_id(interaction: &Interaction) -> Option<&str> {
    request_str(interaction, keys::TOOL_CALL_ID)
}

/// When the interaction expires, if it does.
pub fn expires_at(interaction: &Interaction) -> Option<jiff::Timestamp> {
    request_str(interaction, keys::EXPIRES_AT)
        .and_then(|t| tessera_protocol::wire::with_utc_offset(t).parse().ok())
}

/// An event of the interaction's run, in its conversation and message.
pub(crate) fn run_event(interaction: &Interaction, body: EventBody) -> Event {
    let mut event = Event::new(interaction.conversation_id.clone(), body);
    event.message_id = request_str(interaction, keys::MESSAGE_ID).map(str::to_owned);
    event.meta = Some(EventMeta {
        run_id: interaction.run_id.clone(),
        ..EventMeta::default()
    });
    event
}
