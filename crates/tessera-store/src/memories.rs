//! Memories kept beyond one conversation: for a project's conversations, or for every
//! conversation. (A memory of one conversation is a `memory` context block of it, see
//! `save_memory`.) Each keeps where it came from: the conversation and the person's message
//! it was saved under. A memory of a project goes with its project.

use rusqlite::{params, Row};
use serde::{Deserialize, Serialize};
use tessera_protocol::wire::Timestamp;

use crate::error::{Entity, Result, StoreError};
use crate::rows::{self, FromRow};
use crate::tx::{ReadTx, WriteTx};
use crate::{clock, Store};

pub(crate) const SCHEMA_V11: &str = "
CREATE TABLE memories (
    id                      TEXT PRIMARY KEY NOT NULL,
    scope                   TEXT NOT NULL,
    project_id              TEXT REFERENCES projects (id) ON DELETE CASCADE,
    key                     TEXT,
    content                 TEXT NOT NULL,
    source_conversation_id  TEXT,
    source_message_id       TEXT,
    created_at              TEXT NOT NULL,
    updated_at              TEXT NOT NULL
) STRICT;
CREATE UNIQUE INDEX memories_by_key ON memories (scope, coalesce(project_id, ''), key)
    WHERE key IS NOT NULL;
";

/// Longest memory, in characters.
pub const MAX_CONTENT_CHARS: usize = 4_000;

/// Where a memory applies.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, ts_rs::TS)]
#[serde(rename_all = "snake_case")]
pub enum MemoryScope {
    /// Only the conversation it was saved in (a context block of it).
    Conversation,
    /// Every conversation of its project.
    Project,
    /// Every conversation.
    Everywhere,
}

impl MemoryScope {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Conversation => "conversation",
            Self::Project => "project",
            Self::Everywhere => "everywhere",
        }
    }

    pub fn parse(text: &str) -> Option<Self> {
        match text {
            "conversation" => Some(Self::Conversation),
            "project" => Some(Self::Project),
            "everywhere" => Some(Self::Everywhere),
            _ => None,
        }
    }
}

/// A memory kept beyond one conversation.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct Memory {
    pub id: String,
    pub scope: MemoryScope,
    pub project_id: Option<String>,
    pub key: Option<String>,
    pub content: String,
    /// The conversation and the person's message it was saved under.
    pub source_conversation_id: Option<String>,
    pub source_message_id: Option<String>,
    pub created_at: Timestamp,
    pub updated_at: Timestamp,
}

/// A memory to keep. With a `key`, one of the same scope (and project) and key is replaced.
#[derive(Clone, Debug)]
pub struct NewMemory {
    pub scope: MemoryScope,
    pub project_id: Option<String>,
    pub key: Option<String>,
    pub content: String,
    pub source_conversation_id: Option<String>,
    pub source_message_id: Option<String>,
}

const COLUMNS: &str = "id, scope, project_id, key, content, source_conversation_id, \
     source_message_id, created_at, updated_at";

/// A row of [`COLUMNS`].
impl FromRow for Memory {
    fn from_row(row: &Row<'_>) -> Result<Self> {
        let scope: String = row.get(1)?;
        Ok(Memory {
            id: row.get(0)?,
            scope: MemoryScope::parse(&scope).ok_or_else(|| StoreError::Corrupt {
                what: "memory scope",
                message: scope,
            })?,
            project_id: row.get(2)?,
            key: row.get(3)?,
            content: row.get(4)?,
            source_conversation_id: row.get(5)?,
            source_message_id: row.get(6)?,
            created_at: Timestamp::new(row.get::<_, String>(7)?),
            updated_at: Timestamp::new(row.get::<_, String>(8)?),
        })
    }
}

/// A conversation's memory: a `memory` block, with its conversation's times (the columns of
/// [`ReadTx::conversation_memories`]).
struct ConversationMemory(Memory);

impl FromRow for ConversationMemory {
    fn from_row(row: &Row<'_>) -> Result<Self> {
        let conversation: String = row.get(0)?;
        let block: String = row.get(1)?;
        let extra: serde_json::Value = row
            .get::<_, Option<String>>(3)?
            .and_then(|e| serde_json::from_str(&e).ok())
            .unwrap_or_default();
        let (created, updated): (String, String) = (row.get(4)?, row.get(5)?);
        let saved_at = extra["saved_at"].as_str().map(Timestamp::new);
        Ok(Self(Memory {
            id: conversation_memory_id(&conversation, &block),
            scope: MemoryScope::Conversation,
            project_id: None,
            key: extra["memory_key"].as_str().map(str::to_owned),
            content: row.get(2)?,
            source_conversation_id: Some(conversation),
            source_message_id: None,
            created_at: saved_at.clone().unwrap_or_else(|| Timestamp::new(created)),
            updated_at: saved_at.unwrap_or_else(|| Timestamp::new(updated)),
        }))
    }
}

