//! easyflow-chat 1.1, the server-to-client event stream (seed 002).
//!
//! - [`envelope`]: the event envelope, its domain and typed payload.
//! - [`llm`], [`tool`], [`status`] (system, business, workflow, debug), [`interaction`]: payloads.
//! - [`interaction`] also holds the form submission (kind `form-submission`).

pub mod envelope;
pub mod interaction;
pub mod llm;
pub mod status;
pub mod tool;

pub use envelope::*;
pub use interaction::*;
pub use llm::*;
pub use status::*;
pub use tool::*;
