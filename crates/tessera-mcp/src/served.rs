//! The ready servers' tools as runs get them, built again only when a server's list changed.
//! A direct TOOL_CALL_REQUEST asks for them every time, and building each declaration again
//! (its schema copied, its name cleaned, its server's address written out) was a sixth of the
//! CPU of a call.

use std::sync::{Arc, Mutex};

use rmcp::model::Tool;
use tessera_engine::sync::lock;
use tessera_engine::tools::SourcedTools;

use crate::server::{Connection, ServerSlot};
use crate::tools::{spec_of, McpToolHandler};

/// One ready server's part of an answer: what it was built from, held so that nothing else
/// takes the same addresses while it is compared.
struct Part {
    slot: Arc<ServerSlot>,
    connection: Arc<Connection>,
    tools: Arc<Vec<Tool>>,
}

impl Part {
    fn same(&self, other: &Part) -> bool {
        Arc::ptr_eq(&self.slot, &other.slot)
            && Arc::ptr_eq(&self.connection, &other.connection)
            && Arc::ptr_eq(&self.tools, &other.tools)
    }
}

/// The last answer and what it was built from. A server whose settings change gets a new
/// slot, one that starts again a new connection, one that lists again a new list: any of
/// them builds the answer again.
#[derive(Default)]
pub(crate) struct ServedTools {
    last: Mutex<Option<(Vec<Part>, Arc<SourcedTools>)>>,
}

impl ServedTools {
    /// The tools of the `ready` servers, in their order.
    pub(crate) fn get(&self, ready: Vec<(Arc<ServerSlot>, Arc<Connection>)>) -> Arc<SourcedTools> {
        let parts: Vec<Part> = ready
            .into_iter()
            .map(|(slot, connection)| Part {
                tools: connection.tools(),
                slot,
                connection,
            })
            .collect();
        let mut last = lock(&self.last);
        if let Some((was, built)) = last.as_ref() {
            if was.len() == parts.len() && was.iter().zip(&parts).all(|(a, b)| a.same(b)) {
                return Arc::clone(built);
            }
        }
        let built: Arc<SourcedTools> = Arc::new(
            parts
                .iter()
                .flat_map(|part| {
                    part.tools.iter().map(|tool| {
                        (
                            spec_of(&part.slot, tool),
                            McpToolHandler::shared(Arc::clone(&part.slot), &tool.name),
                        )
                    })
                })
                .collect(),
        );
        *last = Some((parts, Arc::clone(&built)));
        built
    }
}
