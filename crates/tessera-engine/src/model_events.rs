//! A model call's normalised stream as easyflow-chat 1.1 events (docs/design.md "The vocabulary"):
//! text and refusals as `llm/message` deltas, reasoning as `llm/thinking`, tool-argument
//! deltas as `tool/tool_call_delta`, retries and incomplete calls as recoverable
//! `system/error`, the fallback switch as `system/model_fallback`. Seq numbers are the store's;
//! this only shapes the events.

use serde_json::{json, Value};
use tessera_protocol::easyflow::{
    BusinessErrorPayload, DonePayload, Event, EventBody, EventMeta, LlmMessagePayload,
    LlmThinkingPayload, ModelFallbackPayload, NodeKind, SystemErrorPayload, SystemState,
    SystemStatusPayload, ToolCallDeltaPayload, WorkflowState, WorkflowStatusPayload,
};
use tessera_protocol::failure_codes::RunErrorCode;
use tessera_protocol::wire::JsonObject;
use tessera_providers::stream::{IncompleteReason, StreamItem, Usage};
use tessera_providers::{ProviderError, ProviderFailureCode};

/// The `reason` of a run's `workflow/status` suspend and resume: a form or consent request.
pub(crate) const INTERACTION_REASON: &str = "interaction";

/// Shapes the events of one run in one conversation.
#[derive(Clone, Debug)]
pub(crate) struct EventShaper {
    conversation_id: String,
    message_id: String,
    run_id: String,
    /// The streamed block the deltas belong to (the payload's `block`): one per run of deltas
    /// of one kind, so the store folds each block into one whole event when the run ends.
    block: u64,
    /// The next delta's `index`: its sequence number in the message (seed 002 §4.2), one
    /// counter over thinking and answer pieces.
    next_index: u64,
    /// The kind of the current block (`thinking`, `message`, `refusal`), None before the first.
    block_kind: Option<&'static str>,
    /// Whether an earlier call of the run produced text (a later call's text is set apart).
    wrote_text: bool,
    separate_next_text: bool,
    /// Tool-call ids of the current call by position, to name the call of each argument delta.
    call_ids: Vec<String>,
}

impl EventShaper {
    pub fn new(
        conversation_id: impl Into<String>,
        message_id: impl Into<String>,
        run_id: impl Into<String>,
    ) -> Self {
        Self {
            conversation_id: conversation_id.into(),
            message_id: message_id.into(),
            run_id: run_id.into(),
            block: 0,
            next_index: 0,
            block_kind: None,
            wrote_text: false,
            separate_next_text: false,
            call_ids: Vec::new(),
        }
    }

    pub fn run_id(&self) -> &str {
        &self.run_id
    }

    pub fn message_id(&self) -> &str {
        &self.message_id
    }

    fn event(&self, body: EventBody, index: Option<u64>) -> Event {
        let mut event = Event::new(self.conversation_id.clone(), body);
        event.message_id = Some(self.message_id.clone());
        event.index = index;
        event.meta = Some(EventMeta {
            run_id: Some(self.run_id.clone()),
            ..EventMeta::default()
        });
        event
    }

    /// A delta of `kind`: a new block starts when the kind changes.
    fn streamed(&mut self, kind: &'static str, mut body: EventBody) -> Event {
        if self.block_kind != Some(kind) {
            if self.block_kind.is_some() {
                self.block += 1;
            }
            self.block_kind = Some(kind);
        }
        match &mut body {
            EventBody::LlmMessage(p) => p.block = Some(self.block),
            EventBody::LlmThinking(p) => p.block = Some(self.block),
            _ => {}
        }
        let index = self.next_index;
        self.next_index += 1;
        self.event(body, Some(index))
    }

    /// A new model call begins: its deltas start new blocks.
    pub(crate) fn next_call(&mut self) {
        if self.block_kind.take().is_some() {
            self.block += 1;
        }
        self.separate_next_text = self.wrote_text;
        self.call_ids.clear();
    }

