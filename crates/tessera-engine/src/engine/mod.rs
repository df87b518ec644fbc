//! The engine's front door: one handle both shells (HTTP and Tauri) call. Start a run for what
//! the person said, follow a conversation's events from any seq, cancel a run. Runs go on in the
//! background whoever listens: a client that disconnects never cancels a run.

mod answering;
mod attachments;
mod bus;
mod error;
mod failed_run;
mod handle;
mod models;
mod picked_model;
mod profile_run;
mod recover;
mod resend;
mod runs;
mod secrets;
mod start;
mod subscription;
mod tooling;
mod user_message;

pub(crate) use bus::EventBus;
pub use error::{EngineError, ModelUnavailableReason};
pub use handle::{Engine, ModelChoice};
pub use picked_model::ConversationModel;
pub use recover::Recovered;
pub use resend::SaidBefore;
pub use runs::{ExternalRun, StartedRun};
pub use subscription::Subscription;
pub use user_message::{RunOverrides, UserMessage};
