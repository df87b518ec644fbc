//! Why a tool failed: what every handler returns on failure, and what the consent gate
//! refuses with.

use tessera_protocol::wire::JsonObject;

/// Why a tool failed.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
#[error("{code}: {message}")]
pub struct ToolFailure {
    pub code: String,
    pub message: String,
    /// A temporary problem worth retrying (rate limit, service briefly unavailable).
    pub retryable: bool,
    pub details: Option<JsonObject>,
}

impl ToolFailure {
    /// A failure that retrying will not fix.
    pub fn new(code: impl Into<String>, message: impl Into<String>) -> Self {
        Self {
            code: code.into(),
            message: message.into(),
            retryable: false,
            details: None,
        }
    }

    /// A temporary failure: retried per the tool's policy.
    pub fn retryable(code: impl Into<String>, message: impl Into<String>) -> Self {
        Self {
            retryable: true,
            ..Self::new(code, message)
        }
    }
}
