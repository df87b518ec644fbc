//! Memories, as the Memory page and `tessera memory` show them: those of one conversation
//! (its `memory` blocks), of a project, and of every conversation; search, edit, forget.

use tessera_store::memories::split_conversation_memory_id;
pub use tessera_store::memories::{Memory, MemoryScope};

use crate::{App, CoreError};

impl App {
    /// Memories of `scope` (all when None), newest first; with `query`, those that hold it.
    pub fn memories(
        &self,
        scope: Option<MemoryScope>,
        query: Option<&str>,
    ) -> Result<Vec<Memory>, CoreError> {
        let store = self.engine.store();
        let mut out = Vec::new();
        if scope.is_none_or(|s| s != MemoryScope::Conversation) {
            out.extend(store.memories(scope, query)?);
        }
        if scope.is_none_or(|s| s == MemoryScope::Conversation) {
            out.extend(store.conversation_memories(query)?);
        }
        Ok(out)
    }

    /// Changes a memory's text.
    pub fn edit_memory(&self, id: &str, content: &str) -> Result<Memory, CoreError> {
        let store = self.engine.store();
        if let Some((conversation, block_id)) = split_conversation_memory_id(id) {
            let mut block = store
                .read(|r| r.context_block(conversation, block_id))?
                .ok_or_else(|| CoreError::NoMemory(id.to_owned()))?;
            let content = content.trim().to_owned();
            if content.is_empty() {
                return Err(CoreError::Store(tessera_store::StoreError::InvalidMemory(
                    "the content is empty".into(),
                )));
            }
            block.content = Some(content);
            store.put_context_block(conversation, block)?;
            return store
                .conversation_memories(None)?
                .into_iter()
                .find(|m| m.id == id)
                .ok_or_else(|| CoreError::NoMemory(id.to_owned()));
        }
        Ok(store.edit_memory(id, content)?)
    }

    /// Forgets a memory: no later prompt includes it. Returns what it was.
    pub fn forget_memory(&self, id: &str) -> Result<Memory, CoreError> {
        let store = self.engine.store();
        if let Some((conversation, block_id)) = split_conversation_memory_id(id) {
            let memory = store
                .conversation_memories(None)?
                .into_iter()
                .find(|m| m.id == id)
                .ok_or_else(|| CoreError::NoMemory(id.to_owned()))?;
            let (conversation, block_id) = (conversation.to_owned(), block_id.to_owned());
            store.write(move |tx| tx.delete_context_block(&conversation, &block_id))?;
            return Ok(memory);
        }
        match store.forget_memory(id) {
            Err(tessera_store::StoreError::NotFound { .. }) => {
                Err(CoreError::NoMemory(id.to_owned()))
            }
            other => Ok(other?),
        }
    }
}
