//! MCP servers for the suites: the pinned npm servers and ours in tests/mcp-servers, a data
//! folder's `mcp.json`, and what the scripted model was offered and told.

use std::path::{Path, PathBuf};

use serde_json::{json, Value};
use tessera_testkit::scripted::ScriptedProvider;

pub fn servers_dir() -> PathBuf {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/mcp-servers");
    assert!(
        dir.join("node_modules/@modelcontextprotocol/server-everything")
            .is_dir(),
        "the MCP test servers are not installed: run scripts/install-deps.sh (make test does)"
    );
    dir
}

pub fn node_server(package: &str, bin: &str, args: &[&str]) -> Value {
    let script = servers_dir()
        .join("node_modules/@modelcontextprotocol")
        .join(package)
        .join(bin);
    let mut all = vec![script.to_string_lossy().into_owned()];
    all.extend(args.iter().map(|a| (*a).to_owned()));
    json!({"command": "node", "args": all})
}

pub fn own_server(file: &str) -> Value {
    json!({"command": "node", "args": [servers_dir().join(file)]})
}

pub fn everything() -> Value {
    node_server("server-everything", "dist/index.js", &["stdio"])
}

pub fn write_config(data: &Path, servers: Value) {
    std::fs::create_dir_all(data).unwrap();
    std::fs::write(
        data.join("mcp.json"),
        serde_json::to_string_pretty(&json!({ "mcpServers": servers })).unwrap(),
    )
    .unwrap();
}

/// The tool names the model was offered in its `n`-th request.
pub fn offered(provider: &ScriptedProvider, n: usize) -> Vec<String> {
    provider.calls()[n].body["tools"]
        .as_array()
        .map(|tools| {
            tools
                .iter()
                .map(|t| t["function"]["name"].as_str().unwrap().to_owned())
                .collect()
        })
        .unwrap_or_default()
}

/// The OpenAI `tool` message of call `id` in the model's `n`-th request.
pub fn tool_message(provider: &ScriptedProvider, n: usize, id: &str) -> String {
    provider.calls()[n].body["messages"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["role"] == "tool" && m["tool_call_id"] == id)
        .and_then(|m| m["content"].as_str())
        .unwrap_or_else(|| panic!("no tool message for {id}"))
        .to_owned()
}
