//! Checking refs (`{evidence_id, selector}`) when they are written: the evidence must belong to
//! the conversation and the selector must select something from its content.

use std::collections::HashMap;

use rusqlite::Connection;
use serde_json::Value;
use tessera_protocol::context_doc::EvidenceRef;

use crate::error::{Entity, Result, StoreError};
use crate::evidences;
use crate::selector::{Selector, SelectorError};

/// Checks refs against the evidences stored for the conversation.
pub(crate) fn validate(
    conn: &Connection,
    conversation_id: &str,
    refs: &[EvidenceRef],
) -> Result<()> {
    for r in refs {
        let Some(content) = evidences::content(conn, conversation_id, &r.evidence_id)? else {
            return Err(StoreError::not_found(
                Entity::Evidence,
                conversation_id,
                &r.evidence_id,
            ));
        };
        check(r, content.as_ref()).map_err(|source| StoreError::InvalidRef {
            evidence_id: r.evidence_id.clone(),
            source,
        })?;
    }
    Ok(())
}

/// Checks one ref's selector against the evidence content (`None`: the evidence has none).
pub(crate) fn check(r: &EvidenceRef, content: Option<&Value>) -> Result<(), SelectorError> {
    let Some(selector) = &r.selector else {
        return Ok(());
    };
    let parsed = Selector::parse(selector)?;
    match content {
        Some(content) => parsed.apply(content).map(|_| ()),
        None => Err(SelectorError::NoContent {
            selector: selector.clone(),
        }),
    }
}

/// Checks refs against evidences held in memory (an import not written yet); returns a message
/// per bad ref, paired with its index.
pub(crate) fn problems_in_memory(
    refs: &[EvidenceRef],
    evidences: &HashMap<&str, Option<&Value>>,
) -> Vec<(usize, &'static str, String)> {
    let mut problems = Vec::new();
    for (i, r) in refs.iter().enumerate() {
        match evidences.get(r.evidence_id.as_str()) {
            None => problems.push((
                i,
                "evidence_id",
                format!("no evidence {:?} in the document", r.evidence_id),
            )),
            Some(content) => {
                if let Err(error) = check(r, *content) {
                    problems.push((i, "selector", error.to_string()));
                }
            }
        }
    }
    problems
}
