//! Stand-in tools for a dry run (`tessera run --simulate tools.json`), benchmarks and tests:
//!
//! ```json
//! {"search_web": {"safe": true, "reads": ["web"], "latency_ms": 300, "result": {"hits": 3}},
//!  "save_note":  {"safe": false, "writes": ["notes"], "latency_ms": 50,
//!                 "error": {"code": "DISK_FULL", "message": "no space left"}}}
//! ```
//!
//! Each entry: `safe` (default: the seed 001 name rules), `reads`, `writes`, `latency_ms`, and
//! `result` (default: `{"arguments": <the arguments it got>}`) or `error` `{code, message,
//! retryable?}`. Optional: `description`, `runtime` (BACKEND | FRONTEND), `kind` (direct |
//! agent | front_end | mcp), `input_schema`, `result_schema`, `timeout_ms`, `estimated_ms`
//! (default `latency_ms`), `alternative`, `max_attempts`, `backoff_ms`, and `fail_times` (the
//! first n attempts fail with `error`, or a retryable UNAVAILABLE, then it succeeds).

use std::time::Duration;

use serde::Deserialize;
use serde_json::{json, Value};
use tessera_protocol::mcp_cp::Runtime;

use super::failure::ToolFailure;
use super::handler::ToolContext;
use super::registry::{RegistryError, ToolRegistry};
use super::spec::{RetryPolicy, ToolKind, ToolSpec};
use super::ToolFailureCode;

/// A simulated failure.
#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub(crate) struct SimulatedError {
    pub code: String,
    pub message: String,
    #[serde(default)]
    pub retryable: bool,
}

/// One simulated tool.
#[derive(Clone, Debug, Default, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub(crate) struct SimulatedTool {
    #[serde(default)]
    pub description: Option<String>,
    #[serde(default)]
    pub safe: Option<bool>,
    #[serde(default)]
    pub reads: Vec<String>,
    #[serde(default)]
    pub writes: Vec<String>,
    #[serde(default)]
    pub latency_ms: u64,
    #[serde(default)]
    pub result: Option<Value>,
    #[serde(default)]
    pub error: Option<SimulatedError>,
    #[serde(default)]
    pub fail_times: Option<u32>,
    #[serde(default)]
    pub runtime: Option<Runtime>,
    #[serde(default)]
    pub kind: Option<String>,
    #[serde(default)]
    pub input_schema: Option<Value>,
    #[serde(default)]
    pub result_schema: Option<Value>,
    #[serde(default)]
    pub timeout_ms: Option<u64>,
    #[serde(default)]
    pub estimated_ms: Option<u64>,
    #[serde(default)]
    pub alternative: Option<String>,
    #[serde(default)]
    pub max_attempts: Option<u32>,
    #[serde(default)]
    pub backoff_ms: Option<u64>,
}

/// A simulation file that cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum SimulateError {
    #[error("the simulation file must be an object of tools by name")]
    NotAnObject,
    #[error("tool `{name}`: {message}")]
    BadTool { name: String, message: String },
    #[error(transparent)]
    Registry(#[from] RegistryError),
}

impl SimulatedTool {
    /// The declaration this stand-in registers as.
    pub fn spec(&self, name: &str) -> Result<ToolSpec, SimulateError> {
        let mut spec = ToolSpec::new(
            name,
            self.description
                .clone()
                .unwrap_or_else(|| format!("simulated {name}")),
        )
        .reads(self.reads.clone())
        .writes(self.writes.clone())
        .estimated_ms(self.estimated_ms.unwrap_or(self.latency_ms))
        .provider("simulated");
        if let Some(kind) = &self.kind {
            spec = spec.kind(match kind.as_str() {
                "direct" => ToolKind::Direct,
                "agent" => ToolKind::Agent,
                "front_end" | "frontend" => ToolKind::FrontEnd,
                "mcp" => ToolKind::Mcp,
                other => {
                    return Err(SimulateError::BadTool {
                        name: name.to_owned(),
                        message: format!("unknown kind `{other}` (direct, agent, front_end, mcp)"),
                    })
                }
            });
        }
        if let Some(safe) = self.safe {
            spec = spec.safe(safe);
        }
        if let Some(runtime) = self.runtime {
            spec = spec.runtime(runtime);
        }
        if let Some(schema) = &self.input_schema {
            spec = spec.input_schema(schema.clone());
        }
        if let Some(schema) = &self.result_schema {
            spec = spec.result_schema(schema.clone());
        }
        if let Some(ms) = self.timeout_ms {
            spec = spec.timeout_ms(ms);
        }
        if let Some(alt) = &self.alternative {
            spec = spec.alternative(alt.clone());
        }
        let mut retry = RetryPolicy::default();
        if let Some(n) = self.max_attempts {
            retry.max_attempts = n.max(1);
        }
        if let Some(ms) = self.backoff_ms {
            retry.initial_backoff_ms = ms;
        }
        Ok(spec.retry(retry))
    }

    /// Runs the stand-in: waits `latency_ms`, then answers.
    pub async fn run(&self, arguments: Value, ctx: ToolContext) -> Result<Value, ToolFailure> {
        if self.latency_ms > 0 {
            tokio::time::sleep(Duration::from_millis(self.latency_ms)).await;
        }
        let failure = || match &self.error {
            // The code the dry run asked for, as it was written.
            Some(e) => ToolFailure {
                retryable: e.retryable,
                ..ToolFailure::reported(e.code.clone(), e.message.clone())
            },
            None => {
                ToolFailure::retryable(ToolFailureCode::Unavailable, "simulated temporary failure")
            }
        };
        match self.fail_times {
            Some(n) if ctx.attempt <= n => return Err(failure()),
            Some(_) => {}
            None if self.error.is_some() => return Err(failure()),
            None => {}
        }
        Ok(self
            .result
            .clone()
            .unwrap_or_else(|| json!({ "arguments": arguments })))
    }
}

/// Adds every tool of a simulation file to `registry`.
pub fn register_all(registry: &mut ToolRegistry, file: &Value) -> Result<(), SimulateError> {
    let Value::Object(tools) = file else {
        return Err(SimulateError::NotAnObject);
    };
    for (name, entry) in tools {
        let tool: SimulatedTool =
            serde_json::from_value(entry.clone()).map_err(|e| SimulateError::BadTool {
                name: name.clone(),
                message: e.to_string(),
            })?;
        let spec = tool.spec(name)?;
        let tool = std::sync::Arc::new(tool);
        registry.register(spec, move |args: Value, ctx: ToolContext| {
            let tool = tool.clone();
            async move { tool.run(args, ctx).await }
        })?;
    }
    Ok(())
}

/// A registry holding only the tools of a simulation file.
pub fn registry_from(file: &Value) -> Result<ToolRegistry, SimulateError> {
    let mut registry = ToolRegistry::new();
    register_all(&mut registry, file)?;
    Ok(registry)
}
