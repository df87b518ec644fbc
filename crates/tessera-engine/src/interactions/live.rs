//! Forms a running tool asks for (an MCP server's elicitation), and consent a running
//! specialist's own calls need. Unlike `request_form`, the run does not suspend: the tool stays
//! connected (the specialist keeps its loop) and waits for the answer. The form is stored and
//! answered like every other interaction (`POST /v1/interactions/{id}`, field errors and all),
//! so the person sees no difference; it is withdrawn when the call ends without an answer
//! (cancelled, timed out, expired). After a restart whoever asked is gone: the run is closed as
//! interrupted, which withdraws the form with it.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use serde_json::{json, Value};
use tessera_protocol::easyflow::{
    ConsentDecision, ConsentRequestPayload, EventBody, FormAction, FormRequestPayload,
};
use tessera_store::interactions::{Interaction, InteractionKind, InteractionState, NewInteraction};
use tessera_store::Store;
use tokio::sync::oneshot;

use super::cancel_interaction;
use crate::engine::EventBus;
use crate::forms::{check_form_schema, describe_issues};

/// The key of a stored request that marks a form asked by a running tool.
pub(crate) const LIVE_KEY: &str = "asked_during_call";

/// The person's answer to a live form.
#[derive(Clone, Debug, PartialEq)]
pub enum LiveReply {
    /// Accepted with these (validated) values.
    Accept(Value),
    Decline,
    /// Cancelled by the person, or withdrawn (expired, the run moved on); the reason.
    Cancel(String),
    /// The person's decision on a consent request.
    Decided(ConsentDecision),
}

/// Why a live form could not be asked.
#[derive(Debug, thiserror::Error)]
pub enum LiveFormError {
    /// The schema is outside the subset a form can show, or asks for a secret.
    #[error("the form cannot be shown: {0}")]
    BadSchema(String),
    #[error("nobody can answer a form here (the run cannot ask the person)")]
    NobodyToAsk,
    #[error(transparent)]
    Store(#[from] tessera_store::StoreError),
}

/// Forms running tools wait for, by interaction id. One per engine.
pub struct LiveForms {
    store: Arc<Store>,
    bus: Arc<EventBus>,
    waiting: Mutex<HashMap<String, Waiting>>,
}

/// A form some call waits for.
struct Waiting {
    call_id: String,
    reply: oneshot::Sender<LiveReply>,
    interaction: Interaction,
}

impl std::fmt::Debug for LiveForms {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let waiting = crate::sync::lock(&self.waiting).len();
        f.debug_struct("LiveForms")
            .field("waiting", &waiting)
            .finish_non_exhaustive()
    }
}

/// The reply a stored answer (or withdrawal) stands for.
fn reply_of(interaction: &Interaction) -> Option<LiveReply> {
    let answer = interaction.answer.as_ref();
    match interaction.state {
        InteractionState::Pending => None,
        InteractionState::Cancelled => Some(LiveReply::Cancel(
            answer
                .and_then(|a| a.get("reason"))
                .and_then(Value::as_str)
                .unwrap_or("cancelled")
                .to_owned(),
        )),
        InteractionState::Answered if interaction.kind == InteractionKind::Consent => {
            Some(LiveReply::Decided(
                answer
                    .and_then(|a| a.get("decision"))
                    .and_then(|d| serde_json::from_value(d.clone()).ok())
                    .unwrap_or(ConsentDecision::Deny),
            ))
        }
        InteractionState::Answered => {
            let action = answer
                .and_then(|a| a.get("action"))
                .and_then(|a| serde_json::from_value::<FormAction>(a.clone()).ok());
            Some(match action {
                Some(FormAction::Accept) => LiveReply::Accept(
                    answer
                        .and_then(|a| a.get("values"))
                        .cloned()
                        .unwrap_or_else(|| json!({})),
                ),
                Some(FormAction::Decline) => LiveReply::Decline,
                _ => LiveReply::Cancel("cancelled by the person".into()),
            })
        }
    }
}

/// Withdraws the form when the waiting call goes away without its answer.
struct Withdraw<'a> {
    forms: &'a LiveForms,
    interaction: Option<Interaction>,
}

impl Drop for Withdraw<'_> {
    fn drop(&mut self) {
        if let Some(interaction) = self.interaction.take() {
            self.forms.forget(&interaction.interaction_id);
            self.forms
                .withdraw(&interaction, "the tool call that asked ended");
        }
    }
}

impl LiveForms {
    pub(crate) fn new(store: Arc<Store>, bus: Arc<EventBus>) -> Self {
        Self {
            store,
            bus,
            waiting: Mutex::new(HashMap::new()),
        }
    }

    fn forget(&self, id: &str) {
        {
            let mut waiting = crate::sync::lock(&self.waiting);
            waiting.remove(id);
        }
    }

