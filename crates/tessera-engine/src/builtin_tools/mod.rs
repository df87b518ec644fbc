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

mod args;
pub mod calc;
pub mod calculator;
pub mod datetime;
mod error;
pub mod save_memory;
pub mod search_context;

use std::sync::Arc;

use serde_json::Value;
use tessera_store::Store;

use crate::tools::{RegistryError, ToolContext, ToolRegistry};

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
