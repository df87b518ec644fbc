//! What is added to each prompt from outside the conversation: the memories kept everywhere
//! and, in a project's conversation, its memories (`high` memory blocks naming where each came
//! from); the project's instructions (a `must` instruction block), and the passages of its files that best match the person's newest
//! message (`medium` evidence blocks citing `rag_doc` evidences), which the assembler trims to
//! the budget and explains. The evidences are also kept in the conversation, so the inspector,
//! an export and the answer's citations can name them.

use std::sync::Arc;

use tessera_engine::turn::extra_context::{ContextSource, ExtraContext};
use tessera_knowledge::Knowledge;
use tessera_protocol::context_doc::{BlockType, ContextBlock, EvidenceRef, Priority};
use tessera_store::memories::MemoryScope;
use tessera_store::projects::Project;
use tessera_store::Store;

/// Passages added to each prompt, at most.
pub const PASSAGES_PER_PROMPT: usize = 4;

/// The project context of every conversation that belongs to one.
#[derive(Clone)]
pub struct ProjectContext {
    pub store: Arc<Store>,
    pub knowledge: Option<Knowledge>,
}

impl std::fmt::Debug for ProjectContext {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ProjectContext").finish_non_exhaustive()
    }
}

/// How the model is asked to cite.
const CITE_RULE: &str = "Passages from the project's files may follow, each headed by its \
citation in square brackets ([path:lines] or [path#page=N]). When your answer uses one, cite it \
right after the words it supports, exactly as its heading writes it. Cite nothing you were not \
given.";

impl ProjectContext {
    /// The memories in scope, each a `high` memory block saying where it applies and whence.
    fn add_memories(&self, extra: &mut ExtraContext, project: Option<&Project>) {
        let memories = match self.store.memories_for(project.map(|p| p.id.as_str())) {
            Ok(memories) => memories,
            Err(err) => {
                tracing::warn!("memories: {err}");
                return;
            }
        };
        for memory in memories {
            let scope = match (memory.scope, project) {
                (MemoryScope::Project, Some(p)) => format!("for the project “{}”", p.name),
                _ => "for every conversation".to_owned(),
            };
            let mut block_extra = serde_json::Map::new();
            block_extra.insert("memory_id".into(), serde_json::json!(memory.id));
            block_extra.insert("scope".into(), serde_json::json!(memory.scope));
            block_extra.insert(
                "source".into(),
                serde_json::json!({
                    "conversation_id": memory.source_conversation_id,
                    "message_id": memory.source_message_id,
                }),
            );
            extra.blocks.push(ContextBlock {
                block_id: format!("memory-{}", memory.id),
                block_type: BlockType::Memory,
                priority: Priority::High,
                token_estimate: None,
                content: Some(format!("Remembered {scope}: {}", memory.content)),
                refs: None,
                expires_at: None,
                extra: block_extra,
            });
        }
    }
}

impl ContextSource for ProjectContext {
    fn context_for(&self, conversation_id: &str, question: &str) -> ExtraContext {
        let mut extra = ExtraContext::default();
        let project = match self.store.conversation_project(conversation_id) {
            Ok(project) => project,
            Err(err) => {
                tracing::warn!("project context: {err}");
                return extra;
            }
        };
        self.add_memories(&mut extra, project.as_ref());
        let Some(project) = project else {
            return extra;
        };
        let mut text = format!(
            "This conversation belongs to the project “{}”.",
            project.name
        );
        if !project.instructions.trim().is_empty() {
            text.push_str("\nThe project's instructions:\n");
            text.push_str(project.instructions.trim());
        }
        if !project.sources.is_empty() {
            text.push_str("\n\n");
            text.push_str(CITE_RULE);
        }
        extra.blocks.push(ContextBlock {
            block_id: format!("project-{}", project.id),
            block_type: BlockType::Instruction,
            priority: Priority::Must,
            token_estimate: None,
            content: Some(text),
            refs: None,
            expires_at: None,
            extra: serde_json::Map::new(),
        });
        let Some(knowledge) = &self.knowledge else {
            return extra;
        };
        if question.trim().is_empty() || project.sources.is_empty() {
            return extra;
        }
        let hits = match knowledge.search(&project.id, question, PASSAGES_PER_PROMPT) {
            Ok(hits) => hits,
            Err(err) => {
                tracing::warn!("project context: {err}");
                return extra;
            }
        };
        for hit in hits {
            let mut evidence = hit.evidence(&project.name);
            if let Some(metadata) = evidence.metadata.as_mut() {
                metadata.insert("rule".into(), serde_json::json!("matches_message"));
            }
            extra.blocks.push(ContextBlock {
                block_id: format!("knowledge-{}", hit.evidence_id),
                block_type: BlockType::Evidence,
                priority: Priority::Medium,
                token_estimate: None,
                content: Some(format!("[{}]\n{}", hit.citation(), hit.text)),
                refs: Some(vec![EvidenceRef {
                    evidence_id: hit.evidence_id.clone(),
                    selector: None,
                    extra: serde_json::Map::new(),
                }]),
                expires_at: None,
                extra: serde_json::Map::new(),
            });
            extra.evidences.push(evidence);
        }
        // Kept in the conversation: a citation of one can be checked and opened later.
        let evidences = extra.evidences.clone();
        let conversation = conversation_id.to_owned();
        let kept = self.store.write(move |tx| {
            for evidence in &evidences {
                if tx
                    .read()
                    .evidence(&conversation, &evidence.evidence_id)?
                    .is_none()
                {
                    tx.put_evidence(&conversation, evidence, &[])?;
                }
            }
            Ok(())
        });
        if let Err(err) = kept {
            tracing::warn!("project context: the passages were not kept: {err}");
        }
        extra
    }
}
