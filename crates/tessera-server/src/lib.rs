//! The `tessera` binary's library half: the HTTP API router (shared with the desktop shell, which
//! carries the same router over IPC) and the command-line subcommands.

pub mod api;
pub mod auth;
pub mod chat_ask;
pub mod chat_cmd;
pub mod condition_cmd;
pub mod context_cmd;
pub mod data_dir;
pub mod in_process;
pub mod local_cmd;
pub mod project_cmd;
pub mod provider_cmd;
pub mod router;
pub mod run_cmd;
pub mod serve;
pub mod ui_types;
pub mod validate_cmd;
