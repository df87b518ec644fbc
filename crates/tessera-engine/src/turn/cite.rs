//! What the final answer cites: the evidences its run's tool calls produced (their results,
//! and the hits a search returned), in the order the calls ended.

use tessera_protocol::context_doc::EvidenceRef;
use tessera_protocol::wire::JsonObject;
use tessera_store::{Store, StoreError};

/// The refs of run `run_id`'s answer.
pub(super) fn run_evidence_refs(
    store: &Store,
    conversation_id: &str,
    run_id: &str,
) -> Result<Vec<EvidenceRef>, StoreError> {
    let mut ids: Vec<String> = Vec::new();
    for row in store.tool_calls(conversation_id)? {
        if row.run_id.as_deref() != Some(run_id) {
            continue;
        }
        for id in row.record.result_evidence_ids.unwrap_or_default() {
            if !ids.contains(&id) {
                ids.push(id);
            }
        }
    }
    Ok(ids
        .into_iter()
        .map(|evidence_id| EvidenceRef {
            evidence_id,
            selector: None,
            extra: JsonObject::new(),
        })
        .collect())
}
