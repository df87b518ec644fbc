//! The structured context document (seed 004), kind `context`.
//!
//! - [`document`]: top level, `meta` and the actor.
//! - [`session`]: messages, summary, tasks, tool calls, model usage.
//! - [`evidence`]: evidences and context blocks.
//! - [`selector`]: which part of an evidence a ref cites.

pub mod document;
pub mod evidence;
pub mod selector;
pub mod session;

pub use document::*;
pub use evidence::*;
pub use session::*;
