//! The built-in tools' test world: a real store in a temporary folder with two conversations,
//! the built-in tools registered, and an executor for `conv_a` that collects its events.
#![allow(dead_code, clippy::unwrap_used, clippy::expect_used)]

use std::sync::Arc;

use serde_json::{json, Value};
use tessera_engine::builtin_tools::register_builtin_tools;
use tessera_engine::executor::{CollectingSink, Executor, ExecutorOptions};
use tessera_engine::tools::ToolRegistry;
use tessera_protocol::mcp_cp::{ToolCallRequest, ToolResult};
use tessera_protocol::request::Role;
use tessera_store::conversations::NewConversation;
use tessera_store::{text_message, NewMessage, Store};
use tokio_util::sync::CancellationToken;

pub struct World {
    _dir: tempfile::TempDir,
    pub store: Arc<Store>,
    pub registry: Arc<ToolRegistry>,
}

pub fn world() -> World {
    let dir = tempfile::tempdir().unwrap();
    let store = Arc::new(Store::open(dir.path()).unwrap());
    for (id, texts) in [
        (
            "conv_a",
            vec!["包周期续订的接口是？", "What is the weather like?"],
        ),
        ("conv_b", vec!["按需计费不能续订，包年包月才可以续订。"]),
    ] {
        store
            .create_conversation(NewConversation {
                id: Some(id.into()),
                title: id.into(),
                ..Default::default()
            })
            .unwrap();
        for text in texts {
            store
                .append_message(id, NewMessage::new(text_message(Role::User, text)))
                .unwrap();
        }
    }
    let mut registry = ToolRegistry::new();
    register_builtin_tools(&mut registry, store.clone()).unwrap();
    World {
        _dir: dir,
        store,
        registry: Arc::new(registry),
    }
}

impl World {
    pub fn executor(&self, sink: Arc<CollectingSink>) -> Executor {
        Executor::new(
            self.registry.clone(),
            sink,
            ExecutorOptions::new("conv_a").run_id("run_1"),
        )
    }

    /// Runs `calls` (`[id, tool, arguments]`) as one TOOL_CALL_REQUEST.
    pub async fn run(
        &self,
        calls: &[(&str, &str, Value)],
    ) -> (Vec<ToolResult>, Arc<CollectingSink>) {
        let sink = Arc::new(CollectingSink::new());
        let calls: Vec<Value> = calls
            .iter()
            .map(|(id, name, args)| json!({"callId": id, "name": name, "parameters": args}))
            .collect();
        let request: ToolCallRequest = serde_json::from_value(json!({ "calls": calls })).unwrap();
        let response = self
            .executor(sink.clone())
            .run_tool_calls(&request, &CancellationToken::new())
            .await
            .unwrap();
        (response.results, sink)
    }

    /// One call; its result or `(code, message, details)`.
    pub async fn call(&self, tool: &str, args: Value) -> Result<Value, (String, String, Value)> {
        let (mut results, _) = self.run(&[("c1", tool, args)]).await;
        let r = results.remove(0);
        match (r.status.as_str(), r.result, r.error) {
            ("SUCCESS", Some(v), _) => Ok(v),
            (_, _, Some(e)) => Err((
                e.code,
                e.message,
                e.details.map(Value::Object).unwrap_or(Value::Null),
            )),
            (status, _, _) => panic!("status {status} without an error"),
        }
    }
}

pub fn rejected(outcome: Result<Value, (String, String, Value)>, code: &str, words: &str) -> Value {
    match outcome {
        Ok(v) => panic!("expected {code}, got {v}"),
        Err((c, message, details)) => {
            assert_eq!(c, code, "{message}");
            assert!(message.contains(words), "{words:?} not in {message:?}");
            details
        }
    }
}
