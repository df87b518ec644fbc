use std::path::PathBuf;

/// Why a secret could not be read, stored or removed. Never holds a secret's value.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum SecretError {
    #[error("a secret needs a name to be stored under")]
    NoAccount,
    /// The OS keyring refused or is not there; the reason in words for a person.
    #[error("{0}")]
    Keyring(String),
    /// The keyring did not answer in time (a prompt nobody answers, a wedged daemon).
    #[error(
        "{what}: the keyring did not answer within {seconds} s (is it locked, or waiting for \
         an unlock prompt?)"
    )]
    Timeout { what: String, seconds: u64 },
    /// The key file could not be read or written; what is stored in it is left as it was.
    #[error("the key file {}: {reason}", path.display())]
    KeyFile { path: PathBuf, reason: String },
    /// The file at the key file's path is not one Tessera wrote: it is neither read as keys
    /// nor written.
    #[error(
        "{} is not Tessera's key file: {reason}. It was left as it is; move it elsewhere to \
         keep secrets in a file here",
        path.display()
    )]
    NotKeyFile { path: PathBuf, reason: String },
    /// A blocking call could not be run or ended without an answer.
    #[error("{0}")]
    Internal(String),
}

pub type Result<T, E = SecretError> = std::result::Result<T, E>;
