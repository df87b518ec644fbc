//! The planner: turns a request into an MCP-CP instruction set (seed 000 §5), checked before
//! anything runs (every action a tool it may use, none that needs the person's consent, no
//! cycle, conditions that parse; a problem goes back to its model for another turn), then run
//! by the scheduler as fast as the dependencies allow. The instructions are the conversation's
//! task list (seed 004 `task_state.todo_list`), each task's status following its instruction
//! live; the run's stream shows the plan's graph and each step's state.

use std::sync::Arc;

use serde_json::{json, Value};
use tessera_protocol::context_doc::UsageStage;
use tessera_protocol::mcp_cp::InstructionSet;
use tessera_protocol::wire::JsonObject;

use super::mini_loop::{first_message, run_loop};
use super::spec::{SpecialistDeps, SpecialistRole, SpecialistSpec, DEFAULT_MAX_TURNS};
use crate::builtin_tools::{calculator, datetime, save_memory, search_context};
use crate::executor::task_list::{TaskListSink, TaskNaming};
use crate::executor::{Executor, ExecutorOptions, InstructionResults, NestedSink, NullSink};
use crate::tools::{ConsentGate, RequestedBy};
use crate::tools::{ToolContext, ToolFailure, ToolFailureCode, ToolRegistry};

pub const NAME: &str = "planner";
/// More steps than this is no plan a person can follow.
pub(crate) const MAX_INSTRUCTIONS: usize = 30;

pub fn spec() -> SpecialistSpec {
    SpecialistSpec {
        name: NAME.to_owned(),
        title: "Planner".to_owned(),
        description: "Turns a request of several steps into a plan (an instruction set of tool \
            calls with their dependencies), runs it right away as fast as the dependencies \
            allow, keeps it as this conversation's task list, and returns each step's status \
            and result. Use it for work of three or more tool steps, especially when some \
            steps need the results of others."
            .to_owned(),
        system_prompt: "You are the planner of a desktop assistant. Turn the task into an \
            instruction set and answer with ONLY that JSON document, no prose:\n\
            {\"instructions\": [{\"instructionId\": \"s1\", \"action\": \"<tool name>\", \
            \"parameters\": {…}, \"dependencies\": [\"<ids that must finish first>\"], \
            \"condition\": \"<optional, e.g. dependencies.s1.status == 'COMPLETED'>\"}]}\n\
            Rules: every action is one of the tools listed below, with parameters valid for \
            its schema; a parameter may use an earlier step's result with \
            ${dependencies.<id>.result.<path>} (list that id in dependencies); steps that do \
            not depend on each other run at the same time; keep it short (at most 30 steps)."
            .to_owned(),
        model: None,
        tools: vec![
            search_context::NAME.to_owned(),
            calculator::NAME.to_owned(),
            datetime::NAME.to_owned(),
            save_memory::NAME.to_owned(),
        ],
        max_turns: DEFAULT_MAX_TURNS,
        max_tokens: Some(4_000),
        role: SpecialistRole::Plan,
    }
}

/// The tools a plan may use, as the planner's model reads them.
fn tool_catalogue(tools: &ToolRegistry) -> String {
    let mut out = String::from("\n\nTools (name: what it does; parameters schema):");
    for name in tools.names() {
        if let Some(tool) = tools.get(name) {
            let summary = tool
                .spec
                .description
                .split_inclusive(". ")
                .next()
                .unwrap_or_default()
                .trim();
            out.push_str(&format!(
                "\n- {name}: {summary} Parameters: {}",
                tool.spec.input_schema
            ));
        }
    }
    out
}

/// Why a plan cannot run; its words are what the planner's model reads to correct it.
#[derive(Debug, thiserror::Error)]
enum PlanRejected {
    #[error(
        "Your answer is not an instruction set ({0}). Answer with only the JSON document \
         {{\"instructions\": [...]}}."
    )]
    NotAnInstructionSet(#[source] serde_json::Error),
    #[error("The plan cannot run: {}. Answer with the corrected JSON document only.", .0.join("; "))]
    Problems(Vec<String>),
}

