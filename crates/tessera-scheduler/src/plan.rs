//! From an MCP-CP `TOOL_CALL_REQUEST` or `INSTRUCTION` set to a checked plan: the graph, the
//! lanes and priority its execution mode asks for, and the parsed conditions. Everything that
//! would refuse the set (a cycle, an unknown id, a bad placeholder, a condition that does not
//! parse) is found here, before anything runs.

use serde_json::Value;
use tessera_protocol::mcp_cp::{
    ExecutionMode, Instruction, InstructionExecutionMode, InstructionSet, Runtime, ToolCall,
    ToolCallRequest,
};

use crate::condition::{Condition, ConditionError};
use crate::graph::{Access, Graph, GraphError, NodeSpec};
use crate::ready::{Priority, ReadySet};
use crate::reference::{find_references_in, ReferenceError, ROOTS};

/// What the planner needs to know about a call's tool.
#[derive(Clone, Debug, Default)]
pub struct CallInfo {
    pub access: Access,
    pub estimate_ms: u64,
    /// Where it runs (the call's own `runtime` wins over the tool's).
    pub runtime: Option<Runtime>,
    /// Extra fields for the graph view.
    pub display: serde_json::Map<String, Value>,
}

/// A set refused before anything runs.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum PlanError {
    #[error(transparent)]
    Graph(#[from] GraphError),
    #[error("`{id}`: condition `{condition}`: {error}")]
    Condition {
        id: String,
        condition: String,
        error: Box<ConditionError>,
    },
    #[error("`{id}`: {error}")]
    Reference {
        id: String,
        error: Box<ReferenceError>,
    },
}

/// A checked plan.
#[derive(Clone, Debug)]
pub struct Plan {
    pub graph: Graph,
    /// Lane of each node.
    pub lanes: Vec<usize>,
    /// Concurrency limit of each lane.
    pub lane_limits: Vec<usize>,
    /// The limit over all lanes.
    pub global_limit: usize,
    pub priority: Priority,
    /// Each node's condition (instructions only).
    pub conditions: Vec<Option<Condition>>,
}

impl Plan {
    /// A fresh ready set for this plan.
    pub fn ready_set(&self) -> ReadySet {
        ReadySet::new(
            &self.graph,
            self.lanes.clone(),
            self.lane_limits.clone(),
            self.global_limit,
            self.priority,
        )
    }
}

fn phase(mode: ExecutionMode, runtime: Runtime) -> u8 {
    match (mode, runtime) {
        (ExecutionMode::FrontendFirst, Runtime::Frontend)
        | (ExecutionMode::BackendFirst, Runtime::Backend) => 1,
        (ExecutionMode::FrontendFirst, Runtime::Backend)
        | (ExecutionMode::BackendFirst, Runtime::Frontend) => 2,
        _ => 0,
    }
}

