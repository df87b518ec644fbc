//! A seed-003 request object, honoured whole (§1.2), and the response object it gets (§2).
//! `root_id` is the conversation (created when new); the last `user` resource is what the
//! person says; `model` picks the model; `config` sets temperature, top_p, max_tokens and the
//! function-call switch for this run; `system` resources follow Tessera's own system prompt;
//! earlier `user`/`assistant` resources become the history of a conversation that has none
//! (one that has messages keeps its own). `trace_id` is always the request's
//! `metadata.request_id`:
//!
//! - `success`: `outputs` the assistant's answer, `context_updates` the message it appended;
//! - `tool_wait`: the run waits for a form or a consent; `context_updates` lists each as
//!   `{"type": "interaction_request", "interaction_id", "kind", "request"}`, `outputs` what was
//!   said before;
//! - `in_progress`: the run outlived the wait budget (`config.wait_ms`, default 120 000; 0
//!   answers at once); `metadata.run_id` and `metadata.events_url` say where to follow it;
//! - `error`: `error {code, message, detail}` with the whole structure ("errors are
//!   semantics"), and the HTTP status of its code.

use std::time::Duration;

use serde_json::{json, Value};
use tessera_engine::engine::{RunOverrides, StartedRun, Subscription};
use tessera_protocol::error_codes::ErrorCode;
use tessera_protocol::request::{Request, Role};
use tessera_protocol::response::{ContextChange, Output, Response, ResponseError, ResponseStatus};
use tessera_protocol::wire::JsonObject;

use crate::messages::RequestedRun;
use crate::{App, Problem, RunEnd, RunOutcome};

/// How long a request waits for its run by default before answering `in_progress`.
const DEFAULT_WAIT: Duration = Duration::from_secs(120);

/// A seed-003 response and the HTTP status it goes with: its error code's, else 200.
#[derive(Clone, Debug, PartialEq)]
pub struct RequestReply {
    pub response: Response,
    pub status: u16,
}

/// What a request gets: the run's event stream, when it asked for one, or the response.
pub enum RequestAnswer {
    Stream(StartedRun, Subscription),
    Reply(Box<RequestReply>),
}

impl RequestReply {
    /// A response with status `error` for `problem`, with nothing said.
    pub fn error(trace_id: &str, problem: Problem) -> Self {
        Self::failed(trace_id, problem, Vec::new(), None)
    }

    fn failed(
        trace_id: &str,
        problem: Problem,
        outputs: Vec<Output>,
        metadata: Option<JsonObject>,
    ) -> Self {
        let status = problem.http_status();
        Self {
            response: Response {
                status: ResponseStatus::Error,
                outputs,
                trace_id: trace_id.to_owned(),
                context_updates: None,
                error: Some(ResponseError {
                    code: problem.code.as_str().to_owned(),
                    message: problem.message,
                    detail: problem.details.map(Value::Object),
                    extra: JsonObject::new(),
                }),
                metadata,
                extra: JsonObject::new(),
            },
            status,
        }
    }

    fn ok(
        status: ResponseStatus,
        trace_id: &str,
        outputs: Vec<Output>,
        context_updates: Option<Vec<ContextChange>>,
        metadata: JsonObject,
    ) -> Self {
        Self {
            response: Response {
                status,
                outputs,
                trace_id: trace_id.to_owned(),
                context_updates,
                error: None,
                metadata: Some(metadata),
                extra: JsonObject::new(),
            },
            status: 200,
        }
    }
}

impl App {
    /// Answers `request`: starts its run and waits for it (at most `config.wait_ms`), or hands
    /// back the run's events when `stream` (the client asked for them) or `config.stream`.
    pub async fn answer_request(
        &self,
        request: &Request,
        trace_id: &str,
        stream: bool,
    ) -> RequestAnswer {
        let in_context = |problem: Problem| {
            let problem = Problem {
                conversation: problem.conversation.or(Some(request.root_id.clone())),
                ..problem
            };
            RequestAnswer::Reply(Box::new(RequestReply::error(trace_id, problem)))
        };
        let Some(last_user) = request.resources.iter().rposition(|r| r.role == Role::User) else {
            return in_context(Problem::new(
                ErrorCode::NoUserInput,
                "resources holds no `user` resource: nothing to answer",
            ));
        };
        let budget = match wait_budget(request) {
            Ok(budget) => budget,
            Err(message) => return in_context(Problem::new(ErrorCode::InvalidRequest, message)),
        };
        // §1.2: the earlier user/assistant resources are the history of a conversation that
        // has none yet.
        let history = request.resources[..last_user]
            .iter()
            .filter(|r| matches!(r.role, Role::User | Role::Assistant))
            .map(|r| (r.role.clone(), r.content.clone()))
            .collect();
        let started = self
            .start_requested_run(RequestedRun {
                conversation: request.root_id.clone(),
                model: request.model.clone(),
                history,
                text: request.resources[last_user].content.clone(),
                overrides: overrides_of(request),
            })
            .await;
        let (run, sub) = match started {
            Ok(started) => started,
            Err(err) => return in_context(err.into()),
        };
        if stream || request.config.stream == Some(true) {
            return RequestAnswer::Stream(run, sub);
        }
        match self.wait(&run, sub, Some(budget)).await {
            Ok(outcome) => RequestAnswer::Reply(Box::new(self.reply(trace_id, outcome))),
            Err(err) => in_context(err.into()),
        }
    }

