//! The context inspector (seed 004 explainability): `GET /v1/runs/{run_id}/context` answers
//! every model call of a run with the assembler's explanation of its prompt, plus the blocks
//! and evidences the explanation names (so the UI can say where each came from) and what the
//! answer cites.

use std::collections::BTreeSet;

use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::routing::get;
use axum::{Json, Router};
use tessera_engine::assembler::Explanation;
use tessera_engine::engine::Engine;
use tessera_protocol::views::{RunContext, TurnContext};
use tessera_store::Store;

use crate::api::ApiError;

pub(super) fn routes() -> Router<crate::api::ApiState> {
    Router::new()
        .route("/runs/{id}/context", get(show))
        .route("/conversations/{id}/context", get(mcp_context))
}

/// Block and evidence ids an explanation names, used or left out.
fn named(
    explanation: &Explanation,
    blocks: &mut BTreeSet<String>,
    evidences: &mut BTreeSet<String>,
) {
    for block in &explanation.blocks {
        blocks.insert(block.block_id.clone());
    }
    for block in &explanation.dropped_blocks {
        blocks.insert(block.block_id.clone());
        for failure in &block.errors {
            evidences.insert(failure.evidence_id.clone());
        }
    }
    for used in &explanation.evidences {
        evidences.insert(used.evidence_id.clone());
    }
    for message in &explanation.messages {
        for r in &message.refs {
            evidences.insert(r.evidence_id.clone());
        }
    }
}

fn context(store: &Store, run_id: &str) -> Result<RunContext, ApiError> {
    let turns = store.run_model_turns(run_id)?;
    let Some(first) = turns.first() else {
        return Err(ApiError::new(
            StatusCode::NOT_FOUND,
            "NOT_FOUND",
            format!("no model call of a run `{run_id}`"),
        ));
    };
    let conversation_id = first.conversation_id.clone();
    let mut block_ids = BTreeSet::new();
    let mut evidence_ids = BTreeSet::new();
    for turn in &turns {
        let Some(assembly) = &turn.assembly else {
            continue;
        };
        // An explanation of another format version is still shown as stored; only the ids it
        // names are not looked up.
        match serde_json::from_value::<Explanation>(assembly.clone()) {
            Ok(explanation) => named(&explanation, &mut block_ids, &mut evidence_ids),
            Err(err) => {
                tracing::warn!(run_id, turn_id = %turn.turn_id, %err, "explanation not readable")
            }
        }
    }
    let blocks: Vec<_> = store
        .context_blocks(&conversation_id)?
        .into_iter()
        .filter(|b| block_ids.contains(&b.block_id))
        .collect();
    for block in &blocks {
        for r in block.refs.iter().flatten() {
            evidence_ids.insert(r.evidence_id.clone());
        }
    }
    // The answer is the message the run's events speak for (the turns do not always name it).
    let message_id = store
        .run_events(&conversation_id, run_id)?
        .into_iter()
        .find_map(|e| e.event.message_id);
    let mut cited = BTreeSet::new();
    if let Some(message_id) = &message_id {
        if let Some(stored) = store.message(&conversation_id, message_id)? {
            for r in stored.message.refs.iter().flatten() {
                cited.insert(r.evidence_id.clone());
            }
        }
    }
    evidence_ids.extend(cited.iter().cloned());
    let evidences = store
        .evidences(&conversation_id)?
        .into_iter()
        .map(|stored| stored.evidence)
        .filter(|e| evidence_ids.contains(&e.evidence_id))
        .collect();
    Ok(RunContext {
        run_id: run_id.to_owned(),
        conversation_id,
        message_id,
        turns: turns
            .into_iter()
            .map(|t| TurnContext {
                turn_id: t.turn_id,
                message_id: t.message_id,
                provider: t.provider,
                model: t.model,
                started_at: t.started_at,
                finished_at: t.finished_at,
                assembly: t.assembly,
            })
            .collect(),
        blocks,
        evidences,
        cited: cited.into_iter().collect(),
    })
}

/// `GET /v1/runs/{run_id}/context`; 404 for a run with no model call.
async fn show(
    State(engine): State<Engine>,
    Path(run_id): Path<String>,
) -> Result<Json<RunContext>, ApiError> {
    Ok(Json(context(engine.store(), &run_id)?))
}

/// `GET /v1/conversations/{id}/context`: the conversation's MCP-CP context (seed 000 §8: state,
/// history, version) and its change log; 404 for an unknown conversation.
async fn mcp_context(
    State(engine): State<Engine>,
    Path(id): Path<String>,
) -> Result<Json<tessera_protocol::views::ContextView>, ApiError> {
    if engine.store().conversation(&id)?.is_none() {
        return Err(ApiError::new(
            StatusCode::NOT_FOUND,
            "NOT_FOUND",
            format!("conversation {id} does not exist"),
        ));
    }
    Ok(Json(engine.store().context_view(&id)?))
}