fn checked_content(content: &str) -> Result<String> {
    let content = content.trim();
    if content.is_empty() {
        return Err(StoreError::InvalidMemory("the content is empty".into()));
    }
    if content.chars().count() > MAX_CONTENT_CHARS {
        return Err(StoreError::InvalidMemory(format!(
            "the content is longer than {MAX_CONTENT_CHARS} characters"
        )));
    }
    Ok(content.to_owned())
}

fn get(conn: &rusqlite::Connection, id: &str) -> Result<Option<Memory>> {
    rows::optional(
        conn,
        &format!("SELECT {COLUMNS} FROM memories WHERE id = ?1"),
        [id],
    )
}

impl ReadTx<'_> {
    /// The memories of `scope` (all scopes kept here when None), newest first; with `query`,
    /// those whose content or key holds it (case aside).
    pub fn memories(&self, scope: Option<MemoryScope>, query: Option<&str>) -> Result<Vec<Memory>> {
        rows::all(
            self.conn,
            &format!(
                "SELECT {COLUMNS} FROM memories
                 WHERE (?1 IS NULL OR scope = ?1)
                   AND (?2 IS NULL OR instr(lower(content), lower(?2)) > 0
                        OR instr(lower(coalesce(key, '')), lower(?2)) > 0)
                 ORDER BY updated_at DESC, id"
            ),
            params![scope.map(MemoryScope::as_str), query],
        )
    }

    /// The memories a conversation's prompt includes: everywhere's, and its project's.
    pub fn memories_for(&self, project_id: Option<&str>) -> Result<Vec<Memory>> {
        rows::all(
            self.conn,
            &format!(
                "SELECT {COLUMNS} FROM memories
                 WHERE scope = 'everywhere' OR (scope = 'project' AND project_id = ?1)
                 ORDER BY created_at, id"
            ),
            params![project_id],
        )
    }

    pub fn memory(&self, id: &str) -> Result<Option<Memory>> {
        get(self.conn, id)
    }
}

/// The id a conversation's memory (a context block) is listed under.
pub fn conversation_memory_id(conversation_id: &str, block_id: &str) -> String {
    format!("{conversation_id}/{block_id}")
}

/// The conversation and block of a listed conversation memory id (`save_memory`'s block ids
/// start with `memory:`).
pub fn split_conversation_memory_id(id: &str) -> Option<(&str, &str)> {
    let at = id.rfind("/memory:")?;
    Some((&id[..at], &id[at + 1..]))
}

impl ReadTx<'_> {
    /// Every conversation's memories (its `memory` blocks), newest conversation first.
    pub fn conversation_memories(&self, query: Option<&str>) -> Result<Vec<Memory>> {
        let rows: Vec<ConversationMemory> = rows::all(
            self.conn,
            "SELECT b.conversation_id, b.block_id, coalesce(b.content, ''), b.extra_json,
                    c.created_at, c.updated_at
             FROM context_blocks b JOIN conversations c ON c.id = b.conversation_id
             WHERE b.block_type = 'memory'
               AND (?1 IS NULL OR instr(lower(coalesce(b.content, '')), lower(?1)) > 0)
             ORDER BY c.updated_ms DESC, b.pk",
            params![query],
        )?;
        Ok(rows.into_iter().map(|ConversationMemory(m)| m).collect())
    }
}

