//! A conversation as the seed-004 context document: the active branch in `session.messages`,
//! the summary, tasks, tool calls, usage, evidences and blocks, and, in fields the document
//! allows (unknown fields are kept by every reader), what else makes `import(export(x))` give
//! back `x`:
//! - each message: `message_id`; messages off the active branch go to
//!   `session.branch_messages` with their `parent_id` (absent for a root), and when there are
//!   any, every message carries `tree_index`, its place in the order written;
//! - each evidence: `attachments`, its attachment refs;
//! - `meta.tessera`: `{title, pinned, archived}` of the conversation list.

use std::collections::{HashMap, HashSet};

use serde_json::{json, Value};
use tessera_protocol::context_doc::{
    ContextDocument, ContextMeta, Session, SessionMessage, TaskState, TodoList, ToolState,
    SCHEMA_VERSION,
};
use tessera_protocol::ordered_map::OrderedMap;

use crate::error::{Result, StoreError};
use crate::messages::StoredMessage;
use crate::tx::ReadTx;
use crate::{blocks, conversations, evidences, summary, tasks, tool_calls, usage, Store};

/// Message extension: the message's id.
pub const MESSAGE_ID: &str = "message_id";
/// Message extension (off-branch messages): the parent's id.
pub const PARENT_ID: &str = "parent_id";
/// Message extension: place in the order written, when the tree has several branches.
pub const TREE_INDEX: &str = "tree_index";
/// Session extension: the messages off the active branch.
pub const BRANCH_MESSAGES: &str = "branch_messages";
/// Evidence extension: its attachment refs.
pub const ATTACHMENTS: &str = "attachments";
/// Meta extension: the conversation list's attributes.
pub const TESSERA_META: &str = "tessera";

fn exported(
    stored: &StoredMessage,
    with_parent: bool,
    tree_index: Option<usize>,
) -> SessionMessage {
    let mut message = stored.message.clone();
    message.extra.insert(MESSAGE_ID.into(), json!(stored.id));
    if with_parent {
        if let Some(parent) = &stored.parent_id {
            message.extra.insert(PARENT_ID.into(), json!(parent));
        }
    }
    if let Some(index) = tree_index {
        message.extra.insert(TREE_INDEX.into(), json!(index));
    }
    message
}

impl ReadTx<'_> {
    /// The conversation as a seed-004 document (see the module documentation).
    pub fn export_document(&self, conversation_id: &str) -> Result<ContextDocument> {
        self.export_document_through(conversation_id, None)
    }

    /// [`ReadTx::export_document`] with `session.messages` the branch that ends at `leaf`
    /// instead of the one shown (None: the one shown): the conversation as a run answering
    /// that message sees it, whatever branch the person looks at meanwhile.
    pub fn export_document_through(
        &self,
        conversation_id: &str,
        leaf: Option<&str>,
    ) -> Result<ContextDocument> {
        let conversation = conversations::require(self.conn, conversation_id)?;
        let extras = conversations::doc_extras(self.conn, conversation_id)?;
        let tree = self.message_tree(conversation_id)?;
        let active = match leaf {
            Some(leaf) => self.branch_to(conversation_id, leaf)?,
            None => self.active_branch(conversation_id)?,
        };
        if active.is_empty() {
            return Err(StoreError::EmptyConversation {
                conversation_id: conversation_id.to_owned(),
            });
        }
        let on_branch: HashSet<&str> = active.iter().map(|m| m.id.as_str()).collect();
        let branched = tree.len() > active.len();
        let positions: HashMap<&str, usize> = if branched {
            tree.iter()
                .enumerate()
                .map(|(i, m)| (m.id.as_str(), i))
                .collect()
        } else {
            HashMap::new()
        };
        let index_of = |id: &str| positions.get(id).copied();
        let messages = active
            .iter()
            .map(|m| exported(m, false, index_of(&m.id)))
            .collect();
        let off_branch: Vec<Value> = tree
            .iter()
            .enumerate()
            .filter(|(_, m)| !on_branch.contains(m.id.as_str()))
            .map(|(i, m)| serde_json::to_value(exported(m, true, Some(i))))
            .collect::<Result<_, _>>()
            .map_err(|source| StoreError::Encode {
                what: "branch messages",
                source,
            })?;

        let mut session_extra = extras.session;
        if !off_branch.is_empty() {
            session_extra.insert(BRANCH_MESSAGES.into(), Value::Array(off_branch));
        }
        let mut meta_extra = extras.meta;
        meta_extra.insert(
            TESSERA_META.into(),
            json!({
                "title": conversation.title,
                "pinned": conversation.pinned,
                "archived": conversation.archived,
            }),
        );
        let mut evidence_map = OrderedMap::new();
        for stored in evidences::list(self.conn, conversation_id)? {
            let mut evidence = stored.evidence;
            if !stored.attachments.is_empty() {
                let refs = serde_json::to_value(&stored.attachments).map_err(|source| {
                    StoreError::Encode {
                        what: "attachment refs",
                        source,
                    }
                })?;
                evidence.extra.insert(ATTACHMENTS.into(), refs);
            }
            evidence_map.insert(evidence.evidence_id.clone(), evidence);
        }
        Ok(ContextDocument {
            schema_version: SCHEMA_VERSION.to_owned(),
            meta: Some(ContextMeta {
                locale: conversation.locale,
                created_at: Some(conversation.created_at),
                updated_at: Some(conversation.updated_at),
                actor: conversation.actor,
                extra: meta_extra,
            }),
            session: Session {
                session_id: Some(conversation.id),
                id: None,
                messages,
                summary: summary::get(self.conn, conversation_id)?,
                task_state: TaskState {
                    todo_list: TodoList {
                        tasks: tasks::list(self.conn, conversation_id)?,
                        extra: extras.todo_list,
                    },
                    extra: extras.task_state,
                },
                tool_state: Some(ToolState {
                    tool_calls: Some(
                        tool_calls::list(self.conn, conversation_id)?
                            .into_iter()
                            .map(tool_calls::ToolCallRow::into_record)
                            .collect(),
                    ),
                    extra: extras.tool_state,
                }),
                model_usage: Some(usage::list(self.conn, conversation_id)?),
                extra: session_extra,
            },
            evidences: evidence_map,
            context_blocks: blocks::list(self.conn, conversation_id)?,
            extra: extras.doc,
        })
    }
}

impl Store {
    /// The conversation as a seed-004 document.
    pub fn export_document(&self, conversation_id: &str) -> Result<ContextDocument> {
        self.read(|r| r.export_document(conversation_id))
    }

    /// The seed-004 document along the branch that ends at `leaf`; see
    /// [`ReadTx::export_document_through`].
    pub fn export_document_through(
        &self,
        conversation_id: &str,
        leaf: Option<&str>,
    ) -> Result<ContextDocument> {
        self.read(|r| r.export_document_through(conversation_id, leaf))
    }

    /// The seed-004 document as JSON.
    pub fn export_document_json(&self, conversation_id: &str) -> Result<Value> {
        let document = self.export_document(conversation_id)?;
        serde_json::to_value(&document).map_err(|source| StoreError::Encode {
            what: "context document",
            source,
        })
    }
}
