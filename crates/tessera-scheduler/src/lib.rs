//! Pure scheduling logic, no I/O (seed 000 sections 4–7, seed 001).
//!
//! - [`path`]: dotted paths with indices.
//! - [`condition`]: the condition language of instruction sets (a real grammar, no eval).
//! - [`reference`]: `${results.<callId>…}` / `${dependencies.<id>…}` placeholders.
//! - [`graph`]: the precedence graph from explicit dependencies, references and read/write
//!   conflicts; cycle and unknown-reference rejection; priorities; the graph as data for the UI.
//! - [`ready`]: the incremental ready set with concurrency limits and lanes.
//! - [`gate`]: what happens to a node once its predecessors are done (run, skip, dependency
//!   error), for tool calls and for instructions.

pub mod condition;
pub mod gate;
pub mod graph;
pub mod path;
pub mod plan;
pub mod ready;
pub mod reference;

pub use condition::{Condition, ConditionError};
pub use gate::Gate;
pub use graph::{Access, Edge, EdgeKind, Graph, GraphError, NodeSpec};
pub use plan::{plan_instructions, plan_tool_calls, CallInfo, Plan, PlanError};
pub use ready::{Priority, ReadySet};
pub use reference::{NoEntry, Reference, ReferenceError, ReferenceSource};