    /// The text between the answers of two calls of one turn.
    pub(crate) const CALL_SEPARATOR: &'static str = "\n\n";

    /// `system/status`.
    pub fn status(&self, state: SystemState) -> Event {
        self.event(
            EventBody::SystemStatus(SystemStatusPayload {
                state,
                profile: None,
                user_message_id: None,
                debug: None,
                extra: JsonObject::new(),
            }),
            None,
        )
    }

    /// The event an item becomes, if any (usage and finish are reported by `done`).
    pub fn item(&mut self, item: &StreamItem) -> Option<Event> {
        match item {
            StreamItem::TextDelta { text } => {
                let text = if std::mem::take(&mut self.separate_next_text) {
                    format!("{}{text}", Self::CALL_SEPARATOR)
                } else {
                    text.clone()
                };
                self.wrote_text = true;
                Some(self.streamed(
                    "message",
                    EventBody::LlmMessage(LlmMessagePayload {
                        delta: Some(text),
                        content: None,
                        block: None,
                        extra: JsonObject::new(),
                    }),
                ))
            }
            StreamItem::RefusalDelta { text } => {
                let mut extra = JsonObject::new();
                extra.insert("refusal".into(), Value::Bool(true));
                Some(self.streamed(
                    "refusal",
                    EventBody::LlmMessage(LlmMessagePayload {
                        delta: Some(text.clone()),
                        content: None,
                        block: None,
                        extra,
                    }),
                ))
            }
            StreamItem::ReasoningDelta { text } => Some(self.streamed(
                "thinking",
                EventBody::LlmThinking(LlmThinkingPayload {
                    delta: Some(text.clone()),
                    content: None,
                    signature: None,
                    block: None,
                    extra: JsonObject::new(),
                }),
            )),
            StreamItem::ReasoningSignature { signature } => Some(self.streamed(
                "thinking",
                EventBody::LlmThinking(LlmThinkingPayload {
                    delta: Some(String::new()),
                    content: None,
                    signature: Some(signature.clone()),
                    block: None,
                    extra: JsonObject::new(),
                }),
            )),
            StreamItem::RedactedReasoning { .. } => {
                let mut extra = JsonObject::new();
                extra.insert("redacted".into(), Value::Bool(true));
                Some(self.streamed(
                    "redacted",
                    EventBody::LlmThinking(LlmThinkingPayload {
                        delta: Some(String::new()),
                        content: None,
                        signature: None,
                        block: None,
                        extra,
                    }),
                ))
            }
            StreamItem::ToolCallStart { index, id, name } => {
                if self.call_ids.len() <= *index {
                    self.call_ids.resize(*index + 1, String::new());
                }
                self.call_ids[*index].clone_from(id);
                Some(self.wrap(EventBody::ToolCallDelta(ToolCallDeltaPayload {
                    tool_call_id: Some(id.clone()),
                    name: Some(name.clone()),
                    position: *index as u64,
                    delta: String::new(),
                    extra: JsonObject::new(),
                })))
            }
            StreamItem::ToolCallDelta { index, arguments } => {
                Some(self.wrap(EventBody::ToolCallDelta(ToolCallDeltaPayload {
                    tool_call_id: self.call_ids.get(*index).cloned(),
                    name: None,
                    position: *index as u64,
                    delta: arguments.clone(),
                    extra: JsonObject::new(),
                })))
            }
            StreamItem::ToolCallIncomplete {
                id,
                name,
                reason,
                partial_arguments,
                ..
            } => {
                let why = match reason {
                    IncompleteReason::CutOff => {
                        "the answer reached its token limit in the middle of the call".to_owned()
                    }
                    IncompleteReason::InvalidJson(e) => {
                        format!("its arguments are not valid JSON ({e})")
                    }
                    IncompleteReason::StreamEnded => {
                        "the stream ended in the middle of the call".to_owned()
                    }
                };
                Some(self.system_error(
                    RunErrorCode::IncompleteToolCall.as_str(),
                    format!("The call to {name} was not run: {why}."),
                    true,
                    Some(json!({"tool_call_id": id, "name": name,
                        "partial_arguments_bytes": partial_arguments.len()})),
                ))
            }
            StreamItem::Retrying {
                attempt,
                delay_ms,
                code,
                message,
            } => Some(self.system_error(
                code.as_str(),
                format!("{message} (retrying in {delay_ms} ms, attempt {attempt})"),
                true,
                Some(json!({"attempt": attempt, "delay_ms": delay_ms})),
            )),
            StreamItem::FallbackModel { from, to } => {
                Some(self.wrap(EventBody::ModelFallback(ModelFallbackPayload {
                    from: from.clone(),
                    to: to.clone(),
                    extra: JsonObject::new(),
                })))
            }
            StreamItem::Started { .. }
            | StreamItem::ToolCallEnd { .. }
            | StreamItem::Usage { .. }
            | StreamItem::Finish { .. } => None,
        }
    }

