//! The declarative registry: tools by name, each with its compiled argument and result
//! validators (JSON Schema, formats checked).

use std::collections::BTreeMap;
use std::sync::Arc;

use serde_json::Value;
use tessera_protocol::mcp_cp::ToolDefinition;

use super::handler::{SharedHandler, ToolHandler};
use super::spec::ToolSpec;

/// A tool that cannot be registered.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum RegistryError {
    #[error("a tool named `{0}` is already registered")]
    Duplicate(String),
    #[error("tool `{name}`: {which} schema is not a valid JSON Schema: {message}")]
    BadSchema {
        name: String,
        which: &'static str,
        message: String,
    },
}

/// Arguments or a result that do not match the schema; one problem per field.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{}", .problems.join("; "))]
pub(crate) struct SchemaProblems {
    /// `field.path: message`, the field first.
    pub problems: Vec<String>,
}

/// A registered tool.
pub struct RegisteredTool {
    pub spec: ToolSpec,
    /// Reached only through [`RegisteredTool::run`], with a call's clearance.
    handler: SharedHandler,
    input: Arc<jsonschema::Validator>,
    result: Option<Arc<jsonschema::Validator>>,
}

impl std::fmt::Debug for RegisteredTool {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RegisteredTool")
            .field("spec", &self.spec)
            .finish_non_exhaustive()
    }
}

/// Compiled schemas kept for the life of the process, by their JSON text: a registry is
/// built for every direct run and every run's tool list (an MCP server's tools included), and
/// compiling the same few dozen schemas again took most of a one-call request's CPU.
const MAX_COMPILED: usize = 4096;

fn compile(
    name: &str,
    which: &'static str,
    schema: &Value,
) -> Result<Arc<jsonschema::Validator>, RegistryError> {
    static COMPILED: std::sync::OnceLock<
        std::sync::Mutex<std::collections::HashMap<String, Arc<jsonschema::Validator>>>,
    > = std::sync::OnceLock::new();
    let compiled = COMPILED.get_or_init(Default::default);
    let key = schema.to_string();
    if let Some(validator) = crate::sync::lock(compiled).get(&key) {
        return Ok(Arc::clone(validator));
    }
    let validator = Arc::new(
        jsonschema::options()
            .should_validate_formats(true)
            .build(schema)
            .map_err(|e| RegistryError::BadSchema {
                name: name.to_owned(),
                which,
                message: e.to_string(),
            })?,
    );
    let mut cache = crate::sync::lock(compiled);
    // Schemas come and go with MCP servers: past the bound, start over.
    if cache.len() >= MAX_COMPILED {
        cache.clear();
    }
    cache.insert(key, Arc::clone(&validator));
    Ok(validator)
}

fn problems(validator: &jsonschema::Validator, instance: &Value, base: &str) -> Vec<String> {
    validator
        .iter_errors(instance)
        .map(|e| {
            let mut path = base.to_owned();
            for seg in e.instance_path().as_str().split('/').skip(1) {
                let seg = seg.replace("~1", "/").replace("~0", "~");
                if seg.parse::<usize>().is_ok() {
                    path.push_str(&format!("[{seg}]"));
                } else {
                    if !path.is_empty() {
                        path.push('.');
                    }
                    path.push_str(&seg);
                }
            }
            if let jsonschema::error::ValidationErrorKind::Required { property } = e.kind() {
                let name = property
                    .as_str()
                    .map_or_else(|| property.to_string(), str::to_owned);
                if !path.is_empty() {
                    path.push('.');
                }
                path.push_str(&name);
                return format!("{path}: required");
            }
            let shown = if path.is_empty() {
                "(arguments)"
            } else {
                path.as_str()
            };
            format!("{shown}: {e}")
        })
        .collect()
}

impl RegisteredTool {
    /// Checks arguments against the input schema.
    pub(crate) fn validate_arguments(&self, arguments: &Value) -> Result<(), SchemaProblems> {
        if self.input.is_valid(arguments) {
            return Ok(());
        }
        let problems = problems(&self.input, arguments, "");
        if problems.is_empty() {
            Ok(())
        } else {
            Err(SchemaProblems { problems })
        }
    }

    /// Runs the tool for the call `ctx` was cleared for. A context cleared for another tool
    /// is refused (a handler passing its own context on to a different tool).
    pub(crate) fn run(&self, arguments: Value, ctx: super::ToolContext) -> super::ToolFuture {
        if ctx.clearance().tool() != self.spec.name {
            let why = format!(
                "`{}` was not cleared to run: the consent gate cleared `{}`",
                self.spec.name,
                ctx.clearance().tool()
            );
            return Box::pin(async move {
                Err(super::ToolFailure::new(
                    super::ToolFailureCode::PermissionDenied,
                    why,
                ))
            });
        }
        self.handler.call(arguments, ctx)
    }

    /// Checks a result against the result schema, when there is one.
    pub(crate) fn validate_result(&self, result: &Value) -> Result<(), SchemaProblems> {
        let Some(v) = &self.result else { return Ok(()) };
        if v.is_valid(result) {
            return Ok(());
        }
        let problems = problems(v, result, "result");
        if problems.is_empty() {
            Ok(())
        } else {
            Err(SchemaProblems { problems })
        }
    }
}

