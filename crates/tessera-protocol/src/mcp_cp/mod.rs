//! MCP-CP 1.0, the model/context message protocol (seed 000).
//!
//! - [`envelope`]: the message envelope, its `type` and typed `content`.
//! - [`content`]: user input, model response, system message and error response bodies.
//! - [`tools`]: tool calls, results and tool definitions (kind `tool-definition`).
//! - [`instruction`]: instruction sets.
//! - [`capabilities`]: client capabilities and tool availability.
//! - [`context`]: the context structure (kind `mcp-context`) and `CONTEXT_UPDATE`.

pub mod capabilities;
pub mod content;
pub mod context;
pub mod envelope;
pub mod instruction;
pub mod tools;

pub use capabilities::*;
pub use content::*;
pub use context::*;
pub use envelope::*;
pub use instruction::*;
pub use tools::*;
