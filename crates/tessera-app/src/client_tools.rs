//! Front-end tools: the tools a client announces it can run in a conversation
//! (CLIENT_CAPABILITIES), which of the tools a client asks about are there
//! (TOOL_AVAILABILITY_REQUEST), and the results a client sends for calls waiting for it.

use tessera_engine::client_tools::Delivered;
use tessera_protocol::mcp_cp::{
    ClientCapabilities, ToolAvailabilityRequest, ToolAvailabilityResponse, ToolResult,
};

use crate::{App, CoreError};

/// The tools a client announced, by what became of each name.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Announced {
    /// Offered to the model from the next run on.
    pub taken: Vec<String>,
    /// Names the engine has a tool of: the engine's stays.
    pub shadowed: Vec<String>,
}

impl App {
    /// Remembers the front-end tools a client can run in `conversation`; a tool the engine has
    /// by the same name stays the engine's.
    pub async fn announce_client_tools(
        &self,
        conversation: &str,
        capabilities: ClientCapabilities,
    ) -> Result<Announced, CoreError> {
        let announcement = self
            .engine
            .announce_client_tools(conversation, capabilities)
            .map_err(|err| CoreError::BadCapabilities(err.to_string()))?;
        let served = self.engine.served_tools().await;
        let mut announced = Announced::default();
        for tool in announcement.tools {
            let name = tool.spec.name;
            if served.as_ref().is_some_and(|r| r.get(&name).is_some()) {
                announced.shadowed.push(name);
            } else {
                announced.taken.push(name);
            }
        }
        Ok(announced)
    }

    /// Which of the tools `request` asks about a run in `conversation` could call.
    pub async fn tool_availability(
        &self,
        conversation: &str,
        request: &ToolAvailabilityRequest,
    ) -> ToolAvailabilityResponse {
        let served = self.engine.served_tools().await;
        let client_tools = self.engine.client_tools().tools(conversation);
        tessera_engine::client_tools::availability(request, served.as_deref(), &client_tools)
    }

    /// Hands a client's results to the calls of `conversation` waiting for them; refused when
    /// none of them waits (answered already, timed out, or never asked).
    pub fn deliver_client_results(
        &self,
        conversation: &str,
        results: Vec<ToolResult>,
    ) -> Result<Delivered, CoreError> {
        let delivered = self.engine.client_tool_response(conversation, results);
        if delivered.accepted.is_empty() {
            return Err(CoreError::NoWaitingCall {
                conversation: conversation.to_owned(),
                unmatched: delivered.unmatched,
            });
        }
        Ok(delivered)
    }
}
