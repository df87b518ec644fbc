//! The executor: runs MCP-CP tool-call requests and instruction sets against a
//! [`ToolRegistry`], as fast as the precedence graph allows, reporting every state change to an
//! [`EventSink`].
//!
//! ```no_run
//! # use std::sync::Arc;
//! # use tessera_engine::executor::{Executor, ExecutorOptions, CollectingSink};
//! # use tessera_engine::tools::ToolRegistry;
//! # use tokio_util::sync::CancellationToken;
//! # async fn demo(request: tessera_protocol::mcp_cp::ToolCallRequest) -> Result<(), tessera_scheduler::PlanError> {
//! let sink = Arc::new(CollectingSink::new());
//! let executor = Executor::new(Arc::new(ToolRegistry::new()), sink.clone(), ExecutorOptions::new("conv_1"));
//! let response = executor.run_tool_calls(&request, &CancellationToken::new()).await?;
//! # Ok(()) }
//! ```
//!
//! - A set that would deadlock or cannot be understood (a cycle, an unknown id, a condition that
//!   does not parse) is refused with a [`PlanError`] before anything runs.
//! - Each call has its own timeout (the call's `timeout`, else its tool's); the set has one too
//!   (`timeout`), and so has each runtime under `frontendTimeout` / `backendTimeout`.
//! - Results come back in the request's order; a failure never stops the other calls, only the
//!   ones that declared they depend on it (a dependency error). A call with
//!   `fallbackBehavior: ABORT` that fails stops the set; the other results are kept (partial
//!   results).
//! - ASYNC ([`Executor::start_tool_calls`]) answers at once; the results arrive as
//!   `tool/tool_result` events (and, through an [`crate::event_log::EventLog`], in the store).

pub(crate) mod attempt;
pub mod events;
pub mod limits;
pub(crate) mod nested_sink;
pub mod outcome;
pub(crate) mod result_evidence;
pub(crate) mod run;
pub mod task_list;

use std::sync::Arc;

use serde_json::Value;
use tessera_protocol::mcp_cp::{
    InstructionSet, Runtime, ToolCall, ToolCallRequest, ToolCallResponse,
};
use tessera_protocol::wire::JsonObject;
use tessera_scheduler::{plan_instructions, plan_tool_calls, Access, CallInfo, Plan, PlanError};
use tokio::task::JoinHandle;

use crate::tools::{RequestedBy, ToolRegistry};
use tokio_util::sync::CancellationToken;

pub(crate) use events::ChannelSink;
pub use events::{CollectingSink, EventSink, NullSink};
pub use limits::Limits;
pub(crate) use nested_sink::NestedSink;
pub(crate) use outcome::CallOutcome;
pub use outcome::{CallError, InstructionRecord, InstructionResults};

use events::Emitter;
use run::{run_set, RunSpec, SetKind, Shared, Unit};

/// How an executor runs.
#[derive(Clone, Debug)]
pub struct ExecutorOptions {
    /// Calls running at once, all runtimes together (default 10).
    pub concurrency_limit: usize,
    /// The conversation the events belong to.
    pub conversation_id: String,
    /// The run, written to each event's `meta.run_id`.
    pub run_id: Option<String>,
    /// Where a running tool's forms go ([`crate::tools::ToolContext::ask_form`]); None: the
    /// person cannot be asked.
    pub(crate) live_forms: Option<Arc<crate::interactions::LiveForms>>,
    /// The consent gate every call passes before its tool runs. By default one with no grants
    /// to read: a tool that needs consent is refused.
    consent: Arc<crate::tools::ConsentGate>,
    /// What a set may make Tessera hold ([`Limits`]).
    pub limits: Limits,
}

impl ExecutorOptions {
    pub fn new(conversation_id: impl Into<String>) -> Self {
        let conversation_id = conversation_id.into();
        Self {
            concurrency_limit: 10,
            consent: Arc::new(crate::tools::ConsentGate::without_grants(
                conversation_id.clone(),
            )),
            conversation_id,
            run_id: None,
            live_forms: None,
            limits: Limits::default(),
        }
    }

    pub fn limits(mut self, limits: Limits) -> Self {
        self.limits = limits;
        self
    }

    pub fn consent_gate(&self) -> &Arc<crate::tools::ConsentGate> {
        &self.consent
    }

    /// The gate the calls pass ([`crate::tools::gate`]).
    pub fn consent(mut self, gate: Arc<crate::tools::ConsentGate>) -> Self {
        self.consent = gate;
        self
    }

    pub fn concurrency_limit(mut self, limit: usize) -> Self {
        self.concurrency_limit = limit.max(1);
        self
    }