impl WriteTx<'_> {
    /// Keeps a memory; returns it and whether it replaced one with the same key.
    pub fn save_memory(&mut self, new: NewMemory) -> Result<(Memory, bool)> {
        if new.scope == MemoryScope::Conversation {
            return Err(StoreError::InvalidMemory(
                "a conversation's memory is a context block of it, not kept here".into(),
            ));
        }
        if (new.scope == MemoryScope::Project) != new.project_id.is_some() {
            return Err(StoreError::InvalidMemory(
                "a project's memory names its project, and only it does".into(),
            ));
        }
        let content = checked_content(&new.content)?;
        let now = clock::now();
        let existing: Option<String> = match &new.key {
            Some(key) => rows::optional(
                self.conn,
                "SELECT id FROM memories WHERE scope = ?1
                   AND coalesce(project_id, '') = coalesce(?2, '') AND key = ?3",
                params![new.scope.as_str(), new.project_id, key],
            )?,
            None => None,
        };
        let id = match &existing {
            Some(id) => {
                self.conn
                    .prepare_cached(
                        "UPDATE memories SET content = ?2, source_conversation_id = ?3,
                             source_message_id = ?4, updated_at = ?5 WHERE id = ?1",
                    )?
                    .execute(params![
                        id,
                        content,
                        new.source_conversation_id,
                        new.source_message_id,
                        now.as_str()
                    ])?;
                id.clone()
            }
            None => {
                let id = format!("mem-{}", uuid::Uuid::now_v7());
                self.conn
                    .prepare_cached(&format!(
                        "INSERT INTO memories ({COLUMNS}) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?8)"
                    ))?
                    .execute(params![
                        id,
                        new.scope.as_str(),
                        new.project_id,
                        new.key,
                        content,
                        new.source_conversation_id,
                        new.source_message_id,
                        now.as_str()
                    ])?;
                id
            }
        };
        let memory = get(self.conn, &id)?.ok_or_else(|| StoreError::NotFound {
            entity: Entity::Memory,
            conversation_id: None,
            id: id.clone(),
        })?;
        Ok((memory, existing.is_some()))
    }

    /// Changes a memory's text.
    pub fn edit_memory(&mut self, id: &str, content: &str) -> Result<Memory> {
        let content = checked_content(content)?;
        let changed = self
            .conn
            .prepare_cached("UPDATE memories SET content = ?2, updated_at = ?3 WHERE id = ?1")?
            .execute(params![id, content, clock::now().as_str()])?;
        if changed == 0 {
            return Err(StoreError::NotFound {
                entity: Entity::Memory,
                conversation_id: None,
                id: id.to_owned(),
            });
        }
        get(self.conn, id)?.ok_or_else(|| StoreError::NotFound {
            entity: Entity::Memory,
            conversation_id: None,
            id: id.to_owned(),
        })
    }

    /// Forgets a memory; returns what it was.
    pub fn forget_memory(&mut self, id: &str) -> Result<Memory> {
        let memory = get(self.conn, id)?.ok_or_else(|| StoreError::NotFound {
            entity: Entity::Memory,
            conversation_id: None,
            id: id.to_owned(),
        })?;
        self.conn
            .prepare_cached("DELETE FROM memories WHERE id = ?1")?
            .execute([id])?;
        Ok(memory)
    }
}

impl Store {
    pub fn conversation_memories(&self, query: Option<&str>) -> Result<Vec<Memory>> {
        self.read(|r| r.conversation_memories(query))
    }

    pub fn memories(&self, scope: Option<MemoryScope>, query: Option<&str>) -> Result<Vec<Memory>> {
        self.read(|r| r.memories(scope, query))
    }

    pub fn memories_for(&self, project_id: Option<&str>) -> Result<Vec<Memory>> {
        self.read(|r| r.memories_for(project_id))
    }

    pub fn save_memory(&self, new: NewMemory) -> Result<(Memory, bool)> {
        self.write(move |tx| tx.save_memory(new))
    }

    pub fn edit_memory(&self, id: &str, content: &str) -> Result<Memory> {
        let (id, content) = (id.to_owned(), content.to_owned());
        self.write(move |tx| tx.edit_memory(&id, &content))
    }

    pub fn forget_memory(&self, id: &str) -> Result<Memory> {
        let id = id.to_owned();
        self.write(move |tx| tx.forget_memory(&id))
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use crate::projects::NewProject;

    fn everywhere(content: &str, key: Option<&str>) -> NewMemory {
        NewMemory {
            scope: MemoryScope::Everywhere,
            project_id: None,
            key: key.map(str::to_owned),
            content: content.into(),
            source_conversation_id: Some("c1".into()),
            source_message_id: Some("m1".into()),
        }
    }

    #[test]
    fn memories_are_kept_replaced_by_key_scoped_and_forgotten() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(dir.path()).unwrap();
        let (first, replaced) = store
            .save_memory(everywhere("Prefers tea", Some("drink")))
            .unwrap();
        assert!(!replaced);
        let (second, replaced) = store
            .save_memory(everywhere("Prefers coffee", Some("drink")))
            .unwrap();
        assert!(replaced);
        assert_eq!(first.id, second.id);
        let project = store
            .create_project(NewProject {
                name: "P".into(),
                ..NewProject::default()
            })
            .unwrap();
        store
            .save_memory(NewMemory {
                scope: MemoryScope::Project,
                project_id: Some(project.id.clone()),
                ..everywhere("Cite the 2024 draft", None)
            })
            .unwrap();
        assert_eq!(store.memories_for(None).unwrap().len(), 1);
        assert_eq!(store.memories_for(Some(&project.id)).unwrap().len(), 2);
        assert_eq!(store.memories(None, Some("COFFEE")).unwrap().len(), 1);
        assert!(store.save_memory(everywhere("  ", None)).is_err());
        assert!(store
            .save_memory(NewMemory {
                scope: MemoryScope::Project,
                ..everywhere("x", None)
            })
            .is_err());
        store.forget_memory(&second.id).unwrap();
        assert!(store
            .memories(Some(MemoryScope::Everywhere), None)
            .unwrap()
            .is_empty());
        store.delete_project(&project.id).unwrap();
        assert!(store.memories(None, None).unwrap().is_empty());
    }
}