/// Tools by name.
#[derive(Default, Debug)]
pub struct ToolRegistry {
    tools: BTreeMap<String, Arc<RegisteredTool>>,
}

impl ToolRegistry {
    pub fn new() -> Self {
        Self::default()
    }

    /// Registers a tool; its schemas are compiled now, so a bad schema fails here.
    pub fn register(
        &mut self,
        spec: ToolSpec,
        handler: impl ToolHandler + 'static,
    ) -> Result<(), RegistryError> {
        self.register_shared(spec, Arc::new(handler))
    }

    /// Registers a tool with a handler already shared.
    pub(crate) fn register_shared(
        &mut self,
        spec: ToolSpec,
        handler: SharedHandler,
    ) -> Result<(), RegistryError> {
        if self.tools.contains_key(&spec.name) {
            return Err(RegistryError::Duplicate(spec.name));
        }
        let input = compile(&spec.name, "input", &spec.input_schema)?;
        let result = spec
            .result_schema
            .as_ref()
            .map(|s| compile(&spec.name, "result", s))
            .transpose()?;
        self.tools.insert(
            spec.name.clone(),
            Arc::new(RegisteredTool {
                spec,
                handler,
                input,
                result,
            }),
        );
        Ok(())
    }

    pub fn get(&self, name: &str) -> Option<&Arc<RegisteredTool>> {
        self.tools.get(name)
    }

    /// The tools named in `names` (unknown names are skipped): what an agent profile that
    /// allows only these offers the model.
    pub fn subset<S: AsRef<str>>(&self, names: &[S]) -> ToolRegistry {
        ToolRegistry {
            tools: names
                .iter()
                .filter_map(|n| {
                    let name = n.as_ref();
                    self.tools
                        .get(name)
                        .map(|t| (name.to_owned(), Arc::clone(t)))
                })
                .collect(),
        }
    }

    /// A registry with every tool of this one plus `extra` (a run's view: the model's tools and
    /// the front-end tools a client announced). A name already here is refused as a duplicate.
    pub(crate) fn with_extra(
        &self,
        extra: impl IntoIterator<Item = (ToolSpec, SharedHandler)>,
    ) -> Result<ToolRegistry, RegistryError> {
        let mut out = ToolRegistry {
            tools: self.tools.clone(),
        };
        for (spec, handler) in extra {
            out.register_shared(spec, handler)?;
        }
        Ok(out)
    }

    pub fn names(&self) -> impl Iterator<Item = &str> {
        self.tools.keys().map(String::as_str)
    }

    /// Every tool as an MCP-CP definition, by name.
    pub fn definitions(&self) -> Vec<ToolDefinition> {
        self.tools.values().map(|t| t.spec.definition()).collect()
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::tools::{ToolContext, ToolFailure};

    async fn echo(args: Value, _ctx: ToolContext) -> Result<Value, ToolFailure> {
        Ok(args)
    }

    fn registry() -> Result<ToolRegistry, RegistryError> {
        let mut r = ToolRegistry::new();
        r.register(
            ToolSpec::new("search_knowledge", "search").input_schema(json!({
                "type": "object",
                "properties": {
                    "query": {"type": "string", "minLength": 1},
                    "limit": {"type": "integer", "minimum": 1},
                    "contact": {"type": "string", "format": "email"},
                    "filters": {"type": "array", "items": {"type": "string"}}
                },
                "required": ["query"]
            })),
            echo,
        )?;
        Ok(r)
    }

    #[test]
    fn problems_name_the_field() -> Result<(), RegistryError> {
        let r = registry()?;
        let tool = r
            .get("search_knowledge")
            .ok_or(RegistryError::Duplicate("?".into()))?;
        assert_eq!(tool.validate_arguments(&json!({"query": "x"})), Ok(()));
        let err = tool
            .validate_arguments(&json!({"limit": 0, "filters": ["a", 3]}))
            .err()
            .map(|e| e.problems)
            .unwrap_or_default();
        assert!(err.contains(&"query: required".to_owned()), "{err:?}");
        assert!(err.iter().any(|p| p.starts_with("limit: ")), "{err:?}");
        assert!(err.iter().any(|p| p.starts_with("filters[1]: ")), "{err:?}");
        Ok(())
    }

    #[test]
    fn formats_are_checked() -> Result<(), RegistryError> {
        let r = registry()?;
        let tool = r
            .get("search_knowledge")
            .ok_or(RegistryError::Duplicate("?".into()))?;
        let err = tool
            .validate_arguments(&json!({"query": "x", "contact": "not an address"}))
            .err()
            .map(|e| e.problems)
            .unwrap_or_default();
        assert_eq!(err.len(), 1, "{err:?}");
        assert!(err[0].starts_with("contact: "), "{err:?}");
        Ok(())
    }

    #[test]
    fn bad_schemas_and_duplicates_are_refused() -> Result<(), RegistryError> {
        let mut r = registry()?;
        assert_eq!(
            r.register(ToolSpec::new("search_knowledge", ""), echo),
            Err(RegistryError::Duplicate("search_knowledge".into()))
        );
        let bad = r.register(
            ToolSpec::new("broken", "").input_schema(json!({"type": "nonsense"})),
            echo,
        );
        assert!(
            matches!(bad, Err(RegistryError::BadSchema { .. })),
            "{bad:?}"
        );
        Ok(())
    }
}
