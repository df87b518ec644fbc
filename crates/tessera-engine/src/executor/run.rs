//! The run loop shared by tool-call requests and instruction sets: start every node whose
//! predecessors are done (up to the limits), record each as it ends, release its successors;
//! stop everything on cancellation, on the set's timeout, or when a call with
//! `fallbackBehavior: ABORT` fails.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use serde_json::{json, Value};
use tessera_protocol::easyflow::{NodeKind, WorkflowState};
use tessera_protocol::mcp_cp::{FallbackBehavior, Runtime};
use tessera_protocol::vocabulary::{InstructionState, ToolOutcome};
use tessera_protocol::wire::JsonObject;
use tessera_scheduler::gate::{instruction_gate, tool_call_gate};
use tessera_scheduler::reference::{substitute, NoEntry, ReferenceSource};
use tessera_scheduler::{EdgeKind, Gate, Graph, Plan, ReadySet};
use tokio::task::{Id, JoinSet};
use tokio::time::Instant;

use super::attempt::{run_call, Attempt};
use super::events::Emitter;
use super::limits::{bytes, json_size};
use super::outcome::{CallError, CallOutcome};
use crate::tools::{RegisteredTool, ToolFailureCode, ToolKind, ToolRegistry};
use tokio_util::sync::CancellationToken;

/// One call or instruction as the loop runs it.
#[derive(Clone, Debug)]
pub(crate) struct Unit {
    pub id: String,
    /// The tool (for an instruction, its action).
    pub name: String,
    /// Arguments before substitution.
    pub params: Value,
    /// The call's own timeout.
    pub timeout_ms: Option<u64>,
    /// The call's own runtime, if it names one.
    pub runtime: Option<Runtime>,
    pub fallback: Option<FallbackBehavior>,
    /// The call's `userPrompt` (seed 000 §4.5.3): the agent's words to show the person.
    pub user_prompt: Option<String>,
    /// The call's `uiSettings`: how the client should show the tool.
    pub ui_settings: Option<tessera_protocol::wire::JsonObject>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum SetKind {
    ToolCalls,
    Instructions,
}

pub(crate) struct RunSpec {
    pub plan: Plan,
    pub units: Vec<Unit>,
    pub kind: SetKind,
    /// The set's own timeout.
    pub overall_ms: Option<u64>,
    /// frontendTimeout, backendTimeout: each runtime's calls together, from the first start.
    pub group_ms: [Option<u64>; 2],
}

pub(crate) struct Shared {
    pub registry: Arc<ToolRegistry>,
    pub emitter: Arc<Emitter>,
    pub gate: Arc<crate::tools::ConsentGate>,
    pub limits: super::Limits,
}

struct Entries<'a> {
    graph: &'a Graph,
    values: &'a [Option<Value>],
}

impl ReferenceSource for Entries<'_> {
    fn entry(&self, _root: &str, id: &str) -> Result<&Value, NoEntry> {
        let i = self
            .graph
            .index_of(id)
            .ok_or_else(|| NoEntry::Unknown(id.to_owned()))?;
        self.values[i]
            .as_ref()
            .ok_or_else(|| NoEntry::NotFinished(id.to_owned()))
    }
}

enum Step {
    Done(CallOutcome),
    Run(Attempt),
}

fn group(runtime: Runtime) -> usize {
    match runtime {
        Runtime::Frontend => 0,
        Runtime::Backend => 1,
    }
}

fn ms(d: Duration) -> u64 {
    u64::try_from(d.as_millis()).unwrap_or(u64::MAX)
}

struct Run<'a> {
    shared: &'a Shared,
    spec: &'a RunSpec,
    tools: Vec<Option<Arc<RegisteredTool>>>,
    outcomes: Vec<Option<CallOutcome>>,
    entries: Vec<Option<Value>>,
    /// Whether some node reads this one's entry (a placeholder or a condition): only those
    /// entries are built.
    read_by_others: Vec<bool>,
    states: Vec<&'static str>,
    group_deadline: [Option<Instant>; 2],
    inner_cancel: CancellationToken,
    /// Bytes of arguments and results so far ([`super::Limits::set_bytes`]).
    spent: usize,
}

