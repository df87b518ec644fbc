//! Selection: which blocks and messages go into the prompt, in this order of claims on the budget:
//!
//! 1. Expired blocks (`expires_at` at or before `now`) are dropped; an `expires_at` that is not a
//!    valid RFC 3339 timestamp is ignored (validation reports it; the block is kept).
//! 2. `must`: the agent's system prompt and the tool declarations (sent with every call), every
//!    `system` message, the newest message, every `must` block. If they (with the priming
//!    overhead) exceed the available tokens, the assembly fails naming them.
//! 3. History: non-system messages newest first, contiguous (never skipping one to fit an older
//!    one), within the history cap. Once the history exceeds its threshold the rolling summary
//!    replaces the messages of its range.
//! 4. `high`, then `medium`, then `low` blocks; within a level the most recent first, where more
//!    recent means a later position in `context_blocks` (seed 004 gives blocks no timestamp; the
//!    store appends blocks as they are made). `expires_at` only filters, it does not reorder.
//!    A block that does not fit is skipped and smaller ones after it are still tried.
//! 5. Backfill: tokens left extend the history further back, still contiguous.
//!
//! Blocks are rendered lazily but always before any budget check, so a broken ref is reported as
//! `unresolvable_ref` even when the block would not have fit. Tokens are counted only when a
//! decision needs them: messages the summary covers, and items considered once no item can fit any
//! more, are never counted.

use std::collections::HashMap;

use tessera_protocol::context_doc::{ContextBlock, ContextDocument, Priority};
use tessera_protocol::request::Role;

use super::budget::{AssemblePolicy, Ledger};
use super::clock::UtcNanos;
use super::explain::{DropReason, HistoryReport, HistoryTrigger, SummaryStatus, Why};
use super::render::{
    render_block, summary_text, EvidenceResolver, RefFailure, RenderedBlock, Rendering,
};
use super::tokens::{content_hash, Encoding, TokenCache};
use super::{AssembleError, MustCost, MustItem};

/// Counts prompt items: content tokens plus the per-item overhead.
pub(crate) struct Counter<'a> {
    pub(crate) cache: &'a TokenCache,
    pub(crate) encoding: Encoding,
    pub(crate) overhead: u64,
    /// Counts a text as its length in bytes, without the encoding's tables: an upper bound,
    /// since every token of a byte-level BPE is at least one byte.
    pub(crate) byte_bounds: bool,
}

impl Counter<'_> {
    pub(crate) fn raw(&self, text: &str) -> Result<u64, AssembleError> {
        if self.byte_bounds {
            return Ok(text.len() as u64);
        }
        Ok(self.cache.count(self.encoding, text)?)
    }

    pub(crate) fn item(&self, text: &str) -> Result<u64, AssembleError> {
        if self.byte_bounds {
            return Ok(text.len() as u64 + self.overhead);
        }
        self.item_hashed(text, content_hash(text))
    }

    fn item_hashed(&self, text: &str, hash: u128) -> Result<u64, AssembleError> {
        if self.byte_bounds {
            return Ok(text.len() as u64 + self.overhead);
        }
        Ok(self.cache.count_hashed(self.encoding, text, hash)? + self.overhead)
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Outcome {
    Pending,
    Included(Why),
    Dropped(DropReason),
}

pub(crate) struct BlockSlot<'a> {
    pub(crate) block: &'a ContextBlock,
    pub(crate) rendered: Option<RenderedBlock>,
    pub(crate) tokens: Option<u64>,
    pub(crate) outcome: Outcome,
    pub(crate) errors: Vec<RefFailure>,
    pub(crate) duplicate_of: Option<String>,
}

pub(crate) struct MessageSlot {
    pub(crate) tokens: Option<u64>,
    pub(crate) outcome: Outcome,
}

pub(crate) struct SummaryChoice {
    pub(crate) status: SummaryStatus,
    pub(crate) from: Option<u64>,
    pub(crate) to: Option<u64>,
    pub(crate) tokens: Option<u64>,
    pub(crate) text: Option<String>,
}

/// The outcome of every block and message, and the figures.
pub(crate) struct Selection<'a> {
    pub(crate) blocks: Vec<BlockSlot<'a>>,
    pub(crate) messages: Vec<MessageSlot>,
    pub(crate) summary: SummaryChoice,
    pub(crate) ledger: Ledger,
    pub(crate) must_tokens: u64,
    pub(crate) system_prompt_tokens: u64,
    pub(crate) tool_tokens: u64,
    pub(crate) history_cap: u64,
    pub(crate) history_used: u64,
    pub(crate) history: HistoryReport,
}

