//! Tools that come and go while the engine runs (an MCP server's): a run asks each source for
//! its tools as it starts. A source answers with what it has ready; one that is slow or broken
//! leaves its tools out rather than holding the run up.

use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex};

use super::{SharedHandler, ToolRegistry, ToolSpec};

/// What a source offers: its tools with their handlers.
pub type SourcedTools = Vec<(ToolSpec, SharedHandler)>;

/// Gives a run the tools it has now.
pub trait ToolSource: Send + Sync + 'static {
    /// The tools it has now: the same `Arc` for as long as they have not changed, so that
    /// what is built from them (the registry a direct call runs against) is kept.
    fn tools(&self) -> Pin<Box<dyn Future<Output = Arc<SourcedTools>> + Send + '_>>;

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
pub(crate) async fn with_sourced_tools(
    base: Option<Arc<ToolRegistry>>,
    sources: &[Arc<dyn ToolSource>],
    allowed: Option<&[String]>,
) -> Option<Arc<ToolRegistry>> {
    merge(base, &gather(sources).await, allowed)
}

async fn gather(sources: &[Arc<dyn ToolSource>]) -> Vec<Arc<SourcedTools>> {
    let mut lists = Vec::with_capacity(sources.len());
    for source in sources {
        lists.push(source.tools().await);
    }
    lists
}

fn merge(
    base: Option<Arc<ToolRegistry>>,
    lists: &[Arc<SourcedTools>],
    allowed: Option<&[String]>,
) -> Option<Arc<ToolRegistry>> {
    let empty = ToolRegistry::new();
    let known = base.as_deref().unwrap_or(&empty);
    let extra: Vec<&(ToolSpec, SharedHandler)> = lists
        .iter()
        .flat_map(|list| list.iter())
        .filter(|(spec, _)| {
            if allowed.is_some_and(|names| !names.iter().any(|n| n == &spec.name)) {
                return false;
            }
            let clash = known.get(&spec.name).is_some();
            if clash {
                tracing::warn!(tool = %spec.name, provider = %spec.provider, "a tool of that name is already there; this one is left out");
            }
            !clash
        })
        .collect();
    if extra.is_empty() {
        return base;
    }
    let mut registry = known.with_extra(std::iter::empty()).unwrap_or_default();
    for (spec, handler) in extra {
        if let Err(error) = registry.register_shared(spec.clone(), Arc::clone(handler)) {
            tracing::warn!(tool = %spec.name, %error, "a sourced tool cannot join the run");
        }
    }
    Some(Arc::new(registry))
}

/// The engine's tools with every source's, as the server side offers any conversation: built
/// again only when the engine's tools or a source's list changed. A direct call asks for them
/// each time; building the registry again (each schema compiled, each declaration copied, all
/// of it dropped after the call) was a sixth of the call's CPU.
#[derive(Default)]
pub(crate) struct MergedTools {
    last: Mutex<Option<Merged>>,
}

/// What the last registry was built from, held so that no other list can take its address.
struct Merged {
    base: Option<Arc<ToolRegistry>>,
    lists: Vec<Arc<SourcedTools>>,
    registry: Option<Arc<ToolRegistry>>,
}

impl Merged {
    fn built_from(&self, base: &Option<Arc<ToolRegistry>>, lists: &[Arc<SourcedTools>]) -> bool {
        let same_base = match (&self.base, base) {
            (Some(a), Some(b)) => Arc::ptr_eq(a, b),
            (None, None) => true,
            _ => false,
        };
        same_base
            && self.lists.len() == lists.len()
            && self.lists.iter().zip(lists).all(|(a, b)| Arc::ptr_eq(a, b))
    }
}

impl MergedTools {
    /// `base` with the tools of `sources`, the registry of the last call when nothing changed.
    pub async fn get(
        &self,
        base: Option<Arc<ToolRegistry>>,
        sources: &[Arc<dyn ToolSource>],
    ) -> Option<Arc<ToolRegistry>> {
        let lists = gather(sources).await;
        if let Some(last) = crate::sync::lock(&self.last).as_ref() {
            if last.built_from(&base, &lists) {
                return last.registry.clone();
            }
        }
        let registry = merge(base.clone(), &lists, None);
        *crate::sync::lock(&self.last) = Some(Merged {
            base,
            lists,
            registry: registry.clone(),
        });
        registry
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use crate::tools::{ToolContext, ToolFailure};
    use serde_json::Value;

    /// A source whose list a test replaces, as an MCP server listing its tools again.
    struct Listed(Mutex<Arc<SourcedTools>>);

    impl ToolSource for Listed {
        fn tools(&self) -> Pin<Box<dyn Future<Output = Arc<SourcedTools>> + Send + '_>> {
            let list = Arc::clone(&crate::sync::lock(&self.0));
            Box::pin(async move { list })
        }
        fn as_any(self: Arc<Self>) -> Arc<dyn std::any::Any + Send + Sync> {
            self
        }
    }

    fn list(names: &[&str]) -> Arc<SourcedTools> {
        Arc::new(
            names
                .iter()
                .map(|name| {
                    let handler: SharedHandler = Arc::new(|_: Value, _: ToolContext| async {
                        Ok::<Value, ToolFailure>(Value::Null)
                    });
                    (ToolSpec::new(*name, "a sourced tool"), handler)
                })
                .collect(),
        )
    }

    fn names(registry: &Option<Arc<ToolRegistry>>) -> Vec<String> {
        registry
            .as_deref()
            .map(|r| r.names().map(str::to_owned).collect())
            .unwrap_or_default()
    }

    #[tokio::test]
    async fn the_merged_registry_is_kept_until_the_engine_or_a_source_changes() {
        let listed = Arc::new(Listed(Mutex::new(list(&["a__one"]))));
        let sources: Vec<Arc<dyn ToolSource>> = vec![listed.clone()];
        let mut own = ToolRegistry::new();
        own.register_shared(
            ToolSpec::new("own", "the engine's"),
            list(&["x"])[0].1.clone(),
        )
        .unwrap();
        let base = Some(Arc::new(own));
        let merged = MergedTools::default();

        let first = merged.get(base.clone(), &sources).await;
        assert_eq!(names(&first), ["a__one", "own"]);
        let again = merged.get(base.clone(), &sources).await;
        assert!(Arc::ptr_eq(
            first.as_ref().unwrap(),
            again.as_ref().unwrap()
        ));

        // The server listed its tools again: the next registry has the new list.
        *crate::sync::lock(&listed.0) = list(&["a__one", "a__two"]);
        let changed = merged.get(base.clone(), &sources).await;
        assert_eq!(names(&changed), ["a__one", "a__two", "own"]);
        assert!(!Arc::ptr_eq(
            first.as_ref().unwrap(),
            changed.as_ref().unwrap()
        ));

        // Another model (its own registry): built again, the sourced tools kept.
        let other = Some(Arc::new(ToolRegistry::new()));
        assert_eq!(
            names(&merged.get(other, &sources).await),
            ["a__one", "a__two"]
        );
        // No sourced tool at all: the engine's own registry, as it is.
        *crate::sync::lock(&listed.0) = list(&[]);
        let bare = merged.get(base.clone(), &sources).await;
        assert!(Arc::ptr_eq(bare.as_ref().unwrap(), base.as_ref().unwrap()));
    }
}
