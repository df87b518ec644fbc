//! The explanation of one assembly: what was sent, what was left out and why. Serialised with the
//! turn by the store, so it is self-contained: block ids, message indexes (and message ids when
//! the document carries them), evidence ids, figures; never pointers into memory.
//!
//! Field names are part of the stored format: add fields, never rename them; the `version` field
//! (`EXPLANATION_VERSION`) changes if a field's meaning does.

use serde::{Deserialize, Serialize};
use tessera_protocol::context_doc::{BlockType, Priority};
use tessera_protocol::request::Role;
use ts_rs::TS;

use super::budget::BudgetReport;
use super::render::RefFailure;
use super::tokens::Encoding;

/// The format version of [`Explanation`].
pub(crate) const EXPLANATION_VERSION: u32 = 1;

/// What the assembler did, item by item.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, TS)]
pub struct Explanation {
    pub version: u32,
    pub session_id: String,
    pub model: String,
    pub encoding: Encoding,
    /// `false` when the model's own tokenizer differs and counts are estimates.
    pub encoding_exact: bool,
    /// `true` when the encoding's tables were not loaded and every token figure is the text's
    /// length in bytes, an upper bound of its tokens: the prompt fit whole even so, so the
    /// tables would not have changed what was sent. A one-shot command (`tessera chat`) on a
    /// short conversation saves loading them.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    #[ts(optional, as = "Option<bool>")]
    pub byte_bounds: bool,
    /// The instant expiry was judged at (RFC 3339, UTC).
    pub now: String,
    pub budget: BudgetReport,
    pub history: HistoryReport,
    pub summary: SummaryReport,
    /// Included blocks, in prompt order.
    pub blocks: Vec<IncludedBlock>,
    /// Included messages, in prompt order.
    pub messages: Vec<IncludedMessage>,
    /// Evidences behind the included blocks, in prompt order.
    pub evidences: Vec<UsedEvidence>,
    /// Blocks left out, in document order.
    pub dropped_blocks: Vec<DroppedBlock>,
    /// Messages left out, as runs of consecutive indexes with the same reason.
    pub dropped_messages: Vec<DroppedMessages>,
    /// Conflict decisions (seed 004 冲突决策): which of two contradicting evidences was kept,
    /// and why ([`super::conflicts`]).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[ts(as = "Option<Vec<super::conflicts::ConflictDecision>>", optional)]
    pub conflicts: Vec<super::conflicts::ConflictDecision>,
}

/// Why an item is in the prompt.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, TS)]
#[serde(rename_all = "snake_case")]
pub enum Why {
    /// A `must` block.
    Must,
    /// A `high`, `medium` or `low` block that fit, most recent first within its level.
    Priority,
    /// A message with role `system`: always kept.
    System,
    /// The newest message (the turn's input): always kept.
    Latest,
    /// A recent message within the history cap.
    Recent,
    /// A message included with the tokens left after every block.
    Backfill,
}

/// Why an item is not in the prompt.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, TS)]
#[serde(rename_all = "snake_case")]
pub enum DropReason {
    /// `expires_at` at or before `now`.
    Expired,
    /// Did not fit in the tokens left.
    Budget,
    /// Covered by the rolling summary.
    Summarised,
    /// A ref could not be rendered (`errors` says which and why).
    UnresolvableRef,
    /// No content and no refs.
    Empty,
    /// Same text as an included block (`duplicate_of`).
    Duplicate,
}

/// Where a block's text came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "snake_case")]
pub enum RenderedFrom {
    Content,
    Refs,
}

/// A block in the prompt.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, TS)]
#[ts(optional_fields)]
pub struct IncludedBlock {
    pub block_id: String,
    pub block_type: BlockType,
    pub priority: Priority,
    /// Index in `context_blocks` (later is more recent).
    pub position: usize,
    /// Counted tokens, per-item overhead included.
    pub tokens: u64,
    /// The document's own estimate, for comparison.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub token_estimate: Option<u64>,
    pub why: Why,
    pub rendered_from: RenderedFrom,
}

/// A message in the prompt.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, TS)]
#[ts(optional_fields)]
pub struct IncludedMessage {
    /// Index in `session.messages`.
    pub index: usize,
    /// The message's `message_id` (or `id`) when the document carries one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message_id: Option<String>,
    pub role: Role,
    /// Counted tokens, per-item overhead included.
    pub tokens: u64,
    pub why: Why,
    /// Evidences the message cites (its `refs`; their text is not sent).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[ts(as = "Option<Vec<CitedRef>>")]
    pub refs: Vec<CitedRef>,
}

/// A ref as cited by a message.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, TS)]
#[ts(optional_fields)]
pub struct CitedRef {
    pub evidence_id: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub selector: Option<String>,
}

