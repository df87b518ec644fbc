//! The built-in tools every run has: [`datetime`] (`get_current_datetime`), [`calculator`],
//! [`search_context`] and [`save_memory`]. (`request_form` belongs to the interactions.)
//!
//! ```no_run
//! # use std::sync::Arc;
//! # use tessera_engine::tools::ToolRegistry;
//! # fn demo(store: Arc<tessera_store::Store>) -> Result<(), tessera_engine::tools::RegistryError> {
//! let mut registry = ToolRegistry::new();
//! tessera_engine::builtin_tools::register_builtin_tools(&mut registry, store)?;
//! # Ok(()) }
//! ```
//!
//! One registry serves every conversation: the tools that touch the context database read the
//! conversation from their [`ToolContext::conversation_id`] (the executor's), so the same
//! registry can back executors for many conversations at once.

pub mod calc;
pub mod calculator;
pub mod datetime;
pub mod save_memory;
pub mod search_context;

use std::sync::Arc;

use serde_json::{json, Value};
use tessera_protocol::wire::JsonObject;
use tessera_store::{Store, StoreError};

use crate::tools::{RegistryError, ToolContext, ToolFailure, ToolRegistry};

/// The names of the built-in tools, in registration order.
pub const NAMES: [&str; 4] = [
    datetime::NAME,
    calculator::NAME,
    search_context::NAME,
    save_memory::NAME,
];

/// Adds the four built-in tools to `registry`; `store` is the context database that
/// `search_context` reads and `save_memory` writes.
pub fn register_builtin_tools(
    registry: &mut ToolRegistry,
    store: Arc<Store>,
) -> Result<(), RegistryError> {
    registry.register(datetime::spec(), datetime::run)?;
    registry.register(calculator::spec(), calculator::run)?;
    let search_store = store.clone();
    registry.register(
        search_context::spec(),
        move |arguments: Value, ctx: ToolContext| {
            search_context::run(search_store.clone(), arguments, ctx)
        },
    )?;
    registry.register(
        save_memory::spec(),
        move |arguments: Value, ctx: ToolContext| save_memory::run(store.clone(), arguments, ctx),
    )?;
    Ok(())
}

/// Why a built-in tool failed, before it becomes the [`ToolFailure`] the model reads.
#[derive(Debug, thiserror::Error)]
pub enum BuiltinError {
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
            BuiltinError::InvalidArgument { field, .. } => {
                ("INVALID_ARGUMENTS", false, json!({ "field": field }))
            }
            BuiltinError::UnknownTimeZone(name) => (
                "UNKNOWN_TIME_ZONE",
                false,
                json!({"field": "timezone", "value": name}),
            ),
            BuiltinError::Calculation { error, .. } => (
                "CALCULATION_ERROR",
                false,
                json!({"column": error.column, "reason": error.message}),
            ),
            BuiltinError::Store(store) => {
                tracing::warn!(error = %store, "a built-in tool could not use the context database");
                match **store {
                    StoreError::NotFound { .. } => ("NOT_FOUND", false, Value::Null),
                    // A busy or locked database, a write the writer thread dropped: worth one
                    // more try.
                    StoreError::Sqlite(_)
                    | StoreError::CommitFailed(_)
                    | StoreError::WriteAbandoned => {
                        ("CONTEXT_DATABASE_UNAVAILABLE", true, Value::Null)
                    }
                    _ => ("CONTEXT_DATABASE_ERROR", false, Value::Null),
                }
            }
            BuiltinError::Task(_) => ("INTERNAL", false, Value::Null),
        };
        ToolFailure {
            code: code.to_owned(),
            message,
            retryable,
            details: match details {
                Value::Object(map) => Some(map),
                _ => None,
            },
        }
    }
}

/// The registry validated the arguments against the schema before the handler runs; these
/// checks only guard against a caller that skipped it.
pub(crate) fn string_arg<'a>(
    arguments: &'a Value,
    field: &'static str,
) -> Result<&'a str, BuiltinError> {
    arguments
        .get(field)
        .and_then(Value::as_str)
        .ok_or_else(|| BuiltinError::invalid(field, "required, a string"))
}

pub(crate) fn optional_string_arg<'a>(
    arguments: &'a Value,
    field: &'static str,
) -> Result<Option<&'a str>, BuiltinError> {
    match arguments.get(field) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(Some(s)),
        Some(_) => Err(BuiltinError::invalid(field, "must be a string")),
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

/// `{…}` as a map (for `metadata` and `extra` fields).
pub(crate) fn object(value: Value) -> JsonObject {
    match value {
        Value::Object(map) => map,
        _ => JsonObject::new(),
    }
}