    pub fn run_id(mut self, run_id: impl Into<String>) -> Self {
        self.run_id = Some(run_id.into());
        self
    }

    pub(crate) fn live_forms(mut self, forms: Option<Arc<crate::interactions::LiveForms>>) -> Self {
        self.live_forms = forms;
        self
    }

    /// Options for an executor of calls `requested_by` makes inside the running call `ctx`:
    /// same conversation, same run, and a gate nested in the call's (the same grants; the
    /// person's approval of the call does not extend to what it calls).
    pub(crate) fn nested_in(ctx: &crate::tools::ToolContext, requested_by: RequestedBy) -> Self {
        let options = Self::new(ctx.conversation_id())
            .consent(Arc::new(ctx.nested_gate(requested_by)))
            .live_forms(ctx.live_forms().cloned());
        match ctx.run_id() {
            Some(run) => options.run_id(run),
            None => options,
        }
    }
}

/// An ASYNC request that has been accepted: the acknowledgement now, the results later.
pub struct AsyncRun {
    /// Answer at once: a TOOL_CALL_RESPONSE with no results yet; `accepted` lists the call ids.
    pub acknowledgement: ToolCallResponse,
    /// Resolves to the full response when every call has ended.
    pub completion: JoinHandle<ToolCallResponse>,
    /// Cancels the running set.
    pub cancel: CancellationToken,
}

/// Runs tool calls and instruction sets. Cheap to clone.
#[derive(Clone)]
pub struct Executor {
    registry: Arc<ToolRegistry>,
    sink: Arc<dyn EventSink>,
    options: ExecutorOptions,
}

fn seconds_to_ms(n: Option<&serde_json::Number>) -> Option<u64> {
    n.and_then(serde_json::Number::as_f64)
        .filter(|s| *s > 0.0)
        .map(|s| (s * 1000.0).round() as u64)
}

impl Executor {
    pub fn new(
        registry: Arc<ToolRegistry>,
        sink: Arc<dyn EventSink>,
        options: ExecutorOptions,
    ) -> Self {
        Self {
            registry,
            sink,
            options,
        }
    }

    pub fn registry(&self) -> &Arc<ToolRegistry> {
        &self.registry
    }

    fn call_info(&self, name: &str) -> CallInfo {
        let mut display = JsonObject::new();
        match self.registry.get(name) {
            Some(tool) => {
                let spec = &tool.spec;
                display.insert("kind".into(), Value::String(spec.kind.as_str().into()));
                display.insert("safe".into(), Value::Bool(spec.is_concurrency_safe()));
                CallInfo {
                    access: spec.access(),
                    estimate_ms: spec.estimated_duration_ms,
                    runtime: Some(spec.runtime),
                    display,
                }
            }
            // An unknown tool never runs: it conflicts with nothing.
            None => {
                display.insert("unknown".into(), Value::Bool(true));
                CallInfo {
                    access: Access::safe(),
                    estimate_ms: 0,
                    runtime: None,
                    display,
                }
            }
        }
    }

    /// Checks a request and plans it, without running anything.
    pub fn plan_tool_calls(&self, request: &ToolCallRequest) -> Result<Plan, PlanError> {
        plan_tool_calls(
            request,
            self.options.concurrency_limit,
            &|call: &ToolCall| {
                let mut info = self.call_info(&call.name);
                if let Some(rt) = call.runtime {
                    info.display.insert(
                        "runtime".into(),
                        Value::String(match rt {
                            Runtime::Frontend => "FRONTEND".into(),
                            Runtime::Backend => "BACKEND".into(),
                        }),
                    );
                }
                info
            },
        )
    }

    /// Checks an instruction set and plans it, without running anything.
    pub fn plan_instructions(&self, set: &InstructionSet) -> Result<Plan, PlanError> {
        plan_instructions(set, self.options.concurrency_limit, &|inst| {
            self.call_info(&inst.action)
        })
    }

    fn emitter(&self) -> Arc<Emitter> {
        Arc::new(Emitter::new(
            self.sink.clone(),
            self.options.conversation_id.clone(),
            self.options.run_id.clone(),
            self.options.live_forms.clone(),
        ))
    }

