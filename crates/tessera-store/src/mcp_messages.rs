//! A conversation as a list of MCP-CP messages (seed 000): the active branch, one message
//! each, typed by role (user → USER_INPUT, assistant → MODEL_RESPONSE, system →
//! SYSTEM_MESSAGE, tool → TOOL_CALL_RESPONSE); refs and the parent go to `metadata`. Importing
//! such a list creates a conversation with one branch.

use serde_json::{json, Map, Value};
use tessera_protocol::context_doc::{Author, AuthorKind, SessionMessage};
use tessera_protocol::mcp_cp::{Message, MessageContent, SenderType};
use tessera_protocol::request::Role;
use tessera_protocol::wire::JsonObject;
use tessera_protocol::{validate, DocumentKind, Problem};

use crate::conversations::{self, Conversation, DocExtras};
use crate::error::{Result, StoreError};
use crate::import::ImportReport;
use crate::messages::{self, StoredMessage};
use crate::tx::ReadTx;
use crate::Store;

fn sender_type(message: &SessionMessage) -> &'static str {
    match message.author.as_ref().map(|a| a.kind) {
        Some(AuthorKind::User) => "USER",
        Some(AuthorKind::Agent) => "MODEL",
        Some(AuthorKind::Tool) => "TOOL",
        Some(AuthorKind::System) => "SYSTEM",
        None => match message.role {
            Role::User => "USER",
            Role::Assistant => "MODEL",
            Role::Tool => "TOOL",
            _ => "SYSTEM",
        },
    }
}

pub(crate) fn to_mcp(stored: &StoredMessage, fallback_time: &str) -> Result<Message> {
    let m = &stored.message;
    let (message_type, content) = match &m.role {
        Role::User => ("USER_INPUT", json!({ "text": m.content })),
        Role::Assistant => (
            "MODEL_RESPONSE",
            json!({ "text": m.content, "finishReason": "STOP" }),
        ),
        Role::System => (
            "SYSTEM_MESSAGE",
            json!({ "action": "INFO", "text": m.content }),
        ),
        Role::Tool => {
            let call_id = m
                .extra
                .get("tool_call_id")
                .and_then(Value::as_str)
                .unwrap_or(&stored.id);
            (
                "TOOL_CALL_RESPONSE",
                json!({ "results": [{ "callId": call_id, "status": "SUCCESS", "result": m.content }] }),
            )
        }
        Role::Other(_) => (
            "SYSTEM_MESSAGE",
            json!({ "action": "INFO", "text": m.content }),
        ),
    };
    let mut metadata = Map::new();
    metadata.insert("role".into(), json!(m.role.as_str()));
    if let Some(parent) = &stored.parent_id {
        metadata.insert("parentId".into(), json!(parent));
    }
    if let Some(refs) = &m.refs {
        metadata.insert("refs".into(), json!(refs));
    }
    let sender_id = m
        .author
        .as_ref()
        .and_then(|a| a.id.clone())
        .unwrap_or_else(|| m.role.as_str().to_owned());
    let value = json!({
        "messageId": stored.id,
        "contextId": stored.conversation_id,
        "timestamp": m.at.as_ref().map_or(fallback_time, |at| at.as_str()),
        "type": message_type,
        "sender": { "id": sender_id, "type": sender_type(m) },
        "content": content,
        "metadata": metadata,
    });
    serde_json::from_value(value).map_err(|e| StoreError::Corrupt {
        what: "message as MCP-CP",
        message: e.to_string(),
    })
}

fn from_mcp(message: &Message) -> SessionMessage {
    let text_of = |value: &Value| match value {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    };
    let (role, content) = match &message.content {
        MessageContent::UserInput(c) => (Role::User, c.text.clone()),
        MessageContent::ModelResponse(c) => (Role::Assistant, c.text.clone()),
        MessageContent::SystemMessage(c) => (Role::System, c.text.clone()),
        MessageContent::ToolCallResponse(c) => {
            let content = match c.results.as_slice() {
                [single] => single.result.as_ref().map(text_of).unwrap_or_default(),
                results => serde_json::to_string(results).unwrap_or_default(),
            };
            (Role::Tool, content)
        }
        _ => {
            let role = match message.sender.sender_type {
                SenderType::User => Role::User,
                SenderType::Model => Role::Assistant,
                SenderType::Tool => Role::Tool,
                SenderType::System => Role::System,
            };
            let body = serde_json::to_value(message)
                .ok()
                .and_then(|v| v.get("content").cloned());
            (role, body.as_ref().map(text_of).unwrap_or_default())
        }
    };
    let kind = match message.sender.sender_type {
        SenderType::User => AuthorKind::User,
        SenderType::Model => AuthorKind::Agent,
        SenderType::Tool => AuthorKind::Tool,
        SenderType::System => AuthorKind::System,
    };
    let mut extra = JsonObject::new();
    if !matches!(
        message.content,
        MessageContent::UserInput(_)
            | MessageContent::ModelResponse(_)
            | MessageContent::SystemMessage(_)
            | MessageContent::ToolCallResponse(_)
    ) {
        extra.insert("mcp_type".into(), json!(message.message_type().as_str()));
    }
    SessionMessage {
        role,
        content,
        author: Some(Author {
            kind,
            id: Some(message.sender.id.clone()),
            extra: JsonObject::new(),
        }),
        at: Some(message.timestamp.clone()),
        refs: None,
        extra,
    }
}

