//! A server's resource attached to a conversation: read once, kept as an evidence the answers
//! can cite (its source names the server and the resource's URI).

use serde_json::{json, Value};
use tessera_protocol::context_doc::{Evidence, EvidenceSource, EvidenceType, SourceKind};
use tessera_protocol::wire::JsonObject;
use tessera_store::Store;

use crate::hub::{HubError, McpHub};

/// Why a resource could not be attached.
#[derive(Debug, thiserror::Error)]
pub enum AttachError {
    #[error(transparent)]
    Hub(#[from] HubError),
    #[error("the resource {0} has no content")]
    Empty(String),
    #[error(transparent)]
    Store(#[from] tessera_store::StoreError),
}

/// Reads resource `uri` of `server` and keeps it in `conversation_id` as an evidence; the
/// evidence.
pub async fn attach_resource(
    hub: &McpHub,
    store: &Store,
    conversation_id: &str,
    server: &str,
    uri: &str,
) -> Result<Evidence, AttachError> {
    let contents = hub.read_resource(server, uri).await?;
    if contents.iter().all(|c| c.text.is_empty()) {
        return Err(AttachError::Empty(uri.to_owned()));
    }
    let text = contents
        .iter()
        .map(|c| c.text.as_str())
        .collect::<Vec<_>>()
        .join("\n\n");
    let mut metadata = JsonObject::new();
    metadata.insert("mcp_server".into(), Value::String(server.to_owned()));
    if let Some(mime) = contents.iter().find_map(|c| c.mime_type.clone()) {
        metadata.insert("mime_type".into(), Value::String(mime));
    }
    let evidence = Evidence {
        evidence_id: format!("ev_mcp_{}", uuid::Uuid::now_v7()),
        evidence_type: EvidenceType::RagDoc,
        source: EvidenceSource {
            kind: SourceKind::Tool,
            name: Some(server.to_owned()),
            uri: Some(uri.to_owned()),
            extra: JsonObject::new(),
        },
        content: Some(json!({ "text": text })),
        confidence: None,
        metadata: Some(metadata),
        links: None,
        extra: JsonObject::new(),
    };
    store.put_evidence(conversation_id, evidence.clone(), Vec::new())?;
    Ok(evidence)
}
