//! Validation of documents against `docs/protocol-rules.md`.

pub mod kind;
pub mod schema;

pub use kind::{DocumentKind, UnknownKind};
pub use schema::json_schema;
