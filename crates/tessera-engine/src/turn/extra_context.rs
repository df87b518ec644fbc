//! Context from outside the conversation's own record (a project's instructions, passages of
//! its files), added to the document the assembler reads as context blocks and the evidences
//! they cite, so they are trimmed to the budget and explained like any other block. The engine
//! knows no projects: the core passes sources in [`super::TurnOptions::context_sources`].

use tessera_protocol::context_doc::{ContextBlock, ContextDocument, Evidence};
use tessera_protocol::request::Role;

/// Blocks, and the evidences they refer to, for one prompt.
#[derive(Clone, Debug, Default)]
pub struct ExtraContext {
    pub evidences: Vec<Evidence>,
    pub blocks: Vec<ContextBlock>,
}

/// A source of context for a conversation's prompts.
pub trait ContextSource: Send + Sync + std::fmt::Debug {
    /// What to add to `conversation_id`'s prompt, given the person's newest words. Called as
    /// the prompt is assembled, so it must be quick (an index lookup, no network); a source
    /// that fails returns nothing (and logs why) rather than stopping the answer.
    fn context_for(&self, conversation_id: &str, question: &str) -> ExtraContext;
}

/// The person's newest message in `doc`.
fn question(doc: &ContextDocument) -> &str {
    doc.session
        .messages
        .iter()
        .rev()
        .find(|m| m.role == Role::User)
        .map_or("", |m| m.content.as_str())
}

/// Adds every source's context to `doc`. Evidences already in the document stay as they are.
pub(crate) fn add(
    doc: &mut ContextDocument,
    conversation_id: &str,
    sources: &[std::sync::Arc<dyn ContextSource>],
) {
    if sources.is_empty() {
        return;
    }
    let question = question(doc).to_owned();
    for source in sources {
        let extra = source.context_for(conversation_id, &question);
        for evidence in extra.evidences {
            if doc.evidences.get(&evidence.evidence_id).is_none() {
                doc.evidences.insert(evidence.evidence_id.clone(), evidence);
            }
        }
        doc.context_blocks.extend(extra.blocks);
    }
}
