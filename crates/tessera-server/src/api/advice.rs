//! What a client can do about an error (seed 000 §7.2 `recoverable`, `suggestedAction`), from
//! what the error is, not from its HTTP status class: a 503 for a missing model is fixed by
//! setting one up, a 409 for a run in progress by waiting, a 500 from the store by nothing the
//! client can send.

use axum::http::StatusCode;
use tessera_protocol::error_codes::ErrorCode;

/// The remedy of an error code.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Remedy {
    /// A passing condition (the provider, an MCP server, the keyring): send again later.
    RetryLater,
    /// The request itself is wrong: change it as the message says.
    FixRequest,
    /// The id or name given does not exist.
    CheckTheId,
    /// Something else is under way in the conversation: wait for it or cancel it.
    WaitForRun,
    /// The state changed since it was read: read it again, then send.
    ReadAgain,
    /// The bearer token is missing or wrong.
    Reauthenticate,
    /// A model, provider or key must be set up first.
    SetUp,
    /// The person's spending limit stops paid calls.
    RaiseLimit,
    /// The provider account has no quota left.
    TopUp,
    /// The request reached the server under another name.
    UseTheRightAddress,
    /// Nothing the client can send fixes it (a store fault, a refused origin).
    None,
}

impl Remedy {
    /// The remedy of `code` (answered with `status`).
    pub fn of(code: ErrorCode, status: StatusCode) -> Self {
        match code {
            ErrorCode::Unavailable
            | ErrorCode::ModelError
            | ErrorCode::ProviderError
            | ErrorCode::McpServerUnavailable
            | ErrorCode::McpServerError
            | ErrorCode::McpUnavailable
            | ErrorCode::ContextDatabaseUnavailable
            | ErrorCode::KeyringUnavailable
            | ErrorCode::ToolsUnavailable
            | ErrorCode::ShuttingDown => Self::RetryLater,
            ErrorCode::AlreadyRunning | ErrorCode::RunInProgress => Self::WaitForRun,
            ErrorCode::VersionConflict
            | ErrorCode::AlreadyAnswered
            | ErrorCode::InteractionClosed
            | ErrorCode::RunNotRunning
            | ErrorCode::NoWaitingCall
            | ErrorCode::AlreadyExists
            | ErrorCode::MessageIdInUse => Self::ReadAgain,
            ErrorCode::AuthFailed | ErrorCode::Unauthorized => Self::Reauthenticate,
            ErrorCode::NoModel
            | ErrorCode::MissingKey
            | ErrorCode::ModelUnavailable
            | ErrorCode::UnknownProvider
            | ErrorCode::ProviderUnreadable => Self::SetUp,
            ErrorCode::SpendingLimitReached => Self::RaiseLimit,
            ErrorCode::QuotaExceeded => Self::TopUp,
            ErrorCode::BadHost => Self::UseTheRightAddress,
            ErrorCode::BadOrigin
            | ErrorCode::StoreError
            | ErrorCode::Internal
            | ErrorCode::RunError
            | ErrorCode::KeyFileError => Self::None,
            ErrorCode::NotFound
            | ErrorCode::AttachmentNotFound
            | ErrorCode::NothingToRegenerate => Self::CheckTheId,
            _ if status.is_client_error() => Self::FixRequest,
            _ => Self::None,
        }
    }

    /// Whether sending again (after the suggested action) can succeed.
    pub fn recoverable(self) -> bool {
        self != Self::None
    }

    /// What to do, in a sentence.
    pub fn suggested_action(self) -> &'static str {
        match self {
            Self::RetryLater => "Retry later: the condition is expected to pass.",
            Self::FixRequest => "Fix the request as the message says, then send it again.",
            Self::CheckTheId => {
                "Check the id or name: list what exists (e.g. GET /v1/conversations) and send again."
            }
            Self::WaitForRun => {
                "Wait for the run under way to end, or cancel it (POST /v1/runs/{id}/cancel), then send again."
            }
            Self::ReadAgain => "Read the current state again, then send the request based on it.",
            Self::Reauthenticate => {
                "Send the bearer token `tessera serve` printed (Authorization: Bearer TOKEN)."
            }
            Self::SetUp => {
                "Set up a provider, its key and a model (Settings → Providers, or `tessera provider add`), then send again."
            }
            Self::RaiseLimit => {
                "Raise or lift the spending limit (Settings → General, or PUT /v1/settings/spending_limit_per_day_usd), then send again."
            }
            Self::TopUp => "Add credit or quota at the provider's site, or pick another provider.",
            Self::UseTheRightAddress => {
                "Use the address `tessera serve` printed (http://127.0.0.1:PORT or [::1])."
            }
            Self::None => "Nothing the request can change; see the server's log.",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_remedy_follows_the_error_not_its_status_class() {
        let no_model = Remedy::of(ErrorCode::NoModel, StatusCode::SERVICE_UNAVAILABLE);
        assert_eq!(no_model, Remedy::SetUp);
        assert!(no_model.recoverable());
        assert!(
            !Remedy::of(ErrorCode::StoreError, StatusCode::INTERNAL_SERVER_ERROR).recoverable()
        );
        assert!(!Remedy::of(ErrorCode::BadOrigin, StatusCode::FORBIDDEN).recoverable());
        assert_eq!(
            Remedy::of(ErrorCode::AlreadyRunning, StatusCode::CONFLICT),
            Remedy::WaitForRun
        );
        // A code with no remedy of its own follows its status class.
        assert_eq!(
            Remedy::of(ErrorCode::InvalidJson, StatusCode::BAD_REQUEST),
            Remedy::FixRequest
        );
        assert_eq!(
            Remedy::of(ErrorCode::InvalidJson, StatusCode::BAD_GATEWAY),
            Remedy::None
        );
    }
}
