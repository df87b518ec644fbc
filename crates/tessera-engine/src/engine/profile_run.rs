//! Before a run: the person's input is routed to an agent profile (seed 000 section 2.3: rules
//! first, a model classification when they do not decide, recorded as a `route` usage), whose
//! system prompt, tools, model and turn limit the run takes. After it: the rolling summary is
//! rewritten when the history passed its threshold (a `summary` usage).

use tessera_store::Store;
use tokio_util::sync::CancellationToken;

use super::ModelChoice;
use crate::profiles::{route, Profile, Profiles, ResponseFormat, RouteRequest, RoutedBy};
use crate::summary::{needs_summary, write_rolling_summary, SummaryPolicy};
use crate::turn::TurnOptions;

/// The options and model of a run for `text`, from the profile it was routed to.
pub(super) async fn options_for(
    store: &Store,
    choice: &ModelChoice,
    conversation_id: &str,
    text: &str,
    cancel: &CancellationToken,
) -> (TurnOptions, String) {
    let profiles = match Profiles::load(store) {
        Ok(p) => p,
        Err(error) => {
            // A broken setting must not stop the person from talking: the built-in profile.
            tracing::warn!(%error, "the agent profiles cannot be read; using the built-in one");
            Profiles::builtin()
        }
    };
    let decision = route(
        &profiles,
        store,
        &choice.client,
        RouteRequest {
            conversation_id,
            text,
            model: &choice.model,
        },
        cancel.clone(),
    )
    .await;
    let profile = match decision {
        Ok(decision) => {
            if let RoutedBy::Fallback { reason } = &decision.by {
                tracing::info!(?reason, "routing fell back to the default profile");
            }
            decision.profile
        }
        Err(error) => {
            tracing::warn!(%error, "routing failed; using the default profile");
            profiles.default_profile().clone()
        }
    };
    apply(&profile, choice)
}

/// The options and model of a run that resumes: those of the profile it was routed to when it
/// started (named in its `running` status), else the engine's.
pub(super) fn options_for_resume(
    store: &Store,
    choice: &ModelChoice,
    events: &[tessera_store::StoredEvent],
) -> (TurnOptions, String) {
    let named = events.iter().find_map(|e| match &e.event.body {
        tessera_protocol::easyflow::EventBody::SystemStatus(s) => s.profile.as_deref(),
        _ => None,
    });
    let profile = named.and_then(|name| {
        let profiles = Profiles::load(store).ok()?;
        let found = profiles.get(name).cloned();
        if found.is_none() {
            tracing::warn!(profile = %name, "the run's profile is gone; resuming with the default options");
        }
        found
    });
    let (mut options, model) = match profile {
        Some(profile) => apply(&profile, choice),
        None => (choice.options.clone(), choice.model.clone()),
    };
    // A client that asked for debug/log events gets them from the rest of the run too.
    options.debug = events.iter().any(|e| match &e.event.body {
        tessera_protocol::easyflow::EventBody::SystemStatus(s) => s.debug == Some(true),
        _ => false,
    });
    (options, model)
}

fn apply(profile: &Profile, choice: &ModelChoice) -> (TurnOptions, String) {
    let mut options = choice.options.clone();
    if !profile.system_prompt.trim().is_empty() {
        options.system = Some(match &options.system {
            Some(base) => format!("{}\n\n{base}", profile.system_prompt),
            None => profile.system_prompt.clone(),
        });
    }
    if let (Some(allowed), Some(tools)) = (&profile.tools, &options.tools) {
        options.tools = Some(std::sync::Arc::new(tools.subset(allowed)));
    }
    options.allowed_tools.clone_from(&profile.tools);
    if let Some(max) = profile.max_model_calls {
        options.max_model_calls = max;
    }
    options.agent_name.clone_from(&profile.title);
    options.profile = Some(profile.name.clone());
    options.response_schema = match &profile.response_format {
        ResponseFormat::Json { schema } => Some(schema.clone()),
        ResponseFormat::Text => None,
    };
    let model = profile
        .model
        .clone()
        .unwrap_or_else(|| choice.model.clone());
    (options, model)
}

/// Rewrites the rolling summary when the conversation passed its threshold; a failure keeps
/// the old one (and is logged).
pub(super) async fn summarize_if_due(
    store: &Store,
    choice: &ModelChoice,
    conversation_id: &str,
    cancel: &CancellationToken,
) {
    let policy = SummaryPolicy::default();
    match needs_summary(store, conversation_id, &policy) {
        Ok(true) => {}
        Ok(false) => return,
        Err(error) => {
            tracing::warn!(%error, "cannot tell whether the summary is due");
            return;
        }
    }
    if let Err(error) = write_rolling_summary(
        store,
        &choice.client,
        &choice.model,
        conversation_id,
        &policy,
        cancel.clone(),
    )
    .await
    {
        tracing::warn!(%error, "the rolling summary was not rewritten");
    }
}
