//! The vocabulary table of docs/design.md: one engine enum per concept, mapped explicitly to every
//! wire that carries it. Every enum-to-enum mapping is an exhaustive `match` without a wildcard,
//! so a new variant does not compile until each wire has been decided; string parsing goes
//! through the same mappings (it searches `ALL`), so it cannot drift.
//!
//! | engine | easyflow (seed 002) | MCP-CP (seed 000) | context document (seed 004) |
//! | --- | --- | --- | --- |
//! | [`ToolOutcome`] | [`ToolResultStatus`] | [`McpToolStatus`] | [`ContextToolStatus`] (`forbidden` = denied) |
//! | [`InstructionState`] | [`WorkflowState`] (Pending has none) | `PENDING`…`TIMEOUT` (`SUCCESS` read as COMPLETED) | [`TaskStatus`] |
//! | [`RunState`] | [`SystemState`] | – | – |

use crate::context_doc::{ContextToolStatus, TaskStatus};
use crate::easyflow::{SystemState, ToolResultStatus, WorkflowState};
use crate::mcp_cp::McpToolStatus;

/// How a tool call ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ToolOutcome {
    Success,
    Error,
    Timeout,
    /// The person (or a policy) refused consent.
    Denied,
    Skipped,
    Cancelled,
    /// Started but never finished because the process died; never run again.
    Interrupted,
    /// No such tool.
    NotFound,
}

impl ToolOutcome {
    /// Every outcome.
    pub const ALL: [ToolOutcome; 8] = [
        ToolOutcome::Success,
        ToolOutcome::Error,
        ToolOutcome::Timeout,
        ToolOutcome::Denied,
        ToolOutcome::Skipped,
        ToolOutcome::Cancelled,
        ToolOutcome::Interrupted,
        ToolOutcome::NotFound,
    ];

    /// easyflow `tool/tool_result.status`.
    pub fn to_event_status(self) -> ToolResultStatus {
        match self {
            ToolOutcome::Success => ToolResultStatus::Success,
            ToolOutcome::Error => ToolResultStatus::Error,
            ToolOutcome::Timeout => ToolResultStatus::Timeout,
            ToolOutcome::Denied => ToolResultStatus::Denied,
            ToolOutcome::Skipped => ToolResultStatus::Skipped,
            ToolOutcome::Cancelled => ToolResultStatus::Cancelled,
            ToolOutcome::Interrupted => ToolResultStatus::Interrupted,
            ToolOutcome::NotFound => ToolResultStatus::NotFound,
        }
    }

    /// From easyflow `tool/tool_result.status`.
    pub fn from_event_status(status: ToolResultStatus) -> Self {
        match status {
            ToolResultStatus::Success => ToolOutcome::Success,
            ToolResultStatus::Error => ToolOutcome::Error,
            ToolResultStatus::Timeout => ToolOutcome::Timeout,
            ToolResultStatus::Denied => ToolOutcome::Denied,
            ToolResultStatus::Skipped => ToolOutcome::Skipped,
            ToolResultStatus::Cancelled => ToolOutcome::Cancelled,
            ToolResultStatus::Interrupted => ToolOutcome::Interrupted,
            ToolResultStatus::NotFound => ToolOutcome::NotFound,
        }
    }

    /// MCP-CP `TOOL_CALL_RESPONSE` `results[].status`.
    pub fn to_mcp_cp(self) -> McpToolStatus {
        match self {
            ToolOutcome::Success => McpToolStatus::Success,
            ToolOutcome::Error => McpToolStatus::Error,
            ToolOutcome::Timeout => McpToolStatus::Timeout,
            ToolOutcome::Denied => McpToolStatus::Denied,
            ToolOutcome::Skipped => McpToolStatus::Skipped,
            ToolOutcome::Cancelled => McpToolStatus::Cancelled,
            ToolOutcome::Interrupted => McpToolStatus::Interrupted,
            ToolOutcome::NotFound => McpToolStatus::NotFound,
        }
    }

