//! Why an operation of the core was refused or failed: one typed error the shells translate
//! (the HTTP API to a status and a wire code, the CLI to a line and an exit code).

use tessera_engine::engine::EngineError;
use tessera_store::StoreError;
use thiserror::Error;

#[derive(Debug, Error)]
pub enum CoreError {
    #[error("no conversation with id {0}")]
    NoConversation(String),
    /// An import names a conversation that is stored: nothing was written; importing it as a
    /// copy keeps both.
    #[error("the conversation “{title}” ({id}) is already here; import it as a copy to keep both")]
    ConversationExists { id: String, title: String },
    /// What cannot be done while a run answers in the conversation.
    #[error(
        "run {run_id} is answering in conversation {conversation}: wait for it or cancel it \
         (POST /v1/runs/{run_id}/cancel) before {doing}"
    )]
    RunInProgress {
        conversation: String,
        run_id: String,
        doing: String,
    },
    #[error("run {0} is not running (it ended, or never existed)")]
    RunNotRunning(String),
    #[error("no model call of a run `{0}`")]
    NoModelCall(String),
    #[error("message {0} is neither the person's nor an answer to them")]
    NotAQuestion(String),
    #[error("conversation {0} has no message of the person's to answer again")]
    NothingToRegenerate(String),
    #[error(
        "a run answers in conversation {0} now; add the message once it has ended (nothing \
         was changed)"
    )]
    AddWhileRunning(String),
    /// A set the scheduler refuses (a cycle, an unknown or duplicate id, a bad condition):
    /// nothing was run.
    #[error("nothing was run: {0}")]
    Plan(#[from] tessera_scheduler::PlanError),
    /// The engine cannot take a run now (it is shutting down).
    #[error("{0}")]
    Unavailable(String),
    #[error("{0}")]
    Internal(String),
    #[error("conversation {conversation} has no form {form}")]
    NoForm { conversation: String, form: String },
    #[error(transparent)]
    Answer(#[from] tessera_engine::interactions::AnswerError),
    /// A CLIENT_CAPABILITIES message the engine cannot take (the field named first).
    #[error("content.{0}; nothing was announced")]
    BadCapabilities(String),
    #[error(
        "no call of conversation {conversation} waits for a client's result under {} (it was \
         answered already, timed out, or never asked)",
        unmatched.join(", ")
    )]
    NoWaitingCall {
        conversation: String,
        unmatched: Vec<String>,
    },
    #[error("no grant `{0}`")]
    NoGrant(String),
    #[error("MCP servers are not set up in this process")]
    McpUnavailable,
    #[error(transparent)]
    Attach(#[from] tessera_mcp::resources::AttachError),
    /// A document that is neither a context document nor a list of MCP-CP messages.
    #[error("{0} is neither a context document (an object with schema_version) nor a list of MCP-CP messages")]
    UnknownShape(String),
    #[error("cannot assemble: {0}")]
    Assemble(#[from] tessera_engine::assembler::AssembleError),
    #[error("cannot write JSON: {0}")]
    Json(#[from] serde_json::Error),
    /// A setting's value the person got wrong (`INVALID_VALUE`).
    #[error("{0}")]
    BadSetting(String),
    /// A request that is not what the operation takes: a key, a field, a JSON type
    /// (`BAD_REQUEST`).
    #[error("{0}")]
    WrongShape(String),
    #[error(transparent)]
    Providers(#[from] crate::providers::ProvidersError),
    #[error(transparent)]
    LocalModels(#[from] crate::local_models::LocalModelsError),
    #[error("no memory {0:?}")]
    NoMemory(String),
    #[error("no project {0:?}")]
    NoProject(String),
    #[error("project “{project}” does not know {path}")]
    NotInProject { project: String, path: String },
    #[error("the knowledge index cannot be used: {0}")]
    KnowledgeUnavailable(String),
    #[error(transparent)]
    Knowledge(#[from] tessera_knowledge::KnowledgeError),
    #[error(transparent)]
    Profiles(#[from] tessera_engine::profiles::ProfilesError),
    #[error(transparent)]
    Specialists(#[from] tessera_engine::specialists::SpecialistsError),
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error(transparent)]
    Engine(#[from] EngineError),
}

impl CoreError {
    /// The conversation the error is about, when it names one.
    pub fn conversation(&self) -> Option<&str> {
        match self {
            Self::NoConversation(id) => Some(id),
            Self::RunInProgress { conversation, .. }
            | Self::Engine(EngineError::NoMessage { conversation, .. }) => Some(conversation),
            Self::AddWhileRunning(id) => Some(id),
            Self::ConversationExists { id, .. } => Some(id),
            _ => None,
        }
    }
}

/// An error and its causes on one line, `error: cause: cause`, as a person reads it; a cause
/// the message already ends with is not repeated.
pub fn error_chain(err: &dyn std::error::Error) -> String {
    let mut text = err.to_string();
    let mut cause = err.source();
    while let Some(next) = cause {
        let said = next.to_string();
        if !text.ends_with(&said) {
            text.push_str(": ");
            text.push_str(&said);
        }
        cause = next.source();
    }
    text
}
