//! What can go wrong with the knowledge index as a whole (one file that cannot be read is not
//! an error: it is skipped, with its reason, see [`crate::scan`]).

use std::path::PathBuf;

/// A shorthand for the crate's results.
pub type Result<T, E = KnowledgeError> = std::result::Result<T, E>;

#[derive(Debug, thiserror::Error)]
pub enum KnowledgeError {
    #[error("{action} {path}: {source}")]
    Io {
        action: &'static str,
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("knowledge index: {0}")]
    Sqlite(#[from] rusqlite::Error),
    #[error("{path} is not a folder or a file that can be read: {reason}")]
    BadSource { path: PathBuf, reason: String },
    #[error("the path must be absolute: {0}")]
    RelativePath(PathBuf),
    #[error("the indexer has stopped")]
    Stopped,
}
