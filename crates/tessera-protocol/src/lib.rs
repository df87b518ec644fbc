//! Tessera's wire and document types: MCP-CP 1.0 messages (seed 000), the easyflow-chat 1.1
//! event envelope (seed 002), the request/response objects (seed 003) and the context document
//! (seed 004); validation against `docs/protocol-rules.md`; JSON Schemas and TypeScript types
//! generated from the same types.
//!
//! - [`mcp_cp`]: MCP-CP messages (kind `message`), tool definitions (`tool-definition`), the
//!   context structure (`mcp-context`).
//! - [`easyflow`]: easyflow-chat events (`event`) and form submissions (`form-submission`).
//! - [`request`], [`response`]: seed 003 objects (`request`, `response`).
//! - [`context_doc`]: the seed 004 context document (`context`).
//! - [`vocabulary`]: the engine's outcome and state enums, mapped to every wire.
//! - [`error_codes`], [`failure_codes`]: the API's error codes; a model call's, a tool call's
//!   and a run's failure codes.
//! - [`mod@validate`]: [`validate()`], [`validate_str`], [`parse`], [`normalize`], [`json_schema`].
//! - [`generate`]: the committed `schemas/*.schema.json` and `ui/src/generated/*.ts`;
//!   `make gen` (`cargo run -p tessera-server --bin tessera-gen -- write|check`).
//! - [`views`]: what the UI's endpoints answer where no seed defines it (grants, a run's context).
//! - [`mcp_api`]: the answers of the MCP server settings endpoints (`/v1/mcp/…`).
//! - [`settings_api`]: the plain-JSON answers of the settings endpoints (`/v1/settings`…).
//! - [`wire`], [`ordered_map`]: shared building blocks (timestamps, extensible enums, maps).
//!
//! Every type keeps unknown fields (`extra`) and unknown extensible-enum values (`Other`), so a
//! document survives a read and a write unchanged.

pub mod context_doc;
pub mod duplicate_keys;
pub mod easyflow;
pub mod error_codes;
pub mod failure_codes;
pub mod generate;
pub mod ipc;
pub mod mcp_api;
pub mod mcp_cp;
pub mod ordered_map;
pub mod request;
pub mod response;
pub mod secret_files;
pub mod secrets;
pub mod settings_api;
pub mod validate;
pub mod views;
pub mod vocabulary;
pub mod wire;

pub use validate::{
    json_schema, normalize, parse, parse_str, validate, validate_str, Document, DocumentKind,
    Problem, ProtocolError, UnknownKind,
};
