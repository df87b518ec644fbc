//! One turn of the conversation, start to end, with nothing lost: the person's message is
//! stored before the first call; every delta and every tool event becomes a stored event before
//! anyone sees it; the model is called again with the tool results until it answers without
//! tools or the turn limit is reached; each call is kept as the provider saw it with a
//! `model_usage` record and its estimated cost; spending limits are checked before any call.
//! A form or a consent request suspends the turn (`round`); the answer resumes it, also in
//! another process, from what the store kept ([`resume`]); a run the process died in is closed
//! as interrupted (`close`).

mod call;
mod cite;
mod cleared_history;
pub(crate) mod close;
mod context;
mod drive;
mod error;
pub mod extra_context;
pub mod fits;
pub(crate) mod limits;
mod options;
mod read_ahead;
mod recorder;
pub mod resume;
mod round;
mod stored;

use std::sync::Arc;
use std::time::Instant;

use tessera_protocol::easyflow::SystemState;
use tessera_protocol::request::Role as WireRole;
use tessera_providers::ProviderClient;
use tessera_store::{text_message, NewMessage, Parent, Store, StoreError, StoredEvent};
use tokio_util::sync::CancellationToken;

use crate::ids::new_id;
use crate::model_events::EventShaper;

pub use crate::conversation_start::title_of;
pub use context::readable_document;
pub(crate) use drive::TurnState;
pub use error::{TurnError, CONTEXT_WINDOW_EXCEEDED, MESSAGE_TOO_LONG};
pub use options::{Said, TurnInput, TurnOptions, TurnOutcome};
pub(crate) use recorder::Recorder;
pub(crate) use stored::USER_MESSAGE_KEY;

/// Runs one turn: the person's text, answered by the model on `client` (calling tools when
/// given). `emit` sees each event after it was stored. Ends `Suspended` when the person must
/// answer a form or a consent request first; [`resume::resume_turn`] goes on from there.
pub async fn run_turn(
    store: &Arc<Store>,
    client: &ProviderClient,
    input: TurnInput<'_>,
    cancel: CancellationToken,
    mut emit: impl FnMut(StoredEvent) + Send,
) -> Result<TurnOutcome, TurnError> {
    let TurnInput {
        conversation,
        text,
        said,
        model,
        options,
        run_id,
        attachments,
        message_id: chosen_id,
    } = input;
    let begun = Instant::now();
    // Refused before anything is stored. A stored message answered again is checked too: the
    // model may have changed since.
    fits::check_message_fits(client.config(), model, text, options.max_tokens)?;
    let conversation_id = match conversation {
        Some(id) => {
            if store.conversation(id)?.is_none() {
                return Err(TurnError::NoConversation(id.to_owned()));
            }
            id.to_owned()
        }
        None => crate::conversation_start::start_conversation(store, None, text)?,
    };
    let user_message = place_user_message(
        store,
        &conversation_id,
        NewUserMessage {
            text,
            attachments,
            id: chosen_id,
        },
        said,
    )?;
    let run_id = run_id.map_or_else(new_id, str::to_owned);
    let message_id = new_id();
    let shaper = EventShaper::new(&conversation_id, &message_id, &run_id);
    let mut recorder = Recorder::new(store, shaper, &conversation_id, &mut emit);
    // Seed 002 §8.2: the run is being set up (its context assembled) until `running`.
    recorder.put(recorder.shaper.status(SystemState::Initializing))?;
    let mut running = recorder.shaper.status(SystemState::Running);
    if let tessera_protocol::easyflow::EventBody::SystemStatus(p) = &mut running.body {
        p.profile.clone_from(&options.profile);
        p.user_message_id = Some(user_message.clone());
        p.debug = options.debug.then_some(true);
    }
    let prompt = match context::prompt(
        store,
        &conversation_id,
        Some(&user_message),
        client.config(),
        model,
        options,
    ) {
        Ok(prompt) => prompt,
        Err(err) => {
            // The run has begun (`initializing` is out): it ends as a failed run does, so a
            // client following it sees why and its stream ends.
            recorder.put(recorder.shaper.system_error(
                err.code().as_str(),
                err.to_string(),
                false,
                None,
            ))?;
            recorder.put(recorder.shaper.status(SystemState::Failed))?;
            recorder.put(recorder.shaper.done(&drive::failed_summary(begun)))?;
            return Err(err);
        }
    };
    recorder.put(running)?;
    let state = TurnState {
        messages: prompt.messages,
        system: prompt.system,
        started: Instant::now(),
        user_message: Some(user_message),
        ..TurnState::default()
    };
    if options.debug {
        recorder.put(recorder.shaper.debug_log(
            "context assembled",
            context::debug_facts(&prompt.explanation, state.messages.len()),
        ))?;
    }
    recorder.assembly = Some(prompt.explanation);
    drive::drive(&mut recorder, client, model, options, state, &cancel).await
}

