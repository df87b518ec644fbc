//! Tool calls and instruction sets a client asks for directly, outside any model run: each
//! runs as a run of its own on the conversation's event stream ([`DirectRun`]), through the
//! engine's consent gate, against the conversation's tools.

use std::sync::Arc;

use tessera_engine::executor::outcome::InstructionResults;
use tessera_engine::executor::task_list::TaskListSink;
use tessera_engine::executor::{Executor, ExecutorOptions, NullSink};
use tessera_engine::tools::ToolRegistry;
use tessera_protocol::context_doc::Task;
use tessera_protocol::easyflow::SystemState;
use tessera_protocol::mcp_cp::{
    ExecutionMode, InstructionSet, McpToolStatus, ToolCallRequest, ToolCallResponse,
};

use crate::direct_run::DirectRun;
use crate::{App, CoreError};

/// How a TOOL_CALL_REQUEST went.
#[derive(Debug)]
pub enum ToolCallsOutcome {
    /// ASYNC: the calls were accepted and run on; their results follow on the stream.
    Accepted {
        run_id: String,
        acknowledgement: ToolCallResponse,
    },
    /// Every call has ended; the results in the request's order.
    Done {
        run_id: String,
        response: ToolCallResponse,
    },
}

/// How an INSTRUCTION set went: each instruction's record, and the task list as stored.
#[derive(Debug)]
pub struct InstructionsOutcome {
    pub run_id: String,
    pub results: InstructionResults,
    pub tasks: Vec<Task>,
}

fn end_state(response: &ToolCallResponse) -> SystemState {
    if response
        .results
        .iter()
        .any(|r| r.status == McpToolStatus::Cancelled)
    {
        SystemState::Cancelled
    } else {
        SystemState::Completed
    }
}

impl App {
    /// The conversation's tools: the engine's and those its client announced.
    async fn direct_tools(&self, conversation: &str) -> Arc<ToolRegistry> {
        match self.tools_for(conversation).await {
            Ok(tools) => tools,
            Err(err) => {
                tracing::warn!(%err, "no tool for a direct run");
                Arc::new(ToolRegistry::new())
            }
        }
    }

    /// Runs a TOOL_CALL_REQUEST's calls as a run of their own. A set the scheduler refuses is
    /// refused before anything is stored or run. The calls go on if the client goes away;
    /// cancelling the run stops them.
    pub async fn run_tool_calls(
        &self,
        conversation: &str,
        request: &ToolCallRequest,
    ) -> Result<ToolCallsOutcome, CoreError> {
        let registry = self.direct_tools(conversation).await;
        Executor::new(
            registry.clone(),
            Arc::new(NullSink),
            ExecutorOptions::new(conversation.to_owned()),
        )
        .plan_tool_calls(request)?;
        self.ensure_conversation(conversation, "Tool calls")?;
        let run = DirectRun::begin(&self.engine, conversation)?;
        let executor = run.executor(registry, None);
        let run_id = run.run_id.clone();
        if request.execution_mode == Some(ExecutionMode::Async) {
            let started = executor.start_tool_calls(request.clone())?;
            let acknowledgement = started.acknowledgement;
            tokio::spawn(async move {
                let cancelled = run.cancel_token();
                let mut completion = started.completion;
                let outcome = tokio::select! {
                    outcome = &mut completion => outcome,
                    () = cancelled.cancelled() => {
                        started.cancel.cancel();
                        completion.await
                    }
                };
                let state = match outcome {
                    Ok(response) => end_state(&response),
                    Err(_) => SystemState::Failed,
                };
                run.end(state);
            });
            return Ok(ToolCallsOutcome::Accepted {
                run_id,
                acknowledgement,
            });
        }
        match executor.run_tool_calls(request, &run.cancel_token()).await {
            Ok(response) => {
                run.end(end_state(&response));
                Ok(ToolCallsOutcome::Done { run_id, response })
            }
            Err(err) => {
                run.end(SystemState::Failed);
                Err(err.into())
            }
        }
    }

    /// Runs an INSTRUCTION set as a run of its own, kept as the conversation's task list
    /// (seed 004 task_state) as it runs. A set that cannot be planned is refused before
    /// anything is stored or run.
    pub async fn run_instructions(
        &self,
        conversation: &str,
        set: &InstructionSet,
    ) -> Result<InstructionsOutcome, CoreError> {
        let registry = self.direct_tools(conversation).await;
        Executor::new(
            registry.clone(),
            Arc::new(NullSink),
            ExecutorOptions::new(conversation.to_owned()),
        )
        .plan_instructions(set)?;
        self.ensure_conversation(conversation, "Instructions")?;
        let run = DirectRun::begin(&self.engine, conversation)?;
        let run_id = run.run_id.clone();
        let task_list =
            match TaskListSink::new(self.engine.store().clone(), conversation, set, run.sink()) {
                Ok(sink) => Arc::new(sink),
                Err(err) => {
                    run.end(SystemState::Failed);
                    return Err(err.into());
                }
            };
        let executor = run.executor(registry, Some(task_list.clone()));
        let results = match executor.run_instructions(set, &run.cancel_token()).await {
            Ok(results) => results,
            Err(err) => {
                run.end(SystemState::Failed);
                return Err(err.into());
            }
        };
        // Seed 004 §2/§3: a completed task names the evidences its result became, as the
        // planner's tasks do; the status events alone cannot say which.
        if let Err(err) = task_list.settle(&results, Some(&run_id)) {
            tracing::warn!(%err, "could not settle the task list");
        }
        run.end(SystemState::Completed);
        let tasks = self.engine.store().tasks(conversation)?;
        Ok(InstructionsOutcome {
            run_id,
            results,
            tasks,
        })
    }
}