    /// From MCP-CP `results[].status`.
    pub fn from_mcp_cp(status: McpToolStatus) -> Self {
        match status {
            McpToolStatus::Success => ToolOutcome::Success,
            McpToolStatus::Error => ToolOutcome::Error,
            McpToolStatus::Timeout => ToolOutcome::Timeout,
            McpToolStatus::Denied => ToolOutcome::Denied,
            McpToolStatus::Skipped => ToolOutcome::Skipped,
            McpToolStatus::Cancelled => ToolOutcome::Cancelled,
            McpToolStatus::Interrupted => ToolOutcome::Interrupted,
            McpToolStatus::NotFound => ToolOutcome::NotFound,
        }
    }

    /// Seed 004 `tool_calls[].status` (denied is `forbidden` there).
    pub fn to_context_doc(self) -> ContextToolStatus {
        match self {
            ToolOutcome::Success => ContextToolStatus::Success,
            ToolOutcome::Error => ContextToolStatus::Error,
            ToolOutcome::Timeout => ContextToolStatus::Timeout,
            ToolOutcome::Denied => ContextToolStatus::Forbidden,
            ToolOutcome::Skipped => ContextToolStatus::Skipped,
            ToolOutcome::Cancelled => ContextToolStatus::Cancelled,
            ToolOutcome::Interrupted => ContextToolStatus::Interrupted,
            ToolOutcome::NotFound => ContextToolStatus::NotFound,
        }
    }

    /// From seed 004 `tool_calls[].status`.
    pub fn from_context_doc(status: ContextToolStatus) -> Self {
        match status {
            ContextToolStatus::Success => ToolOutcome::Success,
            ContextToolStatus::Error => ToolOutcome::Error,
            ContextToolStatus::Timeout => ToolOutcome::Timeout,
            ContextToolStatus::Forbidden => ToolOutcome::Denied,
            ContextToolStatus::Skipped => ToolOutcome::Skipped,
            ContextToolStatus::Cancelled => ToolOutcome::Cancelled,
            ContextToolStatus::Interrupted => ToolOutcome::Interrupted,
            ContextToolStatus::NotFound => ToolOutcome::NotFound,
        }
    }

    /// The easyflow string: `success`, …, `not_found`.
    pub fn as_event_str(self) -> &'static str {
        self.to_event_status().as_str()
    }

    /// The MCP-CP string: `SUCCESS`, …, `NOT_FOUND`.
    pub fn as_mcp_cp_str(self) -> &'static str {
        self.to_mcp_cp().as_str()
    }

    /// The seed 004 string: `success`, …, `forbidden`, …
    pub fn as_context_doc_str(self) -> &'static str {
        self.to_context_doc().as_str()
    }

    /// Parses an easyflow string.
    pub fn from_event_str(text: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|o| o.as_event_str() == text)
    }

    /// Parses an MCP-CP string.
    pub fn from_mcp_cp_str(text: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|o| o.as_mcp_cp_str() == text)
    }

    /// Parses a seed 004 string.
    pub fn from_context_doc_str(text: &str) -> Option<Self> {
        Self::ALL
            .into_iter()
            .find(|o| o.as_context_doc_str() == text)
    }
}

/// The state of an instruction (or a task planned from one).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum InstructionState {
    Pending,
    Running,
    Completed,
    Failed,
    Skipped,
    Timeout,
}

impl InstructionState {
    /// Every state.
    pub const ALL: [InstructionState; 6] = [
        InstructionState::Pending,
        InstructionState::Running,
        InstructionState::Completed,
        InstructionState::Failed,
        InstructionState::Skipped,
        InstructionState::Timeout,
    ];

    /// The easyflow `workflow/status` state that announces this state; `Pending` has none.
    pub fn to_workflow_state(self) -> Option<WorkflowState> {
        match self {
            InstructionState::Pending => None,
            InstructionState::Running => Some(WorkflowState::Start),
            InstructionState::Completed => Some(WorkflowState::End),
            InstructionState::Failed => Some(WorkflowState::Failed),
            InstructionState::Skipped => Some(WorkflowState::Skipped),
            InstructionState::Timeout => Some(WorkflowState::Timeout),
        }
    }

