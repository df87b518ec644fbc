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
mod error;
pub mod explain;
mod output;
pub mod render;
mod request;
mod select;
pub mod tokens;

use tessera_protocol::context_doc::ContextDocument;

pub use budget::{AssemblePolicy, BudgetReport};
pub use clock::system_time_from_rfc3339;
pub use error::{AssembleError, MustCost, MustItem};
pub use explain::{
    CitedRef, DropReason, DroppedBlock, DroppedMessages, Explanation, HistoryReport,
    HistoryTrigger, IncludedBlock, IncludedMessage, RenderedFrom, SummaryReport, SummaryStatus,
    UsedEvidence, Why,
};
pub use render::{DocumentResolver, EvidenceResolver, RefFailure, ResolveError};
pub use request::{AssembleRequest, Assembly, Counting, PromptItem, PromptSource};
pub(crate) use tokens::encoding_for_model;
pub use tokens::{CacheStats, Encoding, TokenCache, TokenizerError};

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
