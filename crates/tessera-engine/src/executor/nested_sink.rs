//! Events of a set run inside a tool call (a specialist's own calls, a planner's instruction
//! set), passed on to the run's stream under ids of their own: `<parent call>/<id>`. Providers
//! and planners reuse ids such as `call_1` or `step_1`, and the call records and the task list
//! are keyed by them, so without the prefix a nested call would overwrite the coordinator's.

use std::sync::Arc;

use serde_json::Value;
use tessera_protocol::easyflow::{Event, EventBody};

use super::events::EventSink;

/// Renames the ids of every event, then hands it to `inner`.
pub(crate) struct NestedSink {
    inner: Arc<dyn EventSink>,
    prefix: String,
}

impl NestedSink {
    /// Events of calls nested in call `parent`.
    pub fn new(inner: Arc<dyn EventSink>, parent: &str) -> Self {
        Self {
            inner,
            prefix: format!("{parent}/"),
        }
    }
}

impl EventSink for NestedSink {
    fn settle(&self) {
        self.inner.settle();
    }

    fn emit(&self, mut event: Event) {
        let id = |s: &mut String| *s = format!("{}{s}", self.prefix);
        let value_id = |v: &mut Value, key: &str| {
            if let Some(Value::String(s)) = v.get_mut(key) {
                *s = format!("{}{s}", self.prefix);
            }
        };
        match &mut event.body {
            EventBody::ToolCall(p) => {
                id(&mut p.tool_call_id);
                if let Some(deps) = p.depends_on.as_mut() {
                    deps.iter_mut().for_each(id);
                }
            }
            EventBody::ToolResult(p) => id(&mut p.tool_call_id),
            EventBody::ToolQueued(p) => id(&mut p.tool_call_id),
            EventBody::ToolStarted(p) => id(&mut p.tool_call_id),
            EventBody::ToolProgress(p) => id(&mut p.tool_call_id),
            EventBody::WorkflowStatus(p) => id(&mut p.node_id),
            EventBody::WorkflowGraph(p) => {
                p.nodes.iter_mut().for_each(|n| value_id(n, "id"));
                for e in &mut p.edges {
                    value_id(e, "from");
                    value_id(e, "to");
                }
            }
            // The nested set draining is not the run's queue draining.
            EventBody::QueueDrained(_) => return,
            _ => {}
        }
        self.inner.emit(event);
    }
}
