//! The store's errors: one typed enum, so callers can tell a conflict from a missing row from a
//! broken database without parsing messages.

use std::path::PathBuf;

use tessera_protocol::Problem;

use crate::lock::LockError;
use crate::selector::SelectorError;

/// A shorthand for the store's results.
pub type Result<T, E = StoreError> = std::result::Result<T, E>;

/// What kind of row a [`StoreError::NotFound`] or [`StoreError::AlreadyExists`] is about.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Entity {
    Conversation,
    Message,
    Evidence,
    Task,
    ToolCall,
    ModelUsage,
    ContextBlock,
    Attachment,
    ModelTurn,
    Interaction,
    ConsentGrant,
    ProviderSettings,
    Context,
    Project,
    ProjectSource,
    Memory,
}

impl std::fmt::Display for Entity {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Entity::Conversation => "conversation",
            Entity::Message => "message",
            Entity::Evidence => "evidence",
            Entity::Task => "task",
            Entity::ToolCall => "tool call",
            Entity::ModelUsage => "model usage record",
            Entity::ContextBlock => "context block",
            Entity::Attachment => "attachment",
            Entity::ModelTurn => "model turn",
            Entity::Interaction => "interaction",
            Entity::ConsentGrant => "consent grant",
            Entity::ProviderSettings => "provider settings",
            Entity::Context => "context",
            Entity::Project => "project",
            Entity::ProjectSource => "folder or file of the project",
            Entity::Memory => "memory",
        })
    }
}

#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error(transparent)]
    Lock(#[from] LockError),

    #[error("{action} {path}: {source}")]
    Io {
        action: &'static str,
        path: PathBuf,
        source: std::io::Error,
    },

    #[error("database error: {0}")]
    Sqlite(#[from] rusqlite::Error),

    #[error(
        "the database {path} was written by a newer Tessera (schema version {found}; this \
         version knows up to {supported}); it was left untouched: update Tessera to open it"
    )]
    NewerDatabase {
        path: PathBuf,
        found: i64,
        supported: i64,
    },

    #[error("{path} is not a Tessera database ({reason}); it was left untouched")]
    NotOurDatabase { path: PathBuf, reason: String },

    #[error("cannot back up {path} before migrating it: {source}")]
    Backup {
        path: PathBuf,
        source: rusqlite::Error,
    },

    #[error("migration to schema version {version} failed: {source}")]
    Migration {
        version: i64,
        source: Box<StoreError>,
    },

    #[error("no {entity} {id:?}{}", scope_text(conversation_id))]
    NotFound {
        entity: Entity,
        conversation_id: Option<String>,
        id: String,
    },

    #[error("{entity} {id:?} already exists{}", scope_text(conversation_id))]
    AlreadyExists {
        entity: Entity,
        conversation_id: Option<String>,
        id: String,
    },

    #[error("ref to evidence {evidence_id:?}: {source}")]
    InvalidRef {
        evidence_id: String,
        source: SelectorError,
    },

    #[error("message {message_id:?} cannot have parent {parent_id:?}: {reason}")]
    InvalidParent {
        message_id: String,
        parent_id: String,
        reason: &'static str,
    },

    #[error("event for conversation {found:?} appended to conversation {expected:?}")]
    EventConversationMismatch { expected: String, found: String },

    #[error(
        "context {context_id:?} changed first: the update expected version {expected}, the \
         current version is {current}; nothing was changed"
    )]
    VersionConflict {
        context_id: String,
        expected: u64,
        current: u64,
    },

    #[error("state path {path:?}: {reason}")]
    StatePath { path: String, reason: String },

    #[error("invalid context update: {0}")]
    InvalidContextUpdate(String),

    #[error(
        "provider settings may not hold secrets: {path:?} looks like one (keep API keys and \
         tokens in the OS keyring)"
    )]
    SecretInSettings { path: String },

    #[error("interaction {id:?} is {state}, not pending")]
    InteractionNotPending { id: String, state: &'static str },

    #[error("consent scope {scope} {reason}")]
    InvalidConsentScope {
        scope: &'static str,
        reason: &'static str,
    },

    #[error("the project's {field} {reason}")]
    InvalidProject { field: &'static str, reason: String },

    #[error("the memory cannot be kept: {0}")]
    InvalidMemory(String),

    #[error("{0:?} is not a SHA-256 in hex")]
    InvalidSha256(String),

    #[error("{0:?} is not an RFC 3339 timestamp")]
    InvalidTimestamp(String),

    #[error("the document is not valid: {}", join(problems))]
    InvalidDocument { problems: Vec<Problem> },

    #[error(
        "conversation {conversation_id:?} has no messages; a context document needs at least one"
    )]
    EmptyConversation { conversation_id: String },

    #[error("{what} {value} does not fit in the database (at most {})", i64::MAX)]
    OutOfRange { what: &'static str, value: u64 },

    #[error("stored {what} could not be read: {message}")]
    Corrupt { what: &'static str, message: String },

    #[error("could not encode {what}: {source}")]
    Encode {
        what: &'static str,
        source: serde_json::Error,
    },

    #[error("the write was committed by no one: {0}")]
    CommitFailed(String),

    #[error("the write was abandoned (the writer stopped or the write panicked)")]
    WriteAbandoned,
}

fn scope_text(conversation_id: &Option<String>) -> String {
    match conversation_id {
        Some(id) => format!(" in conversation {id:?}"),
        None => String::new(),
    }
}

fn join(problems: &[Problem]) -> String {
    problems
        .iter()
        .map(Problem::to_string)
        .collect::<Vec<_>>()
        .join("; ")
}

impl StoreError {
    pub(crate) fn not_found(entity: Entity, conversation_id: &str, id: &str) -> Self {
        StoreError::NotFound {
            entity,
            conversation_id: Some(conversation_id.to_owned()),
            id: id.to_owned(),
        }
    }

    pub(crate) fn exists(entity: Entity, conversation_id: &str, id: &str) -> Self {
        StoreError::AlreadyExists {
            entity,
            conversation_id: Some(conversation_id.to_owned()),
            id: id.to_owned(),
        }
    }

    pub(crate) fn io(
        action: &'static str,
        path: impl Into<PathBuf>,
    ) -> impl FnOnce(std::io::Error) -> Self {
        let path = path.into();
        move |source| StoreError::Io {
            action,
            path,
            source,
        }
    }

    /// The problems of an invalid import, empty for any other error.
    pub fn problems(&self) -> &[Problem] {
        match self {
            StoreError::InvalidDocument { problems } => problems,
            _ => &[],
        }
    }
}
