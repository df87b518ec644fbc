//! What the engine's operations fail with.

use tessera_store::StoreError;
use thiserror::Error;

use crate::turn::TurnError;

#[derive(Debug, Error)]
pub enum EngineError {
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error("conversation {0} does not exist")]
    NoConversation(String),
    #[error("the engine is shutting down")]
    ShuttingDown,
    #[error("run {0} is already running")]
    AlreadyRunning(String),
    #[error(transparent)]
    Turn(#[from] TurnError),
    #[error("no model is set up: add a provider (and its key) in the settings, or start with --provider/--model")]
    NoModel,
    #[error("conversation {conversation} has no message {message}")]
    NoMessage {
        conversation: String,
        message: String,
    },
    #[error("message {0} is not the person's: only what the person said can be answered again")]
    NotUserMessage(String),
    /// A client's `messageId` already names another message of the conversation.
    #[error(
        "conversation {conversation} already has a message {message} with other content: a \
         messageId names one message (send this one under a new id)"
    )]
    MessageIdInUse {
        conversation: String,
        message: String,
    },
    #[error(transparent)]
    Secrets(tessera_secrets::SecretError),
    /// An attachment of the message cannot be read or is not allowed.
    #[error(transparent)]
    Attachment(crate::attachments::AttachmentError),
    /// The conversation's own model (picked now when `requested`, else earlier) cannot be used.
    #[error("model {model} of provider {provider} cannot be used: {reason}")]
    ModelUnavailable {
        provider: String,
        model: String,
        reason: Box<ModelUnavailableReason>,
        requested: bool,
    },
}

/// Why a conversation's own model cannot be used.
#[derive(Debug, Error)]
pub enum ModelUnavailableReason {
    #[error("a provider and a model must both be named")]
    Unnamed,
    #[error("there is no provider named {0} (it may have been removed)")]
    NoProvider(String),
    #[error(transparent)]
    Lookup(#[from] crate::provider_settings::ProviderLookupError),
    #[error(transparent)]
    Provider(#[from] tessera_providers::ProviderError),
    #[error("no configured provider has a model named `{wanted}` (known: {})", known_models(.known))]
    NoSuchModel { wanted: String, known: Vec<String> },
}

fn known_models(known: &[String]) -> String {
    if known.is_empty() {
        "none".to_owned()
    } else {
        known.join(", ")
    }
}
