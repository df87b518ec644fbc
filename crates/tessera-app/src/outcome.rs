//! Waiting for a run a client started: what it learns once the run ends, suspends for the
//! person, or the wait runs out. The HTTP API answers a USER_INPUT, a regeneration and a seed-003
//! request with it; the CLI could wait the same way.

use std::time::Duration;

use serde_json::Value;
use tessera_engine::engine::{StartedRun, Subscription};
use tessera_protocol::easyflow::{EventBody, EventMeta, SystemState};
use tessera_protocol::error_codes::ErrorCode;
use tessera_protocol::mcp_cp::FinishReason;

use crate::{App, CoreError, Problem};

/// How a run went, as far as a waiting client saw it.
#[derive(Clone, Debug, PartialEq)]
pub struct RunOutcome {
    pub run_id: String,
    pub conversation_id: String,
    /// The answer's text: all of it, or what came before a suspension, a failure or the wait's
    /// end.
    pub text: String,
    /// The `done` event's meta (usage, latency).
    pub usage: Option<EventMeta>,
    pub end: RunEnd,
}

/// How the run stood when the wait ended; the first that holds, in this order.
#[derive(Clone, Debug, PartialEq)]
pub enum RunEnd {
    /// A fatal error ended it.
    Failed(RunFailure),
    /// The wait's budget ran out first: the run goes on.
    StillRunning,
    /// It waits for the person to answer these forms or consents.
    Waiting(Vec<WaitingInteraction>),
    /// It was cancelled; `finish_reason` is the stored answer's, when one was kept.
    Cancelled {
        message_id: Option<String>,
        finish_reason: FinishReason,
    },
    /// It answered: the stored answer's id and why the model stopped.
    Answered {
        message_id: Option<String>,
        finish_reason: FinishReason,
    },
}

/// A run's fatal error: the provider's (or the engine's) own code and message.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RunFailure {
    pub code: String,
    pub message: String,
}

impl RunFailure {
    /// The wire code a client gets: a business rule's own code, `MESSAGE_TOO_LONG` when the
    /// model's window cannot hold the prompt, else `MODEL_ERROR` (the provider's code is in the
    /// message).
    pub fn error_code(&self) -> ErrorCode {
        match ErrorCode::from_wire(&self.code) {
            Some(refusal @ (ErrorCode::SpendingLimitReached | ErrorCode::QuotaExceeded)) => refusal,
            _ if self.code == tessera_engine::turn::MESSAGE_TOO_LONG
                || self.code == tessera_engine::turn::CONTEXT_WINDOW_EXCEEDED =>
            {
                ErrorCode::MessageTooLong
            }
            _ => ErrorCode::ModelError,
        }
    }

    /// What a client is told: the code above, with the status its cause has (a spending limit
    /// the provider layer reports is the person's rule, 402, as its business code is).
    pub fn problem(&self) -> Problem {
        let mut problem = Problem::new(
            self.error_code(),
            format!("{}: {}", self.code, self.message),
        );
        if self.code == tessera_providers::ProviderError::SPENDING_LIMIT {
            problem.status = Some(ErrorCode::SpendingLimitReached.http_status());
        }
        problem
    }
}

/// A form or consent a run waits for, as a client sees it.
#[derive(Clone, Debug, PartialEq)]
pub struct WaitingInteraction {
    pub interaction_id: String,
    pub kind: tessera_store::InteractionKind,
    pub request: Value,
}

impl App {
    /// Reads run `run`'s events from `sub` until it ends, suspends, or `budget` runs out.
    pub async fn wait(
        &self,
        run: &StartedRun,
        mut sub: Subscription,
        budget: Option<Duration>,
    ) -> Result<RunOutcome, CoreError> {
        let mut seen = Seen::default();
        let deadline = budget.map(|b| tokio::time::Instant::now() + b);
        loop {
            let next = match deadline {
                Some(at) => match tokio::time::timeout_at(at, sub.next()).await {
                    Ok(next) => next?,
                    Err(_) => {
                        seen.still_running = true;
                        break;
                    }
                },
                None => sub.next().await?,
            };
            let Some(event) = next else { break };
            if event.run_id.as_deref() != Some(run.run_id.as_str()) {
                continue;
            }
            match &event.event.body {
                // The person must answer a form or consent first: the answer so far, and what
                // waits.
                EventBody::SystemStatus(p) if p.state == SystemState::Suspended => {
                    seen.suspended = true;
                    break;
                }
                EventBody::SystemStatus(p) if p.state == SystemState::Cancelled => {
                    seen.cancelled = true;
                }
                EventBody::LlmMessage(p) => {
                    if let Some(t) = p.delta.as_ref().or(p.content.as_ref()) {
                        seen.text.push_str(t);
                    }
                }
                EventBody::SystemError(p) if p.retryable != Some(true) => {
                    seen.failure = Some(RunFailure {
                        code: p.code.clone(),
                        message: p.message.clone(),
                    });
                }
                EventBody::BusinessError(p) => {
                    seen.failure = Some(RunFailure {
                        code: p.code.clone(),
                        message: p.message.clone(),
                    });
                }
                EventBody::Done(_) => {
                    seen.usage = event.event.meta.clone();
                    seen.message_id.clone_from(&event.event.message_id);
                    break;
                }
                _ => {}
            }
        }
        let end = if let Some(failure) = seen.failure {
            RunEnd::Failed(failure)
        } else if seen.still_running {
            RunEnd::StillRunning
        } else if seen.suspended {
            RunEnd::Waiting(self.waiting_for(run)?)
        } else {
            let finish_reason =
                self.finish_reason(&run.conversation_id, seen.message_id.as_deref());
            if seen.cancelled {
                RunEnd::Cancelled {
                    message_id: seen.message_id,
                    finish_reason,
                }
            } else {
                RunEnd::Answered {
                    message_id: seen.message_id,
                    finish_reason,
                }
            }
        };
        Ok(RunOutcome {
            run_id: run.run_id.clone(),
            conversation_id: run.conversation_id.clone(),
            text: seen.text,
            usage: seen.usage,
            end,
        })
    }

    /// The forms and consents run `run` waits for.
    fn waiting_for(&self, run: &StartedRun) -> Result<Vec<WaitingInteraction>, CoreError> {
        Ok(self
            .engine
            .pending_interactions(Some(&run.conversation_id))?
            .into_iter()
            .filter(|i| i.run_id.as_deref() == Some(run.run_id.as_str()))
            .map(|i| WaitingInteraction {
                interaction_id: i.interaction_id,
                kind: i.kind,
                request: i.request,
            })
            .collect())
    }
}

/// What the wait saw, before it is told as a [`RunEnd`].
#[derive(Default)]
struct Seen {
    text: String,
    usage: Option<EventMeta>,
    failure: Option<RunFailure>,
    suspended: bool,
    cancelled: bool,
    still_running: bool,
    message_id: Option<String>,
}
