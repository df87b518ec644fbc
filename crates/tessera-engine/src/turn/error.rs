//! What stops a turn from being recorded, and the `system/error` codes a run ends with.

pub use tessera_protocol::failure_codes::RunErrorCode;
use tessera_store::StoreError;
use thiserror::Error;

/// What stops a turn from being recorded at all (a provider failure is not one: it is part of
/// the outcome).
#[derive(Debug, Error)]
pub enum TurnError {
    #[error("the context database failed: {0}")]
    Store(#[from] StoreError),
    #[error("conversation {0} does not exist")]
    NoConversation(String),
    #[error("the conversation has no message {0} of the person's to answer")]
    NoUserMessage(String),
    #[error("run {0} cannot resume: {1}")]
    CannotResume(String, String),
    #[error("the conversation cannot be put in the model's window: {0}")]
    Context(String),
    /// The person's message alone passes the model's window
    /// ([`fits::check_message_fits`](super::fits::check_message_fits)).
    #[error(
        "the message needs ~{needed} tokens; the model's window is {window} tokens, {reserved} of \
         them kept for the answer (model {model}): shorten the message, or pick a model whose \
         window holds it"
    )]
    MessageTooLong {
        needed: u64,
        window: u64,
        reserved: u64,
        model: String,
    },
    #[error("internal error: {0}")]
    Internal(String),
}

impl TurnError {
    /// The `system/error` code a run that ended on this error carries.
    pub fn code(&self) -> RunErrorCode {
        match self {
            TurnError::Store(_) => RunErrorCode::StoreError,
            TurnError::NoConversation(_) | TurnError::NoUserMessage(_) => RunErrorCode::NotFound,
            TurnError::CannotResume(..) => RunErrorCode::CannotResume,
            TurnError::Context(_) => RunErrorCode::ContextWindowExceeded,
            TurnError::MessageTooLong { .. } => RunErrorCode::MessageTooLong,
            TurnError::Internal(_) => RunErrorCode::Internal,
        }
    }
}

/// The `system/error` code of a run whose message alone passes the model's window.
pub const MESSAGE_TOO_LONG: &str = RunErrorCode::MessageTooLong.as_str();
/// The `system/error` code of a run whose prompt's parts that are always sent (the message,
/// the system prompt, the tools) pass the model's window together.
pub const CONTEXT_WINDOW_EXCEEDED: &str = RunErrorCode::ContextWindowExceeded.as_str();
