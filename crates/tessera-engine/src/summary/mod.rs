//! The rolling summary (seed 004 `session.summary`, "会话级滚动摘要"): once the messages after
//! the current summary grow past a threshold, one model call rewrites the summary from the
//! previous one and the messages it does not cover yet, except the newest few. The assembler
//! then shows the summary instead of the messages of its `message_index_range` (positions on
//! the active branch) once the history outgrows its share of the prompt.
//!
//! - [`needs_summary`]: whether it is time, judged on the active branch.
//! - [`write_rolling_summary`]: the call, recorded as a `summary` usage; the new summary is
//!   stored only when the call succeeded and nothing changed meanwhile, so a failure always
//!   leaves the old summary as it was.
//!
//! Besides the range, a written summary records in `covers_through_message_id` (kept in the
//! summary's `extra`, so exports carry it) the message its range ends at: after an
//! edit-and-resend or a branch switch the positions describe other messages, and a summary
//! whose message is no longer on the branch is rewritten from the start rather than extended.

mod plan;
mod policy;

use jiff::Timestamp;
use tessera_protocol::context_doc::{MessageIndexRange, Summary, UsageStage};
use tessera_protocol::mcp_cp::FinishReason;
use tessera_protocol::wire::{JsonObject, Timestamp as WireTimestamp};
use tessera_providers::cost::record::rfc3339_utc;
use tessera_providers::ProviderClient;
use tessera_store::Store;
use tokio_util::sync::CancellationToken;

use crate::profiles::side_call::call_recorded;
use crate::sync::blocking;
use plan::Plan;

pub use policy::{SummaryError, SummaryPolicy, COVERS_THROUGH};

/// Whether the messages after the current summary (on the active branch) have passed a
/// threshold of `policy` and some of them may be folded in.
pub fn needs_summary(
    store: &Store,
    conversation_id: &str,
    policy: &SummaryPolicy,
) -> Result<bool, SummaryError> {
    Ok(Plan::read(store, conversation_id, policy)?.needed(policy))
}

/// Rewrites the summary with one call to `model`: the previous summary (when it still describes
/// the active branch) plus the messages after it, except the newest `keep_recent`, within
/// `max_input_tokens`. Thresholds are not checked (see [`needs_summary`]), so this also serves
/// a person asking to compact now. Returns the summary stored.
pub async fn write_rolling_summary(
    store: &Store,
    client: &ProviderClient,
    model: &str,
    conversation_id: &str,
    policy: &SummaryPolicy,
    cancel: CancellationToken,
) -> Result<Summary, SummaryError> {
    let plan = Plan::read(store, conversation_id, policy)?;
    let batch = plan.batch(policy);
    let Some((last, _)) = batch.last() else {
        return Err(SummaryError::NothingToSummarise {
            keep_recent: policy.keep_recent,
        });
    };
    let request = plan::request(
        model,
        plan.previous.as_ref(),
        batch,
        policy.max_summary_tokens,
    );
    let call = call_recorded(
        store,
        client,
        conversation_id,
        UsageStage::Summary,
        request,
        cancel,
    )
    .await?;
    if let Some(err) = call.error {
        return Err(SummaryError::Provider(err));
    }
    if call.response.finish_reason == Some(FinishReason::Length) {
        return Err(SummaryError::Truncated {
            max_tokens: policy.max_summary_tokens,
        });
    }
    let content = call.response.text.trim();
    if content.is_empty() {
        return Err(SummaryError::EmptyAnswer);
    }

    let mut extra = JsonObject::new();
    extra.insert(COVERS_THROUGH.into(), last.id.clone().into());
    let summary = Summary {
        content: Some(content.to_owned()),
        updated_at: Some(WireTimestamp::new(rfc3339_utc(Timestamp::now()))),
        message_index_range: Some(MessageIndexRange {
            from: Some(plan.previous.as_ref().map_or(0, |(_, from, _)| *from)),
            to: Some(last.depth),
            extra: JsonObject::new(),
        }),
        extra,
    };
    let (id, to, last_id) = (conversation_id.to_owned(), last.depth, last.id.clone());
    let (expected, new) = (plan.stored.clone(), summary.clone());
    // Written only if the summary is still the one read and the last message folded in is
    // still on the branch at its position: a concurrent summary or a branch switch during the
    // call would otherwise be overwritten by a summary of the wrong messages.
    let stored = blocking(|| {
        store.write(move |tx| {
            let read = tx.read();
            let unchanged = read.summary(&id)? == expected
                && read
                    .active_branch(&id)?
                    .iter()
                    .any(|m| m.depth == to && m.id == last_id);
            if unchanged {
                tx.set_summary(&id, &new)?;
            }
            Ok(unchanged)
        })
    })?;
    if !stored {
        return Err(SummaryError::Changed);
    }
    Ok(summary)
}
