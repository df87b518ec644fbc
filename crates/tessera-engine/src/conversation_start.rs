//! Starting a conversation: the one place one is created, titled by the first words said in it
//! (a message to the model, a request's, a client's with its own id).

use tessera_store::conversations::NewConversation;
use tessera_store::{Store, StoreError};

/// Creates a conversation titled by `first_words` (see [`crate::turn::title_of`]): with `id`
/// when given (one another request created a moment ago is taken as it is), else a new id.
/// Its id.
pub fn start_conversation(
    store: &Store,
    id: Option<&str>,
    first_words: &str,
) -> Result<String, StoreError> {
    let created = store.create_conversation(NewConversation {
        id: id.map(str::to_owned),
        title: crate::turn::title_of(first_words),
        locale: None,
        actor: None,
        created_at: None,
        project_id: None,
    });
    match (created, id) {
        (Ok(conversation), _) => Ok(conversation.id),
        (Err(StoreError::AlreadyExists { .. }), Some(id)) => Ok(id.to_owned()),
        (Err(other), _) => Err(other),
    }
}