/// An evidence an included block draws on.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, TS)]
#[ts(optional_fields)]
pub struct UsedEvidence {
    pub evidence_id: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub selector: Option<String>,
    pub block_id: String,
    /// `true`: its text was rendered into the block. `false`: the block has its own `content`
    /// derived from the evidence.
    pub rendered: bool,
    /// Tokens of the rendered fragment (with its wrapper), when rendered.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tokens: Option<u64>,
}

/// A block left out.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, TS)]
#[ts(optional_fields)]
pub struct DroppedBlock {
    pub block_id: String,
    pub block_type: BlockType,
    pub priority: Priority,
    pub position: usize,
    pub reason: DropReason,
    /// Counted tokens when they were counted (not for expired, empty or unresolvable blocks, nor
    /// once the budget had no room left for any item).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tokens: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expires_at: Option<String>,
    /// For `unresolvable_ref`: every ref that failed.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[ts(as = "Option<Vec<RefFailure>>")]
    pub errors: Vec<RefFailure>,
    /// For `duplicate`: the included block with the same text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub duplicate_of: Option<String>,
}

/// Consecutive messages left out for the same reason (`from` to `to`, inclusive).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, TS)]
#[ts(optional_fields)]
pub struct DroppedMessages {
    pub from: usize,
    pub to: usize,
    pub reason: DropReason,
    /// The run's tokens, when every message in it was counted.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tokens: Option<u64>,
}

/// Whether and why the history went over its threshold.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, TS)]
#[ts(optional_fields)]
pub struct HistoryReport {
    /// The threshold and cap, in tokens (`history_share` of the available tokens).
    pub threshold_tokens: u64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_messages: Option<usize>,
    /// Non-system messages in the session.
    pub messages: usize,
    /// What exceeded the threshold, if anything.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub exceeded_by: Option<HistoryTrigger>,
}

/// What sent the history over its threshold.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "snake_case")]
pub enum HistoryTrigger {
    Tokens,
    Messages,
}

/// The rolling summary's part in the prompt.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "snake_case")]
pub enum SummaryStatus {
    /// In the prompt, standing in for the messages of its range.
    Used,
    /// The session has no summary.
    Absent,
    /// The summary's content is empty.
    Empty,
    /// No usable `message_index_range` (missing, `from > to`, or past the last message).
    NoRange,
    /// The history is within its threshold: messages are sent instead.
    NotNeeded,
    /// It did not fit in the history cap or the tokens left.
    Budget,
    /// It covers messages of another branch (an edit-and-resend or a branch switch came
    /// since it was written): the message its range ends at is not this branch's.
    OtherBranch,
}

/// The summary, as judged and (when used) as sent.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, TS)]
#[ts(optional_fields)]
pub struct SummaryReport {
    pub status: SummaryStatus,
    /// The range it covers, as used (`to` clamped to the last message).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub from: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub to: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tokens: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub updated_at: Option<String>,
    /// The text sent, when used (the stored summary rolls on; this is what this turn saw).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub content: Option<String>,
}

/// Groups per-message drops into runs: `(index, reason, tokens)` in index order.
pub(crate) fn group_dropped(
    drops: impl IntoIterator<Item = (usize, DropReason, Option<u64>)>,
) -> Vec<DroppedMessages> {
    let mut runs: Vec<DroppedMessages> = Vec::new();
    for (index, reason, tokens) in drops {
        if let Some(last) = runs.last_mut() {
            if last.reason == reason && last.to + 1 == index {
                last.to = index;
                last.tokens = last.tokens.zip(tokens).map(|(a, b)| a + b);
                continue;
            }
        }
        runs.push(DroppedMessages {
            from: index,
            to: index,
            reason,
            tokens,
        });
    }
    runs
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]
    use super::*;

    #[test]
    fn runs_group_by_reason_and_adjacency() {
        let runs = group_dropped([
            (1, DropReason::Summarised, None),
            (2, DropReason::Summarised, None),
            (3, DropReason::Budget, Some(5)),
            (4, DropReason::Budget, Some(6)),
            (6, DropReason::Budget, Some(1)),
        ]);
        assert_eq!(runs.len(), 3);
        assert_eq!((runs[0].from, runs[0].to, runs[0].tokens), (1, 2, None));
        assert_eq!((runs[1].from, runs[1].to, runs[1].tokens), (3, 4, Some(11)));
        assert_eq!((runs[2].from, runs[2].to), (6, 6));
    }

    #[test]
    fn stable_wire_names() {
        let json = serde_json::to_value(DroppedBlock {
            block_id: "b".into(),
            block_type: BlockType::Evidence,
            priority: Priority::Low,
            position: 3,
            reason: DropReason::UnresolvableRef,
            tokens: None,
            expires_at: None,
            errors: vec![],
            duplicate_of: None,
        })
        .unwrap();
        assert_eq!(
            json,
            serde_json::json!({"block_id": "b", "block_type": "evidence", "priority": "low",
                               "position": 3, "reason": "unresolvable_ref"})
        );
    }
}
