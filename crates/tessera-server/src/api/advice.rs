//! What a client can do about an error (seed 000 §7.2 `recoverable`, `suggestedAction`), from
//! what the error is, not from its HTTP status class: a 503 for a missing model is fixed by
//! setting one up, a 409 for a run in progress by waiting, a 500 from the store by nothing the
//! client can send.

use axum::http::StatusCode;

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
    pub fn of(code: &str, status: StatusCode) -> Self {
        match code {
            "UNAVAILABLE"
            | "MODEL_ERROR"
            | "PROVIDER_ERROR"
            | "MCP_SERVER_UNAVAILABLE"
            | "MCP_SERVER_ERROR"
            | "MCP_UNAVAILABLE"
            | "CONTEXT_DATABASE_UNAVAILABLE"
            | "KEYRING_UNAVAILABLE"
            | "TOOLS_UNAVAILABLE"
            | "SHUTTING_DOWN" => Self::RetryLater,
            "ALREADY_RUNNING" | "RUN_IN_PROGRESS" => Self::WaitForRun,
            "VERSION_CONFLICT" | "ALREADY_ANSWERED" | "INTERACTION_CLOSED" | "RUN_NOT_RUNNING"
            | "NO_WAITING_CALL" | "ALREADY_EXISTS" | "MESSAGE_ID_IN_USE" => Self::ReadAgain,
            "AUTH_FAILED" | "UNAUTHORIZED" => Self::Reauthenticate,
            "NO_MODEL"
            | "MISSING_KEY"
            | "MODEL_UNAVAILABLE"
            | "UNKNOWN_PROVIDER"
            | "PROVIDER_UNREADABLE" => Self::SetUp,
            tessera_protocol::easyflow::SPENDING_LIMIT_REACHED => Self::RaiseLimit,
            tessera_protocol::easyflow::QUOTA_EXCEEDED => Self::TopUp,
            "BAD_HOST" => Self::UseTheRightAddress,
            "BAD_ORIGIN" | "STORE_ERROR" | "INTERNAL" | "RUN_ERROR" | "KEY_FILE_ERROR"
            | "EXPORT_FAILED" => Self::None,
            "NOT_FOUND" | "ATTACHMENT_NOT_FOUND" | "NOTHING_TO_REGENERATE" => Self::CheckTheId,
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
        let no_model = Remedy::of("NO_MODEL", StatusCode::SERVICE_UNAVAILABLE);
        assert_eq!(no_model, Remedy::SetUp);
        assert!(no_model.recoverable());
        assert!(!Remedy::of("STORE_ERROR", StatusCode::INTERNAL_SERVER_ERROR).recoverable());
        assert!(!Remedy::of("BAD_ORIGIN", StatusCode::FORBIDDEN).recoverable());
        assert_eq!(
            Remedy::of("ALREADY_RUNNING", StatusCode::CONFLICT),
            Remedy::WaitForRun
        );
        assert_eq!(
            Remedy::of("SOMETHING_NEW", StatusCode::BAD_REQUEST),
            Remedy::FixRequest
        );
        assert_eq!(
            Remedy::of("SOMETHING_NEW", StatusCode::BAD_GATEWAY),
            Remedy::None
        );
    }
}
