//! Tools that come and go while the engine runs (an MCP server's): a run asks each source for
//! its tools as it starts. A source answers with what it has ready; one that is slow or broken
//! leaves its tools out rather than holding the run up.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

use super::{SharedHandler, ToolRegistry, ToolSpec};

/// What a source offers: its tools with their handlers.
pub type SourcedTools = Vec<(ToolSpec, SharedHandler)>;

/// Gives a run the tools it has now.
pub trait ToolSource: Send + Sync + 'static {
    fn tools(&self) -> Pin<Box<dyn Future<Output = SourcedTools> + Send + '_>>;

    /// The source itself, so that the shells can reach its own API (an MCP hub's settings)
    /// through [`crate::engine::Engine::tool_source`].
    fn as_any(self: Arc<Self>) -> Arc<dyn std::any::Any + Send + Sync>;

    /// The accounts under which the source keeps secrets in the secret store (an MCP server's
    /// secret arguments, headers, URL): carried along when the person moves the store.
    fn secret_accounts(&self) -> Vec<String> {
        Vec::new()
    }
}

/// `base` with the tools of `sources` (those `allowed` names, when a profile restricts them).
/// A sourced tool never replaces one of `base`: it is left out, and the clash logged.
pub async fn with_sourced_tools(
    base: Option<Arc<ToolRegistry>>,
    sources: &[Arc<dyn ToolSource>],
    allowed: Option<&[String]>,
) -> Option<Arc<ToolRegistry>> {
    let mut extra: SourcedTools = Vec::new();
    for source in sources {
        extra.extend(source.tools().await);
    }
    let empty = ToolRegistry::new();
    let known = base.as_deref().unwrap_or(&empty);
    extra.retain(|(spec, _)| {
        if allowed.is_some_and(|names| !names.iter().any(|n| n == &spec.name)) {
            return false;
        }
        let clash = known.get(&spec.name).is_some();
        if clash {
            tracing::warn!(tool = %spec.name, provider = %spec.provider, "a tool of that name is already there; this one is left out");
        }
        !clash
    });
    if extra.is_empty() {
        return base;
    }
    let mut registry = known.with_extra(std::iter::empty()).unwrap_or_default();
    for (spec, handler) in extra {
        let name = spec.name.clone();
        if let Err(error) = registry.register_shared(spec, handler) {
            tracing::warn!(tool = %name, %error, "a sourced tool cannot join the run");
        }
    }
    Some(Arc::new(registry))
}
