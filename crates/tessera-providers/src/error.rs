//! What can go wrong talking to a model, each with a stable code the UI and the event stream
//! carry (`system/error.code`, a [`ProviderFailureCode`]).

use std::time::Duration;

pub use tessera_protocol::failure_codes::ProviderFailureCode;
use thiserror::Error;

/// A failed or interrupted model call.
#[derive(Debug, Clone, Error, PartialEq)]
pub enum ProviderError {
    /// The provider answered with an HTTP error.
    #[error("{provider} answered HTTP {status}: {message}")]
    Http {
        provider: String,
        status: u16,
        /// The provider's own error type (`rate_limit_error`, `invalid_api_key`…), when given.
        kind: Option<String>,
        message: String,
        /// How long the provider asked us to wait (Retry-After).
        retry_after: Option<Duration>,
    },
    /// An error event inside the stream (Anthropic `event: error`, an OpenAI chunk with `error`).
    #[error("{provider} reported an error mid-stream: {message}")]
    Stream {
        provider: String,
        kind: Option<String>,
        message: String,
    },
    #[error("could not connect to {provider} within {0:?}", .timeout)]
    ConnectTimeout { provider: String, timeout: Duration },
    #[error("{provider} sent nothing within {timeout:?} of the request")]
    FirstByteTimeout { provider: String, timeout: Duration },
    #[error("{provider} went silent for {timeout:?} in the middle of the answer")]
    IdleTimeout { provider: String, timeout: Duration },
    /// Connection refused, reset, DNS, TLS…
    #[error("network error talking to {provider}: {message}")]
    Network { provider: String, message: String },
    /// The answer could not be read (not JSON, not the wire format expected).
    #[error("{provider} sent something unreadable: {message}")]
    Decode { provider: String, message: String },
    #[error("the call was cancelled")]
    Cancelled,
    #[error("no API key for {provider}: add one in Settings, or set {env_hint}")]
    MissingKey { provider: String, env_hint: String },
    #[error("the provider configuration is not usable: {0}")]
    Config(String),
    #[error("spending limit reached: {0}")]
    SpendingLimit(String),
    #[error("the keyring could not be used: {0}")]
    Keyring(String),
    /// The model on this machine could not be started, or its worker stopped while answering
    /// (it starts again with the next call).
    #[error("the model on this computer stopped: {message}")]
    LocalModelStopped { provider: String, message: String },
}

impl ProviderError {
    /// The stable code of this error (`system/error.code`).
    pub fn code(&self) -> ProviderFailureCode {
        use ProviderFailureCode as Code;
        match self {
            Self::Http { status: 401, .. } | Self::Http { status: 403, .. } => Code::AuthFailed,
            Self::Http { kind, .. } if kind.as_deref() == Some("insufficient_quota") => {
                Code::QuotaExceeded
            }
            Self::Http { kind, .. } | Self::Stream { kind, .. }
                if kind.as_deref() == Some("context_length_exceeded") =>
            {
                Code::ContextLength
            }
            Self::Http { status: 429, .. } => Code::RateLimited,
            Self::Http { .. } if self.is_overload() => Code::Overloaded,
            Self::Http { status, .. } if *status >= 500 => Code::ProviderUnavailable,
            Self::Http { status: 400, .. }
            | Self::Http { status: 404, .. }
            | Self::Http { status: 413, .. }
            | Self::Http { status: 422, .. } => Code::BadRequest,
            Self::Http { .. } => Code::HttpError,
            Self::Stream { .. } if self.is_overload() => Code::Overloaded,
            Self::Stream { .. } => Code::StreamError,
            Self::ConnectTimeout { .. } => Code::ConnectTimeout,
            Self::FirstByteTimeout { .. } => Code::FirstByteTimeout,
            Self::IdleTimeout { .. } => Code::IdleTimeout,
            Self::Network { .. } => Code::NetworkError,
            Self::Decode { .. } => Code::DecodeError,
            Self::Cancelled => Code::Cancelled,
            Self::MissingKey { .. } => Code::MissingApiKey,
            Self::Config(_) => Code::ConfigError,
            Self::SpendingLimit(_) => Code::SpendingLimit,
            Self::Keyring(_) => Code::KeyringError,
            Self::LocalModelStopped { .. } => Code::LocalModelStopped,
        }
    }

    /// The code of a call the person's spending limit stopped before it was made.
    pub const SPENDING_LIMIT: &'static str = ProviderFailureCode::SpendingLimit.as_str();

    /// Whether the provider said it is overloaded (HTTP 529 or an `overloaded_error`).
    pub fn is_overload(&self) -> bool {
        match self {
            Self::Http { status, kind, .. } => {
                *status == 529 || kind.as_deref() == Some("overloaded_error")
            }
            Self::Stream { kind, .. } => kind.as_deref() == Some("overloaded_error"),
            _ => false,
        }
    }

    /// Whether trying again (before any output) may succeed.
    pub fn is_retryable(&self) -> bool {
        match self {
            // An exhausted quota (OpenAI sends it as 429 too) does not come back by waiting.
            Self::Http { kind, .. } if kind.as_deref() == Some("insufficient_quota") => false,
            Self::Http { status, .. } => *status == 429 || *status == 408 || *status >= 500,
            Self::Stream { kind, .. } => matches!(
                kind.as_deref(),
                Some("overloaded_error" | "api_error" | "rate_limit_error" | "server_error")
            ),
            // The stream only retries these while nothing has been shown.
            Self::ConnectTimeout { .. }
            | Self::FirstByteTimeout { .. }
            | Self::IdleTimeout { .. }
            | Self::Network { .. } => true,
            _ => false,
        }
    }

    /// The same error with each text the provider or the network supplied passed through `f`
    /// (used to scrub a key a provider may echo back).
    pub fn map_text(self, f: impl Fn(String) -> String) -> Self {
        match self {
            Self::Http {
                provider,
                status,
                kind,
                message,
                retry_after,
            } => Self::Http {
                provider,
                status,
                kind,
                message: f(message),
                retry_after,
            },
            Self::Stream {
                provider,
                kind,
                message,
            } => Self::Stream {
                provider,
                kind,
                message: f(message),
            },
            Self::Network { provider, message } => Self::Network {
                provider,
                message: f(message),
            },
            Self::Decode { provider, message } => Self::Decode {
                provider,
                message: f(message),
            },
            Self::LocalModelStopped { provider, message } => Self::LocalModelStopped {
                provider,
                message: f(message),
            },
            other => other,
        }
    }

    /// What a transport failure of the model on this machine means to a person: its worker
    /// stopped (or never started). Other errors are left as they are.
    pub fn from_local_model(self) -> Self {
        match self {
            // A worker that answered with an error (a `Stream` or `Http` one) is alive: its
            // words stand as they are.
            Self::Network { provider, message } | Self::Decode { provider, message } => {
                Self::LocalModelStopped { provider, message }
            }
            Self::ConnectTimeout { ref provider, .. }
            | Self::FirstByteTimeout { ref provider, .. }
            | Self::IdleTimeout { ref provider, .. } => Self::LocalModelStopped {
                provider: provider.clone(),
                message: self.to_string(),
            },
            other => other,
        }
    }

    /// The wait the provider asked for, if any.
    pub fn retry_after(&self) -> Option<Duration> {
        match self {
            Self::Http { retry_after, .. } => *retry_after,
            _ => None,
        }
    }
}

pub type Result<T, E = ProviderError> = std::result::Result<T, E>;