    fn tool_spec(&self, request: &ToolCallRequest, plan: Plan) -> RunSpec {
        let units = request
            .calls
            .iter()
            .map(|c| {
                let frontend = c.runtime == Some(Runtime::Frontend)
                    || self
                        .registry
                        .get(&c.name)
                        .is_some_and(|t| t.spec.runtime == Runtime::Frontend);
                let own = if frontend {
                    seconds_to_ms(c.timeout_client.as_ref()).or(seconds_to_ms(c.timeout.as_ref()))
                } else {
                    seconds_to_ms(c.timeout.as_ref())
                };
                Unit {
                    id: c.call_id.clone(),
                    name: c.name.clone(),
                    params: Value::Object(c.parameters.clone()),
                    timeout_ms: own,
                    runtime: c.runtime,
                    fallback: c.fallback_behavior,
                    user_prompt: c.user_prompt.clone(),
                    ui_settings: c.ui_settings.clone(),
                }
            })
            .collect();
        RunSpec {
            plan,
            units,
            kind: SetKind::ToolCalls,
            overall_ms: seconds_to_ms(request.timeout.as_ref()),
            group_ms: [
                seconds_to_ms(request.frontend_timeout.as_ref()),
                seconds_to_ms(request.backend_timeout.as_ref()),
            ],
        }
    }

    fn response(request: &ToolCallRequest, outcomes: &[CallOutcome]) -> ToolCallResponse {
        ToolCallResponse {
            results: request
                .calls
                .iter()
                .zip(outcomes)
                .map(|(c, o)| o.to_tool_result(&c.call_id))
                .collect(),
            extra: JsonObject::new(),
        }
    }

    /// Runs a TOOL_CALL_REQUEST to its end (any mode, ASYNC included: this waits) and returns
    /// the TOOL_CALL_RESPONSE content, results in the request's order.
    pub async fn run_tool_calls(
        &self,
        request: &ToolCallRequest,
        cancel: &CancellationToken,
    ) -> Result<ToolCallResponse, PlanError> {
        let plan = self.plan_tool_calls(request)?;
        let shared = Shared {
            registry: self.registry.clone(),
            emitter: self.emitter(),
            gate: self.options.consent.clone(),
            limits: self.options.limits,
        };
        let outcomes = run_set(&shared, self.tool_spec(request, plan), cancel).await;
        Ok(Self::response(request, &outcomes))
    }

    /// Starts a request in the background and answers at once (ASYNC, seed 000 §4.3): the plan
    /// is checked now (a refused set is an error now); results arrive as events and through
    /// [`AsyncRun::completion`]. Needs a tokio runtime.
    pub fn start_tool_calls(&self, request: ToolCallRequest) -> Result<AsyncRun, PlanError> {
        let plan = self.plan_tool_calls(&request)?;
        let spec = self.tool_spec(&request, plan);
        let shared = Shared {
            registry: self.registry.clone(),
            emitter: self.emitter(),
            gate: self.options.consent.clone(),
            limits: self.options.limits,
        };
        let cancel = CancellationToken::new();
        let task_cancel = cancel.clone();
        let mut extra = JsonObject::new();
        extra.insert(
            "accepted".into(),
            Value::Array(
                request
                    .calls
                    .iter()
                    .map(|c| Value::String(c.call_id.clone()))
                    .collect(),
            ),
        );
        let completion = tokio::spawn(async move {
            let outcomes = run_set(&shared, spec, &task_cancel).await;
            Self::response(&request, &outcomes)
        });
        Ok(AsyncRun {
            acknowledgement: ToolCallResponse {
                results: Vec::new(),
                extra,
            },
            completion,
            cancel,
        })
    }

    /// Runs an INSTRUCTION set to its end; results in the set's order.
    pub async fn run_instructions(
        &self,
        set: &InstructionSet,
        cancel: &CancellationToken,
    ) -> Result<InstructionResults, PlanError> {
        let plan = self.plan_instructions(set)?;
        let units = set
            .instructions
            .iter()
            .map(|inst| Unit {
                id: inst.instruction_id.clone(),
                name: inst.action.clone(),
                params: Value::Object(inst.parameters.clone().unwrap_or_default()),
                timeout_ms: seconds_to_ms(inst.timeout.as_ref()),
                runtime: None,
                fallback: None,
                user_prompt: None,
                ui_settings: None,
            })
            .collect();
        let spec = RunSpec {
            plan,
            units,
            kind: SetKind::Instructions,
            overall_ms: seconds_to_ms(set.timeout.as_ref()),
            group_ms: [None, None],
        };
        let shared = Shared {
            registry: self.registry.clone(),
            emitter: self.emitter(),
            gate: self.options.consent.clone(),
            limits: self.options.limits,
        };
        let outcomes = run_set(&shared, spec, cancel).await;
        Ok(InstructionResults {
            results: set
                .instructions
                .iter()
                .zip(outcomes)
                .map(|(inst, o)| {
                    (
                        inst.instruction_id.clone(),
                        InstructionRecord {
                            state: o.instruction_state(),
                            result: o.result,
                            error: o.error,
                            duration_ms: o.duration_ms,
                        },
                    )
                })
                .collect(),
        })
    }
}