/// Plans a `TOOL_CALL_REQUEST` (seed 000 §3.3, §4.3, §4.6). Modes: SEQUENTIAL runs one call at
/// a time in the model's order (dependencies permitting); PARALLEL, SYNC and ASYNC run
/// everything the graph allows up to `limit`; FRONTEND_FIRST / BACKEND_FIRST add phase edges;
/// CLIENT_SERVER_PARALLEL runs the two runtimes side by side, each one call at a time in order.
pub fn plan_tool_calls(
    request: &ToolCallRequest,
    limit: usize,
    info: &dyn Fn(&ToolCall) -> CallInfo,
) -> Result<Plan, PlanError> {
    let mode = request.execution_mode.unwrap_or(ExecutionMode::Parallel);
    let mut nodes = Vec::with_capacity(request.calls.len());
    let mut lanes = Vec::with_capacity(request.calls.len());
    for call in &request.calls {
        let refs = find_references_in(&call.parameters, "parameters").map_err(|error| {
            PlanError::Reference {
                id: call.call_id.clone(),
                error: Box::new(error),
            }
        })?;
        let mut targets: Vec<String> = Vec::new();
        for r in &refs {
            if !targets.iter().any(|t| t == r.target()) {
                targets.push(r.target().to_owned());
            }
        }
        let ci = info(call);
        let runtime = call.runtime.or(ci.runtime).unwrap_or(Runtime::Backend);
        lanes.push(match (mode, runtime) {
            (ExecutionMode::ClientServerParallel, Runtime::Backend) => 1,
            _ => 0,
        });
        nodes.push(NodeSpec {
            id: call.call_id.clone(),
            label: call.name.clone(),
            after: call.required_after.clone().unwrap_or_default(),
            refs: targets,
            access: ci.access,
            phase: phase(mode, runtime),
            estimate_ms: ci.estimate_ms,
            display: ci.display,
        });
    }
    let graph = Graph::build(nodes)?;
    let (lane_limits, priority) = match mode {
        ExecutionMode::Sequential => (vec![1], Priority::ModelOrder),
        ExecutionMode::ClientServerParallel => (vec![1, 1], Priority::ModelOrder),
        ExecutionMode::Sync
        | ExecutionMode::Async
        | ExecutionMode::Parallel
        | ExecutionMode::FrontendFirst
        | ExecutionMode::BackendFirst => (vec![limit], Priority::CriticalPath),
    };
    let conditions = vec![None; graph.len()];
    Ok(Plan {
        graph,
        lanes,
        lane_limits,
        global_limit: limit,
        priority,
        conditions,
    })
}

