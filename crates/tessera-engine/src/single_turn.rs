//! One model turn, start to end, with nothing lost: the person's message is stored before the
//! call, every delta becomes a stored event before anyone sees it, the answer (or what arrived
//! of it) is stored with the turn as the provider returned it and a `model_usage` record with
//! its estimated cost, and the spending limits are checked before any call. The coordinator
//! (tools, forms, several turns) builds on this; `tessera chat` is this alone.

use std::time::Instant;

use jiff::{Timestamp, Zoned};
use serde_json::json;
use tessera_protocol::context_doc::UsageStage;
use tessera_protocol::easyflow::SystemState;
use tessera_protocol::request::Role as WireRole;
use tessera_providers::cost::record::rfc3339_utc;
use tessera_providers::cost::{day_start, CallRecord, PriceTable, SpendingLimits, Spent};
use tessera_providers::stream::{Accumulator, Response};
use tessera_providers::{anthropic, openai};
use tessera_providers::{ChatMessage, ChatRequest, ProviderClient, ProviderError, ProviderKind};
use tessera_store::conversations::NewConversation;
use tessera_store::{text_message, NewMessage, Store, StoreError, StoredEvent};
use thiserror::Error;
use tokio_util::sync::CancellationToken;

use crate::model_events::{DoneSummary, EventShaper};

/// What stops a turn from being recorded at all (a provider failure is not one: it is part of
/// the outcome).
#[derive(Debug, Error)]
pub enum TurnError {
    #[error("the context database failed: {0}")]
    Store(#[from] StoreError),
    #[error("conversation {0} does not exist")]
    NoConversation(String),
}

/// How to run the turn.
#[derive(Clone, Debug)]
pub struct TurnOptions {
    pub stage: UsageStage,
    pub prices: PriceTable,
    /// Checked before the call; None reads them from the app settings.
    pub limits: Option<SpendingLimits>,
    pub system: Option<String>,
    pub max_tokens: Option<u32>,
}

impl Default for TurnOptions {
    fn default() -> Self {
        Self {
            stage: UsageStage::Answer,
            prices: PriceTable::builtin(),
            limits: None,
            system: None,
            max_tokens: None,
        }
    }
}

/// How the turn ended.
#[derive(Debug)]
pub struct TurnOutcome {
    pub conversation_id: String,
    pub run_id: String,
    /// The stored answer (None when nothing arrived, e.g. refused by a spending limit).
    pub message_id: Option<String>,
    pub response: Response,
    pub error: Option<ProviderError>,
    pub state: SystemState,
}

/// What the person said and to whom.
#[derive(Clone, Copy, Debug)]
pub struct TurnInput<'a> {
    /// The conversation to continue; None starts a new one.
    pub conversation: Option<&'a str>,
    pub text: &'a str,
    pub model: &'a str,
    pub options: &'a TurnOptions,
}

