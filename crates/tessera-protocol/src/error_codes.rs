//! Every error code Tessera puts on the wire: an ERROR_RESPONSE's `content.code` (seed 000 §7.2),
//! a seed-003 response's `error.code`, and a `business/error` event's `code`. One enum, so no code
//! is spelled twice and the UI narrows on the same names (it is exported to TypeScript).

use serde::{Deserialize, Serialize};
use ts_rs::TS;

macro_rules! error_codes {
    ($( $(#[doc = $doc:literal])* $variant:ident => $wire:literal, )+) => {
        /// A wire error code. Where two codes name the same thing, both stay on the wire for
        /// clients that know one of them, and the variant's documentation says so.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, TS)]
        pub enum ErrorCode {
            $( $(#[doc = $doc])* #[serde(rename = $wire)] $variant, )+
        }

        impl ErrorCode {
            /// Every code, in the order declared.
            pub const ALL: &'static [ErrorCode] = &[$( ErrorCode::$variant, )+];

            /// The code as written on the wire.
            pub const fn as_str(self) -> &'static str {
                match self {
                    $( ErrorCode::$variant => $wire, )+
                }
            }

            /// The code written `wire`, when it is one of Tessera's.
            pub fn from_wire(wire: &str) -> Option<Self> {
                match wire {
                    $( $wire => Some(ErrorCode::$variant), )+
                    _ => None,
                }
            }
        }
    };
}

error_codes! {
    // The request itself.
    /// A request that is not what the route takes (a field, a query parameter, a value).
    BadRequest => "BAD_REQUEST",
    /// The body could not be read (413 when too large).
    BadBody => "BAD_BODY",
    InvalidJson => "INVALID_JSON",
    /// A JSON key written twice in one object.
    DuplicateKey => "DUPLICATE_KEY",
    /// An MCP-CP message that breaks the protocol's rules (`details.problems`).
    InvalidMessage => "INVALID_MESSAGE",
    InvalidMessageId => "INVALID_MESSAGE_ID",
    /// A seed-003 request object that breaks its rules.
    InvalidRequest => "INVALID_REQUEST",
    /// A context document or message list to import that breaks its rules.
    InvalidDocument => "INVALID_DOCUMENT",
    InvalidFormSubmission => "INVALID_FORM_SUBMISSION",
    InvalidCapabilities => "INVALID_CAPABILITIES",
    InvalidAttachment => "INVALID_ATTACHMENT",
    InvalidContextUpdate => "INVALID_CONTEXT_UPDATE",
    /// A tool call or instruction set the scheduler refuses (a cycle, an unknown reference).
    InvalidPlan => "INVALID_PLAN",
    InvalidProfiles => "INVALID_PROFILES",
    InvalidSpecialists => "INVALID_SPECIALISTS",
    InvalidProvider => "INVALID_PROVIDER",
    InvalidMcpConfig => "INVALID_MCP_CONFIG",
    /// A project's name, instructions or folders that cannot be kept (empty, too long, taken).
    InvalidProject => "INVALID_PROJECT",
    /// A folder or file to add to a project's knowledge that is not absolute or not there.
    InvalidKnowledgeSource => "INVALID_KNOWLEDGE_SOURCE",
    /// One setting's value (`PUT /v1/settings/{key}`).
    InvalidValue => "INVALID_VALUE",
    /// A form's values, one entry per field in `details.fields`.
    InvalidValues => "INVALID_VALUES",
    BadAnswer => "BAD_ANSWER",
    BadLastEventId => "BAD_LAST_EVENT_ID",
    /// An attachment is named by the hex SHA-256 of its bytes.
    BadSha256 => "BAD_SHA256",
    UnsupportedMessageType => "UNSUPPORTED_MESSAGE_TYPE",
    NoUserInput => "NO_USER_INPUT",
    /// The person's message alone passes the model's context window (the message names the
    /// tokens it needs and the window); nothing was stored or run.
    MessageTooLong => "MESSAGE_TOO_LONG",
    /// A secret (an API key) sent where settings are kept.
    SecretRefused => "SECRET_REFUSED",
    // The door.
    /// No or a wrong token on `/v1` (`UNAUTHORIZED` says the same on `/api`).
    AuthFailed => "AUTH_FAILED",
    /// No or a wrong token on `/api` (the same as `AUTH_FAILED`, kept for clients of `/api`).
    Unauthorized => "UNAUTHORIZED",
    BadOrigin => "BAD_ORIGIN",
    BadHost => "BAD_HOST",
    // What the request names.
    NotFound => "NOT_FOUND",
    /// No attachment of that hash (a `NOT_FOUND` of attachments, kept for their clients).
    AttachmentNotFound => "ATTACHMENT_NOT_FOUND",
    UnknownProvider => "UNKNOWN_PROVIDER",
    AlreadyExists => "ALREADY_EXISTS",
    MessageIdInUse => "MESSAGE_ID_IN_USE",
    NoWaitingCall => "NO_WAITING_CALL",
    // The state of things.
    AlreadyRunning => "ALREADY_RUNNING",
    RunInProgress => "RUN_IN_PROGRESS",
    RunNotRunning => "RUN_NOT_RUNNING",
    RunCancelled => "RUN_CANCELLED",
    NothingToRegenerate => "NOTHING_TO_REGENERATE",
    EmptyConversation => "EMPTY_CONVERSATION",
    EmptyResource => "EMPTY_RESOURCE",
    AlreadyAnswered => "ALREADY_ANSWERED",
    InteractionClosed => "INTERACTION_CLOSED",
    VersionConflict => "VERSION_CONFLICT",
    McpServersExist => "MCP_SERVERS_EXIST",
    ProviderUnreadable => "PROVIDER_UNREADABLE",
    MissingKey => "MISSING_KEY",
    // Models and providers.
    NoModel => "NO_MODEL",
    ModelUnavailable => "MODEL_UNAVAILABLE",
    /// A provider failed the run (its own code is in the message).
    ModelError => "MODEL_ERROR",
    /// A provider failed a settings request.
    ProviderError => "PROVIDER_ERROR",
    /// The person's spending limit stopped the run (seed 002 §9 `business/error`).
    SpendingLimitReached => "SPENDING_LIMIT_REACHED",
    /// The provider account's quota is used up (seed 002 §9 `business/error`).
    QuotaExceeded => "QUOTA_EXCEEDED",
    // What is missing or broken here.
    Unavailable => "UNAVAILABLE",
    /// The desktop app could not open its data folder.
    EngineUnavailable => "ENGINE_UNAVAILABLE",
    ShuttingDown => "SHUTTING_DOWN",
    KeyringUnavailable => "KEYRING_UNAVAILABLE",
    KeyFileError => "KEY_FILE_ERROR",
    ContextDatabaseUnavailable => "CONTEXT_DATABASE_UNAVAILABLE",
    McpUnavailable => "MCP_UNAVAILABLE",
    /// The knowledge index cannot be opened or read.
    KnowledgeUnavailable => "KNOWLEDGE_UNAVAILABLE",
    McpServerUnavailable => "MCP_SERVER_UNAVAILABLE",
    McpServerError => "MCP_SERVER_ERROR",
    ToolsUnavailable => "TOOLS_UNAVAILABLE",
    StoreError => "STORE_ERROR",
    RunError => "RUN_ERROR",
    Internal => "INTERNAL",
}

impl std::fmt::Display for ErrorCode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_code_is_written_once_and_reads_back() {
        let mut seen = std::collections::HashSet::new();
        for code in ErrorCode::ALL {
            assert!(seen.insert(code.as_str()), "{code} twice");
            assert_eq!(ErrorCode::from_wire(code.as_str()), Some(*code));
            assert_eq!(
                serde_json::to_value(code).ok(),
                Some(serde_json::Value::String(code.as_str().to_owned()))
            );
        }
    }
}
