//! The coordinator: runs, the context assembler, specialists, built-in tools, interactions that
//! suspend and resume. Knows nothing of Tauri or HTTP.
//!
//! - [`engine`]: the front door: start a run, follow a conversation's events, cancel.
//! - [`assembler`]: builds each model call's prompt from the session within the token budget.
//! - [`builtin_tools`]: get_current_datetime, calculator, search_context, save_memory.
//! - [`client_tools`]: front-end tools a connected client announced and runs (headless mode).
//! - [`tools`]: tool declarations, handlers, the registry with argument validation, simulated
//!   stand-ins.
//! - [`forms`]: request_form's schema rules and the validation of submitted values.
//! - [`executor`]: runs tool-call requests and instruction sets on the scheduler's graph, with
//!   timeouts, cancellation, recovery and events.
//! - `model_events`: a model call's normalised stream as easyflow-chat events.
//! - [`profiles`]: agent profiles (system prompt, tools, response format) and intent routing.
//! - [`provider_settings`]: providers saved in the data folder, presets, the default.
//! - [`specialists`]: agents called as tools (`invoke_researcher`, `invoke_planner`).
//! - [`summary`]: the rolling summary that stands in for older messages.
//! - [`turn`]: one turn of the conversation (model calls and tool rounds), recorded in the store
//!   from the person's message to the usage records.

// A tool's failure is its whole answer (code, message, retryable, details) and is returned once
// per call, never in a hot loop: boxing it would only make every tool harder to write.
#![allow(clippy::result_large_err)]

pub mod assembler;
pub mod attachments;
pub mod builtin_tools;
pub mod client_tools;
pub mod conversation_start;
pub mod engine;
pub mod event_log;
pub mod executor;
pub mod forms;
mod heap;
mod ids;
pub mod interactions;
pub mod local_models;
mod model_events;
pub mod profiles;
pub mod provider_settings;
mod specialist_report;
pub mod specialists;
pub mod summary;
pub mod sync;
mod tool_round;
pub mod tools;
pub mod turn;

/// The secret store (keyring or key file), for the shells.
pub use tessera_secrets as secrets;
/// Who may read the data folder (modes of what the shells write there, such as logs).
pub use tessera_store::file_modes;