    /// Any other event of the run's message (tool events of calls the coordinator handles
    /// itself, interactions).
    pub fn wrap(&self, body: EventBody) -> Event {
        self.event(body, None)
    }

    /// Continues a run rebuilt after it was suspended: its next deltas start a new block after
    /// `last_block`, are numbered on after `last_index`, and a new call's text is set apart from
    /// what came before.
    pub(crate) fn continue_after(
        &mut self,
        last_block: Option<u64>,
        last_index: Option<u64>,
        wrote_text: bool,
    ) {
        if let Some(last) = last_block {
            self.block = last + 1;
        }
        if let Some(last) = last_index {
            self.next_index = last + 1;
        }
        self.block_kind = None;
        self.wrote_text = wrote_text;
        self.separate_next_text = false;
        self.call_ids.clear();
    }

    /// `system/error`; `retryable: false` marks a run's fatal error.
    pub(crate) fn system_error(
        &self,
        code: &str,
        message: String,
        retryable: bool,
        detail: Option<Value>,
    ) -> Event {
        self.event(
            EventBody::SystemError(SystemErrorPayload {
                code: code.to_owned(),
                message,
                retryable: Some(retryable),
                detail,
                extra: JsonObject::new(),
            }),
            None,
        )
    }

    /// `debug/log` (seed 002 §5) at level debug: emitted only for a client that asked for
    /// them; `facts` are figures, never a secret or a prompt's text.
    pub(crate) fn debug_log(&self, message: &str, facts: JsonObject) -> Event {
        self.event(
            EventBody::DebugLog(tessera_protocol::easyflow::DebugLogPayload {
                level: tessera_protocol::easyflow::LogLevel::Debug,
                message: message.to_owned(),
                extra: facts,
            }),
            None,
        )
    }

    /// `workflow/status` of the run node waiting for the person (`suspend`) or going on after
    /// the answer (`resume`), with reason `interaction` (seed 002 §10).
    pub(crate) fn run_waits(&self, state: WorkflowState) -> Event {
        self.event(
            EventBody::WorkflowStatus(WorkflowStatusPayload {
                node_id: self.run_id.clone(),
                state,
                node_kind: Some(NodeKind::Run),
                reason: Some(INTERACTION_REASON.to_owned()),
                turn: None,
                max_turns: None,
                agent_name: None,
                duration_ms: None,
                extra: JsonObject::new(),
            }),
            None,
        )
    }

    /// `workflow/status` of the run node: the turn ended because it reached its limit of model
    /// calls (not an error of the run: the answer so far stands).
    pub fn turn_limit(&self, calls: u64, max_calls: u64) -> Event {
        self.event(
            EventBody::WorkflowStatus(WorkflowStatusPayload {
                node_id: self.run_id.clone(),
                state: WorkflowState::End,
                node_kind: Some(NodeKind::Run),
                reason: Some(format!(
                    "turn_limit: stopped after {calls} model calls, the limit for one turn; the \
                     model still wanted to call tools, so the answer may be incomplete"
                )),
                turn: Some(calls),
                max_turns: Some(max_calls),
                agent_name: None,
                duration_ms: None,
                extra: JsonObject::new(),
            }),
            None,
        )
    }

