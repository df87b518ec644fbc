//! The researcher: searches the local context database (this conversation, or every one when
//! asked) and answers with what it found, citing each hit's evidence id. Its hits become the
//! invoking call's evidences, so the coordinator's answer can cite them in turn.

use super::spec::{SpecialistRole, SpecialistSpec, DEFAULT_MAX_TURNS};
use crate::builtin_tools::{datetime, search_context};

pub const NAME: &str = "researcher";

pub fn spec() -> SpecialistSpec {
    SpecialistSpec {
        name: NAME.to_owned(),
        title: "Researcher".to_owned(),
        description: "Looks things up in the local context database: earlier messages, tool \
            results, saved memories, in this conversation or (when the task says so) in every \
            conversation, in Chinese or English. Give it a self-contained question; it answers \
            with the facts it found, each with its evidence id."
            .to_owned(),
        system_prompt: "You are the researcher of a desktop assistant. Answer the task using \
            only what `search_context` finds in the local context database; try a few \
            wordings (synonyms, Chinese and English) when a search finds nothing. Set \
            `all_conversations` when the task is about other conversations. Answer briefly: \
            the facts that answer the task, each followed by its evidence id in brackets, \
            e.g. [search-message-1a2b]. If nothing relevant is found, say so plainly; never \
            invent a fact or an id."
            .to_owned(),
        model: None,
        tools: vec![search_context::NAME.to_owned(), datetime::NAME.to_owned()],
        max_turns: DEFAULT_MAX_TURNS,
        max_tokens: Some(2_000),
        role: SpecialistRole::Answer,
    }
}
