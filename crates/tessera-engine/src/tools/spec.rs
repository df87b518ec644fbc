//! A tool's declaration (seed 001 §3 `ToolDefinition`, seed 000 §4.5.1): what it takes and
//! returns, whether it may run beside others, what it reads and writes, where it runs, who must
//! consent, how long it may take.

use serde_json::{json, Value};
use tessera_protocol::mcp_cp::{FallbackBehavior, PermissionLevel, Runtime, ToolDefinition};
use tessera_protocol::wire::JsonObject;
use tessera_scheduler::Access;

/// What sort of tool it is (seed 001 `toolType`, plus front-end and MCP tools).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, ts_rs::TS)]
#[serde(rename_all = "snake_case")]
pub enum ToolKind {
    /// Runs in the engine.
    Direct,
    /// Runs a specialist agent's mini-loop (or a model generation step).
    Agent,
    /// Runs in the desktop shell or a connected client.
    FrontEnd,
    /// Provided by an MCP server.
    Mcp,
}

impl ToolKind {
    pub fn as_str(self) -> &'static str {
        match self {
            ToolKind::Direct => "direct",
            ToolKind::Agent => "agent",
            ToolKind::FrontEnd => "front_end",
            ToolKind::Mcp => "mcp",
        }
    }
}

/// Retries for failures the tool marks recoverable (seed 000 §7.3 "重试", seed 001 §9.1).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RetryPolicy {
    /// Attempts in all, the first included (1: never retry).
    pub max_attempts: u32,
    /// Wait before the first retry; doubled each time.
    pub(crate) initial_backoff_ms: u64,
    pub(crate) max_backoff_ms: u64,
}

impl Default for RetryPolicy {
    /// One retry after 200 ms (seed 001 §9.1: back off and retry once).
    fn default() -> Self {
        Self {
            max_attempts: 2,
            initial_backoff_ms: 200,
            max_backoff_ms: 5_000,
        }
    }
}

impl RetryPolicy {
    /// Never retry.
    pub fn none() -> Self {
        Self {
            max_attempts: 1,
            ..Self::default()
        }
    }

    /// The wait before attempt `attempt` (2 = the first retry).
    pub fn backoff_ms(&self, attempt: u32) -> u64 {
        let doublings = attempt.saturating_sub(2).min(20);
        self.initial_backoff_ms
            .saturating_mul(1u64 << doublings)
            .min(self.max_backoff_ms)
    }
}

/// A tool's declaration.
#[derive(Clone, Debug, PartialEq)]
pub struct ToolSpec {
    pub name: String,
    pub description: String,
    /// JSON Schema of the arguments.
    pub input_schema: Value,
    /// JSON Schema of the result, checked when present.
    pub result_schema: Option<Value>,
    /// Declared concurrency safety; `None` applies the seed 001 §2.2 name rules.
    pub(crate) concurrency_safe: Option<bool>,
    /// Resources it reads (`memory`, `file:/tmp/x`…).
    pub reads: Vec<String>,
    /// Resources it writes.
    pub writes: Vec<String>,
    pub kind: ToolKind,
    pub runtime: Runtime,
    pub permission: PermissionLevel,
    pub timeout_ms: u64,
    pub(crate) estimated_duration_ms: u64,
    pub retry: RetryPolicy,
    /// The tool to use instead when a call with `fallbackBehavior: USE_ALTERNATIVE` fails.
    pub alternative: Option<String>,
    /// What a failed call does when the call itself names no `fallbackBehavior` (a front-end
    /// tool's announced one): applied exactly as if the call had named it.
    pub fallback: Option<FallbackBehavior>,
    /// Who provides it (`builtin`, an MCP server's name…), shown in `tool_call` events.
    pub provider: String,
    /// Where the provider lives (an MCP server's command line or URL), recorded with each call.
    pub provider_uri: Option<String>,
    /// The largest file a call may send (a client's announced `maxFileSize`, seed 000
    /// §4.7.1): a call carrying a bigger one is refused before it is sent.
    pub(crate) max_file_bytes: Option<u64>,
    /// A stricter permission some calls need, by their arguments (`save_memory` kept beyond
    /// the conversation asks first); see [`ToolSpec::for_arguments`].
    pub(crate) permission_by_arguments: Option<ArgumentsRule>,
}

