//! Starting a conversation: the one place one is created, titled by the first words said in it
//! (a message to the model, a request's, a client's with its own id).

use tessera_store::conversations::NewConversation;
use tessera_store::{Store, StoreError};

/// Creates a conversation titled by `first_words` (see [`title_of`]): with `id`
/// when given (one another request created a moment ago is taken as it is), else a new id.
/// Its id.
pub fn start_conversation(
    store: &Store,
    id: Option<&str>,
    first_words: &str,
) -> Result<String, StoreError> {
    let created = store.create_conversation(NewConversation {
        id: id.map(str::to_owned),
        title: title_of(first_words),
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

/// A conversation title from the first words of the message: its first line, cut at a word
/// (at a character for text without spaces, such as Chinese) with "…" when longer than 60
/// characters.
pub fn title_of(text: &str) -> String {
    const MAX: usize = 60;
    let line = text
        .lines()
        .map(str::trim)
        .find(|l| !l.is_empty())
        .unwrap_or_default();
    if line.is_empty() {
        return "New conversation".into();
    }
    if line.chars().count() <= MAX {
        return line.to_owned();
    }
    let cut: String = line.chars().take(MAX).collect();
    // Back to the last space, unless that leaves too little (one long word, or no spaces).
    let at_word = match cut.rfind(char::is_whitespace) {
        Some(space) if cut[..space].chars().count() >= MAX / 2 => &cut[..space],
        _ => cut.as_str(),
    };
    format!(
        "{}…",
        at_word.trim_end_matches(|c: char| c.is_whitespace() || ",;:-".contains(c))
    )
}