impl Selection<'_> {
    /// Whether a count decided anything: an item or the summary left out for want of tokens,
    /// or the history over its threshold by tokens. When none did, smaller counts of the same
    /// texts would select the same.
    pub(crate) fn decided_by_counts(&self) -> bool {
        let budget = |outcome: &Outcome| matches!(outcome, Outcome::Dropped(DropReason::Budget));
        self.blocks.iter().any(|b| budget(&b.outcome))
            || self.messages.iter().any(|m| budget(&m.outcome))
            || self.summary.status == SummaryStatus::Budget
            || self.history.exceeded_by == Some(HistoryTrigger::Tokens)
    }
}

pub(crate) struct Inputs<'a> {
    pub(crate) doc: &'a ContextDocument,
    pub(crate) policy: &'a AssemblePolicy,
    pub(crate) counter: &'a Counter<'a>,
    pub(crate) resolver: &'a dyn EvidenceResolver,
    pub(crate) now: UtcNanos,
    pub(crate) window: u64,
    pub(crate) reserved: u64,
    pub(crate) system_prompt: Option<&'a str>,
    pub(crate) tool_declarations: Option<&'a str>,
}

/// Runs every pass.
pub(crate) fn select<'a>(inputs: &Inputs<'a>) -> Result<Selection<'a>, AssembleError> {
    let mut ledger = Ledger::new(inputs.window, inputs.reserved)?;
    ledger.force(inputs.policy.priming_overhead);
    let history_cap = inputs.policy.history_cap(ledger.available());
    let messages = &inputs.doc.session.messages;
    let mut selector = Selector {
        inputs,
        seen: HashMap::new(),
        backlog: Vec::new(),
        sel: Selection {
            blocks: inputs
                .doc
                .context_blocks
                .iter()
                .map(|block| BlockSlot {
                    block,
                    rendered: None,
                    tokens: None,
                    outcome: Outcome::Pending,
                    errors: Vec::new(),
                    duplicate_of: None,
                })
                .collect(),
            messages: messages
                .iter()
                .map(|_| MessageSlot {
                    tokens: None,
                    outcome: Outcome::Pending,
                })
                .collect(),
            summary: SummaryChoice {
                status: SummaryStatus::Absent,
                from: None,
                to: None,
                tokens: None,
                text: None,
            },
            ledger,
            must_tokens: 0,
            system_prompt_tokens: 0,
            tool_tokens: 0,
            history_cap,
            history_used: 0,
            history: HistoryReport {
                threshold_tokens: history_cap,
                max_messages: inputs.policy.max_history_messages,
                messages: messages.iter().filter(|m| m.role != Role::System).count(),
                exceeded_by: None,
            },
        },
    };
    selector.expire();
    selector.must()?;
    selector.history()?;
    for level in [Priority::High, Priority::Medium, Priority::Low] {
        selector.level(level)?;
    }
    selector.backfill()?;
    Ok(selector.sel)
}

struct Selector<'i, 'a> {
    inputs: &'i Inputs<'a>,
    sel: Selection<'a>,
    /// Text hashes of included blocks, to their positions.
    seen: HashMap<u128, usize>,
    /// History candidates not yet decided, newest first (for the backfill).
    backlog: Vec<usize>,
}

