//! One turn of the conversation, start to end, with nothing lost: the person's message is
//! stored before the first call; every delta and every tool event becomes a stored event before
//! anyone sees it; the model is called again with the tool results until it answers without
//! tools or the turn limit is reached; each call is kept as the provider saw it with a
//! `model_usage` record and its estimated cost; spending limits are checked before any call.
//! `tessera chat` is this with or without tools; the coordinator (routing, specialists, forms,
//! consent) builds on it.

mod call;
mod tools;

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Instant;

use jiff::Zoned;
use serde_json::json;
use tessera_protocol::context_doc::UsageStage;
use tessera_protocol::easyflow::{Event, SystemState};
use tessera_protocol::request::Role as WireRole;
use tessera_providers::cost::record::rfc3339_utc;
use tessera_providers::cost::{day_start, PriceTable, SpendingLimits, Spent};
use tessera_providers::request::{Part, Role, ToolSpec as ModelTool};
use tessera_providers::stream::{Response, Usage};
use tessera_providers::{ChatMessage, ChatRequest, ProviderClient, ProviderError};
use tessera_store::conversations::NewConversation;
use tessera_store::{text_message, NewMessage, Store, StoreError, StoredEvent};
use thiserror::Error;
use tokio_util::sync::CancellationToken;

use crate::executor::StoreSink;
use crate::model_events::{DoneSummary, EventShaper};
use crate::tools::ToolRegistry;

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
    /// The stage of the final answer's `model_usage` record (calls that ask for tools are
    /// recorded as `tool_call`).
    pub stage: UsageStage,
    pub prices: PriceTable,
    /// Checked before the first call; None reads them from the app settings.
    pub limits: Option<SpendingLimits>,
    pub system: Option<String>,
    pub max_tokens: Option<u32>,
    /// The tools the model may call; None for a plain answer.
    pub tools: Option<Arc<ToolRegistry>>,
    /// Model calls in one turn at most (each tool round is one).
    pub max_model_calls: u32,
    /// Tool calls running at once.
    pub tool_concurrency: usize,
}

impl Default for TurnOptions {
    fn default() -> Self {
        Self {
            stage: UsageStage::Answer,
            prices: PriceTable::builtin(),
            limits: None,
            system: None,
            max_tokens: None,
            tools: None,
            max_model_calls: 8,
            tool_concurrency: 10,
        }
    }
}

/// What the person said and to whom.
#[derive(Clone, Copy, Debug)]
pub struct TurnInput<'a> {
    /// The conversation to continue; None starts a new one.
    pub conversation: Option<&'a str>,
    pub text: &'a str,
    pub model: &'a str,
    pub options: &'a TurnOptions,
    /// The run's id, when the caller chose it (to cancel it while it runs); else a new one.
    pub run_id: Option<&'a str>,
}

/// How the turn ended.
#[derive(Debug)]
pub struct TurnOutcome {
    pub conversation_id: String,
    pub run_id: String,
    /// The stored answer (None when nothing arrived, e.g. refused by a spending limit).
    pub message_id: Option<String>,
    /// The last model call's answer; `text` holds the text of every call of the turn.
    pub response: Response,
    pub error: Option<ProviderError>,
    pub state: SystemState,
    /// Model calls made.
    pub model_calls: u32,
}

/// Stores events, then hands them on.
pub(crate) struct Recorder<'a> {
    store: &'a Arc<Store>,
    conversation_id: String,
    shaper: EventShaper,
    tool_sink: StoreSink,
    emit: &'a mut (dyn FnMut(&StoredEvent) + Send),
}

impl Recorder<'_> {
    fn put(&mut self, event: Event) -> Result<(), TurnError> {
        let (store, conversation_id) = (self.store, &self.conversation_id);
        let stored = blocking(|| store.append_event(conversation_id, event))?;
        (self.emit)(&stored);
        Ok(())
    }

    /// A tool event: stored with the call record it updates.
    fn put_tool_event(&mut self, event: Event) -> Result<(), TurnError> {
        let sink = &self.tool_sink;
        let stored = blocking(|| sink.persist(event))?;
        (self.emit)(&stored);
        Ok(())
    }
}

/// Runs a store write (which waits for its commit) without holding up the other tasks of a
/// multi-threaded runtime: tokio moves them to another worker meanwhile. On a single-threaded
/// runtime there is nothing to move, so it simply runs.
fn blocking<T>(write: impl FnOnce() -> T) -> T {
    match tokio::runtime::Handle::try_current().map(|h| h.runtime_flavor()) {
        Ok(tokio::runtime::RuntimeFlavor::MultiThread) => tokio::task::block_in_place(write),
        _ => write(),
    }
}

/// A new unique id (UUID v7, as the store makes them).
pub(crate) fn new_id() -> String {
    uuid::Uuid::now_v7().to_string()
}

