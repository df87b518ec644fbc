//! The context assembler (docs/design.md "One turn, as data", step 3; seed 004 §3
//! "组装最终输入"): builds the prompt for one model call from a session's [`ContextDocument`], trimmed to the
//! model's token budget, and explains what it used and what it left out.
//!
//! ```no_run
//! # use tessera_engine::assembler::*;
//! # fn demo(doc: &tessera_protocol::context_doc::ContextDocument) -> Result<(), AssembleError> {
//! let cache = TokenCache::new(); // keep it for the process and reuse it every turn
//! let request = AssembleRequest::new("gpt-4o", 128_000, 8_000, std::time::SystemTime::now());
//! let assembly = assemble(doc, &request, &DocumentResolver::new(doc), &cache)?;
//! let stored = serde_json::to_string(&assembly.explanation); // kept with the turn
//! # Ok(()) }
//! ```
//!
//! Choices (details where they are implemented):
//! - **Always sent** (`must`): `must` blocks, every `system` message, and the newest message
//!   (the turn's input; [`AssemblePolicy::keep_latest_message`]). If they do not fit on their
//!   own, [`AssembleError::MustExceedsBudget`] names each with its tokens.
//! - **Recency of blocks**: seed 004 gives blocks no timestamp, so a later position in
//!   `context_blocks` is more recent (the store appends blocks as they are made). `expires_at`
//!   only filters (at or before `now`: dropped `expired`); it does not reorder. An unparsable
//!   `expires_at` is ignored.
//! - **History threshold**: [`AssemblePolicy::history_share`] of the available tokens (default
//!   one half), optionally also [`AssemblePolicy::max_history_messages`]. Under it every message
//!   is sent and the summary is not; over it the summary replaces the messages of its
//!   `message_index_range` (`summarised`). Messages are kept newest first and contiguous, within
//!   the share, before `high` blocks; tokens left after the blocks extend them (`backfill`).
//! - **Blocks**: `content` when non-blank, else the refs rendered through the resolver (all must
//!   resolve, else `unresolvable_ref` with every error; the turn goes on). A block identical to
//!   an included one is dropped as `duplicate`. Blocks are `system` items, in document order.
//! - **Tokens**: tiktoken `o200k_base` or `cl100k_base` per model family (estimates for
//!   non-OpenAI families, see [`tokens`]), plus [`AssemblePolicy::per_item_overhead`] per item
//!   and [`AssemblePolicy::priming_overhead`] once.
//!
//! - [`budget`]: the policy and the budget figures.
//! - [`tokens`]: encodings per model family, the [`TokenCache`].
//! - [`render`]: blocks from `content` or refs, the [`EvidenceResolver`].
//! - `select`: the passes that decide (documented there: must, history, priority levels,
//!   backfill).
//! - [`explain`]: the [`Explanation`].
//! - [`conflicts`]: which of two contradicting evidences is sent, and why.

pub mod budget;
mod clock;
pub mod conflicts;
pub mod explain;
mod output;
pub mod render;
mod select;
pub mod tokens;

use std::fmt;
use std::time::SystemTime;

use serde::{Deserialize, Serialize};
use tessera_protocol::context_doc::ContextDocument;
use tessera_protocol::request::Role;

pub use budget::{AssemblePolicy, BudgetReport};
pub use clock::system_time_from_rfc3339;
pub use explain::{
    CitedRef, DropReason, DroppedBlock, DroppedMessages, Explanation, HistoryReport,
    HistoryTrigger, IncludedBlock, IncludedMessage, RenderedFrom, SummaryReport, SummaryStatus,
    UsedEvidence, Why, EXPLANATION_VERSION,
};
pub use render::{DocumentResolver, EvidenceResolver, RefFailure, ResolveError, SelectorFn};
pub use tokens::{
    encoding_for_model, CacheStats, Encoding, EncodingChoice, TokenCache, TokenizerError,
};

/// What to assemble for.
#[derive(Clone, Debug)]
pub struct AssembleRequest {
    /// The model's name; picks the encoding (see [`encoding_for_model`]).
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
    /// The agent's system prompt ([`AssembleRequest::system_prompt`]).
    SystemPrompt,
    /// The tool declarations ([`AssembleRequest::tool_declarations`]).
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

/// Builds the prompt for `doc` within `request`'s budget.
///
/// Refs are rendered through `resolver` ([`DocumentResolver`] for the document's own evidences).
/// Token counts go through `cache`, which the caller keeps across turns. The result is the same
/// with a cold or a warm cache.
pub fn assemble(
    doc: &ContextDocument,
    request: &AssembleRequest,
    resolver: &dyn EvidenceResolver,
    cache: &TokenCache,
) -> Result<Assembly, AssembleError> {
    request.policy.validate()?;
    let choice = encoding_for_model(&request.model);
    let now = clock::UtcNanos::from_system_time(request.now);
    let conflicts = conflicts::decide(doc);
    let resolver = conflicts::Superseding {
        inner: resolver,
        superseded: conflicts
            .iter()
            .map(|d| (d.superseded.clone(), d.kept.clone()))
            .collect(),
    };
    let counter = |byte_bounds| select::Counter {
        cache,
        encoding: choice.encoding,
        overhead: request.policy.per_item_overhead,
        byte_bounds,
    };
    let inputs = |counter| select::Inputs {
        doc,
        policy: &request.policy,
        counter,
        resolver: &resolver,
        now,
        window: request.context_window,
        reserved: request.reserved_for_answer,
        system_prompt: request
            .system_prompt
            .as_deref()
            .filter(|s| !s.trim().is_empty()),
        tool_declarations: request
            .tool_declarations
            .as_deref()
            .filter(|s| !s.is_empty()),
    };
    let bounds = counter(true);
    let byte_bounds = request.counting == Counting::BytesWhenTheyFit
        && select::select(&inputs(&bounds)).is_ok_and(|s| !s.decided_by_counts());
    if !byte_bounds {
        choice.encoding.load()?;
    }
    let counter = counter(byte_bounds);
    let selection = select::select(&inputs(&counter))?;
    let out = output::build(doc, request, choice, &counter, now, selection)?;
    let mut explanation = out.explanation;
    explanation.conflicts = conflicts;
    Ok(Assembly {
        prompt: out.prompt,
        explanation,
    })
}
