//! One call from start to end: the per-call deadline, retries with backoff for recoverable
//! failures, the result schema, and the fallback (USE_ALTERNATIVE, SKIP) when it fails.

use std::sync::Arc;
use std::time::Duration;

use serde_json::Value;
use tessera_protocol::mcp_cp::FallbackBehavior;
use tessera_protocol::vocabulary::ToolOutcome;
use tokio::time::Instant;

use super::events::Emitter;
use super::outcome::{CallError, CallOutcome};
use crate::interactions::consent::{allows, request_payload};
use crate::interactions::LiveReply;
use crate::tools::{
    Clearance, ConsentGate, RegisteredTool, RequestedBy, ToolContext, ToolFailureCode, ToolRegistry,
};
use tokio_util::sync::CancellationToken;

pub(crate) struct Attempt {
    pub call_id: String,
    pub tool: Arc<RegisteredTool>,
    pub registry: Arc<ToolRegistry>,
    pub emitter: Arc<Emitter>,
    pub gate: Arc<ConsentGate>,
    pub arguments: Value,
    pub timeout: Duration,
    /// Says which timeout it was, for the message.
    pub timeout_reason: String,
    pub fallback: Option<FallbackBehavior>,
    pub cancel: CancellationToken,
    /// What the tool notes beside its result ([`crate::tools::ToolContext::note`]).
    pub notes: Arc<std::sync::Mutex<tessera_protocol::wire::JsonObject>>,
}

fn ms(d: Duration) -> u64 {
    u64::try_from(d.as_millis()).unwrap_or(u64::MAX)
}

/// Runs the call to its end.
pub(crate) async fn run_call(a: Attempt) -> CallOutcome {
    let start = Instant::now();
    let mut out = run_tool(&a, &a.tool, start + a.timeout, &a.timeout_reason).await;
    if !out.is_success() {
        match a.fallback {
            Some(FallbackBehavior::UseAlternative) => {
                if let Some(alt) = alternative(&a, &out) {
                    let deadline = Instant::now() + Duration::from_millis(alt.spec.timeout_ms);
                    let reason = format!(
                        "the alternative `{}` took longer than its timeout of {} ms",
                        alt.spec.name, alt.spec.timeout_ms
                    );
                    let attempts = out.attempts;
                    let mut alt_out = run_tool(&a, &alt, deadline, &reason).await;
                    alt_out.attempts += attempts;
                    alt_out.alternative = Some(alt.spec.name.clone());
                    // The model reads the result alone: it says which tool answered.
                    if let Some(Value::Object(o)) = &mut alt_out.result {
                        o.insert(
                            "alternativeTool".into(),
                            Value::String(alt.spec.name.clone()),
                        );
                    }
                    if let (Some(e), Some(first)) = (&mut alt_out.error, &out.error) {
                        e.message = format!(
                            "{} (after `{}` failed: {})",
                            e.message, a.tool.spec.name, first.message
                        );
                    }
                    out = alt_out;
                }
            }
            Some(FallbackBehavior::Skip) => out.outcome = ToolOutcome::Skipped,
            Some(FallbackBehavior::Abort) | None => {}
        }
        // A tool that skipped itself (a front-end tool nobody ran, whose announced fallback is
        // SKIP) is skipped, not failed.
        if out
            .error
            .as_ref()
            .is_some_and(|e| e.code == ToolFailureCode::Skipped)
        {
            out.outcome = ToolOutcome::Skipped;
        }
    }
    out.duration_ms = ms(start.elapsed());
    {
        let mut notes = crate::sync::lock(&a.notes);
        out.notes = std::mem::take(&mut *notes);
    }
    out
}

/// The alternative tool, if it exists and takes these arguments.
fn alternative(a: &Attempt, failed: &CallOutcome) -> Option<Arc<RegisteredTool>> {
    let name = a.tool.spec.alternative.as_deref()?;
    let Some(alt) = a.registry.get(name) else {
        tracing::warn!(call = %a.call_id, alternative = name, "alternative tool is not registered");
        return None;
    };
    if let Err(problems) = alt.validate_arguments(&a.arguments) {
        tracing::warn!(call = %a.call_id, alternative = name, %problems, "alternative refuses the arguments");
        return None;
    }
    tracing::debug!(call = %a.call_id, alternative = name, error = ?failed.error, "using the alternative tool");
    Some(alt.clone())
}

