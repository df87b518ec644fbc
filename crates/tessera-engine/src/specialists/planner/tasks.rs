//! The plan as the conversation's task list: written pending before the first step runs, each
//! task's status following its instruction's `workflow/status` as it happens, and settled from
//! the results at the end (error text, the evidences its result became). Task ids are the
//! steps' ids under the planning call's (`<call>/<step>`), as the stream shows them, so a
//! second plan never overwrites the first.

use std::sync::Arc;

use serde_json::json;
use tessera_protocol::context_doc::{Task, TaskStatus};
use tessera_protocol::easyflow::{Event, EventBody, NodeKind};
use tessera_protocol::mcp_cp::InstructionSet;
use tessera_protocol::vocabulary::InstructionState;
use tessera_protocol::wire::JsonObject;
use tessera_store::{Store, StoreError};

use crate::executor::result_evidence::result_evidence_ids;
use crate::executor::{EventSink, InstructionResults, NestedSink};

/// Passes events on (renamed by the nested sink) and keeps the task list in step.
pub struct TaskListSink {
    store: Arc<Store>,
    conversation_id: String,
    plan_id: String,
    run_id: Option<String>,
    inner: Arc<NestedSink>,
}

impl TaskListSink {
    pub fn new(
        store: Arc<Store>,
        conversation_id: &str,
        plan_id: &str,
        run_id: Option<&str>,
        inner: Arc<NestedSink>,
    ) -> Self {
        Self {
            store,
            conversation_id: conversation_id.to_owned(),
            plan_id: plan_id.to_owned(),
            run_id: run_id.map(str::to_owned),
            inner,
        }
    }

    fn task(&self, set: &InstructionSet, index: usize) -> Task {
        let inst = &set.instructions[index];
        let mut extra = JsonObject::new();
        extra.insert("plan_id".into(), json!(self.plan_id));
        extra.insert("action".into(), json!(inst.action));
        extra.insert("instruction_id".into(), json!(inst.instruction_id));
        if let Some(run) = &self.run_id {
            extra.insert("run_id".into(), json!(run));
        }
        Task {
            task_id: self.inner.id(&inst.instruction_id),
            name: Some(
                inst.extra
                    .get("description")
                    .and_then(|d| d.as_str())
                    .map_or_else(|| inst.action.clone(), str::to_owned),
            ),
            depends_on: inst
                .dependencies
                .as_ref()
                .map(|deps| deps.iter().map(|d| self.inner.id(d)).collect()),
            status: Some(TaskStatus::Pending),
            result_evidence_ids: None,
            error: None,
            extra,
        }
    }

    /// Writes every step as a pending task, in one transaction.
    pub fn start(&self, set: &InstructionSet) -> Result<(), StoreError> {
        let tasks: Vec<Task> = (0..set.instructions.len())
            .map(|i| self.task(set, i))
            .collect();
        let conversation_id = self.conversation_id.clone();
        self.store.write(move |tx| {
            for task in &tasks {
                tx.put_task(&conversation_id, task)?;
            }
            Ok(())
        })
    }

    /// Settles every task from the results: status, error, the evidences its result became.
    pub fn finish(&self, results: &InstructionResults) -> Result<Vec<Task>, StoreError> {
        let conversation_id = self.conversation_id.clone();
        let mut settled = Vec::new();
        for (id, record) in &results.results {
            let task_id = self.inner.id(id);
            let Some(mut task) = self.store.read(|r| r.task(&conversation_id, &task_id))? else {
                continue;
            };
            task.status = Some(record.state.to_task_status());
            task.error = record.error.as_ref().map(|e| e.message.clone());
            // Named from the result: its event may still be on its way to the store.
            task.result_evidence_ids = match (&record.result, record.state) {
                (Some(result), InstructionState::Completed) => Some(result_evidence_ids(
                    &task_id,
                    self.run_id.as_deref(),
                    result,
                )),
                _ => None,
            };
            settled.push(task);
        }
        let tasks = settled.clone();
        self.store.write(move |tx| {
            for task in &tasks {
                tx.put_task(&conversation_id, task)?;
            }
            Ok(())
        })?;
        Ok(settled)
    }

    /// A step changed state: its task follows (a failed write only loses the live update;
    /// [`TaskListSink::finish`] settles it).
    fn follow(&self, node_id: &str, state: InstructionState) {
        let task_id = self.inner.id(node_id);
        let conversation_id = self.conversation_id.clone();
        let written = self.store.write(move |tx| {
            if let Some(mut task) = tx.read().task(&conversation_id, &task_id)? {
                task.status = Some(state.to_task_status());
                tx.put_task(&conversation_id, &task)?;
            }
            Ok(())
        });
        if let Err(error) = written {
            tracing::warn!(%error, "a task's status could not be written");
        }
    }
}

impl EventSink for TaskListSink {
    fn emit(&self, event: Event) {
        if let EventBody::WorkflowStatus(p) = &event.body {
            if p.node_kind == Some(NodeKind::Instruction) {
                if let Some(state) = InstructionState::from_workflow_state(p.state) {
                    self.follow(&p.node_id, state);
                }
            }
        }
        self.inner.emit(event);
    }
}
