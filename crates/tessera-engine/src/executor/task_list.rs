//! An instruction set kept as the conversation's task list (seed 004
//! `session.task_state.todo_list`): each instruction is a task (`task_id` = `instructionId`,
//! `name` = its action, `depends_on` = its dependencies) written as `pending` before anything
//! runs, then moved to `running`, `completed`, `failed`, `skipped` or `timeout` as the
//! executor reports the instruction's `workflow/status` (node kind `instruction`), with the
//! reason as the task's `error`.
//!
//! Whoever runs an instruction set (the `INSTRUCTION` message of the API, the planner
//! specialist) wraps the sink it gives the executor:
//!
//! ```no_run
//! # use std::sync::Arc;
//! # use tessera_engine::executor::{task_list, Executor, ExecutorOptions, EventSink, NullSink};
//! # use tessera_engine::tools::ToolRegistry;
//! # use tokio_util::sync::CancellationToken;
//! # async fn demo(store: Arc<tessera_store::Store>, set: tessera_protocol::mcp_cp::InstructionSet)
//! #     -> Result<(), Box<dyn std::error::Error>> {
//! let inner: Arc<dyn EventSink> = Arc::new(NullSink);
//! let sink = task_list::task_list_sink(store, "conv_1", &set, inner)?;
//! let executor = Executor::new(Arc::new(ToolRegistry::new()), sink, ExecutorOptions::new("conv_1"));
//! let results = executor.run_instructions(&set, &CancellationToken::new()).await?;
//! # Ok(()) }
//! ```
//!
//! Plan the set first ([`super::Executor::plan_instructions`]) so a refused set leaves no tasks
//! behind. A task list write that fails is logged and never stops the run.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use serde_json::Value;
use tessera_protocol::context_doc::{Task, TaskStatus};
use tessera_protocol::easyflow::{Event, EventBody, NodeKind};
use tessera_protocol::mcp_cp::InstructionSet;
use tessera_protocol::vocabulary::InstructionState;
use tessera_protocol::wire::JsonObject;
use tessera_store::{Store, StoreError};

use super::events::EventSink;
use super::result_evidence::result_evidence_ids;
use super::InstructionResults;

/// How a set's instructions are named in the task list.
#[derive(Clone, Debug, Default)]
pub struct TaskNaming {
    /// Put before each instruction id: a set run inside a tool call (the planner's) names its
    /// tasks `<call>/<instruction>`, as the stream shows them, so a second plan never
    /// overwrites the first.
    pub prefix: String,
    /// Written into each task's `extra` (the plan's id, the run…).
    pub extra: JsonObject,
}

impl TaskNaming {
    fn id(&self, instruction_id: &str) -> String {
        format!("{}{instruction_id}", self.prefix)
    }
}

/// The tasks of `set`, all `pending`, in the set's order, named by `naming`; a task's name is
/// the instruction's `description` when it has one, else its action.
pub(crate) fn pending_tasks_named(set: &InstructionSet, naming: &TaskNaming) -> Vec<Task> {
    set.instructions
        .iter()
        .map(|inst| {
            let mut extra = naming.extra.clone();
            if !naming.prefix.is_empty() {
                extra.insert(
                    "instruction_id".into(),
                    Value::String(inst.instruction_id.clone()),
                );
                extra.insert("action".into(), Value::String(inst.action.clone()));
            }
            Task {
                task_id: naming.id(&inst.instruction_id),
                name: Some(
                    inst.extra
                        .get("description")
                        .and_then(Value::as_str)
                        .map_or_else(|| inst.action.clone(), str::to_owned),
                ),
                depends_on: inst
                    .dependencies
                    .as_ref()
                    .filter(|d| !d.is_empty())
                    .map(|deps| deps.iter().map(|d| naming.id(d)).collect()),
                status: Some(TaskStatus::Pending),
                result_evidence_ids: None,
                error: None,
                extra,
            }
        })
        .collect()
}

fn write_tasks(store: &Store, conversation_id: &str, tasks: Vec<Task>) -> Result<(), StoreError> {
    let conversation_id = conversation_id.to_owned();
    store.write(move |tx| {
        for task in &tasks {
            tx.put_task(&conversation_id, task)?;
        }
        Ok(())
    })
}

/// Keeps the task list in step with the events of an instruction set, then passes every
/// event on to the inner sink.
pub struct TaskListSink {
    store: Arc<Store>,
    conversation_id: String,
    naming: TaskNaming,
    tasks: Mutex<HashMap<String, Task>>,
    inner: Arc<dyn EventSink>,
}

