//! `search_knowledge`: the built-in tool that searches the files of the conversation's project.
//! Safe (it reads); every hit becomes a seed-004 `rag_doc` evidence of the conversation, so the
//! answer cites it by id and the inspector shows what the model was given.

use std::sync::Arc;

use serde_json::{json, Value};
use tessera_engine::tools::{
    RegistryError, ToolContext, ToolFailure, ToolFailureCode, ToolRegistry, ToolSpec,
};
use tessera_knowledge::Knowledge;
use tessera_store::Store;

pub const NAME: &str = "search_knowledge";
const DEFAULT_LIMIT: u64 = 6;
const MAX_LIMIT: u64 = 20;

fn spec() -> ToolSpec {
    ToolSpec::new(
        NAME,
        "Searches the files of this conversation's project (the person's notes, documents and \
         code in the folders they added to the project). Returns the best passages, each with \
         a `citation` (path and lines, or page) and an `evidence_id`. When you use a passage, \
         cite it in your answer as [path:lines] exactly as given in `citation`. Only works in \
         a conversation that belongs to a project.",
    )
    .input_schema(json!({
        "type": "object",
        "properties": {
            "query": {
                "type": "string",
                "minLength": 1,
                "maxLength": 1000,
                "description": "What to look for, in the words the files would use (any language)."
            },
            "limit": {
                "type": "integer",
                "minimum": 1,
                "maximum": MAX_LIMIT,
                "default": DEFAULT_LIMIT,
                "description": "Most passages to return."
            }
        },
        "required": ["query"],
        "additionalProperties": false
    }))
    .safe(true)
    .timeout_ms(15_000)
    .estimated_ms(50)
}

fn failure(message: impl Into<String>) -> ToolFailure {
    ToolFailure::new(ToolFailureCode::KnowledgeSearchFailed, message)
}

async fn run(
    store: Arc<Store>,
    knowledge: Knowledge,
    arguments: Value,
    ctx: ToolContext,
) -> Result<Value, ToolFailure> {
    let query = arguments
        .get("query")
        .and_then(Value::as_str)
        .ok_or_else(|| failure("query: required, a string"))?
        .to_owned();
    let limit = arguments
        .get("limit")
        .and_then(Value::as_u64)
        .unwrap_or(DEFAULT_LIMIT)
        .clamp(1, MAX_LIMIT);
    let conversation_id = ctx.conversation_id().to_owned();
    let call_id = ctx.call_id.clone();
    tokio::task::spawn_blocking(move || -> Result<Value, String> {
        let project = store
            .conversation_project(&conversation_id)
            .map_err(|e| e.to_string())?
            .ok_or_else(|| {
                "this conversation belongs to no project, so there are no project files to \
                 search (the person can move it into a project)"
                    .to_owned()
            })?;
        let hits = knowledge
            .search(&project.id, &query, usize::try_from(limit).unwrap_or(6))
            .map_err(|e| e.to_string())?;
        let evidences: Vec<_> = hits
            .iter()
            .map(|hit| {
                let mut evidence = hit.evidence(&project.name);
                if let Some(metadata) = evidence.metadata.as_mut() {
                    metadata.insert("rule".into(), json!("found_by_search"));
                }
                evidence.links = Some(tessera_protocol::context_doc::EvidenceLinks {
                    model_usage_id: None,
                    tool_call_id: Some(call_id.clone()),
                    extra: serde_json::Map::new(),
                });
                evidence
            })
            .collect();
        let conversation = conversation_id.clone();
        store
            .write(move |tx| {
                for evidence in &evidences {
                    if tx
                        .read()
                        .evidence(&conversation, &evidence.evidence_id)?
                        .is_none()
                    {
                        tx.put_evidence(&conversation, evidence, &[])?;
                    }
                }
                Ok(())
            })
            .map_err(|e| e.to_string())?;
        let listed: Vec<Value> = hits
            .iter()
            .map(|hit| {
                json!({
                    "evidence_id": hit.evidence_id,
                    "citation": hit.citation(),
                    "path": hit.path,
                    "lines": format!("{}-{}", hit.lines[0], hit.lines[1]),
                    "page": hit.page,
                    "heading": hit.heading,
                    "score": hit.score,
                    "text": hit.text,
                })
            })
            .collect();
        Ok(json!({
            "project": project.name,
            "query": query,
            "count": listed.len(),
            "hits": listed,
        }))
    })
    .await
    .map_err(|e| failure(format!("the search stopped: {e}")))?
    .map_err(failure)
}

/// Adds `search_knowledge` over `app`'s index (when it can be opened) to `registry`.
pub(crate) fn register(registry: &mut ToolRegistry, app: crate::App) -> Result<(), RegistryError> {
    let Ok(knowledge) = app.knowledge().cloned() else {
        return Ok(());
    };
    let store = app.engine().store().clone();
    registry.register(spec(), move |arguments: Value, ctx: ToolContext| {
        run(store.clone(), knowledge.clone(), arguments, ctx)
    })
}
