//! The tools runs get: the engine's own (or, without a model, those that need none), the
//! tool sources' (MCP servers), the front-end tools clients announce, and the consent gate of
//! a run nobody is asked in.

use std::sync::Arc;

use super::handle::Engine;

impl Engine {
    /// The tools that need no model: used while no model is set up (tools never need one).
    pub fn set_base_tools(&self, tools: Option<Arc<crate::tools::ToolRegistry>>) {
        {
            let mut base = crate::sync::write(&self.base_tools);
            *base = tools;
        }
    }

    /// Adds tools that come and go (an MCP hub): every run from now on asks `source` for its
    /// tools as it starts, beside the model's.
    pub fn add_tool_source(&self, source: Arc<dyn crate::tools::ToolSource>) {
        {
            let mut sources = crate::sync::write(&self.tool_sources);
            sources.push(source);
        }
    }

    /// The tool source of type `T` that was added, if one was.
    pub fn tool_source<T: crate::tools::ToolSource>(&self) -> Option<Arc<T>> {
        let sources = crate::sync::read(&self.tool_sources).clone();
        sources
            .into_iter()
            .find_map(|s| s.as_any().downcast::<T>().ok())
    }

    /// `base` with the tools of every source and what a run needs to ask the person from a
    /// running tool, for a run in `conversation_id`.
    pub(crate) async fn run_tools(
        &self,
        conversation_id: &str,
        options: &mut crate::turn::TurnOptions,
    ) {
        let sources: Vec<_> = crate::sync::read(&self.tool_sources).clone();
        let mut tools = options.tools.take();
        if !sources.is_empty() {
            tools =
                crate::tools::with_sourced_tools(tools, &sources, options.allowed_tools.as_deref())
                    .await;
        }
        // The client's front-end tools join the tools the profile allows.
        options.tools = self.client_tools.registry_for(conversation_id, tools);
        // The context's `activeTools` (seed 000 §8.1, set by UPDATE_STATE) narrows what the
        // model is offered; a name it lists that no tool has grants nothing.
        let active = self
            .store
            .context_state(conversation_id)
            .map(|state| state.and_then(|s| s.active_tools));
        match active {
            Ok(Some(names)) => {
                if let Some(tools) = &options.tools {
                    options.tools = Some(Arc::new(tools.subset(&names)));
                }
            }
            Ok(None) => {}
            Err(error) => {
                // A narrowing that cannot be read is not lifted: no tool is offered.
                tracing::warn!(%error, "the context's active tools cannot be read");
                options.tools = Some(Arc::new(crate::tools::ToolRegistry::new()));
            }
        }
        if options.interactions {
            options.live_forms = Some(self.live_forms.clone());
        }
    }

    /// The engine's own tools: the model's (with its specialists), or without a model the
    /// tools that need none.
    pub fn tools(&self) -> Option<Arc<crate::tools::ToolRegistry>> {
        self.model()
            .and_then(|m| m.options.tools.clone())
            .or_else(|| crate::sync::read(&self.base_tools).clone())
    }

    /// The tools a run in `conversation_id` may call, as a model run gets them: the engine's,
    /// every tool source's (MCP servers), and the front-end tools a client of the conversation
    /// announced ([`crate::client_tools`]).
    pub async fn tools_for(
        &self,
        conversation_id: &str,
    ) -> Option<Arc<crate::tools::ToolRegistry>> {
        let tools = self.served_tools().await;
        self.client_tools.registry_for(conversation_id, tools)
    }

    /// The engine's tools with every tool source's (MCP servers' ready tools): what the server
    /// side offers any conversation.
    pub async fn served_tools(&self) -> Option<Arc<crate::tools::ToolRegistry>> {
        let sources: Vec<_> = crate::sync::read(&self.tool_sources).clone();
        let tools = self.tools();
        if sources.is_empty() {
            return tools;
        }
        self.served.get(tools, &sources).await
    }

    /// The consent gate of a run in `conversation_id` that nobody is asked in (a direct
    /// TOOL_CALL_REQUEST or INSTRUCTION run): stored grants let a call through, nothing else.
    pub fn consent_gate(&self, conversation_id: &str) -> Arc<crate::tools::ConsentGate> {
        Arc::new(crate::tools::ConsentGate::new(
            Arc::clone(self.store()),
            conversation_id,
        ))
    }

    /// The front-end tools announced, and the calls waiting for a client.
    pub fn client_tools(&self) -> &Arc<crate::client_tools::ClientTools> {
        &self.client_tools
    }

    /// Remembers the front-end tools a client can run in `conversation_id` (CLIENT_CAPABILITIES);
    /// runs started from now on offer them to the model.
    pub fn announce_client_tools(
        &self,
        conversation_id: &str,
        capabilities: tessera_protocol::mcp_cp::ClientCapabilities,
    ) -> Result<crate::client_tools::Announcement, crate::client_tools::AnnounceError> {
        self.client_tools.announce(conversation_id, capabilities)
    }

    /// A client's TOOL_CALL_RESPONSE: each result goes to the call waiting for it.
    pub fn client_tool_response(
        &self,
        conversation_id: &str,
        results: Vec<tessera_protocol::mcp_cp::ToolResult>,
    ) -> crate::client_tools::Delivered {
        self.client_tools.respond(conversation_id, results)
    }
}
