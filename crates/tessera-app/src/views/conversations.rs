//! What the conversation endpoints answer (`/v1/conversations…`, docs/api.md).

use std::collections::BTreeMap;

use serde::Serialize;
use tessera_store::conversations::{Conversation, ConversationPatch};
use tessera_store::search::MessageMatch;
use tessera_store::StoredMessage;
use ts_rs::TS;

/// A conversation as the list shows it.
#[derive(Clone, Debug, Serialize, TS)]
pub struct ConversationSummary {
    #[serde(flatten)]
    pub conversation: Conversation,
    /// The length of the branch shown.
    pub message_count: u64,
    /// A form or a consent request in it waits for the person's answer.
    pub waits_for_person: bool,
    /// Only in a search's answer: the newest message that matched (null when only the title
    /// did).
    #[serde(rename = "match", skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub found: Option<Option<MessageMatch>>,
}

/// The body of `PATCH /v1/conversations/{id}`: what the person changes of a conversation in the
/// list; a field left out stays as it is. Read field by field (`api::ui::conversations`), so a
/// bad one is named.
#[derive(Clone, Debug, Default, PartialEq, Serialize, TS)]
pub struct ConversationEdit {
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub title: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub pinned: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub archived: Option<bool>,
}

impl From<ConversationEdit> for ConversationPatch {
    fn from(edit: ConversationEdit) -> Self {
        Self {
            title: edit.title,
            pinned: edit.pinned,
            archived: edit.archived,
            ..Self::default()
        }
    }
}

/// `GET /v1/conversations`.
#[derive(Clone, Debug, Serialize, TS)]
pub struct ConversationList {
    pub conversations: Vec<ConversationSummary>,
}

/// `GET /v1/conversations/{id}` (and a branch switch): the conversation and the messages of
/// the branch shown.
#[derive(Clone, Debug, Serialize, TS)]
pub struct ConversationDetail {
    pub conversation: ConversationSummary,
    pub messages: Vec<StoredMessage>,
    /// For each shown message that has others beside it (earlier answers, edited messages):
    /// their ids in the order written, itself included.
    pub siblings: BTreeMap<String, Vec<String>>,
    /// The ids of the messages not on the branch shown.
    pub off_branch: Vec<String>,
    /// The provider and model the person picked for this conversation (`metadata.model` of a
    /// USER_INPUT); absent: the default provider's answers.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub model: Option<tessera_engine::engine::ConversationModel>,
}

/// `DELETE /v1/conversations/{id}`.
#[derive(Clone, Debug, Serialize, TS)]
pub struct ConversationDeleted {
    pub deleted: String,
    /// How many attachments no other conversation used, removed from disk.
    pub attachments_removed: u64,
}

/// `POST /v1/conversations/import` (201).
#[derive(Clone, Debug, Serialize, TS)]
pub struct ConversationImported {
    pub conversation_id: String,
    pub messages: u64,
    pub evidences: u64,
}

/// How a conversation is exported (`tessera context export --format`, `?format=` of
/// `GET /v1/conversations/{id}/export`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "lowercase")]
pub enum ExportFormat {
    /// The seed-004 context document.
    Context,
    /// The conversation as a list of MCP-CP messages.
    Messages,
    /// The branch shown as a Markdown transcript, to read.
    Markdown,
}

impl ExportFormat {
    pub const ALL: [Self; 3] = [Self::Context, Self::Messages, Self::Markdown];

    pub fn as_str(self) -> &'static str {
        match self {
            Self::Context => "context",
            Self::Messages => "messages",
            Self::Markdown => "markdown",
        }
    }
}

impl std::str::FromStr for ExportFormat {
    type Err = String;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        Self::ALL
            .into_iter()
            .find(|f| f.as_str() == text)
            .ok_or_else(|| format!("format must be context, messages or markdown, not `{text}`"))
    }
}