/// Runs one turn: the person's text, answered by the model on `client` (calling tools when
/// given). `emit` sees each event after it was stored.
pub async fn run_turn(
    store: &Arc<Store>,
    client: &ProviderClient,
    input: TurnInput<'_>,
    cancel: CancellationToken,
    mut emit: impl FnMut(&StoredEvent) + Send,
) -> Result<TurnOutcome, TurnError> {
    let TurnInput {
        conversation,
        text,
        model,
        options,
        run_id,
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
    let run_id = run_id.map_or_else(new_id, str::to_owned);
    let message_id = new_id();
    let mut recorder = Recorder {
        store,
        conversation_id: conversation_id.clone(),
        shaper: EventShaper::new(&conversation_id, &message_id, &run_id),
        tool_sink: StoreSink::new(Arc::clone(store), conversation_id.clone()),
        emit: &mut emit,
    };
    recorder.put(recorder.shaper.status(SystemState::Running))?;
    let started = Instant::now();

    let mut messages: Vec<ChatMessage> = store
        .active_branch(&conversation_id)?
        .iter()
        .filter_map(|m| match m.message.role {
            WireRole::User => Some(ChatMessage::user(m.message.content.clone())),
            WireRole::Assistant if !m.message.content.is_empty() => {
                Some(ChatMessage::assistant(m.message.content.clone()))
            }
            _ => None,
        })
        .collect();
    let model_tools: Vec<ModelTool> = options
        .tools
        .iter()
        .flat_map(|registry| {
            registry.names().filter_map(|name| {
                registry.get(name).map(|tool| ModelTool {
                    name: tool.spec.name.clone(),
                    description: tool.spec.description.clone(),
                    input_schema: tool.spec.input_schema.clone(),
                })
            })
        })
        .collect();

    let mut text_so_far = String::new();
    let mut usage: BTreeMap<String, (Usage, Option<f64>)> = BTreeMap::new();
    let mut first_output = None;
    let mut calls = 0;
    let mut hit_limit = false;
    let (response, error) = loop {
        // Spending limits stop every new paid call, tool rounds included.
        if let Err(err) = check_limits(store, client, model, &conversation_id, options) {
            if calls == 0 {
                return fail_early(&mut recorder, err, started, &run_id);
            }
            break (Response::default(), Some(err));
        }
        calls += 1;
        let mut request = ChatRequest::new(model, messages.clone());
        request.system.clone_from(&options.system);
        request.max_tokens = options.max_tokens;
        request.tools.clone_from(&model_tools);
        let call_started = Instant::now();
        let result = call::call_model(
            &mut recorder,
            client,
            request,
            options,
            &run_id,
            cancel.clone(),
        )
        .await?;
        if !text_so_far.is_empty() && !result.response.text.is_empty() {
            text_so_far.push_str(EventShaper::CALL_SEPARATOR);
        }
        text_so_far.push_str(&result.response.text);
        if first_output.is_none() {
            // From the start of the turn to the first output of the first call that had one.
            first_output = result
                .first_output
                .map(|d| call_started.duration_since(started) + d);
        }
        if let Some(u) = result.usage {
            let entry = usage.entry(result.model.clone()).or_default();
            add_usage(&mut entry.0, &u);
            entry.1 = match (entry.1, result.cost) {
                (Some(a), Some(b)) => Some(a + b),
                (a, b) => a.or(b),
            };
        }
        let response = result.response;
        let wants_tools = !response.tool_calls.is_empty() && result.error.is_none();
        let (Some(registry), true) = (&options.tools, wants_tools) else {
            break (response, result.error);
        };
        if calls >= options.max_model_calls {
            hit_limit = true;
            break (response, None);
        }
        messages.push(assistant_message(&response));
        let results = tools::run_tool_calls(
            &mut recorder,
            registry,
            &response.tool_calls,
            &response.incomplete_tool_calls,
            &run_id,
            options.tool_concurrency,
            &cancel,
        )
        .await?;
        messages.push(results);
        if cancel.is_cancelled() {
            break (response, Some(ProviderError::Cancelled));
        }
    };

    // The answer, or what arrived of it, marked when it was cut short.
    let mut message = text_message(WireRole::Assistant, text_so_far.clone());
    if !response.refusal.is_empty() && message.content.is_empty() {
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
    if hit_limit {
        message.extra.insert("turn_limit".into(), json!(calls));
    }
    let stored_message = if message.content.is_empty() && error.is_some() {
        None
    } else {
        Some(store.append_message(
            &conversation_id,
            NewMessage::new(message).with_id(message_id.clone()),
        )?)
    };

    let state = match &error {
        None => SystemState::Completed,
        Some(ProviderError::Cancelled) => SystemState::Cancelled,
        Some(_) => SystemState::Failed,
    };
    if let Some(err) = &error {
        if !matches!(err, ProviderError::Cancelled) {
            recorder.put(recorder.shaper.provider_error(err))?;
        }
    }
    if hit_limit {
        recorder.put(
            recorder
                .shaper
                .turn_limit(u64::from(calls), u64::from(options.max_model_calls)),
        )?;
    }
    recorder.put(recorder.shaper.status(state))?;
    recorder.put(recorder.shaper.done(&DoneSummary {
        usage: usage.into_iter().map(|(m, (u, c))| (m, u, c)).collect(),
        latency_ms: started.elapsed().as_millis() as u64,
        first_token_latency_ms: first_output.map(|d| d.as_millis() as u64),
        state,
    }))?;
    store.fold_run(&conversation_id, &run_id)?;
    let mut response = response;
    response.text = text_so_far;
    Ok(TurnOutcome {
        conversation_id,
        run_id,
        message_id: stored_message.map(|m| m.id),
        response,
        error,
        state,
        model_calls: calls,
    })
}

fn add_usage(total: &mut Usage, more: &Usage) {
    total.input_tokens = total.input_tokens.saturating_add(more.input_tokens);
    total.output_tokens = total.output_tokens.saturating_add(more.output_tokens);
    let add = |a: Option<u64>, b: Option<u64>| match (a, b) {
        (None, None) => None,
        (a, b) => Some(a.unwrap_or(0).saturating_add(b.unwrap_or(0))),
    };
    total.reasoning_tokens = add(total.reasoning_tokens, more.reasoning_tokens);
    total.cached_input_tokens = add(total.cached_input_tokens, more.cached_input_tokens);
    total.cache_creation_input_tokens = add(
        total.cache_creation_input_tokens,
        more.cache_creation_input_tokens,
    );
}

/// The assistant's side of a tool round, as the provider must see it again: its reasoning (with
/// signatures), its text and its complete calls.
fn assistant_message(response: &Response) -> ChatMessage {
    let mut parts: Vec<Part> = response
        .reasoning
        .iter()
        .map(|r| Part::Reasoning {
            text: r.text.clone(),
            signature: r.signature.clone(),
            redacted: r.redacted.clone(),
        })
        .collect();
    if !response.text.is_empty() {
        parts.push(Part::text(response.text.clone()));
    }
    parts.extend(response.tool_calls.iter().map(|c| Part::ToolCall {
        id: c.id.clone(),
        name: c.name.clone(),
        arguments: c.arguments.clone(),
    }));
    ChatMessage {
        role: Role::Assistant,
        parts,
    }
}

/// Whether a new paid call may start. A call known to cost nothing (a local model) is never
/// stopped by a spending limit.
fn check_limits(
    store: &Store,
    client: &ProviderClient,
    model: &str,
    conversation_id: &str,
    options: &TurnOptions,
) -> Result<(), ProviderError> {
    let limits = match &options.limits {
        Some(l) => *l,
        // A limit that cannot be read stops paid calls rather than lifting the limit.
        None => match store.app_setting(tessera_providers::cost::SPENDING_LIMITS_SETTING) {
            Ok(None) => SpendingLimits::default(),
            Ok(Some(value)) => serde_json::from_value(value).map_err(|err| {
                ProviderError::Config(format!(
                    "the spending limits setting is not readable ({err}); set it again with \
                     `tessera provider limits`"
                ))
            })?,
            Err(err) => {
                return Err(ProviderError::Config(format!(
                    "cannot read the spending limits: {err}"
                )))
            }
        },
    };
    limits.validate()?;
    let free = options
        .prices
        .price_for(client.config(), model)
        .is_some_and(|p| p.input_per_mtok == 0.0 && p.output_per_mtok == 0.0);
    if limits.is_unlimited() || free {
        return Ok(());
    }
    let now = Zoned::now();
    let unreadable =
        |err: StoreError| ProviderError::Config(format!("cannot add up spending: {err}"));
    let spent = Spent {
        today_usd: store
            .spend_since(&rfc3339_utc(day_start(&now)?))
            .map_err(unreadable)?,
        conversation_usd: store
            .conversation_spend(conversation_id)
            .map_err(unreadable)?,
    };
    limits.check(spent, &now)
}

/// Ends a turn that never called the model.
fn fail_early(
    recorder: &mut Recorder<'_>,
    err: ProviderError,
    started: Instant,
    run_id: &str,
) -> Result<TurnOutcome, TurnError> {
    recorder.put(recorder.shaper.provider_error(&err))?;
    recorder.put(recorder.shaper.status(SystemState::Failed))?;
    recorder.put(recorder.shaper.done(&DoneSummary {
        usage: Vec::new(),
        latency_ms: started.elapsed().as_millis() as u64,
        first_token_latency_ms: None,
        state: SystemState::Failed,
    }))?;
    Ok(TurnOutcome {
        conversation_id: recorder.conversation_id.clone(),
        run_id: run_id.to_owned(),
        message_id: None,
        response: Response::default(),
        error: Some(err),
        state: SystemState::Failed,
        model_calls: 0,
    })
}

/// A conversation title from the first words of the message.
pub(crate) fn title_of(text: &str) -> String {
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
