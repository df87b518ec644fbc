//! Tessera's wire and document types: MCP-CP 1.0 messages (seed 000), the easyflow-chat 1.1
//! event envelope (seed 002), the request/response objects (seed 003) and the context document
//! (seed 004); validation against `docs/protocol-rules.md`; JSON Schemas and TypeScript types
//! generated from the same types.

pub mod mcp_cp;
pub mod wire;
pub mod validate;