/// A rule giving the permission a call needs by its arguments. Two rules compare equal: specs
/// are compared by what they declare, and a function's address says nothing.
#[derive(Clone, Copy, Debug)]
pub(crate) struct ArgumentsRule(pub fn(&Value) -> PermissionLevel);

impl PartialEq for ArgumentsRule {
    fn eq(&self, _: &Self) -> bool {
        true
    }
}

impl ToolSpec {
    /// A direct back-end tool taking any object, 30 s timeout, 1 s estimate, safety by name.
    pub fn new(name: impl Into<String>, description: impl Into<String>) -> Self {
        Self {
            name: name.into(),
            description: description.into(),
            input_schema: json!({"type": "object"}),
            result_schema: None,
            concurrency_safe: None,
            reads: Vec::new(),
            writes: Vec::new(),
            kind: ToolKind::Direct,
            runtime: Runtime::Backend,
            permission: PermissionLevel::None,
            timeout_ms: 30_000,
            estimated_duration_ms: 1_000,
            retry: RetryPolicy::default(),
            alternative: None,
            fallback: None,
            provider: "builtin".into(),
            provider_uri: None,
            max_file_bytes: None,
            permission_by_arguments: None,
        }
    }

    /// Sets the permission a call needs by its arguments (never looser than `permission`).
    pub(crate) fn permission_by_arguments(mut self, rule: fn(&Value) -> PermissionLevel) -> Self {
        self.permission_by_arguments = Some(ArgumentsRule(rule));
        self
    }

    /// The spec as the gate judges one call with `arguments`: its permission raised to what
    /// the arguments need.
    pub(crate) fn for_arguments(&self, arguments: &Value) -> std::borrow::Cow<'_, ToolSpec> {
        let Some(ArgumentsRule(rule)) = self.permission_by_arguments else {
            return std::borrow::Cow::Borrowed(self);
        };
        let needed = rule(arguments);
        let rank = |level: PermissionLevel| match level {
            PermissionLevel::None => 0,
            PermissionLevel::UserConsent => 1,
            PermissionLevel::AlwaysAsk => 2,
        };
        if rank(needed) <= rank(self.permission) {
            return std::borrow::Cow::Borrowed(self);
        }
        let mut stricter = self.clone();
        stricter.permission = needed;
        std::borrow::Cow::Owned(stricter)
    }

    pub fn input_schema(mut self, schema: Value) -> Self {
        self.input_schema = schema;
        self
    }

    pub fn result_schema(mut self, schema: Value) -> Self {
        self.result_schema = Some(schema);
        self
    }

    pub fn safe(mut self, safe: bool) -> Self {
        self.concurrency_safe = Some(safe);
        self
    }

    pub fn reads<S: Into<String>>(mut self, resources: impl IntoIterator<Item = S>) -> Self {
        self.reads = resources.into_iter().map(Into::into).collect();
        self
    }

    pub fn writes<S: Into<String>>(mut self, resources: impl IntoIterator<Item = S>) -> Self {
        self.writes = resources.into_iter().map(Into::into).collect();
        self
    }

    pub fn kind(mut self, kind: ToolKind) -> Self {
        self.kind = kind;
        if kind == ToolKind::FrontEnd {
            self.runtime = Runtime::Frontend;
        }
        self
    }

    pub fn runtime(mut self, runtime: Runtime) -> Self {
        self.runtime = runtime;
        self
    }

    pub fn permission(mut self, level: PermissionLevel) -> Self {
        self.permission = level;
        self
    }

    pub fn timeout_ms(mut self, ms: u64) -> Self {
        self.timeout_ms = ms;
        self
    }

    pub fn estimated_ms(mut self, ms: u64) -> Self {
        self.estimated_duration_ms = ms;
        self
    }

    pub fn retry(mut self, policy: RetryPolicy) -> Self {
        self.retry = policy;
        self
    }

    pub fn alternative(mut self, tool: impl Into<String>) -> Self {
        self.alternative = Some(tool.into());
        self
    }

    pub fn fallback(mut self, behavior: FallbackBehavior) -> Self {
        self.fallback = Some(behavior);
        self
    }

    pub fn provider_uri(mut self, uri: impl Into<String>) -> Self {
        self.provider_uri = Some(uri.into());
        self
    }

    pub fn provider(mut self, provider: impl Into<String>) -> Self {
        self.provider = provider.into();
        self
    }

    /// Whether calls may overlap others: as declared, else by the seed 001 §2.2 name rules
    /// (MCP tools that declare nothing are side-effecting, docs/design.md).
    pub fn is_concurrency_safe(&self) -> bool {
        match (self.concurrency_safe, self.kind) {
            (Some(safe), _) => safe,
            (None, ToolKind::Mcp) => false,
            (None, _) => default_safety(&self.name),
        }
    }

    /// What the scheduler needs for conflicts.
    pub fn access(&self) -> Access {
        Access {
            side_effects: !self.is_concurrency_safe(),
            reads: self.reads.clone(),
            writes: self.writes.clone(),
        }
    }

    /// The MCP-CP tool definition (seed 000 §4.5.1).
    pub fn definition(&self) -> ToolDefinition {
        let parameters = match &self.input_schema {
            Value::Object(o) => o.clone(),
            _ => JsonObject::new(),
        };
        let returns = match &self.result_schema {
            Some(Value::Object(o)) => Some(o.clone()),
            _ => None,
        };
        ToolDefinition {
            tool_id: self.name.clone(),
            name: self.name.clone(),
            description: Some(self.description.clone()),
            version: None,
            runtime: self.runtime,
            capabilities: None,
            parameters,
            returns,
            permission_level: Some(self.permission),
            extra: JsonObject::new(),
        }
    }
}