    /// The fatal error a provider call ended with: a refusal by a business rule (the account's
    /// quota, the person's spending limit) is a `business/error` with its upper-case code (seed
    /// 002 §9), the provider's code beside it; anything else is a fatal `system/error`.
    pub(crate) fn provider_error(&self, err: &ProviderError) -> Event {
        match business_code(err) {
            Some(code) => {
                let mut extra = JsonObject::new();
                extra.insert("provider_code".into(), json!(err.code()));
                self.event(
                    EventBody::BusinessError(BusinessErrorPayload {
                        code: code.to_owned(),
                        message: err.to_string(),
                        extra,
                    }),
                    None,
                )
            }
            None => self.system_error(err.code().as_str(), err.to_string(), false, None),
        }
    }

    /// `system/done` with usage per model and the latencies in `meta`.
    pub fn done(&self, summary: &DoneSummary) -> Event {
        let mut event = self.event(
            EventBody::Done(DonePayload {
                extra: JsonObject::new(),
            }),
            None,
        );
        if let Some(meta) = event.meta.as_mut() {
            let mut per_model = JsonObject::new();
            let (mut prompt, mut completion) = (0, 0);
            for (model, usage, cost) in &summary.usage {
                prompt += usage.input_tokens;
                completion += usage.output_tokens;
                let mut entry = json!({
                    "prompt_tokens": usage.input_tokens,
                    "completion_tokens": usage.output_tokens,
                    "total_tokens": usage.total(),
                });
                if let Some(r) = usage.reasoning_tokens {
                    entry["reasoning_tokens"] = json!(r);
                }
                if let Some(c) = usage.cached_input_tokens {
                    entry["cached_input_tokens"] = json!(c);
                }
                if let Some(cost) = cost {
                    entry["estimated_cost_usd"] = json!(cost);
                }
                per_model.insert(model.clone(), entry);
            }
            meta.usage = Some(per_model);
            meta.prompt_tokens = Some(prompt);
            meta.completion_tokens = Some(completion);
            meta.latency_ms = Some(summary.latency_ms);
            meta.first_token_latency_ms = summary.first_token_latency_ms;
            meta.extra
                .insert("state".into(), json!(summary.state.as_str()));
            if summary.usage_estimated {
                meta.extra.insert("usage_estimated".into(), json!(true));
            }
            if !summary.agents.is_empty() {
                meta.extra.insert("agents".into(), json!(summary.agents));
            }
        }
        event
    }
}

/// What `system/done` reports.
#[derive(Clone, Debug)]
pub(crate) struct DoneSummary {
    /// Per model: its usage and estimated cost (USD) when the price is known.
    pub usage: Vec<(String, Usage, Option<f64>)>,
    pub latency_ms: u64,
    pub first_token_latency_ms: Option<u64>,
    /// How the run ended.
    pub state: SystemState,
    /// Some of `usage` was counted by Tessera, not reported by the provider.
    pub usage_estimated: bool,
    /// Per agent (specialist) the run called: its tokens, cost, turns and time (seed 001
    /// §10.3), beside the cost per model.
    pub agents: Vec<crate::specialists::SpecialistCost>,
}

/// The `business/error` code of a provider error that is a business rule's refusal.
pub(crate) fn business_code(err: &ProviderError) -> Option<&'static str> {
    match err {
        ProviderError::SpendingLimit(_) => Some(tessera_protocol::easyflow::SPENDING_LIMIT_REACHED),
        _ if err.code() == ProviderFailureCode::QuotaExceeded => {
            Some(tessera_protocol::easyflow::QUOTA_EXCEEDED)
        }
        _ => None,
    }
}