    /// The instruction state a `workflow/status` state reports; `suspend` and `resume` are
    /// about the run, not an outcome, and give `None`.
    pub fn from_workflow_state(state: WorkflowState) -> Option<Self> {
        match state {
            WorkflowState::Start => Some(InstructionState::Running),
            WorkflowState::End => Some(InstructionState::Completed),
            WorkflowState::Failed => Some(InstructionState::Failed),
            WorkflowState::Skipped => Some(InstructionState::Skipped),
            WorkflowState::Timeout => Some(InstructionState::Timeout),
            WorkflowState::Suspend | WorkflowState::Resume => None,
        }
    }

    /// MCP-CP status (§5.4): `PENDING`, `RUNNING`, `COMPLETED`, `FAILED`, `SKIPPED`, `TIMEOUT`.
    pub fn as_mcp_cp_str(self) -> &'static str {
        match self {
            InstructionState::Pending => "PENDING",
            InstructionState::Running => "RUNNING",
            InstructionState::Completed => "COMPLETED",
            InstructionState::Failed => "FAILED",
            InstructionState::Skipped => "SKIPPED",
            InstructionState::Timeout => "TIMEOUT",
        }
    }

    /// Parses an MCP-CP status; `SUCCESS` (seed 000 §5.1) is read as `COMPLETED`.
    pub fn from_mcp_cp_str(text: &str) -> Option<Self> {
        if text == "SUCCESS" {
            return Some(InstructionState::Completed);
        }
        Self::ALL.into_iter().find(|s| s.as_mcp_cp_str() == text)
    }

    /// Seed 004 task `status`.
    pub fn to_task_status(self) -> TaskStatus {
        match self {
            InstructionState::Pending => TaskStatus::Pending,
            InstructionState::Running => TaskStatus::Running,
            InstructionState::Completed => TaskStatus::Completed,
            InstructionState::Failed => TaskStatus::Failed,
            InstructionState::Skipped => TaskStatus::Skipped,
            InstructionState::Timeout => TaskStatus::Timeout,
        }
    }

    /// From seed 004 task `status`.
    pub fn from_task_status(status: TaskStatus) -> Self {
        match status {
            TaskStatus::Pending => InstructionState::Pending,
            TaskStatus::Running => InstructionState::Running,
            TaskStatus::Completed => InstructionState::Completed,
            TaskStatus::Failed => InstructionState::Failed,
            TaskStatus::Skipped => InstructionState::Skipped,
            TaskStatus::Timeout => InstructionState::Timeout,
        }
    }

    /// Whether the instruction will not change state again.
    pub fn is_terminal(self) -> bool {
        match self {
            InstructionState::Pending | InstructionState::Running => false,
            InstructionState::Completed
            | InstructionState::Failed
            | InstructionState::Skipped
            | InstructionState::Timeout => true,
        }
    }
}

/// The state of a run (one turn of the coordinator).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum RunState {
    Initializing,
    Running,
    /// Waiting for the person (a form or consent).
    Suspended,
    Resumed,
    Cancelled,
    Failed,
    Completed,
}

impl RunState {
    /// Every state.
    pub const ALL: [RunState; 7] = [
        RunState::Initializing,
        RunState::Running,
        RunState::Suspended,
        RunState::Resumed,
        RunState::Cancelled,
        RunState::Failed,
        RunState::Completed,
    ];

    /// easyflow `system/status` state.
    pub fn to_system_state(self) -> SystemState {
        match self {
            RunState::Initializing => SystemState::Initializing,
            RunState::Running => SystemState::Running,
            RunState::Suspended => SystemState::Suspended,
            RunState::Resumed => SystemState::Resumed,
            RunState::Cancelled => SystemState::Cancelled,
            RunState::Failed => SystemState::Failed,
            RunState::Completed => SystemState::Completed,
        }
    }

    /// From easyflow `system/status` state.
    pub fn from_system_state(state: SystemState) -> Self {
        match state {
            SystemState::Initializing => RunState::Initializing,
            SystemState::Running => RunState::Running,
            SystemState::Suspended => RunState::Suspended,
            SystemState::Resumed => RunState::Resumed,
            SystemState::Cancelled => RunState::Cancelled,
            SystemState::Failed => RunState::Failed,
            SystemState::Completed => RunState::Completed,
        }
    }

