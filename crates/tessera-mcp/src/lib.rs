//! MCP servers as tool providers (docs/design.md: rmcp client, elicitation): servers configured in
//! `mcp.json` ([`config`], secrets in the keyring), started on demand and watched
//! ([`server`]), their tools in each run's registry ([`hub::McpHub`] is a
//! [`tessera_engine::tools::ToolSource`]), their elicitation shown as forms and their progress
//! as tool progress ([`client`]), their resources attachable as evidences ([`resources`]).

mod browser;
mod client;
pub mod config;
mod http;
pub mod hub;
pub mod log;
pub mod resources;
mod served;
pub mod server;
pub mod tools;
pub mod unavailable;

pub use hub::{HubError, McpHub};
