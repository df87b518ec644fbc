//! Why a built-in tool failed, and the [`ToolFailure`] the model reads of it.

use serde_json::{json, Value};
use tessera_store::StoreError;

use super::calc;
use crate::tools::{ToolFailure, ToolFailureCode};

/// Why a built-in tool failed, before it becomes the [`ToolFailure`] the model reads.
#[derive(Debug, thiserror::Error)]
pub(crate) enum BuiltinError {
    /// Arguments the schema let through but the tool cannot use (or a caller that skipped
    /// the registry's validation).
    #[error("{field}: {message}")]
    InvalidArgument {
        field: &'static str,
        message: String,
    },
    #[error(
        "`{0}` is not a known IANA time zone name (examples: UTC, Europe/London, \
         Asia/Shanghai, America/New_York)"
    )]
    UnknownTimeZone(String),
    #[error("cannot evaluate `{expression}`: {error}")]
    Calculation {
        expression: String,
        error: calc::CalcError,
    },
    #[error("the context database failed: {0}")]
    Store(Box<StoreError>),
    #[error("the database task failed: {0}")]
    Task(String),
}

impl BuiltinError {
    pub(crate) fn invalid(field: &'static str, message: impl Into<String>) -> Self {
        Self::InvalidArgument {
            field,
            message: message.into(),
        }
    }
}

impl From<StoreError> for BuiltinError {
    fn from(error: StoreError) -> Self {
        Self::Store(Box::new(error))
    }
}

impl From<BuiltinError> for ToolFailure {
    fn from(error: BuiltinError) -> Self {
        let message = error.to_string();
        let (code, retryable, details) = match &error {
            BuiltinError::InvalidArgument { field, .. } => (
                ToolFailureCode::InvalidArguments,
                false,
                json!({ "field": field }),
            ),
            BuiltinError::UnknownTimeZone(name) => (
                ToolFailureCode::UnknownTimeZone,
                false,
                json!({"field": "timezone", "value": name}),
            ),
            BuiltinError::Calculation { error, .. } => (
                ToolFailureCode::CalculationError,
                false,
                json!({"column": error.column, "reason": error.message}),
            ),
            BuiltinError::Store(store) => {
                tracing::warn!(error = %store, "a built-in tool could not use the context database");
                match **store {
                    StoreError::NotFound { .. } => (ToolFailureCode::NotFound, false, Value::Null),
                    // A busy or locked database, a write the writer thread dropped: worth one
                    // more try.
                    StoreError::Sqlite(_)
                    | StoreError::CommitFailed(_)
                    | StoreError::WriteAbandoned => (
                        ToolFailureCode::ContextDatabaseUnavailable,
                        true,
                        Value::Null,
                    ),
                    _ => (ToolFailureCode::ContextDatabaseError, false, Value::Null),
                }
            }
            BuiltinError::Task(_) => (ToolFailureCode::Internal, false, Value::Null),
        };
        ToolFailure {
            code: code.into(),
            message,
            retryable,
            details: match details {
                Value::Object(map) => Some(map),
                _ => None,
            },
        }
    }
}

/// Runs blocking store work off the async threads (the store's calls wait on SQLite and on its
/// writer thread).
pub(crate) async fn blocking<T, F>(f: F) -> Result<T, BuiltinError>
where
    T: Send + 'static,
    F: FnOnce() -> Result<T, BuiltinError> + Send + 'static,
{
    tokio::task::spawn_blocking(f).await.map_err(|e| {
        tracing::error!(error = %e, "a built-in tool's database task failed");
        BuiltinError::Task(e.to_string())
    })?
}
