//! The person's consent grants, as the permissions page shows them: each with its
//! conversation's title. A revoked grant lets nothing run again: the next call of its tool asks.

use std::collections::HashMap;

use tessera_protocol::views::ConsentGrantView;
use tessera_store::{ConsentGrant, Store};

use crate::{App, CoreError};

/// Grants as the page shows them, each with its conversation's title (looked up once per
/// conversation).
fn views(store: &Store, grants: Vec<ConsentGrant>) -> Result<Vec<ConsentGrantView>, CoreError> {
    let mut titles: HashMap<String, Option<String>> = HashMap::new();
    let mut out = Vec::with_capacity(grants.len());
    for grant in grants {
        let conversation_title = match &grant.conversation_id {
            Some(id) => match titles.get(id) {
                Some(title) => title.clone(),
                None => {
                    let title = store
                        .conversation(id)?
                        .map(|c| c.title)
                        .filter(|t| !t.trim().is_empty());
                    titles.insert(id.clone(), title.clone());
                    title
                }
            },
            None => None,
        };
        out.push(ConsentGrantView {
            grant_id: grant.grant_id,
            tool: grant.tool,
            scope: grant.scope,
            conversation_id: grant.conversation_id,
            conversation_title,
            created_at: grant.created_at,
            used_at: grant.used_at,
            revoked_at: grant.revoked_at,
        });
    }
    Ok(out)
}

impl App {
    /// Newest first; revoked ones only when asked.
    pub fn consent_grants(
        &self,
        include_revoked: bool,
    ) -> Result<Vec<ConsentGrantView>, CoreError> {
        let store = self.engine.store();
        views(store, store.consent_grants(include_revoked)?)
    }

    /// Revokes grant `id` and answers it; revoking a revoked grant changes nothing.
    pub fn revoke_grant(&self, id: &str) -> Result<ConsentGrantView, CoreError> {
        let store = self.engine.store();
        if store.revoke_consent(id)? {
            tracing::info!(grant_id = %id, "consent grant revoked");
        }
        let grant = store
            .consent_grant(id)?
            .ok_or_else(|| CoreError::NoGrant(id.to_owned()))?;
        views(store, vec![grant])?
            .pop()
            .ok_or_else(|| CoreError::NoGrant(id.to_owned()))
    }
}