/// Runs one turn: the person's text, answered by the model on `client`. `emit` sees each event
/// after it was stored.
pub async fn run_single_turn(
    store: &Store,
    client: &ProviderClient,
    input: TurnInput<'_>,
    cancel: CancellationToken,
    mut emit: impl FnMut(&StoredEvent),
) -> Result<TurnOutcome, TurnError> {
    let TurnInput {
        conversation,
        text,
        model,
        options,
    } = input;
    let conversation_id = match conversation {
        Some(id) => {
            if store.conversation(id)?.is_none() {
                return Err(TurnError::NoConversation(id.to_owned()));
            }
            id.to_owned()
        }
        None => {
            store
                .create_conversation(NewConversation {
                    id: None,
                    title: title_of(text),
                    locale: None,
                    actor: None,
                    created_at: None,
                })?
                .id
        }
    };
    store.append_message(
        &conversation_id,
        NewMessage::new(text_message(WireRole::User, text)),
    )?;
    let run_id = new_id();
    let message_id = new_id();
    let mut shaper = EventShaper::new(&conversation_id, &message_id, &run_id);
    let mut put = |event| -> Result<(), TurnError> {
        let stored = store.append_event(&conversation_id, event)?;
        emit(&stored);
        Ok(())
    };
    put(shaper.status(SystemState::Running))?;
    let started = Instant::now();

    // Spending limits stop new calls before anything is sent.
    let limits = match &options.limits {
        Some(l) => *l,
        None => store
            .app_setting(tessera_providers::cost::SPENDING_LIMITS_SETTING)?
            .and_then(|v| serde_json::from_value(v).ok())
            .unwrap_or_default(),
    };
    // A call known to cost nothing (a local model) is never stopped by a spending limit.
    let free = options
        .prices
        .price_for(client.config(), model)
        .is_some_and(|p| p.input_per_mtok == 0.0 && p.output_per_mtok == 0.0);
    if !limits.is_unlimited() && !free {
        let now = Zoned::now();
        let spent = match day_start(&now) {
            Ok(start) => Spent {
                today_usd: store.spend_since(&rfc3339_utc(start))?,
                conversation_usd: store.conversation_spend(&conversation_id)?,
            },
            Err(err) => return fail_early(&mut put, &shaper, &conversation_id, err, started),
        };
        if let Err(err) = limits.check(spent, &now) {
            return fail_early(&mut put, &shaper, &conversation_id, err, started);
        }
    }

    let history = store.active_branch(&conversation_id)?;
    let messages: Vec<ChatMessage> = history
        .iter()
        .filter_map(|m| match m.message.role {
            WireRole::User => Some(ChatMessage::user(m.message.content.clone())),
            WireRole::Assistant if !m.message.content.is_empty() => {
                Some(ChatMessage::assistant(m.message.content.clone()))
            }
            _ => None,
        })
        .collect();
    let mut request = ChatRequest::new(model, messages);
    request.system.clone_from(&options.system);
    request.max_tokens = options.max_tokens;
    let config = client.config();
    let wire_request = match config.kind {
        ProviderKind::Openai => openai::encode_request(config, &request, true),
        ProviderKind::Anthropic => anthropic::encode_request(config, &request, true),
    };
    let turn = store.start_model_turn(
        &conversation_id,
        tessera_store::model_turns::NewModelTurn {
            turn_id: None,
            run_id: Some(run_id.clone()),
            provider: config.name.clone(),
            model: model.to_owned(),
            request: wire_request,
            assembly: None,
        },
    )?;

    let call_started = Timestamp::now();
    let mut stream = client.stream(request, cancel);
    let mut acc = Accumulator::new();
    let mut error = None;
    while let Some(next) = stream.next().await {
        match next {
            Ok(item) => {
                acc.push(&item);
                if let Some(event) = shaper.item(&item) {
                    put(event)?;
                }
            }
            Err(err) => {
                error = Some(err);
                break;
            }
        }
    }
    let response = acc.into_response();
    let answered_model = stream.model().to_owned();

    // The answer, or what arrived of it, marked when it was cut short.
    let mut message = text_message(WireRole::Assistant, response.text.clone());
    if !response.refusal.is_empty() && response.text.is_empty() {
        message.content.clone_from(&response.refusal);
        message.extra.insert("refusal".into(), json!(true));
    }
    if let Some(reason) = response.finish_reason {
        message.extra.insert(
            "finish_reason".into(),
            serde_json::to_value(reason).unwrap_or_default(),
        );
    }
    if let Some(err) = &error {
        message
            .extra
            .insert("interrupted".into(), json!(err.code()));
    }
    let stored_message = if message.content.is_empty() && error.is_some() {
        None
    } else {
        Some(store.append_message(
            &conversation_id,
            NewMessage::new(message).with_id(message_id.clone()),
        )?)
    };
    store.finish_model_turn(
        &conversation_id,
        &turn.turn_id,
        serde_json::to_value(&response).unwrap_or_default(),
        stored_message.as_ref().map(|m| m.id.clone()),
    )?;

    let mut record = CallRecord::new(
        new_id(),
        options.stage,
        config.name.clone(),
        answered_model.clone(),
        call_started,
    );
    record.fallback_from = stream.fell_back_from().map(str::to_owned);
    record.first_token_latency = stream.first_output_latency();
    record.latency = stream.elapsed();
    record.usage = response.usage;
    record.error.clone_from(&error);
    record.price = options.prices.price_for(config, &answered_model);
    let cost = record.estimated_cost_usd();
    store.put_model_usage(&conversation_id, record.to_model_usage())?;

    let state = match &error {
        None => SystemState::Completed,
        Some(ProviderError::Cancelled) => SystemState::Cancelled,
        Some(_) => SystemState::Failed,
    };
    if let Some(err) = &error {
        if !matches!(err, ProviderError::Cancelled) {
            put(shaper.provider_error(err))?;
        }
    }
    put(shaper.status(state))?;
    put(shaper.done(&DoneSummary {
        usage: response
            .usage
            .map(|u| vec![(answered_model.clone(), u, cost)])
            .unwrap_or_default(),
        latency_ms: started.elapsed().as_millis() as u64,
        first_token_latency_ms: stream.first_output_latency().map(|d| d.as_millis() as u64),
        state,
    }))?;
    store.fold_run(&conversation_id, &run_id)?;
    Ok(TurnOutcome {
        conversation_id,
        run_id,
        message_id: stored_message.map(|m| m.id),
        response,
        error,
        state,
    })
}

/// Ends a turn that never called the model.
fn fail_early(
    put: &mut impl FnMut(tessera_protocol::easyflow::Event) -> Result<(), TurnError>,
    shaper: &EventShaper,
    conversation_id: &str,
    err: ProviderError,
    started: Instant,
) -> Result<TurnOutcome, TurnError> {
    put(shaper.provider_error(&err))?;
    put(shaper.status(SystemState::Failed))?;
    put(shaper.done(&DoneSummary {
        usage: Vec::new(),
        latency_ms: started.elapsed().as_millis() as u64,
        first_token_latency_ms: None,
        state: SystemState::Failed,
    }))?;
    Ok(TurnOutcome {
        conversation_id: conversation_id.to_owned(),
        run_id: shaper.run_id().to_owned(),
        message_id: None,
        response: Response::default(),
        error: Some(err),
        state: SystemState::Failed,
    })
}

/// A new unique id (UUID v7, as the store makes them).
fn new_id() -> String {
    uuid::Uuid::now_v7().to_string()
}

/// A conversation title from the first words of the message.
fn title_of(text: &str) -> String {
    let line = text.lines().next().unwrap_or_default().trim();
    let mut title: String = line.chars().take(60).collect();
    if line.chars().count() > 60 {
        title.push('…');
    }
    if title.is_empty() {
        "New conversation".into()
    } else {
        title
    }
}
