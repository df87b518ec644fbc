//! What to assemble for, and what comes out: the prompt's items and where each came from.

use std::time::SystemTime;

use serde::{Deserialize, Serialize};
use tessera_protocol::request::Role;

use super::budget::AssemblePolicy;
use super::explain::Explanation;

/// What to assemble for.
#[derive(Clone, Debug)]
pub struct AssembleRequest {
    /// The model's name; picks the encoding (see `encoding_for_model`).
    pub model: String,
    /// The model's context window, in tokens.
    pub context_window: u64,
    /// Tokens kept free for the answer (`max_tokens`, reasoning included).
    pub reserved_for_answer: u64,
    /// Blocks whose `expires_at` is at or before this instant are dropped.
    pub now: SystemTime,
    pub policy: AssemblePolicy,
    /// How tokens are counted.
    pub counting: Counting,
    /// The instructions sent before everything the document gives (the agent's system prompt):
    /// always sent, so counted first.
    pub system_prompt: Option<String>,
    /// The tool declarations sent with the prompt, as their JSON: they take the window's tokens
    /// as much as any text does.
    pub tool_declarations: Option<String>,
}

/// How an assembly counts tokens.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Counting {
    /// With the model's encoding (its tables are built on first use, then kept).
    #[default]
    Exact,
    /// Each text's length in bytes, an upper bound of its tokens, when the texts fit whole at
    /// those bounds (then no count could change what is sent, and the explanation says its
    /// figures are bounds); else exactly. For a one-shot command, whose start the tables would
    /// take most of.
    BytesWhenTheyFit,
}

impl AssembleRequest {
    /// A request with the default policy.
    pub fn new(
        model: impl Into<String>,
        context_window: u64,
        reserved_for_answer: u64,
        now: SystemTime,
    ) -> Self {
        Self {
            model: model.into(),
            context_window,
            reserved_for_answer,
            now,
            policy: AssemblePolicy::default(),
            counting: Counting::Exact,
            system_prompt: None,
            tool_declarations: None,
        }
    }
}

/// One item of the prompt, in order.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct PromptItem {
    pub role: Role,
    pub content: String,
    /// What the item was made from (providers may merge consecutive `system` items).
    pub source: PromptSource,
}

/// Where a prompt item came from.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum PromptSource {
    /// `session.messages[index]`.
    Message { index: usize },
    /// A context block, role `system`.
    Block { block_id: String },
    /// The rolling summary, role `system`.
    Summary,
}

/// The prompt and why it is what it is.
#[derive(Clone, Debug, PartialEq)]
pub struct Assembly {
    pub prompt: Vec<PromptItem>,
    pub explanation: Explanation,
}