fn check_plan(
    text: &str,
    tools: &ToolRegistry,
    executor: &Executor,
    gate: &ConsentGate,
) -> Result<InstructionSet, PlanRejected> {
    let body = crate::profiles::json_response::unfence(text.trim());
    let set: InstructionSet =
        serde_json::from_str(body).map_err(PlanRejected::NotAnInstructionSet)?;
    let mut problems = Vec::new();
    if set.instructions.is_empty() {
        problems.push("the plan has no instructions".to_owned());
    }
    if set.instructions.len() > MAX_INSTRUCTIONS {
        problems.push(format!(
            "the plan has {} instructions; at most {MAX_INSTRUCTIONS}",
            set.instructions.len()
        ));
    }
    for inst in &set.instructions {
        match tools.get(&inst.action) {
            None => problems.push(format!(
                "{}: `{}` is not a tool you can use (use one of: {})",
                inst.instruction_id,
                inst.action,
                tools.names().collect::<Vec<_>>().join(", ")
            )),
            Some(tool) => {
                // Checked without spending a grant: the step spends it when it runs.
                let arguments =
                    serde_json::Value::Object(inst.parameters.clone().unwrap_or_default());
                if !gate
                    .would_allow(&tool.spec.for_arguments(&arguments))
                    .unwrap_or(false)
                {
                    problems.push(format!(
                        "{}: `{}` needs the person's consent, which a plan cannot ask for; \
                         leave it out",
                        inst.instruction_id, inst.action
                    ));
                }
            }
        }
    }
    if problems.is_empty() {
        if let Err(e) = executor.plan_instructions(&set) {
            problems.push(e.to_string());
        }
    }
    if problems.is_empty() {
        Ok(set)
    } else {
        Err(PlanRejected::Problems(problems))
    }
}

/// Plans, then runs the plan.
pub(super) async fn plan_and_run(
    deps: &SpecialistDeps,
    spec: &SpecialistSpec,
    tools: &Arc<ToolRegistry>,
    arguments: Value,
    ctx: ToolContext,
) -> Result<Value, ToolFailure> {
    let first = first_message(&arguments)?;
    let conversation_id = ctx.conversation_id().to_owned();
    let options = ExecutorOptions::nested_in(&ctx, RequestedBy::Specialist(spec.name.clone()));
    let gate = Arc::clone(options.consent_gate());
    // Checks plans; the one that passes runs on an executor that keeps the task list.
    let checker = Executor::new(Arc::clone(tools), Arc::new(NullSink), options.clone());
    let planning = SpecialistSpec {
        system_prompt: format!("{}{}", spec.system_prompt, tool_catalogue(tools)),
        ..spec.clone()
    };
    // The planner's model writes the plan; the plan's steps call the tools.
    let no_tools = Arc::new(ToolRegistry::new());
    let (out, set) = run_loop(
        deps,
        &planning,
        &no_tools,
        first,
        &ctx,
        UsageStage::Plan,
        |text| check_plan(text, tools, &checker, &gate),
    )
    .await?;
    let Some(set) = set else {
        return Err(ToolFailure {
            code: ToolFailureCode::InvalidPlan.into(),
            message: out
                .problem
                .clone()
                .unwrap_or_else(|| "the planner did not produce a plan".into()),
            retryable: false,
            details: Some(out.to_result(spec)),
        });
    };
    let unwritten = |e: tessera_store::StoreError| {
        ToolFailure::retryable(
            ToolFailureCode::ContextDatabaseUnavailable,
            format!("the task list could not be written: {e}"),
        )
    };
    let mut extra = JsonObject::new();
    extra.insert("plan_id".into(), json!(ctx.call_id));
    if let Some(run) = ctx.run_id() {
        extra.insert("run_id".into(), json!(run));
    }
    let task_sink = Arc::new(
        TaskListSink::named(
            deps.store.clone(),
            &conversation_id,
            &set,
            TaskNaming {
                prefix: format!("{}/", ctx.call_id),
                extra,
            },
            Arc::new(NestedSink::new(ctx.event_sink(), &ctx.call_id)),
        )
        .map_err(unwritten)?,
    );
    let executor = Executor::new(Arc::clone(tools), task_sink.clone(), options);
    let results = executor
        .run_instructions(&set, &ctx.cancel)
        .await
        .map_err(|e| ToolFailure::new(ToolFailureCode::InvalidPlan, e.to_string()))?;
    let tasks = task_sink
        .settle(&results, ctx.run_id())
        .map_err(unwritten)?;
    let mut result = out.to_result(spec);
    result.insert("output".into(), json!(outcome_text(&results)));
    result.insert(
        "plan".into(),
        serde_json::to_value(&set).unwrap_or(Value::Null),
    );
    result.insert("results".into(), results.to_json()["results"].clone());
    result.insert(
        "tasks".into(),
        serde_json::to_value(&tasks).unwrap_or(Value::Null),
    );
    Ok(Value::Object(result))
}

/// One line the coordinator's model (and a person) can read at a glance.
fn outcome_text(results: &InstructionResults) -> String {
    let mut counts = std::collections::BTreeMap::new();
    for (_, r) in &results.results {
        *counts.entry(r.state.as_mcp_cp_str()).or_insert(0) += 1;
    }
    let parts: Vec<String> = counts
        .iter()
        .map(|(state, n)| format!("{n} {}", state.to_lowercase()))
        .collect();
    format!(
        "Ran a plan of {} steps: {}.",
        results.results.len(),
        parts.join(", ")
    )
}