    /// The response object for a run's outcome.
    fn reply(&self, trace_id: &str, outcome: RunOutcome) -> RequestReply {
        let mut metadata = JsonObject::new();
        metadata.insert("run_id".into(), json!(outcome.run_id));
        metadata.insert("conversation_id".into(), json!(outcome.conversation_id));
        if let Some(model) = self.engine.model() {
            metadata.insert("model_name".into(), json!(model.model));
        }
        let outputs = if outcome.text.is_empty() {
            Vec::new()
        } else {
            vec![Output {
                role: Role::Assistant,
                content: json!(outcome.text),
                metadata: None,
                extra: JsonObject::new(),
            }]
        };
        match outcome.end {
            RunEnd::Failed(failure) => {
                let mut problem = failure.problem();
                problem.details = Some(JsonObject::from_iter([(
                    "provider_code".to_owned(),
                    json!(failure.code),
                )]));
                RequestReply::failed(trace_id, problem, outputs, Some(metadata))
            }
            RunEnd::StillRunning => {
                metadata.insert(
                    "events_url".into(),
                    json!(format!(
                        "/v1/conversations/{}/events",
                        outcome.conversation_id
                    )),
                );
                RequestReply::ok(
                    ResponseStatus::InProgress,
                    trace_id,
                    outputs,
                    None,
                    metadata,
                )
            }
            RunEnd::Waiting(waiting) => {
                let updates = waiting
                    .into_iter()
                    .map(|i| {
                        change(
                            "interaction_request",
                            [
                                ("interaction_id", json!(i.interaction_id)),
                                ("kind", json!(i.kind)),
                                ("request", i.request),
                            ],
                        )
                    })
                    .collect();
                RequestReply::ok(
                    ResponseStatus::ToolWait,
                    trace_id,
                    outputs,
                    Some(updates),
                    metadata,
                )
            }
            RunEnd::Cancelled { .. } => RequestReply::error(
                trace_id,
                Problem {
                    details: Some(JsonObject::from_iter([(
                        "partial_output".to_owned(),
                        json!(outcome.text),
                    )])),
                    ..Problem::new(
                        ErrorCode::RunCancelled,
                        format!("run {} was cancelled before it answered", outcome.run_id),
                    )
                },
            ),
            RunEnd::Answered { .. } => {
                if let Some(meta) = &outcome.usage {
                    if let (Some(p), Some(c)) = (meta.prompt_tokens, meta.completion_tokens) {
                        metadata.insert(
                            "usage".into(),
                            json!({"prompt_tokens": p, "completion_tokens": c, "total_tokens": p + c}),
                        );
                    }
                }
                let appended = change(
                    "append_prompt",
                    [
                        ("role", json!("assistant")),
                        ("content", json!(outcome.text)),
                    ],
                );
                RequestReply::ok(
                    ResponseStatus::Success,
                    trace_id,
                    outputs,
                    Some(vec![appended]),
                    metadata,
                )
            }
        }
    }
}

fn change<const N: usize>(kind: &str, fields: [(&str, Value); N]) -> ContextChange {
    ContextChange {
        change_type: kind.to_owned(),
        extra: fields
            .into_iter()
            .map(|(key, value)| (key.to_owned(), value))
            .collect(),
    }
}

/// `config.wait_ms`: milliseconds, a non-negative integer.
fn wait_budget(request: &Request) -> Result<Duration, String> {
    match request.config.extra.get("wait_ms") {
        None => Ok(DEFAULT_WAIT),
        Some(v) => v.as_u64().map(Duration::from_millis).ok_or_else(|| {
            format!("config.wait_ms must be a whole number of milliseconds, not {v}")
        }),
    }
}

/// What the request sets for its run alone: `config` (temperature, top_p, max_tokens, the
/// function-call switch: `"none"` offers no tool) and the `system` resources, in order.
fn overrides_of(request: &Request) -> RunOverrides {
    // f64 end to end: a narrower float would reach the provider as 0.20000000298023224.
    let number = |n: &Option<serde_json::Number>| n.as_ref().and_then(|n| n.as_f64());
    let system: Vec<&str> = request
        .resources
        .iter()
        .filter(|r| r.role == Role::System)
        .map(|r| r.content.as_str())
        .filter(|t| !t.trim().is_empty())
        .collect();
    RunOverrides {
        temperature: number(&request.config.temperature),
        top_p: number(&request.config.top_p),
        max_tokens: request
            .config
            .max_tokens
            .map(|n| u32::try_from(n).unwrap_or(u32::MAX)),
        no_tools: request
            .config
            .function_call
            .as_ref()
            .and_then(|v| v.as_str())
            .is_some_and(|v| v.eq_ignore_ascii_case("none")),
        system: (!system.is_empty()).then(|| system.join("\n\n")),
    }
}
