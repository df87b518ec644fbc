//! Why a server has no connection to give, and why starting one failed. Their words are what
//! the person reads in the server's status and log, and what a model reads in a tool failure.

use tessera_secrets::SecretError;

/// Why a server cannot be used right now.
#[derive(Debug, Clone, thiserror::Error)]
pub enum Unavailable {
    #[error("the server is turned off in the settings")]
    Disabled,
    #[error("{}", failed_text(.reason, *.retry_in_ms))]
    Failed { reason: String, retry_in_ms: u64 },
    #[error("the server is not running")]
    NotRunning,
    #[error("`{server}` is still starting after {secs} s")]
    StillStarting { server: String, secs: u64 },
}

fn failed_text(reason: &str, retry_in_ms: u64) -> String {
    if retry_in_ms > 0 {
        format!("{reason} (next try in {} s)", retry_in_ms.div_ceil(1000))
    } else {
        reason.to_owned()
    }
}

/// Why connecting to a server failed. Texts that came from the server or its transport are
/// redacted before they are kept here: they may hold a key.
#[derive(Debug, thiserror::Error)]
pub enum ConnectError {
    #[error(
        "the secret `{name}` is not in the secret store any more: enter it again in the server's \
         settings"
    )]
    SecretGone { name: String },
    #[error("cannot read the secret `{name}`: {error}")]
    SecretUnreadable {
        name: String,
        #[source]
        error: SecretError,
    },
    #[error("cannot start `{command}`: {error}")]
    Spawn {
        command: String,
        #[source]
        error: std::io::Error,
    },
    #[error("the MCP handshake failed: {0}")]
    Handshake(String),
    #[error("the MCP handshake with {uri} failed: {message}")]
    HttpHandshake { uri: String, message: String },
    #[error("`{0}` is not a valid HTTP header name")]
    HeaderName(String),
    #[error("the value of the header `{0}` is not valid in HTTP")]
    HeaderValue(String),
    #[error("the server did not list its tools: {0}")]
    ListTools(String),
    #[error("did not finish starting within {0} s")]
    Timeout(u64),
}
