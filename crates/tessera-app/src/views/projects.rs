//! The answers and bodies of the project and knowledge endpoints (`/v1/projects…`,
//! `/v1/knowledge…`).

use serde::{Deserialize, Serialize};
use tessera_knowledge::{KnowledgeHit, KnowledgeStatus};
use tessera_store::conversation_model::ConversationModel;
use tessera_store::projects::Project;
use ts_rs::TS;

/// `GET /v1/projects`.
#[derive(Clone, Debug, Serialize, Deserialize, TS)]
pub struct ProjectList {
    pub projects: Vec<Project>,
}

/// `GET /v1/projects/{project}`: the project and its index.
#[derive(Clone, Debug, Serialize, Deserialize, TS)]
pub struct ProjectDetail {
    pub project: Project,
    pub knowledge: KnowledgeStatus,
}

/// `POST /v1/projects`.
#[derive(Clone, Debug, Serialize, Deserialize, TS)]
#[serde(deny_unknown_fields)]
#[ts(optional_fields)]
pub struct NewProjectBody {
    pub name: String,
    #[serde(default)]
    pub instructions: Option<String>,
    #[serde(default)]
    pub model: Option<ConversationModel>,
}

/// `PATCH /v1/projects/{project}`: what to change (a field left out stays; `model: null`
/// clears the project's model).
#[derive(Clone, Debug, Default, Serialize, Deserialize, TS)]
#[serde(deny_unknown_fields)]
#[ts(optional_fields)]
pub struct ProjectEdit {
    #[serde(default)]
    pub name: Option<String>,
    #[serde(default)]
    pub instructions: Option<String>,
    #[serde(default, with = "double_option")]
    #[ts(as = "Option<ConversationModel>")]
    pub model: Option<Option<ConversationModel>>,
}

mod double_option {
    use serde::{Deserialize, Deserializer, Serialize, Serializer};

    pub fn serialize<T: Serialize, S: Serializer>(
        value: &Option<Option<T>>,
        serializer: S,
    ) -> Result<S::Ok, S::Error> {
        match value {
            Some(inner) => inner.serialize(serializer),
            None => serializer.serialize_none(),
        }
    }

    pub fn deserialize<'de, T: Deserialize<'de>, D: Deserializer<'de>>(
        deserializer: D,
    ) -> Result<Option<Option<T>>, D::Error> {
        Option::<T>::deserialize(deserializer).map(Some)
    }
}

/// `POST /v1/projects/{project}/knowledge`: a folder or file, by its absolute path.
#[derive(Clone, Debug, Serialize, Deserialize, TS)]
#[serde(deny_unknown_fields)]
pub struct KnowledgeSourceBody {
    pub path: String,
}

/// The answer to adding a folder or file: the project, the path as kept, and that its scan
/// is queued (`GET /v1/projects/{project}/knowledge` says when nothing is pending).
#[derive(Clone, Debug, Serialize, Deserialize, TS)]
pub struct KnowledgeAdded {
    pub project: Project,
    pub path: String,
    pub queued: bool,
}

/// `GET /v1/projects/{project}/knowledge/search?q=…`.
#[derive(Clone, Debug, Serialize, Deserialize, TS)]
pub struct KnowledgeSearch {
    pub project: String,
    pub query: String,
    pub hits: Vec<KnowledgeHit>,
    /// `lexical` or `hybrid`.
    pub retrieval: String,
}

/// `PUT /v1/conversations/{id}/project`: the project's name or id, or null for none.
#[derive(Clone, Debug, Serialize, Deserialize, TS)]
#[serde(deny_unknown_fields)]
pub struct ConversationProjectBody {
    pub project: Option<String>,
}

/// `GET /v1/memories?scope=…&q=…`.
#[derive(Clone, Debug, Serialize, Deserialize, TS)]
pub struct MemoryList {
    pub memories: Vec<tessera_store::memories::Memory>,
}

/// `PATCH /v1/memories/{id}`.
#[derive(Clone, Debug, Serialize, Deserialize, TS)]
#[serde(deny_unknown_fields)]
pub struct MemoryEdit {
    pub content: String,
}