impl Run<'_> {
    fn graph(&self) -> &Graph {
        &self.spec.plan.graph
    }

    fn emitter(&self) -> &Emitter {
        &self.shared.emitter
    }

    fn runtime(&self, i: usize) -> Runtime {
        let unit = &self.spec.units[i];
        unit.runtime
            .or_else(|| self.tools[i].as_ref().map(|t| t.spec.runtime))
            .unwrap_or(Runtime::Backend)
    }

    fn is_agent(&self, i: usize) -> bool {
        self.tools[i]
            .as_ref()
            .is_some_and(|t| t.spec.kind == ToolKind::Agent)
    }

    fn outcome_of(&self, i: usize) -> ToolOutcome {
        self.outcomes[i]
            .as_ref()
            .map_or(ToolOutcome::Error, |o| o.outcome)
    }

    /// The set's shape and states (at the start and at the end). An instruction set's nodes say
    /// `node_kind: instruction`, as its `workflow/status` events do, so a client can tell a plan
    /// from a model's round of tool calls before any step has started.
    fn emit_graph(&self) {
        let (mut nodes, edges) = self.graph().view(&|i| self.states[i].to_owned());
        if self.spec.kind == SetKind::Instructions {
            let kind = serde_json::to_value(NodeKind::Instruction).unwrap_or(Value::Null);
            for node in &mut nodes {
                if let Value::Object(o) = node {
                    o.insert("node_kind".into(), kind.clone());
                }
            }
        }
        self.emitter().workflow_graph(nodes, edges);
    }

    /// Decides what happens to node `i` now that its predecessors are done.
    fn prepare(&mut self, i: usize) -> Step {
        let spec = self.spec;
        let unit = &spec.units[i];
        let graph = &spec.plan.graph;
        match self.spec.kind {
            SetKind::ToolCalls => {
                if let Gate::DependencyError { message } =
                    tool_call_gate(graph, i, &|p| self.outcome_of(p))
                {
                    return Step::Done(CallOutcome::not_run(
                        ToolOutcome::Error,
                        CallError::new(ToolFailureCode::DependencyError, message),
                    ));
                }
            }
            SetKind::Instructions => {
                let context = || {
                    let mut deps = JsonObject::new();
                    for &p in graph.hard_preds(i) {
                        if let Some(v) = &self.entries[p] {
                            deps.insert(graph.id(p).to_owned(), v.clone());
                        }
                    }
                    json!({"dependencies": deps.clone(), "results": deps})
                };
                let state_of = |p: usize| {
                    self.outcomes[p]
                        .as_ref()
                        .map_or(InstructionState::Failed, CallOutcome::instruction_state)
                };
                match instruction_gate(
                    graph,
                    i,
                    spec.plan.conditions[i].as_ref(),
                    &state_of,
                    &context,
                ) {
                    Gate::Run => {}
                    Gate::Skip { reason } | Gate::DependencyError { message: reason } => {
                        return Step::Done(CallOutcome::not_run(
                            ToolOutcome::Skipped,
                            CallError::new(ToolFailureCode::Skipped, reason),
                        ))
                    }
                }
            }
        }
        let Some(tool) = self.tools[i].clone() else {
            let error = CallError::new(
                ToolFailureCode::ToolNotFound,
                format!("there is no tool named `{}`", unit.name),
            );
            let outcome = match unit.fallback {
                Some(FallbackBehavior::Skip) => ToolOutcome::Skipped,
                _ => ToolOutcome::NotFound,
            };
            return Step::Done(CallOutcome::not_run(outcome, error));
        };
        let source = Entries {
            graph,
            values: &self.entries,
        };
        let arguments = match substitute(&unit.params, "parameters", &source) {
            Ok(v) => v,
            Err(e) => {
                return Step::Done(CallOutcome::not_run(
                    ToolOutcome::Error,
                    CallError::new(ToolFailureCode::DependencyError, e.to_string()),
                ))
            }
        };
        let limits = self.shared.limits;
        let size = json_size(&arguments);
        if size > limits.arguments_bytes {
            return Step::Done(CallOutcome::not_run(
                ToolOutcome::Error,
                CallError::new(
                    ToolFailureCode::ArgumentsTooLarge,
                    format!(
                        "the arguments of `{}` come to {} after substitution; at most {}",
                        unit.id,
                        bytes(size),
                        bytes(limits.arguments_bytes)
                    ),
                ),
            ));
        }
        if self.spent.saturating_add(size) > limits.set_bytes {
            return Step::Done(CallOutcome::not_run(
                ToolOutcome::Error,
                CallError::new(
                    ToolFailureCode::SetLimitReached,
                    format!(
                        "not run: the calls of this set already hold {} of arguments and \
                         results, and at most {} are kept",
                        bytes(self.spent),
                        bytes(limits.set_bytes)
                    ),
                ),
            ));
        }
        if let Some(max) = tool.spec.max_file_bytes {
            let file = largest_file(&arguments);
            if file > max {
                return Step::Done(CallOutcome::not_run(
                    ToolOutcome::Error,
                    CallError::new(
                        ToolFailureCode::FileTooLarge,
                        format!(
                            "`{}` would send the client a file of {file} bytes; its announced \
                             maxFileSize is {max} bytes, so the call was not sent",
                            unit.id
                        ),
                    ),
                ));
            }
        }
        self.spent += size;
        let runtime = self.runtime(i);
        self.emitter().tool_call(
            &unit.id,
            &unit.name,
            arguments.clone(),
            &tool.spec,
            super::events::CallShown {
                depends_on: graph
                    .preds(i)
                    .iter()
                    .map(|&p| graph.id(p).to_owned())
                    .collect(),
                runtime,
                user_prompt: unit.user_prompt.as_deref(),
                ui_settings: unit.ui_settings.as_ref(),
            },
        );
        if let Err(problems) = tool.validate_arguments(&arguments) {
            return Step::Done(CallOutcome::not_run(
                ToolOutcome::Error,
                CallError::new(
                    ToolFailureCode::InvalidArguments,
                    format!("invalid arguments for `{}`: {problems}", unit.name),
                ),
            ));
        }
        let now = Instant::now();
        let own_ms = unit.timeout_ms.unwrap_or(tool.spec.timeout_ms);
        let mut timeout = Duration::from_millis(own_ms);
        let mut reason = format!("`{}` took longer than its timeout of {own_ms} ms", unit.id);
        let g = group(runtime);
        if let Some(group_ms) = spec.group_ms[g] {
            let deadline =
                *self.group_deadline[g].get_or_insert(now + Duration::from_millis(group_ms));
            let left = deadline.saturating_duration_since(now);
            let name = if g == 0 {
                "frontendTimeout"
            } else {
                "backendTimeout"
            };
            if left.is_zero() {
                return Step::Done(CallOutcome::not_run(
                    ToolOutcome::Timeout,
                    CallError::new(
                        ToolFailureCode::Timeout,
                        format!("not started: the {name} of {group_ms} ms had expired"),
                    ),
                ));
            }
            if left < timeout {
                timeout = left;
                reason = format!(
                    "`{}` was still running when the {name} of {group_ms} ms expired",
                    unit.id
                );
            }
        }
        Step::Run(Attempt {
            call_id: unit.id.clone(),
            tool: tool.clone(),
            registry: self.shared.registry.clone(),
            emitter: self.shared.emitter.clone(),
            gate: self.shared.gate.clone(),
            arguments,
            timeout,
            timeout_reason: reason,
            fallback: unit.fallback,
            cancel: self.inner_cancel.clone(),
            notes: Default::default(),
        })
    }

    fn started(&mut self, i: usize) {
        let spec = self.spec;
        let id = &spec.units[i].id;
        self.emitter().tool_started(id);
        if self.spec.kind == SetKind::Instructions {
            self.emitter().workflow_status(
                id,
                NodeKind::Instruction,
                WorkflowState::Start,
                None,
                None,
            );
        }
        if self.is_agent(i) {
            let agent = super::events::agent_of(&spec.units[i].name);
            self.emitter()
                .agent_status(id, agent, super::events::AgentChange::Started);
        }
        self.states[i] = "RUNNING";
    }

    fn finish(&mut self, i: usize, mut outcome: CallOutcome) {
        let spec = self.spec;
        let unit = &spec.units[i];
        if let Some(result) = &outcome.result {
            let size = json_size(result);
            let limit = self.shared.limits.result_bytes;
            if size > limit {
                outcome.outcome = ToolOutcome::Error;
                outcome.result = None;
                outcome.error = Some(CallError::new(
                    ToolFailureCode::ResultTooLarge,
                    format!(
                        "`{}` answered {}; at most {} of a result is kept",
                        unit.id,
                        bytes(size),
                        bytes(limit)
                    ),
                ));
            } else {
                self.spent = self.spent.saturating_add(size);
            }
        }
        let mut extra = JsonObject::new();
        if let Some(alt) = &outcome.alternative {
            extra.insert("alternative".into(), Value::String(alt.clone()));
        }
        if outcome.attempts > 1 {
            extra.insert("attempts".into(), Value::from(outcome.attempts));
        }
        for (key, value) in &outcome.notes {
            extra.insert(key.clone(), value.clone());
        }
        self.emitter().tool_result(
            &unit.id,
            outcome.outcome,
            outcome.result.clone(),
            outcome.error.as_ref().map(CallError::to_value),
            outcome.duration_ms,
            extra,
        );
        let reason = outcome.error.as_ref().map(|e| e.message.clone());
        if self.is_agent(i) && outcome.attempts > 0 {
            self.emitter().agent_status(
                &unit.id,
                super::events::agent_of(&unit.name),
                super::events::AgentChange::Ended {
                    success: outcome.is_success(),
                    reason: reason.clone(),
                    duration_ms: Some(outcome.duration_ms),
                },
            );
        }
        match self.spec.kind {
            SetKind::ToolCalls => {
                if self.read_by_others[i] {
                    self.entries[i] = Some(outcome.tool_entry(&unit.id));
                }
                self.states[i] = outcome.outcome.as_mcp_cp_str();
            }
            SetKind::Instructions => {
                let state = outcome.instruction_state();
                if let Some(ws) = state.to_workflow_state() {
                    self.emitter().workflow_status(
                        &unit.id,
                        NodeKind::Instruction,
                        ws,
                        reason,
                        None,
                    );
                }
                if self.read_by_others[i] {
                    self.entries[i] = Some(outcome.instruction_entry());
                }
                self.states[i] = state.as_mcp_cp_str();
            }
        }
        self.outcomes[i] = Some(outcome);
    }
}