    /// Withdraws the forms call `call_id` still waits for (the call ended: cancelled, timed
    /// out, or done without them), before its result is reported.
    pub(crate) fn withdraw_call(&self, call_id: &str, reason: &str) {
        let ended: Vec<Waiting> = {
            let mut waiting = crate::sync::lock(&self.waiting);
            let ids: Vec<String> = waiting
                .iter()
                .filter(|(_, w)| w.call_id == call_id)
                .map(|(id, _)| id.clone())
                .collect();
            ids.iter().filter_map(|id| waiting.remove(id)).collect()
        };
        for waiting in ended {
            self.withdraw(&waiting.interaction, reason);
            let _ = waiting.reply.send(LiveReply::Cancel(reason.to_owned()));
        }
    }

    fn withdraw(&self, interaction: &Interaction, reason: &str) {
        match cancel_interaction(&self.store, interaction, reason) {
            Ok(Some((_, event))) => self.bus.publish(&interaction.conversation_id, event),
            Ok(None) => {}
            Err(error) => tracing::warn!(%error, "cannot withdraw a form"),
        }
    }

    /// Hands an answered (or withdrawn) interaction to the call waiting for it, if one is.
    pub(crate) fn deliver(&self, interaction: &Interaction) {
        let Some(reply) = reply_of(interaction) else {
            return;
        };
        let waiter = crate::sync::lock(&self.waiting).remove(&interaction.interaction_id);
        if let Some(waiter) = waiter {
            let _ = waiter.reply.send(reply);
        }
    }

    /// Shows `form` to the person on behalf of call `call_id` and waits for the answer. The
    /// form's event goes out through `emit` (the run's own stream, so it is stored in order
    /// with the call's other events).
    pub(crate) async fn ask(
        &self,
        conversation_id: &str,
        run_id: Option<&str>,
        call_id: &str,
        mut form: FormRequestPayload,
        emit: impl FnOnce(EventBody),
    ) -> Result<LiveReply, LiveFormError> {
        check_form_schema(&Value::Object(form.schema.clone()))
            .map_err(|issues| LiveFormError::BadSchema(describe_issues(&issues)))?;
        if form.form_id.is_empty() {
            form.form_id = crate::ids::new_id();
        }
        let request = serde_json::to_value(&form)
            .map_err(|e| LiveFormError::BadSchema(format!("the form cannot be written: {e}")))?;
        let asked = Asked {
            conversation_id,
            run_id,
            call_id,
            id: form.form_id.clone(),
            kind: InteractionKind::Form,
            request,
        };
        self.wait(asked, EventBody::FormRequest(form), emit).await
    }

    /// Asks the person whether call `call_id` may run (a specialist's call without a grant)
    /// and waits for the decision; a decision beyond this call is recorded as a grant when
    /// the answer is taken, as for every consent request.
    pub(crate) async fn ask_consent(
        &self,
        conversation_id: &str,
        run_id: Option<&str>,
        call_id: &str,
        consent: ConsentRequestPayload,
        emit: impl FnOnce(EventBody),
    ) -> Result<LiveReply, LiveFormError> {
        let request = serde_json::to_value(&consent).map_err(|e| {
            LiveFormError::BadSchema(format!("the consent request cannot be written: {e}"))
        })?;
        let asked = Asked {
            conversation_id,
            run_id,
            call_id,
            id: consent.consent_id.clone(),
            kind: InteractionKind::Consent,
            request,
        };
        self.wait(asked, EventBody::ConsentRequest(consent), emit)
            .await
    }

    /// Stores the interaction, shows it, and waits for its answer.
    async fn wait(
        &self,
        asked: Asked<'_>,
        body: EventBody,
        emit: impl FnOnce(EventBody),
    ) -> Result<LiveReply, LiveFormError> {
        let mut request = asked.request;
        if let Some(object) = request.as_object_mut() {
            object.insert(LIVE_KEY.into(), json!(asked.call_id));
        }
        let (tx, rx) = oneshot::channel();
        let new = NewInteraction {
            interaction_id: Some(asked.id.clone()),
            run_id: asked.run_id.map(str::to_owned),
            kind: asked.kind,
            request,
        };
        let conversation = asked.conversation_id.to_owned();
        let store = Arc::clone(&self.store);
        let interaction =
            crate::sync::blocking(move || store.create_interaction(&conversation, new))?;
        // Waiting before the request is shown, so no answer can come unseen.
        {
            let mut waiting = crate::sync::lock(&self.waiting);
            waiting.insert(
                asked.id,
                Waiting {
                    call_id: asked.call_id.to_owned(),
                    reply: tx,
                    interaction: interaction.clone(),
                },
            );
        }
        let mut guard = Withdraw {
            forms: self,
            interaction: Some(interaction.clone()),
        };
        emit(body);
        // The call's own timeout bounds the wait: when it fires, this future is dropped and
        // the guard withdraws the request.
        match rx.await {
            Ok(reply) => {
                guard.interaction = None;
                Ok(reply)
            }
            Err(_) => {
                drop(guard);
                Ok(LiveReply::Cancel("the engine let go of the request".into()))
            }
        }
    }
}

/// An interaction a running call asks for.
struct Asked<'a> {
    conversation_id: &'a str,
    run_id: Option<&'a str>,
    call_id: &'a str,
    id: String,
    kind: InteractionKind,
    request: Value,
}
