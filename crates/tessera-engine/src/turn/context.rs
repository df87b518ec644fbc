//! The conversation as the model reads it at the start of a turn, built by the assembler
//! (docs/design.md "One turn, as data", step 3) from the stored session: memory and other context
//! blocks, the rolling summary standing in for older messages, the newest messages within the
//! model's window. The explanation of what was used is kept with the run's first model turn.

use std::sync::{Arc, OnceLock};
use std::time::SystemTime;

use serde_json::Value;
use tessera_protocol::context_doc::ContextDocument;
use tessera_protocol::request::Role as WireRole;
use tessera_providers::{ChatMessage, ProviderConfig};
use tessera_store::{Store, StoreError};

use super::close::interruption_note;
use super::extra_context::ContextSource;
use super::TurnError;
use crate::assembler::{
    assemble, AssembleError, AssembleRequest, DocumentResolver, PromptSource, TokenCache,
};

/// Token counts of blocks and messages, kept for the life of the process.
fn cache() -> &'static TokenCache {
    static CACHE: OnceLock<TokenCache> = OnceLock::new();
    CACHE.get_or_init(TokenCache::new)
}

/// What the model reads: system text (blocks, summary, system messages) and the messages.
pub(crate) struct Prompt {
    pub system: Option<String>,
    pub messages: Vec<ChatMessage>,
    /// The assembler's explanation, as stored with the model turn.
    pub explanation: Value,
}

/// The document of conversation `conversation_id` a prompt is assembled from: the branch that
/// ends at `leaf` (None: the branch shown) without what CLEAR_HISTORY took out, with what
/// `sources` add. Runs and `tessera context assemble` both start here, so the command shows
/// what a run would send.
pub fn readable_document(
    store: &Store,
    conversation_id: &str,
    leaf: Option<&str>,
    sources: &[Arc<dyn ContextSource>],
) -> Result<ContextDocument, StoreError> {
    let mut doc = store.export_document_through(conversation_id, leaf)?;
    super::cleared_history::without_cleared(&mut doc);
    super::extra_context::add(&mut doc, conversation_id, sources);
    Ok(doc)
}

/// Assembles the prompt of conversation `conversation_id` for `model`, from the branch that
/// ends at `leaf` (the person's message being answered; None: the branch shown).
pub(crate) fn prompt(
    store: &Store,
    conversation_id: &str,
    leaf: Option<&str>,
    config: &ProviderConfig,
    model: &str,
    options: &super::TurnOptions,
) -> Result<Prompt, TurnError> {
    let max_tokens = options.max_tokens;
    let doc = readable_document(store, conversation_id, leaf, &options.context_sources)?;
    let (window, reserve) = super::fits::budget(config, model, max_tokens);
    let mut request = AssembleRequest::new(model, window, reserve, SystemTime::now());
    request.counting = options.counting;
    // What the model is sent besides the document takes the window too.
    request.system_prompt.clone_from(&options.system);
    let tools = super::drive::model_tools(options);
    if !tools.is_empty() {
        request.tool_declarations = serde_json::to_string(&tools).ok();
    }
    let assembly = assemble(&doc, &request, &DocumentResolver::new(&doc), cache()).map_err(
        |err: AssembleError| {
            TurnError::Context(format!(
                "{err} (the model's window is {window} tokens, {reserve} of them kept for the \
                 answer)"
            ))
        },
    )?;
    let mut system: Vec<String> = Vec::new();
    let mut messages = Vec::new();
    for item in assembly.prompt {
        let said = match item.source {
            PromptSource::Message { index } => doc.session.messages.get(index),
            _ => None,
        };
        let note = said.and_then(|m| interruption_note(&m.extra));
        let attached = said
            .map(|m| crate::attachments::of_message(&m.extra))
            .unwrap_or_default();
        let content = match note {
            Some(note) if item.content.is_empty() => note,
            Some(note) => format!("{}\n\n{note}", item.content),
            None => item.content,
        };
        match item.role {
            WireRole::System => system.push(content),
            WireRole::User => {
                let mut message = ChatMessage::user(content);
                message
                    .parts
                    .extend(crate::attachments::parts(store, &attached));
                messages.push(message);
            }
            WireRole::Assistant if !content.is_empty() => {
                messages.push(ChatMessage::assistant(content))
            }
            _ => {}
        }
    }
    Ok(Prompt {
        system: (!system.is_empty()).then(|| system.join("\n\n")),
        messages,
        explanation: serde_json::to_value(&assembly.explanation).unwrap_or_default(),
    })
}

/// What a `debug/log` event says of an assembly: counts and token figures, never the text.
pub(crate) fn debug_facts(
    explanation: &Value,
    messages_sent: usize,
) -> tessera_protocol::wire::JsonObject {
    let mut facts = tessera_protocol::wire::JsonObject::new();
    let count = |key: &str| {
        explanation
            .get(key)
            .and_then(Value::as_array)
            .map_or(0, Vec::len)
    };
    facts.insert("messages_sent".into(), serde_json::json!(messages_sent));
    facts.insert("blocks".into(), serde_json::json!(count("blocks")));
    facts.insert("evidences".into(), serde_json::json!(count("evidences")));
    facts.insert(
        "dropped_blocks".into(),
        serde_json::json!(count("dropped_blocks")),
    );
    facts.insert(
        "dropped_messages".into(),
        serde_json::json!(count("dropped_messages")),
    );
    if let Some(budget) = explanation.get("budget") {
        facts.insert("budget".into(), budget.clone());
    }
    facts
}