fn read_by_others(graph: &Graph, kind: SetKind) -> Vec<bool> {
    let mut read = vec![false; graph.len()];
    for e in graph.edges() {
        // A tool call's entry is read through placeholders; an instruction's also by the
        // conditions of the instructions that depend on it. Between two calls the graph keeps
        // one edge, so a call both required after and referenced shows as After: keep the
        // entry for After edges too, or its reference finds nothing.
        read[e.from] |= match kind {
            SetKind::ToolCalls | SetKind::Instructions => {
                matches!(e.kind, EdgeKind::Data | EdgeKind::After)
            }
        };
    }
    read
}

async fn sleep_until(deadline: Option<Instant>) {
    match deadline {
        Some(d) => tokio::time::sleep_until(d).await,
        None => std::future::pending().await,
    }
}

type Joined = Option<Result<(Id, (usize, CallOutcome)), tokio::task::JoinError>>;

/// What woke the loop; lives for one iteration.
#[allow(clippy::large_enum_variant)]
enum Wake {
    Cancelled,
    Overall,
    Joined(Joined),
}

/// Runs a planned set; outcomes in the set's order.
pub(crate) async fn run_set(
    shared: &Shared,
    spec: RunSpec,
    cancel: &CancellationToken,
) -> Vec<CallOutcome> {
    let mut spec = spec;
    let n = spec.units.len();
    let tools: Vec<Option<Arc<RegisteredTool>>> = spec
        .units
        .iter()
        .map(|u| shared.registry.get(&u.name).cloned())
        .collect();
    // A tool's own fallback (a front-end tool's announced one) applies as if the call named it.
    for (unit, tool) in spec.units.iter_mut().zip(&tools) {
        if unit.fallback.is_none() {
            unit.fallback = tool.as_ref().and_then(|t| t.spec.fallback);
        }
    }
    let mut run = Run {
        shared,
        spec: &spec,
        tools,
        outcomes: vec![None; n],
        entries: vec![None; n],
        read_by_others: read_by_others(&spec.plan.graph, spec.kind),
        states: vec!["PENDING"; n],
        group_deadline: [None, None],
        inner_cancel: CancellationToken::new(),
        spent: 0,
    };
    for (i, u) in spec.units.iter().enumerate() {
        run.emitter().tool_queued(&u.id, &u.name, i);
    }
    run.emit_graph();
    let mut ready: ReadySet = spec.plan.ready_set();
    let mut join: JoinSet<(usize, CallOutcome)> = JoinSet::new();
    let mut task_of: HashMap<Id, usize> = HashMap::new();
    let mut started_at: HashMap<usize, Instant> = HashMap::new();
    let overall_deadline = spec
        .overall_ms
        .map(|ms| Instant::now() + Duration::from_millis(ms));
    let mut abort: Option<(ToolOutcome, CallError)> = None;
    let abort_for = |unit: &Unit| {
        (
            ToolOutcome::Cancelled,
            CallError::new(
                ToolFailureCode::Aborted,
                format!("`{}` failed and its fallbackBehavior is ABORT", unit.id),
            ),
        )
    };
    loop {
        while abort.is_none() {
            let Some(i) = ready.pop_startable() else {
                break;
            };
            match run.prepare(i) {
                Step::Done(outcome) => {
                    let aborts = outcome.outcome == ToolOutcome::NotFound
                        && spec.units[i].fallback == Some(FallbackBehavior::Abort);
                    run.finish(i, outcome);
                    ready.finish(&spec.plan.graph, i);
                    if aborts {
                        abort = Some(abort_for(&spec.units[i]));
                    }
                }
                Step::Run(attempt) => {
                    run.started(i);
                    let handle = join.spawn(async move { (i, run_call(attempt).await) });
                    task_of.insert(handle.id(), i);
                    started_at.insert(i, Instant::now());
                }
            }
        }
        if abort.is_some() || ready.is_finished() {
            break;
        }
        let wake = tokio::select! {
            biased;
            _ = cancel.cancelled() => Wake::Cancelled,
            _ = sleep_until(overall_deadline) => Wake::Overall,
            joined = join.join_next_with_id() => Wake::Joined(joined),
        };
        match wake {
            Wake::Cancelled => {
                abort = Some((
                    ToolOutcome::Cancelled,
                    CallError::new(ToolFailureCode::Cancelled, "the run was cancelled"),
                ))
            }
            Wake::Overall => {
                abort = Some((
                    ToolOutcome::Timeout,
                    CallError::new(
                        ToolFailureCode::Timeout,
                        format!(
                            "the set's timeout of {} ms expired",
                            spec.overall_ms.unwrap_or_default()
                        ),
                    ),
                ))
            }
            Wake::Joined(Some(Ok((id, (i, outcome))))) => {
                task_of.remove(&id);
                started_at.remove(&i);
                let aborts = matches!(
                    outcome.outcome,
                    ToolOutcome::Error | ToolOutcome::Timeout | ToolOutcome::NotFound
                ) && spec.units[i].fallback == Some(FallbackBehavior::Abort);
                run.finish(i, outcome);
                ready.finish(&spec.plan.graph, i);
                if aborts {
                    abort = Some(abort_for(&spec.units[i]));
                }
            }
            Wake::Joined(Some(Err(e))) => {
                if let Some(i) = task_of.remove(&e.id()) {
                    let duration_ms = started_at.remove(&i).map_or(0, |s| ms(s.elapsed()));
                    tracing::error!(call = %spec.units[i].id, error = %e, "tool task crashed");
                    let mut outcome = CallOutcome::not_run(
                        ToolOutcome::Error,
                        CallError::new(
                            ToolFailureCode::ToolCrashed,
                            format!("the tool crashed: {e}"),
                        ),
                    );
                    outcome.duration_ms = duration_ms;
                    outcome.attempts = 1;
                    run.finish(i, outcome);
                    ready.finish(&spec.plan.graph, i);
                }
            }
            Wake::Joined(None) => {
                // Nothing runs and nothing can start: cannot happen with an acyclic graph.
                abort = Some((
                    ToolOutcome::Error,
                    CallError::new(ToolFailureCode::Internal, "the scheduler stalled"),
                ));
            }
        }
    }
    if let Some((outcome_kind, error)) = abort {
        run.inner_cancel.cancel();
        join.abort_all();
        while let Some(joined) = join.join_next_with_id().await {
            match joined {
                Ok((_, (i, outcome))) => run.finish(i, outcome),
                Err(e) => {
                    if let Some(i) = task_of.remove(&e.id()) {
                        let mut outcome = CallOutcome::not_run(outcome_kind, error.clone());
                        outcome.duration_ms = started_at.get(&i).map_or(0, |s| ms(s.elapsed()));
                        outcome.attempts = 1;
                        run.finish(i, outcome);
                    }
                }
            }
        }
        for i in ready.drain_unstarted() {
            let not_started = CallError::new(
                error.code.clone(),
                format!("not started: {}", error.message),
            );
            run.finish(i, CallOutcome::not_run(outcome_kind, not_started));
        }
    }
    run.emitter().queue_drained();
    run.emit_graph();
    run.outcomes
        .into_iter()
        .map(|o| {
            o.unwrap_or_else(|| {
                CallOutcome::not_run(
                    ToolOutcome::Error,
                    CallError::new(ToolFailureCode::Internal, "never ran"),
                )
            })
        })
        .collect()
}

/// The size in bytes of the largest file a call's arguments carry: a `data:` URL by its
/// decoded bytes, any other string by its own (a base64 payload or a text is the file).
fn largest_file(arguments: &Value) -> u64 {
    match arguments {
        Value::String(text) => {
            let bytes = match text
                .strip_prefix("data:")
                .and_then(|rest| rest.split_once(','))
            {
                Some((meta, payload)) if meta.ends_with(";base64") => payload.len() / 4 * 3,
                Some((_, payload)) => payload.len(),
                None => text.len(),
            };
            u64::try_from(bytes).unwrap_or(u64::MAX)
        }
        Value::Array(items) => items.iter().map(largest_file).max().unwrap_or(0),
        Value::Object(fields) => fields.values().map(largest_file).max().unwrap_or(0),
        _ => 0,
    }
}
