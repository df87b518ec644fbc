//! What the person attached to a message, read and stored before the run that answers it
//! ([`crate::attachments`]).

use super::{Engine, EngineError};

impl Engine {
    /// Reads and stores what the person attached to a message (`crate::attachments::ingest`,
    /// off the async threads: a PDF's text takes a while). Nothing is kept when one is refused.
    pub async fn read_attachments(
        &self,
        attachments: Vec<tessera_protocol::mcp_cp::Attachment>,
    ) -> Result<Vec<crate::attachments::MessageAttachment>, EngineError> {
        if attachments.is_empty() {
            return Ok(Vec::new());
        }
        let store = self.store.clone();
        tokio::task::spawn_blocking(move || crate::attachments::ingest(&store, &attachments))
            .await
            .map_err(|_| EngineError::ShuttingDown)?
            .map_err(EngineError::Attachment)
    }
}
