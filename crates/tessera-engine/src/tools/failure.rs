//! Why a tool failed: what every handler returns on failure, and what the consent gate
//! refuses with.

use serde::{Serialize, Serializer};
use tessera_protocol::failure_codes::{ProviderFailureCode, ToolFailureCode};
use tessera_protocol::wire::JsonObject;

/// A failed call's `error.code`: one of Tessera's own, the code of the model call a
/// specialist tool made, or a code a client or a plugin reported, kept as it came (a client's
/// tool reports what it likes, seed 000 §4.5.4).
#[derive(Clone, Debug, Eq)]
pub enum FailureCode {
    Tool(ToolFailureCode),
    Provider(ProviderFailureCode),
    Reported(String),
}

impl FailureCode {
    /// The code as written on the wire.
    pub fn as_str(&self) -> &str {
        match self {
            Self::Tool(code) => code.as_str(),
            Self::Provider(code) => code.as_str(),
            Self::Reported(code) => code,
        }
    }
}

/// Two codes are the same when they are written the same (a client may report `TIMEOUT`).
impl PartialEq for FailureCode {
    fn eq(&self, other: &Self) -> bool {
        self.as_str() == other.as_str()
    }
}

impl PartialEq<ToolFailureCode> for FailureCode {
    fn eq(&self, other: &ToolFailureCode) -> bool {
        self.as_str() == other.as_str()
    }
}

impl PartialEq<&str> for FailureCode {
    fn eq(&self, other: &&str) -> bool {
        self.as_str() == *other
    }
}

impl From<ToolFailureCode> for FailureCode {
    fn from(code: ToolFailureCode) -> Self {
        Self::Tool(code)
    }
}

impl From<ProviderFailureCode> for FailureCode {
    fn from(code: ProviderFailureCode) -> Self {
        Self::Provider(code)
    }
}

impl std::fmt::Display for FailureCode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl Serialize for FailureCode {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.as_str())
    }
}

/// Why a tool failed.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
#[error("{code}: {message}")]
pub struct ToolFailure {
    pub code: FailureCode,
    pub message: String,
    /// A temporary problem worth retrying (rate limit, service briefly unavailable).
    pub retryable: bool,
    pub details: Option<JsonObject>,
}

impl ToolFailure {
    /// A failure that retrying will not fix.
    pub fn new(code: impl Into<FailureCode>, message: impl Into<String>) -> Self {
        Self {
            code: code.into(),
            message: message.into(),
            retryable: false,
            details: None,
        }
    }

    /// A temporary failure: retried per the tool's policy.
    pub fn retryable(code: impl Into<FailureCode>, message: impl Into<String>) -> Self {
        Self {
            retryable: true,
            ..Self::new(code, message)
        }
    }

    /// A failure with a code that is not Tessera's: a client's or a plugin's own.
    pub fn reported(code: impl Into<String>, message: impl Into<String>) -> Self {
        Self::new(FailureCode::Reported(code.into()), message)
    }

    /// The same failure with `details`.
    pub fn with_details(self, details: Option<JsonObject>) -> Self {
        Self { details, ..self }
    }
}
