//! The MCP servers of the data folder (`mcp.json`), and their resources kept as evidences.

use std::sync::Arc;

use tessera_mcp::resources::attach_resource;
use tessera_mcp::McpHub;
use tessera_protocol::context_doc::Evidence;

use crate::{App, CoreError};

impl App {
    /// The servers of `mcp.json`; None when it could not be read at start.
    pub fn mcp_hub(&self) -> Option<Arc<McpHub>> {
        self.engine.tool_source::<McpHub>()
    }

    /// Reads resource `uri` of MCP server `server` and keeps it in `conversation` as an
    /// evidence.
    pub async fn attach_mcp_resource(
        &self,
        conversation: &str,
        server: &str,
        uri: &str,
    ) -> Result<Evidence, CoreError> {
        self.require_conversation(conversation)?;
        let hub = self.mcp_hub().ok_or(CoreError::McpUnavailable)?;
        Ok(attach_resource(&hub, self.engine.store(), conversation, server, uri).await?)
    }
}
