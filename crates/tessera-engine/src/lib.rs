//! The coordinator: runs, the context assembler, specialists, built-in tools, interactions that
//! suspend and resume. Knows nothing of Tauri or HTTP.
//!
//! - [`assembler`]: builds each model call's prompt from the session within the token budget.

pub mod assembler;
