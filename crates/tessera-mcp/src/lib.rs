//! MCP servers as tool providers (rmcp client) and their elicitation as forms. Filled in by the
//! MCP issue.