/// A specialist's call the gate refused, in a run where the person can be asked (a model
/// turn): the person is asked now, with the specialist named, and the specialist waits for the
/// answer (the run's own calls ask before they start: [`crate::turn`]). None where nobody can
/// be asked (a direct run): the call stays refused.
async fn ask_person(a: &Attempt, tool: &RegisteredTool) -> Option<Result<Clearance, CallOutcome>> {
    let RequestedBy::Specialist(who) = a.gate.requested_by() else {
        return None;
    };
    let forms = Arc::clone(a.emitter.live_forms()?);
    let mut consent = request_payload(&crate::ids::new_id(), &a.call_id, &tool.spec, &a.arguments);
    consent.requested_by = Some(a.gate.requested_by().to_wire(who));
    let emitter = Arc::clone(&a.emitter);
    let reply = forms
        .ask_consent(
            a.emitter.conversation_id(),
            a.emitter.run_id(),
            &a.call_id,
            consent,
            move |body| emitter.emit(body),
        )
        .await;
    let name = &tool.spec.name;
    let refused = |outcome, code: ToolFailureCode, message: String| {
        Some(Err(CallOutcome::not_run(
            outcome,
            CallError::new(code, message),
        )))
    };
    match reply {
        Ok(LiveReply::Decided(decision)) if allows(decision) => {
            a.gate.approve(&a.call_id, name);
            Some(
                a.gate
                    .clear(&tool.spec.for_arguments(&a.arguments), &a.call_id)
                    .map_err(|still| {
                        CallOutcome::not_run(
                            ToolOutcome::Denied,
                            CallError::new(ToolFailureCode::PermissionDenied, still.message),
                        )
                    }),
            )
        }
        Ok(LiveReply::Decided(_)) => refused(
            ToolOutcome::Denied,
            ToolFailureCode::PermissionDenied,
            format!(
                "the person did not allow `{name}`, asked for by the specialist `{who}`; it \
                 was not run"
            ),
        ),
        Ok(LiveReply::Cancel(reason)) => refused(
            ToolOutcome::Cancelled,
            ToolFailureCode::Cancelled,
            format!("the consent `{name}` needs was not given ({reason}); it was not run"),
        ),
        Ok(LiveReply::Accept(_) | LiveReply::Decline) => refused(
            ToolOutcome::Denied,
            ToolFailureCode::PermissionDenied,
            format!("the consent `{name}` needs was answered as a form; it was not run"),
        ),
        Err(error) => refused(
            ToolOutcome::Denied,
            ToolFailureCode::PermissionDenied,
            format!("the person could not be asked for `{name}` ({error}); it was not run"),
        ),
    }
}

async fn run_tool(
    a: &Attempt,
    tool: &Arc<RegisteredTool>,
    deadline: Instant,
    timeout_reason: &str,
) -> CallOutcome {
    // The one gate: without its clearance the tool cannot run (its context needs one).
    let clearance = match a
        .gate
        .clear(&tool.spec.for_arguments(&a.arguments), &a.call_id)
    {
        Ok(clearance) => clearance,
        Err(refused) => match tokio::time::timeout_at(deadline, ask_person(a, tool)).await {
            Ok(Some(Ok(clearance))) => clearance,
            Ok(Some(Err(outcome))) => return outcome,
            Ok(None) => {
                return CallOutcome::not_run(
                    ToolOutcome::Denied,
                    CallError {
                        code: ToolFailureCode::PermissionDenied.into(),
                        message: refused.message,
                        details: refused.details,
                    },
                )
            }
            Err(_) => {
                return CallOutcome::not_run(
                    ToolOutcome::Timeout,
                    CallError::new(ToolFailureCode::Timeout, timeout_reason),
                )
            }
        },
    };
    let policy = tool.spec.retry;
    let mut attempt = 1u32;
    loop {
        let ctx = ToolContext::new(
            clearance.for_retry(),
            attempt,
            a.cancel.clone(),
            a.emitter.clone(),
            a.gate.clone(),
            a.notes.clone(),
        );
        let future = tool.run(a.arguments.clone(), ctx);
        let outcome = match tokio::time::timeout_at(deadline, future).await {
            Err(_) => {
                return CallOutcome {
                    outcome: ToolOutcome::Timeout,
                    result: None,
                    error: Some(CallError::new(ToolFailureCode::Timeout, timeout_reason)),
                    duration_ms: 0,
                    attempts: attempt,
                    alternative: None,
                    notes: Default::default(),
                }
            }
            Ok(Ok(value)) => match tool.validate_result(&value) {
                Ok(()) => CallOutcome {
                    outcome: ToolOutcome::Success,
                    result: Some(value),
                    error: None,
                    duration_ms: 0,
                    attempts: attempt,
                    alternative: None,
                    notes: Default::default(),
                },
                Err(problems) => CallOutcome {
                    outcome: ToolOutcome::Error,
                    result: None,
                    error: Some(CallError::new(
                        ToolFailureCode::InvalidResult,
                        format!(
                            "`{}` returned a result that does not match its schema: {problems}",
                            tool.spec.name
                        ),
                    )),
                    duration_ms: 0,
                    attempts: attempt,
                    alternative: None,
                    notes: Default::default(),
                },
            },
            Ok(Err(failure)) => {
                let backoff = policy.backoff_ms(attempt + 1);
                let retry_at = Instant::now() + Duration::from_millis(backoff);
                if failure.retryable && attempt < policy.max_attempts && retry_at < deadline {
                    a.emitter.retrying(
                        &a.call_id,
                        failure.code.as_str(),
                        &failure.message,
                        attempt + 1,
                        backoff,
                    );
                    tokio::time::sleep_until(retry_at).await;
                    attempt += 1;
                    continue;
                }
                CallOutcome {
                    // A tool (or a client) that says it timed out: TIMEOUT, not ERROR.
                    outcome: if failure.code == ToolFailureCode::Timeout {
                        ToolOutcome::Timeout
                    } else {
                        ToolOutcome::Error
                    },
                    result: None,
                    error: Some(CallError {
                        code: failure.code,
                        message: failure.message,
                        details: failure.details,
                    }),
                    duration_ms: 0,
                    attempts: attempt,
                    alternative: None,
                    notes: Default::default(),
                }
            }
        };
        return outcome;
    }
}