impl<'a> Selector<'_, 'a> {
    fn is_system(&self, index: usize) -> bool {
        self.inputs.doc.session.messages[index].role == Role::System
    }

    /// The newest message when it is kept as `latest` (a system one is kept as `system`).
    fn latest(&self) -> Option<usize> {
        let last = self.inputs.doc.session.messages.len().checked_sub(1)?;
        (self.inputs.policy.keep_latest_message && !self.is_system(last)).then_some(last)
    }

    fn expire(&mut self) {
        let now = self.inputs.now;
        for slot in &mut self.sel.blocks {
            let expired = slot
                .block
                .expires_at
                .as_ref()
                .and_then(|t| UtcNanos::parse(t.as_str()))
                .is_some_and(|t| t <= now);
            if expired {
                slot.outcome = Outcome::Dropped(DropReason::Expired);
            }
        }
    }

    /// Renders a pending block; drops it (empty, unresolvable, duplicate) or returns its hash.
    fn prepare(&mut self, pos: usize) -> Option<u128> {
        let rendering = render_block(self.sel.blocks[pos].block, self.inputs.resolver);
        let slot = &mut self.sel.blocks[pos];
        match rendering {
            Rendering::Empty => {
                slot.outcome = Outcome::Dropped(DropReason::Empty);
                None
            }
            Rendering::Unresolvable(errors) => {
                slot.errors = errors;
                slot.outcome = Outcome::Dropped(DropReason::UnresolvableRef);
                None
            }
            Rendering::Ready(rendered) => {
                let hash = content_hash(&rendered.text);
                if let Some(&twin) = self.seen.get(&hash) {
                    let twin_id = self.sel.blocks[twin].block.block_id.clone();
                    let slot = &mut self.sel.blocks[pos];
                    slot.duplicate_of = Some(twin_id);
                    slot.outcome = Outcome::Dropped(DropReason::Duplicate);
                    return None;
                }
                slot.rendered = Some(rendered);
                Some(hash)
            }
        }
    }

    fn block_cost(&mut self, pos: usize, hash: u128) -> Result<u64, AssembleError> {
        let slot = &mut self.sel.blocks[pos];
        let text = slot.rendered.as_ref().map_or("", |r| r.text.as_str());
        let cost = self.inputs.counter.item_hashed(text, hash)?;
        slot.tokens = Some(cost);
        Ok(cost)
    }

    fn message_cost(&mut self, index: usize) -> Result<u64, AssembleError> {
        if let Some(cost) = self.sel.messages[index].tokens {
            return Ok(cost);
        }
        let content = &self.inputs.doc.session.messages[index].content;
        let cost = self.inputs.counter.item(content)?;
        self.sel.messages[index].tokens = Some(cost);
        Ok(cost)
    }

    fn must(&mut self) -> Result<(), AssembleError> {
        let mut items = Vec::new();
        if let Some(text) = self.inputs.system_prompt {
            let cost = self.inputs.counter.item(text)?;
            self.sel.system_prompt_tokens = cost;
            self.sel.ledger.force(cost);
            items.push(MustCost {
                item: MustItem::SystemPrompt,
                tokens: cost,
            });
        }
        if let Some(json) = self.inputs.tool_declarations {
            // One declaration list, not a message: no per-item framing.
            let cost = self.inputs.counter.raw(json)?;
            self.sel.tool_tokens = cost;
            self.sel.ledger.force(cost);
            items.push(MustCost {
                item: MustItem::ToolDeclarations,
                tokens: cost,
            });
        }
        let messages = &self.inputs.doc.session.messages;
        let latest = self.latest();
        for (index, message) in messages.iter().enumerate() {
            let why = if message.role == Role::System {
                Why::System
            } else if Some(index) == latest {
                Why::Latest
            } else {
                continue;
            };
            let cost = self.message_cost(index)?;
            self.sel.messages[index].outcome = Outcome::Included(why);
            self.sel.ledger.force(cost);
            if why == Why::Latest {
                self.sel.history_used += cost;
            }
            items.push(MustCost {
                item: MustItem::Message {
                    index,
                    role: message.role.as_str().to_owned(),
                },
                tokens: cost,
            });
        }
        for pos in 0..self.sel.blocks.len() {
            let slot = &self.sel.blocks[pos];
            if slot.outcome != Outcome::Pending || slot.block.priority != Priority::Must {
                continue;
            }
            let Some(hash) = self.prepare(pos) else {
                continue;
            };
            let cost = self.block_cost(pos, hash)?;
            self.seen.insert(hash, pos);
            self.sel.blocks[pos].outcome = Outcome::Included(Why::Must);
            self.sel.ledger.force(cost);
            items.push(MustCost {
                item: MustItem::Block {
                    block_id: self.sel.blocks[pos].block.block_id.clone(),
                },
                tokens: cost,
            });
        }
        self.sel.must_tokens = items.iter().map(|i| i.tokens).sum();
        let ledger = self.sel.ledger;
        if ledger.used() > ledger.available() {
            return Err(AssembleError::MustExceedsBudget {
                needed: ledger.used(),
                available: ledger.available(),
                priming: self.inputs.policy.priming_overhead,
                items,
            });
        }
        Ok(())
    }

    fn history(&mut self) -> Result<(), AssembleError> {
        let n = self.inputs.doc.session.messages.len();
        let latest = self.latest();
        let candidates: Vec<usize> = (0..n)
            .rev()
            .filter(|&i| !self.is_system(i) && Some(i) != latest)
            .collect();
        let cap = self.sel.history_cap;
        let mut trigger = None;
        if let Some(max) = self.inputs.policy.max_history_messages {
            if self.sel.history.messages > max {
                trigger = Some(HistoryTrigger::Messages);
            }
        }
        if trigger.is_none() {
            let mut total = self.sel.history_used;
            let mut over = total > cap;
            for &i in &candidates {
                if over {
                    break;
                }
                total += self.message_cost(i)?;
                over = total > cap;
            }
            if over {
                trigger = Some(HistoryTrigger::Tokens);
            }
        }
        self.sel.history.exceeded_by = trigger;

        let mut pending = candidates;
        match self.usable_summary(n) {
            Err(status) => self.sel.summary.status = status,
            Ok(_) if trigger.is_none() => self.sel.summary.status = SummaryStatus::NotNeeded,
            Ok((from, to, text)) => {
                let cost = self.inputs.counter.item(&text)?;
                self.sel.summary.from = Some(from as u64);
                self.sel.summary.to = Some(to as u64);
                self.sel.summary.tokens = Some(cost);
                if self.sel.history_used + cost <= cap && self.sel.ledger.take(cost) {
                    self.sel.history_used += cost;
                    self.sel.summary.status = SummaryStatus::Used;
                    self.sel.summary.text = Some(text);
                    for &i in &pending {
                        let reason = if i < from {
                            DropReason::Budget
                        } else if i <= to {
                            DropReason::Summarised
                        } else {
                            continue;
                        };
                        self.sel.messages[i].outcome = Outcome::Dropped(reason);
                    }
                    pending.retain(|&i| i > to);
                } else {
                    self.sel.summary.status = SummaryStatus::Budget;
                }
            }
        }

        let mut rest = pending.into_iter();
        for i in rest.by_ref() {
            let cost = self.message_cost(i)?;
            if self.sel.history_used + cost <= cap && self.sel.ledger.take(cost) {
                self.sel.history_used += cost;
                self.sel.messages[i].outcome = Outcome::Included(Why::Recent);
            } else {
                self.backlog.push(i);
                break;
            }
        }
        self.backlog.extend(rest);
        Ok(())
    }

    /// The summary's range (`to` clamped to the last message) and text, or why it is unusable.
    fn usable_summary(&self, n: usize) -> Result<(usize, usize, String), SummaryStatus> {
        let summary = self
            .inputs
            .doc
            .session
            .summary
            .as_ref()
            .ok_or(SummaryStatus::Absent)?;
        let content = summary
            .content
            .as_deref()
            .filter(|c| !c.trim().is_empty())
            .ok_or(SummaryStatus::Empty)?;
        let range = summary
            .message_index_range
            .as_ref()
            .ok_or(SummaryStatus::NoRange)?;
        let (Some(from), Some(to)) = (range.from, range.to) else {
            return Err(SummaryStatus::NoRange);
        };
        let (Ok(from), Ok(to)) = (usize::try_from(from), usize::try_from(to)) else {
            return Err(SummaryStatus::NoRange);
        };
        if from > to || from >= n {
            return Err(SummaryStatus::NoRange);
        }
        // Written on another branch: positions name other messages here.
        if let Some(through) = summary
            .extra
            .get(crate::summary::COVERS_THROUGH)
            .and_then(serde_json::Value::as_str)
        {
            let at_to = self.inputs.doc.session.messages.get(to);
            let id = at_to.map(|m| m.extra.get(tessera_store::export::MESSAGE_ID));
            match id {
                // A document without message ids cannot tell.
                Some(None) => {}
                Some(Some(id)) if id.as_str() == Some(through) => {}
                _ => return Err(SummaryStatus::OtherBranch),
            }
        }
        let to = to.min(n - 1);
        Ok((from, to, summary_text(content, from as u64, to as u64)))
    }

    fn level(&mut self, level: Priority) -> Result<(), AssembleError> {
        let overhead = self.inputs.counter.overhead;
        for pos in (0..self.sel.blocks.len()).rev() {
            let slot = &self.sel.blocks[pos];
            if slot.outcome != Outcome::Pending || slot.block.priority != level {
                continue;
            }
            let Some(hash) = self.prepare(pos) else {
                continue;
            };
            // Any non-empty item costs more than the overhead: skip counting when nothing fits.
            if self.sel.ledger.remaining() > overhead {
                let cost = self.block_cost(pos, hash)?;
                if self.sel.ledger.take(cost) {
                    self.seen.insert(hash, pos);
                    self.sel.blocks[pos].outcome = Outcome::Included(Why::Priority);
                    continue;
                }
            }
            self.sel.blocks[pos].outcome = Outcome::Dropped(DropReason::Budget);
        }
        Ok(())
    }

    fn backfill(&mut self) -> Result<(), AssembleError> {
        let backlog = std::mem::take(&mut self.backlog);
        let mut rest = backlog.into_iter();
        for i in rest.by_ref() {
            if self.sel.ledger.remaining() < self.inputs.counter.overhead {
                self.sel.messages[i].outcome = Outcome::Dropped(DropReason::Budget);
                break;
            }
            let cost = self.message_cost(i)?;
            if self.sel.ledger.take(cost) {
                self.sel.history_used += cost;
                self.sel.messages[i].outcome = Outcome::Included(Why::Backfill);
            } else {
                self.sel.messages[i].outcome = Outcome::Dropped(DropReason::Budget);
                break;
            }
        }
        for i in rest {
            self.sel.messages[i].outcome = Outcome::Dropped(DropReason::Budget);
        }
        for slot in &mut self.sel.messages {
            if slot.outcome == Outcome::Pending {
                slot.outcome = Outcome::Dropped(DropReason::Budget);
            }
        }
        Ok(())
    }
}