impl ReadTx<'_> {
    /// The active branch as MCP-CP messages.
    pub fn export_mcp_messages(&self, conversation_id: &str) -> Result<Vec<Message>> {
        let conversation = conversations::require(self.conn, conversation_id)?;
        self.active_branch(conversation_id)?
            .iter()
            .map(|m| to_mcp(m, conversation.created_at.as_str()))
            .collect()
    }
}

impl Store {
    /// The active branch as MCP-CP messages.
    pub fn export_mcp_messages(&self, conversation_id: &str) -> Result<Vec<Message>> {
        self.read(|r| r.export_mcp_messages(conversation_id))
    }

    /// Imports MCP-CP messages (all of one `contextId`, which becomes the conversation id) as
    /// a new conversation with one branch. Every message is validated first; nothing is
    /// written if any is wrong, and the error lists every problem (paths start with `[i]`).
    pub fn import_mcp_messages(&self, list: &[Value]) -> Result<ImportReport> {
        let mut problems = Vec::new();
        let mut typed = Vec::new();
        for (i, value) in list.iter().enumerate() {
            let found = validate(DocumentKind::Message, value);
            if found.is_empty() {
                match serde_json::from_value::<Message>(value.clone()) {
                    Ok(message) => typed.push((i, message)),
                    Err(e) => problems.push(Problem {
                        path: format!("[{i}]"),
                        message: e.to_string(),
                    }),
                }
            } else {
                problems.extend(found.into_iter().map(|p| Problem {
                    path: if p.path == "$" {
                        format!("[{i}]")
                    } else {
                        format!("[{i}].{}", p.path)
                    },
                    message: p.message,
                }));
            }
        }
        let Some((_, first)) = typed.first() else {
            if problems.is_empty() {
                problems.push(Problem {
                    path: "$".into(),
                    message: "no messages".into(),
                });
            }
            return Err(StoreError::InvalidDocument { problems });
        };
        let conversation_id = first.context_id.clone();
        let created_at = first.timestamp.clone();
        let mut seen = std::collections::HashSet::new();
        for (i, message) in &typed {
            if !seen.insert(message.message_id.as_str()) {
                problems.push(Problem {
                    path: format!("[{i}].messageId"),
                    message: format!("message id {:?} is used twice", message.message_id),
                });
            }
            if message.context_id != conversation_id {
                problems.push(Problem {
                    path: format!("[{i}].contextId"),
                    message: format!("expected {conversation_id:?} like the first message"),
                });
            }
        }
        if !problems.is_empty() {
            return Err(StoreError::InvalidDocument { problems });
        }
        let mut stored = Vec::with_capacity(typed.len());
        let mut parent: Option<String> = None;
        for (depth, (_, message)) in typed.iter().enumerate() {
            stored.push(StoredMessage {
                id: message.message_id.clone(),
                conversation_id: conversation_id.clone(),
                parent_id: parent.clone(),
                depth: depth as u64,
                message: from_mcp(message),
            });
            parent = Some(message.message_id.clone());
        }
        self.write(move |tx| {
            if conversations::get(tx.conn, &conversation_id)?.is_some() {
                return Err(StoreError::InvalidDocument {
                    problems: vec![Problem {
                        path: "[0].contextId".into(),
                        message: format!("a conversation {conversation_id:?} already exists"),
                    }],
                });
            }
            let conversation = Conversation {
                id: conversation_id.clone(),
                title: String::new(),
                created_at: created_at.clone(),
                updated_at: stored
                    .last()
                    .and_then(|m| m.message.at.clone())
                    .unwrap_or(created_at),
                pinned: false,
                archived: false,
                active_leaf_id: None,
                locale: None,
                actor: None,
                project_id: None,
            };
            conversations::insert(tx.conn, &conversation, &DocExtras::default())?;
            for message in &stored {
                messages::insert(tx, message)?;
            }
            conversations::set_times(
                tx.conn,
                &Conversation {
                    active_leaf_id: parent,
                    ..conversation
                },
            )?;
            Ok(ImportReport {
                conversation_id,
                messages: stored.len(),
                evidences: 0,
            })
        })
    }
}
