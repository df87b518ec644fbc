//! When to summarise and how much, what a written summary records, and why none was stored.

use serde::{Deserialize, Serialize};
use tessera_providers::ProviderError;
use tessera_store::StoreError;
use thiserror::Error;

use crate::assembler::tokens::TokenizerError;

/// The `extra` field naming the last message a summary covers.
pub const COVERS_THROUGH: &str = "covers_through_message_id";

/// When to summarise and how much.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct SummaryPolicy {
    /// Summarise once the non-system messages after the summary hold more tokens than this
    /// (an estimate, counted with cl100k). None: size alone never triggers.
    pub threshold_tokens: Option<u64>,
    /// ... or once there are more of them than this. None: their number never triggers.
    pub threshold_messages: Option<usize>,
    /// The newest non-system messages never folded in: prompts show them as they are.
    pub keep_recent: usize,
    /// Tokens of new messages one call reads at most; the rest wait for the next call, so the
    /// first summary of a long conversation still fits a small model's window.
    pub max_input_tokens: u64,
    /// The summary's own length limit (the call's `max_tokens`).
    pub max_summary_tokens: u32,
}

impl Default for SummaryPolicy {
    fn default() -> Self {
        Self {
            // Well under the assembler's history share of any current model's window, so a
            // summary is ready before the history has to be cut.
            threshold_tokens: Some(8_000),
            threshold_messages: Some(40),
            keep_recent: 6,
            max_input_tokens: 24_000,
            max_summary_tokens: 2_000,
        }
    }
}

/// Why no new summary was stored. In every case the old summary is untouched.
#[derive(Debug, Error)]
pub enum SummaryError {
    #[error("conversation {0} does not exist")]
    NoConversation(String),
    #[error("nothing to summarise: every message but the newest {keep_recent} is covered")]
    NothingToSummarise { keep_recent: usize },
    #[error("the summary call failed: {0}")]
    Provider(#[source] ProviderError),
    #[error("the summary was cut off at its length limit ({max_tokens} tokens)")]
    Truncated { max_tokens: u32 },
    #[error("the model answered with an empty summary")]
    EmptyAnswer,
    #[error("the conversation changed while the summary was written (summary or branch)")]
    Changed,
    #[error(transparent)]
    Tokens(#[from] TokenizerError),
    #[error("the context database failed: {0}")]
    Store(#[from] StoreError),
}
