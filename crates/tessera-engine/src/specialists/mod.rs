//! Specialists as tools (seed 001 §5–6): `invoke_<name>` runs an agent with its own prompt,
//! model, tools and turn limit (3 by default), reports each of its turns (`workflow/status`,
//! node kind agent, turn n of max), and returns its answer with what it cost, which the turn
//! adds to its own usage.
//!
//! Two ship: the [`researcher`] searches the local context database and answers with the
//! evidences it found; the [`planner`] turns a request into an instruction set, which the
//! scheduler runs and the conversation keeps as its task list (seed 004 `task_state`).
//! People may change them or add their own in the `specialists` app setting.
//!
//! A specialist's tools are taken from the registry as it was before any specialist joined, so
//! a specialist never calls another (no loops, no runaway cost).

mod mini_loop;
pub mod planner;
pub mod researcher;
pub mod settings;
mod spec;

use std::sync::Arc;

use serde_json::{json, Value};

use crate::tools::{RegistryError, ToolContext, ToolKind, ToolRegistry, ToolSpec};

pub(crate) use crate::specialist_report::{SpecialistCost, SPECIALIST_PROVIDER, TOOL_PREFIX};
pub use settings::{
    builtin, load as load_specialists, save as save_specialists, SpecialistsError, SETTING_KEY,
};
pub use spec::{SpecialistDeps, SpecialistRole, SpecialistSpec};

/// Adds an `invoke_<name>` tool per specialist to `registry`. A specialist's tools that the
/// registry lacks are left out (logged), so a tool that went away never stops the others.
pub fn register_specialists(
    registry: &mut ToolRegistry,
    deps: SpecialistDeps,
    specs: &[SpecialistSpec],
) -> Result<(), RegistryError> {
    let names: Vec<String> = registry.names().map(str::to_owned).collect();
    let base = registry.subset(&names);
    for spec in specs {
        let missing: Vec<&String> = spec
            .tools
            .iter()
            .filter(|t| base.get(t).is_none())
            .collect();
        if !missing.is_empty() {
            tracing::warn!(specialist = %spec.name, ?missing, "a specialist's tools are not available");
        }
        let tools = Arc::new(base.subset(&spec.tools));
        let declaration = tool_spec(spec, &tools);
        let (spec, deps) = (Arc::new(spec.clone()), deps.clone());
        registry.register(declaration, move |arguments: Value, ctx: ToolContext| {
            let (spec, deps, tools) = (spec.clone(), deps.clone(), tools.clone());
            async move {
                match spec.role {
                    SpecialistRole::Answer => {
                        mini_loop::answer(&deps, &spec, &tools, arguments, ctx).await
                    }
                    SpecialistRole::Plan => {
                        planner::plan_and_run(&deps, &spec, &tools, arguments, ctx).await
                    }
                }
            }
        })?;
    }
    Ok(())
}

/// [`register_specialists`] with the specialists in force in `deps.store` (the built-in ones
/// when the setting cannot be used: a broken setting must not take the tools away).
pub fn register_configured(
    registry: &mut ToolRegistry,
    deps: SpecialistDeps,
) -> Result<(), RegistryError> {
    let specs = settings::load(&deps.store).unwrap_or_else(|err| {
        tracing::warn!(%err, "the specialists setting is unusable; using the built-in ones");
        builtin()
    });
    register_specialists(registry, deps, &specs)
}

/// The tool a specialist is called through.
fn tool_spec(spec: &SpecialistSpec, tools: &ToolRegistry) -> ToolSpec {
    // A researcher only reads; a planner's instructions may write, so it runs alone.
    let reads_only = tools.names().all(|name| {
        tools
            .get(name)
            .is_some_and(|t| t.spec.is_concurrency_safe())
    });
    let safe = spec.role == SpecialistRole::Answer && reads_only;
    let mut declaration = ToolSpec::new(spec.tool_name(), spec.description.clone())
        .kind(ToolKind::Agent)
        .input_schema(json!({
            "type": "object",
            "properties": {
                "task": {
                    "type": "string",
                    "minLength": 1,
                    "maxLength": 8000,
                    "description": "What the specialist should do, in full: it sees nothing of this conversation but what you write here."
                },
                "context": {
                    "type": "string",
                    "maxLength": 20000,
                    "description": "Facts from the conversation it needs (optional)."
                }
            },
            "required": ["task"],
            "additionalProperties": false
        }))
        .safe(safe)
        // Each turn is a model call of its own; a plan may run slow tools.
        .timeout_ms(if spec.role == SpecialistRole::Plan {
            600_000
        } else {
            180_000
        })
        .estimated_ms(10_000)
        .retry(crate::tools::RetryPolicy::none())
        .provider(SPECIALIST_PROVIDER);
    if !safe {
        declaration = declaration.writes(["plan"]);
    }
    declaration
}
