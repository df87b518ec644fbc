//! Every error code Tessera puts on the wire: an ERROR_RESPONSE's `content.code` (seed 000 §7.2),
//! a seed-003 response's `error.code`, and a `business/error` event's `code`. One enum, so no code
//! is spelled twice and the UI narrows on the same names (it is exported to TypeScript). Each
//! code carries the HTTP status its answers have.

use serde::{Deserialize, Serialize};
use ts_rs::TS;

macro_rules! error_codes {
    ($( $(#[doc = $doc:literal])* $variant:ident => $wire:literal ($status:literal), )+) => {
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

            /// The HTTP status an answer with this code has: one per code, so a client reading
            /// either knows the other. (The few answers that differ say why where they are
            /// made: `ApiError::with_status`.)
            pub const fn http_status(self) -> u16 {
                match self {
                    $( ErrorCode::$variant => $status, )+
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
    BadRequest => "BAD_REQUEST" (400),
    /// The body could not be read (413 when too large).
    BadBody => "BAD_BODY" (400),
    InvalidJson => "INVALID_JSON" (400),
    /// A JSON key written twice in one object.
    DuplicateKey => "DUPLICATE_KEY" (400),
    /// An MCP-CP message that breaks the protocol's rules (`details.problems`).
    InvalidMessage => "INVALID_MESSAGE" (400),
    InvalidMessageId => "INVALID_MESSAGE_ID" (400),
    /// A seed-003 request object that breaks its rules.
    InvalidRequest => "INVALID_REQUEST" (422),
    /// A context document or message list to import that breaks its rules.
    InvalidDocument => "INVALID_DOCUMENT" (422),
    InvalidFormSubmission => "INVALID_FORM_SUBMISSION" (400),
    InvalidCapabilities => "INVALID_CAPABILITIES" (422),
    InvalidAttachment => "INVALID_ATTACHMENT" (400),
    InvalidContextUpdate => "INVALID_CONTEXT_UPDATE" (422),
    /// A tool call or instruction set the scheduler refuses (a cycle, an unknown reference).
    InvalidPlan => "INVALID_PLAN" (422),
    InvalidProfiles => "INVALID_PROFILES" (400),
    InvalidSpecialists => "INVALID_SPECIALISTS" (400),
    InvalidProvider => "INVALID_PROVIDER" (400),
    InvalidMcpConfig => "INVALID_MCP_CONFIG" (422),
    /// A project's name, instructions or folders that cannot be kept (empty, too long, taken).
    InvalidProject => "INVALID_PROJECT" (400),
    /// A folder or file to add to a project's knowledge that is not absolute or not there.
    InvalidKnowledgeSource => "INVALID_KNOWLEDGE_SOURCE" (400),
    /// One setting's value (`PUT /v1/settings/{key}`).
    InvalidValue => "INVALID_VALUE" (400),
    /// A form's values, one entry per field in `details.fields`.
    InvalidValues => "INVALID_VALUES" (422),
    BadAnswer => "BAD_ANSWER" (400),
    BadLastEventId => "BAD_LAST_EVENT_ID" (400),
    /// An attachment is named by the hex SHA-256 of its bytes.
    BadSha256 => "BAD_SHA256" (400),
    UnsupportedMessageType => "UNSUPPORTED_MESSAGE_TYPE" (501),
    NoUserInput => "NO_USER_INPUT" (422),
    /// The person's message alone passes the model's context window (the message names the
    /// tokens it needs and the window); nothing was stored or run.
    MessageTooLong => "MESSAGE_TOO_LONG" (400),
    /// A secret (an API key) sent where settings are kept.
    SecretRefused => "SECRET_REFUSED" (400),
    // The door.
    /// No or a wrong token on `/v1` (`UNAUTHORIZED` says the same on `/api`).
    AuthFailed => "AUTH_FAILED" (401),
    /// No or a wrong token on `/api` (the same as `AUTH_FAILED`, kept for clients of `/api`).
    Unauthorized => "UNAUTHORIZED" (401),
    BadOrigin => "BAD_ORIGIN" (403),
    BadHost => "BAD_HOST" (421),
    // What the request names.
    NotFound => "NOT_FOUND" (404),
    /// No attachment of that hash (a `NOT_FOUND` of attachments, kept for their clients).
    AttachmentNotFound => "ATTACHMENT_NOT_FOUND" (404),
    UnknownProvider => "UNKNOWN_PROVIDER" (404),
    AlreadyExists => "ALREADY_EXISTS" (409),
    MessageIdInUse => "MESSAGE_ID_IN_USE" (409),
    NoWaitingCall => "NO_WAITING_CALL" (404),
    // The state of things.
    AlreadyRunning => "ALREADY_RUNNING" (409),
    RunInProgress => "RUN_IN_PROGRESS" (409),
    RunNotRunning => "RUN_NOT_RUNNING" (404),
    RunCancelled => "RUN_CANCELLED" (409),
    NothingToRegenerate => "NOTHING_TO_REGENERATE" (409),
    EmptyConversation => "EMPTY_CONVERSATION" (409),
    EmptyResource => "EMPTY_RESOURCE" (422),
    AlreadyAnswered => "ALREADY_ANSWERED" (409),
    InteractionClosed => "INTERACTION_CLOSED" (409),
    VersionConflict => "VERSION_CONFLICT" (409),
    McpServersExist => "MCP_SERVERS_EXIST" (409),
    ProviderUnreadable => "PROVIDER_UNREADABLE" (409),
    MissingKey => "MISSING_KEY" (400),
    // Models and providers.
    NoModel => "NO_MODEL" (503),
    ModelUnavailable => "MODEL_UNAVAILABLE" (409),
    /// A provider failed the run (its own code is in the message).
    ModelError => "MODEL_ERROR" (502),
    /// A provider failed a settings request.
    ProviderError => "PROVIDER_ERROR" (502),
    /// The person's spending limit stopped the run (seed 002 §9 `business/error`).
    SpendingLimitReached => "SPENDING_LIMIT_REACHED" (402),
    /// The provider account's quota is used up (seed 002 §9 `business/error`).
    QuotaExceeded => "QUOTA_EXCEEDED" (402),
    // What is missing or broken here.
    Unavailable => "UNAVAILABLE" (503),
    /// The desktop app could not open its data folder.
    EngineUnavailable => "ENGINE_UNAVAILABLE" (503),
    ShuttingDown => "SHUTTING_DOWN" (503),
    KeyringUnavailable => "KEYRING_UNAVAILABLE" (503),
    KeyFileError => "KEY_FILE_ERROR" (409),
    ContextDatabaseUnavailable => "CONTEXT_DATABASE_UNAVAILABLE" (503),
    McpUnavailable => "MCP_UNAVAILABLE" (503),
    /// The knowledge index cannot be opened or read.
    KnowledgeUnavailable => "KNOWLEDGE_UNAVAILABLE" (503),
    McpServerUnavailable => "MCP_SERVER_UNAVAILABLE" (502),
    McpServerError => "MCP_SERVER_ERROR" (502),
    ToolsUnavailable => "TOOLS_UNAVAILABLE" (500),
    StoreError => "STORE_ERROR" (500),
    RunError => "RUN_ERROR" (500),
    Internal => "INTERNAL" (500),
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
    fn every_code_answers_with_an_error_status() {
        for code in ErrorCode::ALL {
            assert!(
                (400..600).contains(&code.http_status()),
                "{code}: {}",
                code.http_status()
            );
        }
        assert_eq!(ErrorCode::NotFound.http_status(), 404);
        assert_eq!(ErrorCode::NoModel.http_status(), 503);
        assert_eq!(ErrorCode::SpendingLimitReached.http_status(), 402);
    }

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
