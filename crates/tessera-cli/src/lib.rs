//! The `tessera` command line: `serve` (the HTTP API of tessera-server on a port) and the
//! subcommands that work on a data folder from a terminal, and `tessera-gen`'s list of the
//! types the UI reads.

pub mod chat_ask;
pub mod chat_cmd;
mod cli;
pub mod condition_cmd;
pub mod context_cmd;
pub mod local_cmd;
pub mod project_cmd;
pub mod provider_cmd;
pub mod run_cmd;
pub mod ui_types;
pub mod validate_cmd;

pub use cli::main_with;
