//! A conversation as a Markdown transcript for people to read (not to import back): the title,
//! when it was held, then each message of the branch shown under a heading naming who spoke and
//! when. Messages are Markdown already (the assistant's answers are written as such), so they go
//! in as they are.

use tessera_protocol::request::Role;

use crate::error::{Result, StoreError};
use crate::tx::ReadTx;
use crate::{clock, conversations, Store};

fn speaker(role: &Role) -> &str {
    match role {
        Role::User => "User",
        Role::Assistant => "Assistant",
        Role::System => "System",
        Role::Tool => "Tool",
        Role::Other(other) => other,
    }
}

impl ReadTx<'_> {
    /// The branch shown as a Markdown transcript (see the module documentation).
    pub fn export_markdown(&self, conversation_id: &str) -> Result<String> {
        let conversation = conversations::require(self.conn, conversation_id)?;
        let messages = self.active_branch(conversation_id)?;
        if messages.is_empty() {
            return Err(StoreError::EmptyConversation {
                conversation_id: conversation_id.to_owned(),
            });
        }
        let title = conversation.title.trim();
        let mut out = format!(
            "# {}\n\n",
            if title.is_empty() {
                "Conversation"
            } else {
                title
            }
        );
        out.push_str(&format!(
            "Started {}, last updated {}. {} message{} (the branch shown); conversation `{}`, \
             exported from Tessera.\n",
            clock::readable(conversation.created_at.as_str()),
            clock::readable(conversation.updated_at.as_str()),
            messages.len(),
            if messages.len() == 1 { "" } else { "s" },
            conversation.id,
        ));
        for stored in &messages {
            let m = &stored.message;
            out.push_str("\n---\n\n### ");
            out.push_str(speaker(&m.role));
            if let Some(at) = &m.at {
                out.push_str(" · ");
                out.push_str(&clock::readable(at.as_str()));
            }
            out.push_str("\n\n");
            let content = m.content.trim_end();
            if content.is_empty() {
                out.push_str("*(no text)*\n");
            } else {
                out.push_str(content);
                out.push('\n');
            }
            if m.extra.contains_key("interrupted") {
                out.push_str("\n*(This answer was cut short.)*\n");
            }
        }
        Ok(out)
    }
}

impl Store {
    /// The branch shown as a Markdown transcript; see [`ReadTx::export_markdown`].
    pub fn export_markdown(&self, conversation_id: &str) -> Result<String> {
        self.read(|r| r.export_markdown(conversation_id))
    }
}
