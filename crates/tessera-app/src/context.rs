//! The context a conversation's runs read, as a person inspects it: what each model call of a
//! run was given and why (seed 004 explainability), the conversation's MCP-CP context (state,
//! history, version) and its change log, and a prompt assembled within a budget.

use std::collections::BTreeSet;
use std::time::SystemTime;

use serde_json::{json, Value};
use tessera_engine::assembler::{
    assemble, AssembleRequest, DocumentResolver, Explanation, TokenCache,
};
use tessera_protocol::views::{ContextView, RunContext, TurnContext};
use tessera_store::selector;

use crate::{App, CoreError};

/// What [`App::assemble_prompt`] is asked.
#[derive(Clone, Debug)]
pub struct PromptRequest<'a> {
    pub conversation: &'a str,
    pub budget: u64,
    pub reserve: u64,
    pub model: &'a str,
    /// Add the assembler's explanation beside the prompt.
    pub explain: bool,
}

impl App {
    /// Every model call of run `run_id` with the assembler's explanation of its prompt, the
    /// blocks and evidences the explanations name, and what the answer cites.
    pub fn run_context(&self, run_id: &str) -> Result<RunContext, CoreError> {
        let store = self.engine.store();
        let turns = store.run_model_turns(run_id)?;
        let Some(first) = turns.first() else {
            return Err(CoreError::NoModelCall(run_id.to_owned()));
        };
        let conversation_id = first.conversation_id.clone();
        let mut block_ids = BTreeSet::new();
        let mut evidence_ids = BTreeSet::new();
        for turn in &turns {
            let Some(assembly) = &turn.assembly else {
                continue;
            };
            // An explanation of another format version is still shown as stored; only the ids
            // it names are not looked up.
            match serde_json::from_value::<Explanation>(assembly.clone()) {
                Ok(explanation) => named(&explanation, &mut block_ids, &mut evidence_ids),
                Err(err) => {
                    tracing::warn!(run_id, turn_id = %turn.turn_id, %err, "explanation not readable")
                }
            }
        }
        let blocks: Vec<_> = store
            .context_blocks(&conversation_id)?
            .into_iter()
            .filter(|b| block_ids.contains(&b.block_id))
            .collect();
        for block in &blocks {
            for r in block.refs.iter().flatten() {
                evidence_ids.insert(r.evidence_id.clone());
            }
        }
        // The answer is the message the run's events speak for (the turns do not always name
        // it).
        let message_id = store
            .run_events(&conversation_id, run_id)?
            .into_iter()
            .find_map(|e| e.event.message_id);
        let mut cited = BTreeSet::new();
        if let Some(message_id) = &message_id {
            if let Some(stored) = store.message(&conversation_id, message_id)? {
                for r in stored.message.refs.iter().flatten() {
                    cited.insert(r.evidence_id.clone());
                }
            }
        }
        evidence_ids.extend(cited.iter().cloned());
        let evidences = store
            .evidences(&conversation_id)?
            .into_iter()
            .map(|stored| stored.evidence)
            .filter(|e| evidence_ids.contains(&e.evidence_id))
            .collect();
        Ok(RunContext {
            run_id: run_id.to_owned(),
            conversation_id,
            message_id,
            turns: turns
                .into_iter()
                .map(|t| TurnContext {
                    turn_id: t.turn_id,
                    message_id: t.message_id,
                    provider: t.provider,
                    model: t.model,
                    started_at: t.started_at,
                    finished_at: t.finished_at,
                    assembly: t.assembly,
                })
                .collect(),
            blocks,
            evidences,
            cited: cited.into_iter().collect(),
        })
    }

    /// Conversation `id`'s MCP-CP context (seed 000 §8: state, history, version) and its
    /// change log.
    pub fn context_view(&self, id: &str) -> Result<ContextView, CoreError> {
        self.require_conversation(id)?;
        Ok(self.engine.store().context_view(id)?)
    }

    /// The prompt the assembler builds for a conversation within a token budget (with its
    /// explanation when asked), as `{"prompt", "explanation"?}`.
    pub fn assemble_prompt(&self, request: &PromptRequest<'_>) -> Result<Value, CoreError> {
        self.require_conversation(request.conversation)?;
        // The document a run reads (what CLEAR_HISTORY cleared left out, the project's
        // context added), not the stored one.
        let doc = tessera_engine::turn::readable_document(
            self.engine.store(),
            request.conversation,
            None,
            &[self.project_context()],
        )?;
        let assemble_request = AssembleRequest::new(
            request.model,
            request.budget,
            request.reserve,
            SystemTime::now(),
        );
        let resolver = DocumentResolver::with_selector(&doc, selector::select);
        let cache = TokenCache::new();
        let assembly = assemble(&doc, &assemble_request, &resolver, &cache)?;
        let mut out = json!({ "prompt": assembly.prompt });
        if request.explain {
            out["explanation"] = serde_json::to_value(&assembly.explanation)?;
        }
        Ok(out)
    }
}

/// Block and evidence ids an explanation names, used or left out.
fn named(
    explanation: &Explanation,
    blocks: &mut BTreeSet<String>,
    evidences: &mut BTreeSet<String>,
) {
    for block in &explanation.blocks {
        blocks.insert(block.block_id.clone());
    }
    for block in &explanation.dropped_blocks {
        blocks.insert(block.block_id.clone());
        for failure in &block.errors {
            evidences.insert(failure.evidence_id.clone());
        }
    }
    for used in &explanation.evidences {
        evidences.insert(used.evidence_id.clone());
    }
    for message in &explanation.messages {
        for r in &message.refs {
            evidences.insert(r.evidence_id.clone());
        }
    }
}