/// The person's message as a turn stores it.
struct NewUserMessage<'a> {
    text: &'a str,
    attachments: &'a [crate::attachments::MessageAttachment],
    id: Option<&'a str>,
}

/// The id of the person's message the turn answers: a new one stored where `said` puts it
/// (then shown), or, to answer a stored one again, that one, with the branch shown cut back to
/// it so that the new answer follows it beside the earlier ones.
fn place_user_message(
    store: &Store,
    conversation_id: &str,
    new: NewUserMessage<'_>,
    said: Said<'_>,
) -> Result<String, TurnError> {
    let parent = match said {
        Said::Next => Parent::ActiveLeaf,
        Said::After(Some(id)) => Parent::Message(id.to_owned()),
        Said::After(None) => Parent::Root,
        Said::Again(id) => {
            match store.message(conversation_id, id)? {
                Some(m) if m.message.role == WireRole::User => {}
                _ => return Err(TurnError::NoUserMessage(id.to_owned())),
            }
            store.show_branch_to(conversation_id, id)?;
            return Ok(id.to_owned());
        }
    };
    Ok(store_user_input(store, conversation_id, new, parent)?)
}

/// The person's message, and its `user_input` evidence (docs/design.md: written before anything
/// else, so what they said can be cited), in one transaction; its id.
fn store_user_input(
    store: &Store,
    conversation_id: &str,
    new: NewUserMessage<'_>,
    parent: Parent,
) -> Result<String, StoreError> {
    let NewUserMessage {
        text,
        attachments,
        id,
    } = new;
    let conversation_id = conversation_id.to_owned();
    let text = text.to_owned();
    let id = id.map(str::to_owned);
    let refs = crate::attachments::refs_of(attachments);
    let mut said = text_message(WireRole::User, &text);
    if !attachments.is_empty() {
        said.extra.insert(
            crate::attachments::MESSAGE_ATTACHMENTS_KEY.into(),
            serde_json::to_value(attachments).unwrap_or_default(),
        );
    }
    store.write(move |tx| {
        let mut placed = NewMessage::new(said).with_parent(parent);
        placed.id = id;
        let message = tx.append_message(&conversation_id, placed)?;
        let evidence = tessera_protocol::context_doc::Evidence {
            evidence_id: crate::builtin_tools::search_context::derived_evidence_id(
                &conversation_id,
                "message",
                &message.id,
            ),
            evidence_type: tessera_protocol::context_doc::EvidenceType::UserInput,
            source: tessera_protocol::context_doc::EvidenceSource {
                kind: tessera_protocol::context_doc::SourceKind::User,
                name: None,
                uri: Some(format!(
                    "tessera://conversations/{conversation_id}/messages/{}",
                    message.id
                )),
                extra: Default::default(),
            },
            content: Some(serde_json::Value::String(text)),
            confidence: None,
            metadata: None,
            links: None,
            extra: Default::default(),
        };
        tx.put_evidence(&conversation_id, &evidence, &refs)?;
        Ok(message.id)
    })
}

#[cfg(test)]
mod title_tests {
    use super::title_of;

    #[test]
    fn a_title_ends_at_a_word_with_an_ellipsis() {
        let long =
            "Plan a two-week trip through Norway in March, with trains, fjords and a day in Bergen";
        let title = title_of(long);
        assert_eq!(
            title,
            "Plan a two-week trip through Norway in March, with trains…"
        );
        assert!(long.starts_with(title.trim_end_matches('…')));
        assert_eq!(title_of("  \n Short one \n more"), "Short one");
        assert_eq!(title_of(""), "New conversation");
        let chinese = "请帮我规划一次为期两周的挪威之旅，三月出发，乘火车游览峡湾，并在卑尔根停留一天，预算有限，希望多看自然风光";
        let title = title_of(&chinese.repeat(2));
        assert_eq!(title.chars().count(), 61);
        assert!(title.ends_with('…'));
    }
}
