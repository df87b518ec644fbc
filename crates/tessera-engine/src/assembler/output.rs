//! Turns a [`Selection`] into the prompt and its [`Explanation`].
//!
//! Prompt order: the leading `system` messages (those before the first other message), the
//! included blocks in document order (stable across turns, which keeps provider prompt caches
//! warm), the summary, then the included messages in conversation order (a later `system`
//! message keeps its place among them).

use serde_json::Value;
use tessera_protocol::context_doc::{ContextDocument, SessionMessage};
use tessera_protocol::request::Role;

use super::budget::BudgetReport;
use super::clock::UtcNanos;
use super::explain::{
    group_dropped, CitedRef, DroppedBlock, Explanation, IncludedBlock, IncludedMessage,
    RenderedFrom, SummaryReport, UsedEvidence, EXPLANATION_VERSION,
};
use super::select::{Counter, Outcome, Selection};
use super::tokens::EncodingChoice;
use super::{AssembleError, AssembleRequest, PromptItem, PromptSource};

pub(crate) struct Output {
    pub(crate) prompt: Vec<PromptItem>,
    pub(crate) explanation: Explanation,
}

fn message_id(message: &SessionMessage) -> Option<String> {
    ["message_id", "id"]
        .iter()
        .find_map(|key| match message.extra.get(*key) {
            Some(Value::String(id)) => Some(id.clone()),
            _ => None,
        })
}

pub(crate) fn build(
    doc: &ContextDocument,
    request: &AssembleRequest,
    choice: EncodingChoice,
    counter: &Counter<'_>,
    now: UtcNanos,
    sel: Selection<'_>,
) -> Result<Output, AssembleError> {
    let messages = &doc.session.messages;
    let leading = messages
        .iter()
        .position(|m| m.role != Role::System)
        .unwrap_or(messages.len());
    let mut prompt = Vec::new();
    let mut included_messages = Vec::new();
    let mut push_message = |index: usize, prompt: &mut Vec<PromptItem>| {
        let slot = &sel.messages[index];
        let Outcome::Included(why) = slot.outcome else {
            return;
        };
        let message = &messages[index];
        prompt.push(PromptItem {
            role: message.role.clone(),
            content: message.content.clone(),
            source: PromptSource::Message { index },
        });
        included_messages.push(IncludedMessage {
            index,
            message_id: message_id(message),
            role: message.role.clone(),
            tokens: slot.tokens.unwrap_or(0),
            why,
            refs: message
                .refs
                .iter()
                .flatten()
                .map(|r| CitedRef {
                    evidence_id: r.evidence_id.clone(),
                    selector: r.selector.clone(),
                })
                .collect(),
        });
    };
    for index in 0..leading {
        push_message(index, &mut prompt);
    }

    let mut blocks = Vec::new();
    let mut evidences = Vec::new();
    let mut dropped_blocks = Vec::new();
    for (position, slot) in sel.blocks.iter().enumerate() {
        let block = slot.block;
        match (slot.outcome, &slot.rendered) {
            (Outcome::Included(why), Some(rendered)) => {
                prompt.push(PromptItem {
                    role: Role::System,
                    content: rendered.text.clone(),
                    source: PromptSource::Block {
                        block_id: block.block_id.clone(),
                    },
                });
                blocks.push(IncludedBlock {
                    block_id: block.block_id.clone(),
                    block_type: block.block_type,
                    priority: block.priority,
                    position,
                    tokens: slot.tokens.unwrap_or(0),
                    token_estimate: block.token_estimate,
                    why,
                    rendered_from: if rendered.from_refs {
                        RenderedFrom::Refs
                    } else {
                        RenderedFrom::Content
                    },
                });
                for r in &rendered.refs {
                    evidences.push(UsedEvidence {
                        evidence_id: r.evidence_id.clone(),
                        selector: r.selector.clone(),
                        block_id: block.block_id.clone(),
                        rendered: r.fragment.is_some(),
                        tokens: r.fragment.as_deref().map(|f| counter.raw(f)).transpose()?,
                    });
                }
            }
            (Outcome::Dropped(reason), _) => dropped_blocks.push(DroppedBlock {
                block_id: block.block_id.clone(),
                block_type: block.block_type,
                priority: block.priority,
                position,
                reason,
                tokens: slot.tokens,
                expires_at: block.expires_at.as_ref().map(|t| t.as_str().to_owned()),
                errors: slot.errors.clone(),
                duplicate_of: slot.duplicate_of.clone(),
            }),
            // Every block is decided by the selection; nothing else can occur.
            _ => {}
        }
    }

    if let Some(text) = &sel.summary.text {
        prompt.push(PromptItem {
            role: Role::System,
            content: text.clone(),
            source: PromptSource::Summary,
        });
    }
    for index in leading..messages.len() {
        push_message(index, &mut prompt);
    }

    let dropped_messages = group_dropped(sel.messages.iter().enumerate().filter_map(
        |(index, slot)| match slot.outcome {
            Outcome::Dropped(reason) => Some((index, reason, slot.tokens)),
            _ => None,
        },
    ));
    let summary_doc = doc.session.summary.as_ref();
    let explanation = Explanation {
        version: EXPLANATION_VERSION,
        session_id: doc.session.id().unwrap_or_default().to_owned(),
        model: request.model.clone(),
        encoding: choice.encoding,
        encoding_exact: choice.exact,
        byte_bounds: counter.byte_bounds,
        now: now.to_rfc3339(),
        budget: BudgetReport {
            window: request.context_window,
            reserved: request.reserved_for_answer,
            available: sel.ledger.available(),
            used: sel.ledger.used(),
            must: sel.must_tokens,
            system_prompt: sel.system_prompt_tokens,
            tools: sel.tool_tokens,
            history_cap: sel.history_cap,
            history_used: sel.history_used,
            per_item_overhead: request.policy.per_item_overhead,
            priming_overhead: request.policy.priming_overhead,
        },
        history: sel.history,
        summary: SummaryReport {
            status: sel.summary.status,
            from: sel.summary.from,
            to: sel.summary.to,
            tokens: sel.summary.tokens,
            updated_at: summary_doc
                .and_then(|s| s.updated_at.as_ref())
                .map(|t| t.as_str().to_owned()),
            content: sel.summary.text.clone(),
        },
        blocks,
        messages: included_messages,
        evidences,
        dropped_blocks,
        dropped_messages,
        conflicts: Vec::new(),
    };
    Ok(Output {
        prompt,
        explanation,
    })
}
