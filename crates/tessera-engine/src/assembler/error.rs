//! Why no prompt could be built, naming what is always sent and its tokens.

use std::fmt;

use serde::{Deserialize, Serialize};

use super::tokens::TokenizerError;

/// A `must` item and its tokens, as named by [`AssembleError::MustExceedsBudget`].
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct MustCost {
    pub item: MustItem,
    pub tokens: u64,
}

/// An item that is always sent.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum MustItem {
    /// A `must` block.
    Block { block_id: String },
    /// A `system` message or the newest message.
    Message { index: usize, role: String },
    /// The agent's system prompt
    /// ([`AssembleRequest::system_prompt`](super::AssembleRequest::system_prompt)).
    SystemPrompt,
    /// The tool declarations
    /// ([`AssembleRequest::tool_declarations`](super::AssembleRequest::tool_declarations)).
    ToolDeclarations,
}

impl fmt::Display for MustCost {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.item {
            MustItem::Block { block_id } => write!(f, "block {block_id}")?,
            MustItem::Message { index, role } => write!(f, "{role} message #{index}")?,
            MustItem::SystemPrompt => write!(f, "the system prompt")?,
            MustItem::ToolDeclarations => write!(f, "the tool declarations")?,
        }
        write!(f, " ({} tokens)", self.tokens)
    }
}

fn list(items: &[MustCost]) -> String {
    items
        .iter()
        .map(ToString::to_string)
        .collect::<Vec<_>>()
        .join(", ")
}

/// Why no prompt could be built.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum AssembleError {
    #[error("the {reserved} tokens reserved for the answer leave nothing of the {window}-token context window")]
    InvalidBudget { window: u64, reserved: u64 },
    #[error("invalid assembly policy: {message}")]
    InvalidPolicy { message: String },
    /// The items that are always sent do not fit on their own.
    #[error(
        "must items need {needed} tokens ({priming} of them priming) but only {available} are \
         available: {}",
        list(items)
    )]
    MustExceedsBudget {
        needed: u64,
        available: u64,
        priming: u64,
        items: Vec<MustCost>,
    },
    #[error(transparent)]
    Tokenizer(#[from] TokenizerError),
}
