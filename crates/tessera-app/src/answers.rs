//! The person's answers to what runs ask (forms, consent requests) and the questions waiting,
//! and the attachments messages carry.

use serde_json::Value;
use tessera_engine::interactions::{Answer, Answered};
use tessera_protocol::easyflow::{FormAction, FormSubmission};
use tessera_store::{AttachmentInfo, Interaction, StoreError};

use crate::{App, CoreError};

impl App {
    /// The forms and consents waiting for the person (in `conversation`, or anywhere). One
    /// whose request the store holds but cannot read as its kind's is left out (and logged),
    /// so it does not hide the others.
    pub fn waiting_interactions(
        &self,
        conversation: Option<&str>,
    ) -> Result<crate::views::interactions::InteractionList, CoreError> {
        let pending = self.engine.pending_interactions(conversation)?;
        let interactions = pending
            .iter()
            .filter_map(|interaction| {
                match crate::views::interactions::InteractionView::of(interaction) {
                    Ok(view) => Some(view),
                    Err(error) => {
                        tracing::warn!(%error, "an interaction is left out of the list");
                        None
                    }
                }
            })
            .collect();
        Ok(crate::views::interactions::InteractionList { interactions })
    }

    /// Interaction `id`, whatever its state.
    pub fn interaction(&self, id: &str) -> Result<Option<Interaction>, CoreError> {
        Ok(self.engine.store().find_interaction(id)?)
    }

    /// Answers interaction `id`. Blocks on the store: call it off the async workers.
    pub fn answer_interaction(&self, id: &str, answer: &Answer) -> Result<Answered, CoreError> {
        Ok(self.engine.answer(id, answer)?)
    }

    /// Answers a form with a seed 002 §12 submission: the form must be one of the named
    /// conversation's. Blocks on the store: call it off the async workers.
    pub fn submit_form(&self, submission: &FormSubmission) -> Result<Answered, CoreError> {
        let found = self
            .engine
            .store()
            .interaction(&submission.conversation_id, &submission.form_id)?;
        if found.is_none() {
            return Err(CoreError::NoForm {
                conversation: submission.conversation_id.clone(),
                form: submission.form_id.clone(),
            });
        }
        let action = submission.effective_action();
        let answer = Answer::Form {
            action,
            values: (action == FormAction::Accept)
                .then(|| Value::Object(submission.values.clone().unwrap_or_default())),
        };
        self.answer_interaction(&submission.form_id, &answer)
    }

    /// Attachment `sha256`'s facts and bytes; None when no message has it (read off the async
    /// workers: it may be tens of megabytes).
    pub async fn attachment(
        &self,
        sha256: &str,
    ) -> Result<Option<(AttachmentInfo, Vec<u8>)>, CoreError> {
        let store = self.engine.store().clone();
        let sha256 = sha256.to_owned();
        tokio::task::spawn_blocking(move || {
            let Some(info) = store.attachment(&sha256)? else {
                return Ok(None);
            };
            match store.read_attachment(&sha256) {
                Ok(bytes) => Ok(Some((info, bytes))),
                Err(StoreError::NotFound { .. }) => Ok(None),
                Err(other) => Err(other.into()),
            }
        })
        .await
        .map_err(|err| CoreError::Internal(format!("reading the attachment stopped: {err}")))?
    }
}

/// Whether `text` is an attachment's name: the lowercase hex SHA-256 of its bytes.
pub fn is_sha256(text: &str) -> bool {
    tessera_store::attachments::is_sha256(text)
}