/// Seed 001 §2.2 for a tool that declares nothing: `invoke_*` agents are safe except
/// `invoke_memory_manager`; `search_*`, `get_*`, `check_*` and `web_search` (§2.1's matrix) are
/// safe; `save_*`, `update_*`,
/// `delete_*`, `generate_payment`, `send_notification` are not; anything else is treated as
/// side-effecting (the safe default).
pub(crate) fn default_safety(name: &str) -> bool {
    if name == "invoke_memory_manager" {
        return false;
    }
    if ["save_", "update_", "delete_"]
        .iter()
        .any(|p| name.starts_with(p))
        || ["generate_payment", "send_notification"].contains(&name)
    {
        return false;
    }
    // The matrix names `web_search` concurrency-safe (纯读, 外部 API) though its name starts
    // with none of the read prefixes.
    name == "web_search"
        || ["invoke_", "search_", "get_", "check_"]
            .iter()
            .any(|p| name.starts_with(p))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_seed_001_matrix_holds_for_undeclared_tools() {
        for (name, safe) in [
            ("invoke_policy_expert", true),
            ("invoke_case_analyst", true),
            ("invoke_memory_manager", false),
            ("search_knowledge", true),
            ("get_user_context", true),
            ("get_current_datetime", true),
            ("check_off_topic", true),
            ("save_user_memory", false),
            ("update_profile", false),
            ("delete_file", false),
            ("generate_payment", false),
            ("send_notification", false),
            // Seed 001 §2.1's matrix: 纯读, 外部 API.
            ("web_search", true),
            ("get_exchange_rate", true),
        ] {
            assert_eq!(
                ToolSpec::new(name, "").is_concurrency_safe(),
                safe,
                "{name}"
            );
        }
    }

    #[test]
    fn a_declaration_wins_and_undeclared_mcp_tools_are_side_effecting() {
        assert!(!ToolSpec::new("web_search", "")
            .safe(false)
            .is_concurrency_safe());
        assert!(!ToolSpec::new("get_x", "").safe(false).is_concurrency_safe());
        assert!(!ToolSpec::new("get_x", "")
            .kind(ToolKind::Mcp)
            .is_concurrency_safe());
    }

    #[test]
    fn backoff_doubles_up_to_the_cap() {
        let p = RetryPolicy {
            max_attempts: 5,
            initial_backoff_ms: 100,
            max_backoff_ms: 350,
        };
        assert_eq!(
            (2..=5).map(|a| p.backoff_ms(a)).collect::<Vec<_>>(),
            vec![100, 200, 350, 350]
        );
    }
}
