//! The answers of the `/v1` endpoints that this crate composes from several crates' types (the
//! conversation list, a conversation with its branches, the providers, the interactions). Typed so the UI's
//! TypeScript is generated from them (`ui_types`), not written a second time.

pub mod agents;
pub mod conversations;
pub mod desktop;
pub mod interactions;
pub mod local_models;
pub mod projects;
pub mod providers;
pub mod tools;