    /// The easyflow string.
    pub fn as_event_str(self) -> &'static str {
        self.to_system_state().as_str()
    }

    /// Parses the easyflow string.
    pub fn from_event_str(text: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|s| s.as_event_str() == text)
    }

    /// Whether the run has ended.
    pub fn is_terminal(self) -> bool {
        match self {
            RunState::Initializing
            | RunState::Running
            | RunState::Suspended
            | RunState::Resumed => false,
            RunState::Cancelled | RunState::Failed | RunState::Completed => true,
        }
    }
}

impl From<ToolOutcome> for ToolResultStatus {
    fn from(outcome: ToolOutcome) -> Self {
        outcome.to_event_status()
    }
}
impl From<ToolResultStatus> for ToolOutcome {
    fn from(status: ToolResultStatus) -> Self {
        ToolOutcome::from_event_status(status)
    }
}
impl From<ToolOutcome> for McpToolStatus {
    fn from(outcome: ToolOutcome) -> Self {
        outcome.to_mcp_cp()
    }
}
impl From<McpToolStatus> for ToolOutcome {
    fn from(status: McpToolStatus) -> Self {
        ToolOutcome::from_mcp_cp(status)
    }
}
impl From<ToolOutcome> for ContextToolStatus {
    fn from(outcome: ToolOutcome) -> Self {
        outcome.to_context_doc()
    }
}
impl From<ContextToolStatus> for ToolOutcome {
    fn from(status: ContextToolStatus) -> Self {
        ToolOutcome::from_context_doc(status)
    }
}
impl From<InstructionState> for TaskStatus {
    fn from(state: InstructionState) -> Self {
        state.to_task_status()
    }
}
impl From<TaskStatus> for InstructionState {
    fn from(status: TaskStatus) -> Self {
        InstructionState::from_task_status(status)
    }
}
impl From<RunState> for SystemState {
    fn from(state: RunState) -> Self {
        state.to_system_state()
    }
}
impl From<SystemState> for RunState {
    fn from(state: SystemState) -> Self {
        RunState::from_system_state(state)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde::Serialize;

    fn wire<T: Serialize>(value: T) -> String {
        match serde_json::to_value(value).unwrap() {
            serde_json::Value::String(s) => s,
            other => panic!("not a string: {other}"),
        }
    }

    #[test]
    fn tool_outcome_round_trips_through_every_wire() {
        let table = [
            (ToolOutcome::Success, "success", "SUCCESS", "success"),
            (ToolOutcome::Error, "error", "ERROR", "error"),
            (ToolOutcome::Timeout, "timeout", "TIMEOUT", "timeout"),
            (ToolOutcome::Denied, "denied", "DENIED", "forbidden"),
            (ToolOutcome::Skipped, "skipped", "SKIPPED", "skipped"),
            (
                ToolOutcome::Cancelled,
                "cancelled",
                "CANCELLED",
                "cancelled",
            ),
            (
                ToolOutcome::Interrupted,
                "interrupted",
                "INTERRUPTED",
                "interrupted",
            ),
            (ToolOutcome::NotFound, "not_found", "NOT_FOUND", "not_found"),
        ];
        assert_eq!(table.len(), ToolOutcome::ALL.len());
        for (outcome, event, mcp, context) in table {
            assert_eq!(outcome.as_event_str(), event);
            assert_eq!(outcome.as_mcp_cp_str(), mcp);
            assert_eq!(outcome.as_context_doc_str(), context);
            assert_eq!(wire(outcome.to_event_status()), event);
            assert_eq!(wire(outcome.to_mcp_cp()), mcp);
            assert_eq!(wire(outcome.to_context_doc()), context);
            assert_eq!(ToolOutcome::from_event_status(outcome.into()), outcome);
            assert_eq!(ToolOutcome::from_mcp_cp(outcome.into()), outcome);
            assert_eq!(ToolOutcome::from_context_doc(outcome.into()), outcome);
            assert_eq!(ToolOutcome::from_event_str(event), Some(outcome));
            assert_eq!(ToolOutcome::from_mcp_cp_str(mcp), Some(outcome));
            assert_eq!(ToolOutcome::from_context_doc_str(context), Some(outcome));
        }
        assert_eq!(ToolOutcome::from_context_doc_str("denied"), None);
        assert_eq!(ToolOutcome::from_event_str("forbidden"), None);
        assert_eq!(ToolOutcome::from_mcp_cp_str("success"), None);
    }

    #[test]
    fn instruction_state_round_trips_through_every_wire() {
        let table = [
            (InstructionState::Pending, None, "PENDING", "pending"),
            (
                InstructionState::Running,
                Some("start"),
                "RUNNING",
                "running",
            ),
            (
                InstructionState::Completed,
                Some("end"),
                "COMPLETED",
                "completed",
            ),
            (InstructionState::Failed, Some("failed"), "FAILED", "failed"),
            (
                InstructionState::Skipped,
                Some("skipped"),
                "SKIPPED",
                "skipped",
            ),
            (
                InstructionState::Timeout,
                Some("timeout"),
                "TIMEOUT",
                "timeout",
            ),
        ];
        assert_eq!(table.len(), InstructionState::ALL.len());
        for (state, workflow, mcp, task) in table {
            let to_workflow = state.to_workflow_state();
            assert_eq!(to_workflow.map(WorkflowState::as_str), workflow);
            assert_eq!(to_workflow.map(wire).as_deref(), workflow);
            if let Some(w) = to_workflow {
                assert_eq!(InstructionState::from_workflow_state(w), Some(state));
            }
            assert_eq!(state.as_mcp_cp_str(), mcp);
            assert_eq!(InstructionState::from_mcp_cp_str(mcp), Some(state));
            assert_eq!(wire(state.to_task_status()), task);
            assert_eq!(state.to_task_status().as_str(), task);
            assert_eq!(InstructionState::from_task_status(state.into()), state);
        }
        assert_eq!(
            InstructionState::from_mcp_cp_str("SUCCESS"),
            Some(InstructionState::Completed)
        );
        assert_eq!(InstructionState::from_mcp_cp_str("completed"), None);
        assert_eq!(
            InstructionState::from_workflow_state(WorkflowState::Suspend),
            None
        );
        assert_eq!(
            InstructionState::from_workflow_state(WorkflowState::Resume),
            None
        );
        assert!(InstructionState::Timeout.is_terminal());
        assert!(!InstructionState::Pending.is_terminal());
    }

    #[test]
    fn run_state_round_trips_through_system_status() {
        let table = [
            (RunState::Initializing, "initializing"),
            (RunState::Running, "running"),
            (RunState::Suspended, "suspended"),
            (RunState::Resumed, "resumed"),
            (RunState::Cancelled, "cancelled"),
            (RunState::Failed, "failed"),
            (RunState::Completed, "completed"),
        ];
        assert_eq!(table.len(), RunState::ALL.len());
        for (state, text) in table {
            assert_eq!(state.as_event_str(), text);
            assert_eq!(wire(state.to_system_state()), text);
            assert_eq!(RunState::from_system_state(state.into()), state);
            assert_eq!(RunState::from_event_str(text), Some(state));
        }
        assert_eq!(RunState::from_event_str("done"), None);
        assert!(RunState::Cancelled.is_terminal() && !RunState::Suspended.is_terminal());
    }

    #[test]
    fn wire_strings_match_serde_for_every_variant() {
        for outcome in ToolOutcome::ALL {
            let s = outcome.to_event_status();
            assert_eq!(wire(s), s.as_str());
            let m = outcome.to_mcp_cp();
            assert_eq!(wire(m), m.as_str());
            let c = outcome.to_context_doc();
            assert_eq!(wire(c), c.as_str());
        }
        for state in [
            WorkflowState::Start,
            WorkflowState::Suspend,
            WorkflowState::Resume,
            WorkflowState::End,
            WorkflowState::Failed,
            WorkflowState::Skipped,
            WorkflowState::Timeout,
        ] {
            assert_eq!(wire(state), state.as_str());
        }
    }
}
