//! What `GET /v1/interactions[/{id}]` and `POST /v1/interactions/{id}` answer: an interaction
//! with its request typed by kind (the store keeps the request as the JSON the engine wrote).

use serde::Serialize;
use serde_json::Value;
use tessera_protocol::easyflow::{ConsentRequestPayload, FormRequestPayload};
use tessera_protocol::wire::Timestamp;
use tessera_store::{Interaction, InteractionKind, InteractionState};
use ts_rs::TS;

/// A form or consent request as a client sees it.
#[derive(Clone, Debug, Serialize, TS)]
pub struct InteractionView {
    pub interaction_id: String,
    pub conversation_id: String,
    pub run_id: Option<String>,
    #[serde(flatten)]
    pub request: InteractionRequest,
    pub state: InteractionState,
    /// The answer taken (`{"action": …}` or `{"decision": …}`), once there is one.
    pub answer: Option<Value>,
    pub created_at: Timestamp,
    pub updated_at: Timestamp,
}

/// What was asked: `kind` tells a form from a consent request, `request` is its payload.
#[derive(Clone, Debug, Serialize, TS)]
#[serde(tag = "kind", content = "request", rename_all = "snake_case")]
pub enum InteractionRequest {
    Form(FormRequestPayload),
    Consent(ConsentRequestPayload),
}

/// A stored interaction whose request cannot be read as the payload of its kind.
#[derive(Debug, thiserror::Error)]
#[error("interaction {interaction_id}'s request cannot be read: {error}")]
pub struct UnreadableRequest {
    pub interaction_id: String,
    pub error: serde_json::Error,
}

impl InteractionView {
    /// The view of a stored interaction.
    pub fn of(interaction: &Interaction) -> Result<Self, UnreadableRequest> {
        let unreadable = |error: serde_json::Error| UnreadableRequest {
            interaction_id: interaction.interaction_id.clone(),
            error,
        };
        let request = match interaction.kind {
            InteractionKind::Form => InteractionRequest::Form(
                serde_json::from_value(interaction.request.clone()).map_err(unreadable)?,
            ),
            InteractionKind::Consent => InteractionRequest::Consent(
                serde_json::from_value(interaction.request.clone()).map_err(unreadable)?,
            ),
        };
        Ok(Self {
            interaction_id: interaction.interaction_id.clone(),
            conversation_id: interaction.conversation_id.clone(),
            run_id: interaction.run_id.clone(),
            request,
            state: interaction.state,
            answer: interaction.answer.clone(),
            created_at: interaction.created_at.clone(),
            updated_at: interaction.updated_at.clone(),
        })
    }
}

/// `GET /v1/interactions`: what waits for an answer.
#[derive(Clone, Debug, Serialize, TS)]
pub struct InteractionList {
    pub interactions: Vec<InteractionView>,
}

/// `POST /v1/interactions/{id}` and `POST /v1/forms`: the interaction as answered.
#[derive(Clone, Debug, Serialize, TS)]
pub struct InteractionAnswered {
    #[serde(flatten)]
    pub interaction: InteractionView,
    /// The same answer came again: nothing new was recorded.
    pub repeated: bool,
}
