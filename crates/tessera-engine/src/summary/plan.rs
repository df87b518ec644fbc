//! What the next summary would cover: the messages of the active branch after what the current
//! summary covers, minus the newest ones, within the input budget; and the prompt for it.

use std::sync::OnceLock;

use tessera_protocol::context_doc::Summary;
use tessera_protocol::request::Role;
use tessera_providers::{ChatMessage, ChatRequest};
use tessera_store::{Store, StoredMessage};

use super::policy::{SummaryError, SummaryPolicy, COVERS_THROUGH};
use crate::assembler::tokens::{Encoding, TokenCache};

/// One message in the summary prompt at most this long: a pasted log or a big tool result says
/// what it needs to in its first pages.
const MAX_MESSAGE_CHARS: usize = 8_000;

/// Thresholds are estimates, so one encoding serves every model; cl100k is the one the
/// assembler uses for models without a known tokenizer.
const ENCODING: Encoding = Encoding::Cl100kBase;

/// Counts are asked again every turn for the same messages: keep them (about 650 KB at most).
fn cache() -> &'static TokenCache {
    static CACHE: OnceLock<TokenCache> = OnceLock::new();
    CACHE.get_or_init(|| TokenCache::with_capacity(16_384))
}

/// The state of a conversation's summary against its active branch.
pub(super) struct Plan {
    /// The stored summary as read (to notice a change before replacing it).
    pub stored: Option<Summary>,
    /// The stored summary's text and range, when it still describes this branch.
    pub previous: Option<(String, u64, u64)>,
    /// Non-system messages after the summary, oldest first, with their tokens.
    pub pending: Vec<(StoredMessage, u64)>,
    /// How many of `pending` may be folded in (all but the newest `keep_recent`).
    pub foldable: usize,
}

impl Plan {
    pub(super) fn read(
        store: &Store,
        conversation_id: &str,
        policy: &SummaryPolicy,
    ) -> Result<Self, SummaryError> {
        if store.conversation(conversation_id)?.is_none() {
            return Err(SummaryError::NoConversation(conversation_id.to_owned()));
        }
        let branch = store.active_branch(conversation_id)?;
        let stored = store.summary(conversation_id)?;
        let previous = stored.as_ref().and_then(|s| still_valid(s, &branch));
        let after = previous.as_ref().map(|(_, _, to)| *to);
        let mut pending = Vec::new();
        for m in branch {
            if m.message.role == Role::System
                || after.is_some_and(|to| m.depth <= to)
                || tessera_store::history_clearing::is_cleared(&m.message.extra)
            {
                // System messages are sent with every prompt anyway (the assembler's `must`);
                // what CLEAR_HISTORY took out is not summarised back in.
                continue;
            }
            let tokens = cache().count(ENCODING, &m.message.content)?;
            pending.push((m, tokens));
        }
        let foldable = pending.len().saturating_sub(policy.keep_recent);
        Ok(Self {
            stored,
            previous,
            pending,
            foldable,
        })
    }

    pub(super) fn needed(&self, policy: &SummaryPolicy) -> bool {
        let tokens: u64 = self.pending.iter().map(|(_, t)| t).sum();
        self.foldable > 0
            && (policy.threshold_tokens.is_some_and(|max| tokens > max)
                || policy
                    .threshold_messages
                    .is_some_and(|max| self.pending.len() > max))
    }

    /// The messages the next summary folds in: the oldest foldable ones within the input
    /// budget (always at least one, so a single huge message cannot block the summary).
    pub(super) fn batch(&self, policy: &SummaryPolicy) -> &[(StoredMessage, u64)] {
        let mut used = 0u64;
        let mut n = 0;
        for (_, tokens) in &self.pending[..self.foldable] {
            if n > 0 && used + tokens > policy.max_input_tokens {
                break;
            }
            used += tokens;
            n += 1;
        }
        &self.pending[..n]
    }
}

/// The stored summary's text and range when it still describes the start of this branch: it
/// has text and a range within the branch, and the message it covers up to (when it recorded
/// one: summaries written elsewhere may not) is still on the branch. After an edit-and-resend
/// or a branch switch it describes messages no longer shown, and is rewritten from the start.
fn still_valid(summary: &Summary, branch: &[StoredMessage]) -> Option<(String, u64, u64)> {
    let content = summary
        .content
        .as_deref()
        .filter(|c| !c.trim().is_empty())?;
    let range = summary.message_index_range.as_ref()?;
    let (from, to) = (range.from.unwrap_or(0), range.to?);
    let at_to = branch.iter().find(|m| m.depth == to)?;
    if from > to {
        return None;
    }
    match summary.extra.get(COVERS_THROUGH).and_then(|v| v.as_str()) {
        Some(id) if id != at_to.id => None,
        _ => Some((content.to_owned(), from, to)),
    }
}

const INSTRUCTIONS: &str = "You keep the running summary of a conversation between a person \
and an AI assistant. Later prompts show the summary instead of the messages it covers, so keep \
everything the assistant needs to carry on: the person's goals, preferences and constraints; \
facts, figures, names, files and identifiers that came up; decisions made and why; results of \
tools that still matter; questions still open and tasks not yet done. Leave out greetings, \
repetition and anything later corrected or superseded. Merge the previous summary (if any) and \
the new messages into one summary, in the language of the conversation, as concise notes. \
Answer with the summary only, without a preamble.";

/// The summary call's request: the previous summary and the new messages as a transcript.
pub(super) fn request(
    model: &str,
    previous: Option<&(String, u64, u64)>,
    batch: &[(StoredMessage, u64)],
    max_tokens: u32,
) -> ChatRequest {
    let mut text = String::new();
    if let Some((content, from, to)) = previous {
        text.push_str(&format!(
            "Previous summary (messages {from} to {to}):\n{content}\n\n"
        ));
    }
    let (first, last) = match (batch.first(), batch.last()) {
        (Some((f, _)), Some((l, _))) => (f.depth, l.depth),
        _ => (0, 0),
    };
    text.push_str(&format!("New messages ({first} to {last}):\n"));
    for (m, _) in batch {
        let content: String = m.message.content.chars().take(MAX_MESSAGE_CHARS).collect();
        let cut = if content.len() < m.message.content.len() {
            " […cut]"
        } else {
            ""
        };
        text.push_str(&format!(
            "[{}] {}: {}{cut}\n",
            m.depth,
            m.message.role.as_str(),
            content.trim()
        ));
    }
    let mut call = ChatRequest::new(model, vec![ChatMessage::user(text)]);
    call.system = Some(INSTRUCTIONS.to_owned());
    call.max_tokens = Some(max_tokens);
    call
}