/// Plans an `INSTRUCTION` set (seed 000 §3.6, §5, §6). SEQUENTIAL runs one instruction at a
/// time in order; PARALLEL and CONDITIONAL run everything the graph allows up to `limit`.
/// Conditions are parsed here; the instructions they read become dependencies.
pub fn plan_instructions(
    set: &InstructionSet,
    limit: usize,
    info: &dyn Fn(&Instruction) -> CallInfo,
) -> Result<Plan, PlanError> {
    let mode = set
        .execution_mode
        .unwrap_or(InstructionExecutionMode::Parallel);
    let mut nodes = Vec::with_capacity(set.instructions.len());
    let mut conditions = Vec::with_capacity(set.instructions.len());
    for inst in &set.instructions {
        let id = inst.instruction_id.clone();
        let empty = serde_json::Map::new();
        let params = inst.parameters.as_ref().unwrap_or(&empty);
        let refs =
            find_references_in(params, "parameters").map_err(|error| PlanError::Reference {
                id: id.clone(),
                error: Box::new(error),
            })?;
        let mut targets: Vec<String> = Vec::new();
        let mut add = |t: &str| {
            if !targets.iter().any(|k| k == t) {
                targets.push(t.to_owned());
            }
        };
        for r in &refs {
            add(r.target());
        }
        let condition = match inst.condition.as_deref().map(str::trim) {
            None | Some("") => None,
            Some(text) => {
                let c = Condition::parse(text).map_err(|error| PlanError::Condition {
                    id: id.clone(),
                    condition: text.to_owned(),
                    error: Box::new(error),
                })?;
                for root in ROOTS {
                    for t in c.referenced_ids(root) {
                        add(&t);
                    }
                }
                Some(c)
            }
        };
        let ci = info(inst);
        nodes.push(NodeSpec {
            id,
            label: inst.action.clone(),
            after: inst.dependencies.clone().unwrap_or_default(),
            refs: targets,
            access: ci.access,
            phase: 0,
            estimate_ms: ci.estimate_ms,
            display: ci.display,
        });
        conditions.push(condition);
    }
    let graph = Graph::build(nodes)?;
    let (lane_limits, priority) = match mode {
        InstructionExecutionMode::Sequential => (vec![1], Priority::ModelOrder),
        InstructionExecutionMode::Parallel | InstructionExecutionMode::Conditional => {
            (vec![limit], Priority::CriticalPath)
        }
    };
    Ok(Plan {
        lanes: vec![0; graph.len()],
        graph,
        lane_limits,
        global_limit: limit,
        priority,
        conditions,
    })
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn request(v: Value) -> Result<ToolCallRequest, serde_json::Error> {
        serde_json::from_value(v)
    }

    fn instructions(v: Value) -> Result<InstructionSet, serde_json::Error> {
        serde_json::from_value(v)
    }

    type R = Result<(), Box<dyn std::error::Error>>;

    #[test]
    fn placeholders_become_data_dependencies() -> R {
        let req = request(json!({"calls": [
            {"callId": "pick", "name": "file_picker", "parameters": {}},
            {"callId": "analyze", "name": "image_analyze",
             "parameters": {"imageData": "${results.pick.result.fileData}"}},
        ]}))?;
        let plan = plan_tool_calls(&req, 10, &|_| CallInfo::default())?;
        assert_eq!(plan.graph.hard_preds(1), &[0]);
        Ok(())
    }

    #[test]
    fn a_reference_to_a_missing_call_is_refused() -> R {
        let req = request(json!({"calls": [
            {"callId": "a", "name": "t", "parameters": {"x": "${results.nope.result}"}},
        ]}))?;
        let err = plan_tool_calls(&req, 10, &|_| CallInfo::default())
            .err()
            .ok_or("planned")?;
        assert_eq!(
            err.to_string(),
            "`a` depends on `nope`, which does not exist"
        );
        Ok(())
    }

    #[test]
    fn sequential_runs_one_at_a_time_in_model_order() -> R {
        let req = request(json!({"executionMode": "SEQUENTIAL", "calls": [
            {"callId": "a", "name": "t", "parameters": {}},
            {"callId": "b", "name": "t", "parameters": {}},
        ]}))?;
        let plan = plan_tool_calls(&req, 10, &|_| CallInfo::default())?;
        let mut ready = plan.ready_set();
        assert_eq!(ready.pop_startable(), Some(0));
        assert_eq!(ready.pop_startable(), None);
        Ok(())
    }

    #[test]
    fn client_server_parallel_gives_each_runtime_its_own_lane() -> R {
        let req = request(json!({"executionMode": "CLIENT_SERVER_PARALLEL", "calls": [
            {"callId": "f1", "name": "t", "runtime": "FRONTEND", "parameters": {}},
            {"callId": "f2", "name": "t", "runtime": "FRONTEND", "parameters": {}},
            {"callId": "b1", "name": "t", "parameters": {}},
        ]}))?;
        let plan = plan_tool_calls(&req, 10, &|_| CallInfo::default())?;
        let mut ready = plan.ready_set();
        assert_eq!(ready.pop_startable(), Some(0));
        assert_eq!(ready.pop_startable(), Some(2));
        assert_eq!(ready.pop_startable(), None);
        Ok(())
    }

    #[test]
    fn a_bad_condition_is_refused_with_its_column() -> R {
        let set = instructions(json!({"instructions": [
            {"instructionId": "i1", "action": "a"},
            {"instructionId": "i2", "action": "b", "dependencies": ["i1"],
             "condition": "dependencies.i1.status == "},
        ]}))?;
        let err = plan_instructions(&set, 10, &|_| CallInfo::default())
            .err()
            .ok_or("planned")?;
        assert_eq!(
            err.to_string(),
            "`i2`: condition `dependencies.i1.status ==`: syntax error at column 26: expected a value, found the end of the condition"
        );
        Ok(())
    }

    #[test]
    fn instructions_a_condition_reads_become_dependencies() -> R {
        let set = instructions(json!({"instructions": [
            {"instructionId": "i1", "action": "a"},
            {"instructionId": "i2", "action": "b",
             "condition": "dependencies.i1.result.count > 0"},
        ]}))?;
        let plan = plan_instructions(&set, 10, &|_| CallInfo::default())?;
        assert_eq!(plan.graph.hard_preds(1), &[0]);
        assert!(plan.conditions[1].is_some());
        Ok(())
    }
}
