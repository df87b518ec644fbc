//! What happens to a node once its predecessors are done.
//!
//! - A tool call runs unless a call it is declared to follow or whose result it reads ended
//!   badly (error, timeout, not found, denied, cancelled, interrupted): then it fails with a
//!   dependency error and does not run. A predecessor that was skipped on purpose (fallback
//!   SKIP) lets it run: skipping means "carry on" (seed 000 §7.3).
//! - An instruction whose dependency did not complete is SKIPPED, unless its condition tests
//!   that dependency's `status`: then the condition decides. Otherwise a false condition skips
//!   it too.

use serde_json::Value;
use tessera_protocol::vocabulary::{InstructionState, ToolOutcome};

use crate::condition::Condition;
use crate::graph::Graph;
use crate::reference::ROOTS;

/// The decision for one node.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Gate {
    Run,
    /// Not run; the state is SKIPPED.
    Skip {
        reason: String,
    },
    /// Not run; the call fails with a dependency error (seed 000 §7.1).
    DependencyError {
        message: String,
    },
}

/// The gate of tool call `i`, given how its predecessors ended.
pub fn tool_call_gate(graph: &Graph, i: usize, outcome_of: &dyn Fn(usize) -> ToolOutcome) -> Gate {
    for &p in graph.hard_preds(i) {
        let outcome = outcome_of(p);
        match outcome {
            ToolOutcome::Success | ToolOutcome::Skipped => {}
            ToolOutcome::Error
            | ToolOutcome::Timeout
            | ToolOutcome::Denied
            | ToolOutcome::Cancelled
            | ToolOutcome::Interrupted
            | ToolOutcome::NotFound => {
                return Gate::DependencyError {
                    message: format!(
                        "`{}` depends on `{}`, which ended {}",
                        graph.id(i),
                        graph.id(p),
                        outcome.as_mcp_cp_str()
                    ),
                }
            }
        }
    }
    Gate::Run
}

/// The gate of instruction `i`. `context` builds the condition's context (called only when
/// there is a condition to evaluate).
pub fn instruction_gate(
    graph: &Graph,
    i: usize,
    condition: Option<&Condition>,
    state_of: &dyn Fn(usize) -> InstructionState,
    context: &dyn Fn() -> Value,
) -> Gate {
    for &p in graph.hard_preds(i) {
        let state = state_of(p);
        if state != InstructionState::Completed
            && !condition.is_some_and(|c| c.tests_status_of(&ROOTS, graph.id(p)))
        {
            return Gate::Skip {
                reason: format!(
                    "dependency `{}` ended {}",
                    graph.id(p),
                    state.as_mcp_cp_str()
                ),
            };
        }
    }
    if let Some(c) = condition {
        if !c.evaluate(&context()) {
            return Gate::Skip {
                reason: format!("condition `{}` is false", c.source()),
            };
        }
    }
    Gate::Run
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::graph::{GraphError, NodeSpec};

    fn graph() -> Result<Graph, GraphError> {
        Graph::build(vec![
            NodeSpec {
                id: "a".into(),
                ..NodeSpec::default()
            },
            NodeSpec {
                id: "b".into(),
                after: vec!["a".into()],
                ..NodeSpec::default()
            },
        ])
    }

    #[test]
    fn a_tool_call_after_a_failed_call_gets_a_dependency_error() -> Result<(), GraphError> {
        let g = graph()?;
        assert_eq!(tool_call_gate(&g, 1, &|_| ToolOutcome::Success), Gate::Run);
        assert_eq!(tool_call_gate(&g, 1, &|_| ToolOutcome::Skipped), Gate::Run);
        assert_eq!(
            tool_call_gate(&g, 1, &|_| ToolOutcome::Timeout),
            Gate::DependencyError {
                message: "`b` depends on `a`, which ended TIMEOUT".into()
            }
        );
        Ok(())
    }

    #[test]
    fn an_instruction_after_a_failure_is_skipped_unless_it_tests_the_status(
    ) -> Result<(), GraphError> {
        let g = graph()?;
        let failed = |_| InstructionState::Failed;
        let ctx = || json!({"dependencies": {"a": {"status": "FAILED"}}});
        assert_eq!(
            instruction_gate(&g, 1, None, &failed, &ctx),
            Gate::Skip {
                reason: "dependency `a` ended FAILED".into()
            }
        );
        let on_failure = Condition::parse("dependencies.a.status == 'FAILED'").ok();
        assert_eq!(
            instruction_gate(&g, 1, on_failure.as_ref(), &failed, &ctx),
            Gate::Run
        );
        let on_success = Condition::parse("dependencies.a.status == 'SUCCESS'").ok();
        assert!(matches!(
            instruction_gate(&g, 1, on_success.as_ref(), &failed, &ctx),
            Gate::Skip { reason } if reason.contains("is false")
        ));
        // Reading a result is not testing the status.
        let reads_result = Condition::parse("dependencies.a.result.x == null").ok();
        assert!(matches!(
            instruction_gate(&g, 1, reads_result.as_ref(), &|_| InstructionState::Skipped, &ctx),
            Gate::Skip { reason } if reason == "dependency `a` ended SKIPPED"
        ));
        Ok(())
    }
}