impl TaskListSink {
    /// Writes the set's tasks as `pending` now, and follows the set from there.
    pub fn new(
        store: Arc<Store>,
        conversation_id: impl Into<String>,
        set: &InstructionSet,
        inner: Arc<dyn EventSink>,
    ) -> Result<Self, StoreError> {
        Self::named(store, conversation_id, set, TaskNaming::default(), inner)
    }

    /// [`TaskListSink::new`] with the tasks named by `naming`.
    pub fn named(
        store: Arc<Store>,
        conversation_id: impl Into<String>,
        set: &InstructionSet,
        naming: TaskNaming,
        inner: Arc<dyn EventSink>,
    ) -> Result<Self, StoreError> {
        let conversation_id = conversation_id.into();
        let pending = pending_tasks_named(set, &naming);
        write_tasks(&store, &conversation_id, pending.clone())?;
        let tasks = pending
            .into_iter()
            .map(|t| (t.task_id.clone(), t))
            .collect();
        Ok(Self {
            store,
            conversation_id,
            naming,
            tasks: Mutex::new(tasks),
            inner,
        })
    }

    /// Settles every task from the set's results (status, error, and the evidences a
    /// completed step's result became, named from the result: its event may still be on its
    /// way to the store), in one transaction; the tasks as written.
    pub fn settle(
        &self,
        results: &InstructionResults,
        run_id: Option<&str>,
    ) -> Result<Vec<Task>, StoreError> {
        let settled: Vec<Task> = {
            let mut tasks = crate::sync::lock(&self.tasks);
            results
                .results
                .iter()
                .filter_map(|(id, record)| {
                    let task_id = self.naming.id(id);
                    let task = tasks.get_mut(&task_id)?;
                    task.status = Some(record.state.to_task_status());
                    task.error = record.error.as_ref().map(|e| e.message.clone());
                    task.result_evidence_ids = match (&record.result, record.state) {
                        (Some(result), InstructionState::Completed) => {
                            Some(result_evidence_ids(&task_id, run_id, result))
                        }
                        _ => None,
                    };
                    Some(task.clone())
                })
                .collect()
        };
        write_tasks(&self.store, &self.conversation_id, settled.clone())?;
        Ok(settled)
    }

    fn follow(&self, event: &Event) {
        let EventBody::WorkflowStatus(p) = &event.body else {
            return;
        };
        if p.node_kind != Some(NodeKind::Instruction) {
            return;
        }
        let Some(state) = InstructionState::from_workflow_state(p.state) else {
            return;
        };
        let task = {
            let mut tasks = crate::sync::lock(&self.tasks);
            let Some(task) = tasks.get_mut(&self.naming.id(&p.node_id)) else {
                return;
            };
            task.status = Some(state.to_task_status());
            // The reason of a failure, a skip or a timeout is what the task list shows.
            task.error = match state {
                InstructionState::Pending
                | InstructionState::Running
                | InstructionState::Completed => None,
                _ => p.reason.clone(),
            };
            task.clone()
        };
        if let Err(error) = self.store.put_task(&self.conversation_id, task) {
            tracing::warn!(%error, task = %p.node_id, "could not update the task list");
        }
    }
}

impl EventSink for TaskListSink {
    fn settle(&self) {
        self.inner.settle();
    }

    fn emit(&self, mut event: Event) {
        // The task is written before the event is passed on: a client that sees the event and
        // reads the task list finds it up to date.
        self.follow(&event);
        // Seed 004 §2 (建议): a call made for a task names it, so the tool call record does.
        if let EventBody::ToolCall(p) = &mut event.body {
            let task_id = self.naming.id(&p.tool_call_id);
            let known = crate::sync::lock(&self.tasks).contains_key(&task_id);
            if known {
                p.task_id = Some(task_id);
            }
        }
        self.inner.emit(event);
    }
}

/// [`TaskListSink::new`] as the sink an executor takes.
pub fn task_list_sink(
    store: Arc<Store>,
    conversation_id: &str,
    set: &InstructionSet,
    inner: Arc<dyn EventSink>,
) -> Result<Arc<dyn EventSink>, StoreError> {
    Ok(Arc::new(TaskListSink::new(
        store,
        conversation_id,
        set,
        inner,
    )?))
}
