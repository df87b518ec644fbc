//! What a turn is given (the person's words, where they go, how to run) and how it ended.

use std::sync::Arc;
use std::time::Duration;

use tessera_protocol::context_doc::UsageStage;
use tessera_protocol::easyflow::SystemState;
use tessera_providers::cost::{PriceTable, SpendingLimits};
use tessera_providers::stream::Response;
use tessera_providers::ProviderError;

use super::extra_context;
use crate::tools::ToolRegistry;

/// How to run the turn.
#[derive(Clone, Debug)]
pub struct TurnOptions {
    /// The stage of the final answer's `model_usage` record (calls that ask for tools are
    /// recorded as `tool_call`).
    pub stage: UsageStage,
    pub prices: PriceTable,
    /// Checked before the first call; None reads them from the app settings.
    pub limits: Option<SpendingLimits>,
    pub system: Option<String>,
    pub max_tokens: Option<u32>,
    /// The tools the model may call; None for a plain answer.
    pub tools: Option<Arc<ToolRegistry>>,
    /// Model calls in one turn at most (each tool round is one).
    pub max_model_calls: u32,
    /// Tool calls running at once.
    pub tool_concurrency: usize,
    /// Whether the person can be asked mid-run: the model gets `request_form`, and a call that
    /// needs consent suspends the run. Without it such a call is refused.
    pub interactions: bool,
    /// The tools the run's profile allows by name (tools that join later, an MCP server's, are
    /// held to it too); None: all.
    pub allowed_tools: Option<Vec<String>>,
    /// Where a running tool's forms (MCP elicitation) go; None: such a form is refused.
    pub live_forms: Option<Arc<crate::interactions::LiveForms>>,
    /// How long a form or consent request waits before it is cancelled; None: forever.
    pub interaction_timeout: Option<Duration>,
    /// Who asks, as a form shows it.
    pub agent_name: String,
    /// The agent profile the run was routed to: written into the run's `running` status, so
    /// a resumed run takes the same profile.
    pub profile: Option<String>,
    /// The final answer must be one JSON document valid against this schema; it is checked
    /// before the turn ends and the model is asked to correct it while it has calls left.
    pub response_schema: Option<serde_json::Value>,
    /// What the run's tool calls may make Tessera hold and store.
    pub tool_limits: crate::executor::Limits,
    /// Emit `debug/log` events (seed 002 §5): only when the client asked for them.
    pub debug: bool,
    /// Sampling the client asked for (seed 003 §1.2 `config`); None: the provider's default.
    pub temperature: Option<f64>,
    pub top_p: Option<f64>,
    /// The first model call's tool choice (`tessera chat --tool-choice`). Later calls of the
    /// turn choose freely: forced on every call, a model would call tools until the turn's
    /// limit.
    pub first_tool_choice: Option<tessera_providers::ToolChoice>,
    /// How the prompt's tokens are counted: exactly, or, for a one-shot command, by byte
    /// lengths when the conversation fits at those bounds.
    pub counting: crate::assembler::Counting,
    /// Context from outside the conversation (a project's instructions and files), added as
    /// blocks the assembler trims and explains.
    pub context_sources: Vec<Arc<dyn extra_context::ContextSource>>,
}

impl Default for TurnOptions {
    fn default() -> Self {
        Self {
            stage: UsageStage::Answer,
            prices: PriceTable::builtin(),
            limits: None,
            system: None,
            max_tokens: None,
            tools: None,
            max_model_calls: 8,
            tool_concurrency: 10,
            interactions: false,
            allowed_tools: None,
            live_forms: None,
            interaction_timeout: Some(Duration::from_secs(24 * 3600)),
            agent_name: "assistant".to_owned(),
            profile: None,
            response_schema: None,
            tool_limits: crate::executor::Limits::default(),
            debug: false,
            temperature: None,
            top_p: None,
            first_tool_choice: None,
            counting: crate::assembler::Counting::Exact,
            context_sources: Vec::new(),
        }
    }
}

/// Where the message a turn answers is in the conversation's tree of messages.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Said<'a> {
    /// `text` is new and follows the branch shown.
    #[default]
    Next,
    /// `text` is new and follows this message (None: it starts the conversation anew), on a
    /// branch of its own that is then shown; the branch it leaves stays. Editing a message and
    /// resending it is `After` that message's parent.
    After(Option<&'a str>),
    /// The person's stored message with this id is answered again (regenerate): `text` is its
    /// text, and the new answer goes beside the earlier ones, which stay.
    Again(&'a str),
}

/// What the person said and to whom.
#[derive(Clone, Copy, Debug)]
pub struct TurnInput<'a> {
    /// The conversation to continue; None starts a new one.
    pub conversation: Option<&'a str>,
    pub text: &'a str,
    /// Where `text` goes (after the branch shown, unless it is an edit or a regeneration).
    pub said: Said<'a>,
    pub model: &'a str,
    pub options: &'a TurnOptions,
    /// The run's id, when the caller chose it (to cancel it while it runs); else a new one.
    pub run_id: Option<&'a str>,
    /// What the person attached to `text`, read and stored (`crate::attachments::ingest`).
    pub attachments: &'a [crate::attachments::MessageAttachment],
    /// The id the person's new message gets (a client's MCP-CP `messageId`); else a new one.
    pub message_id: Option<&'a str>,
}

/// How the turn ended (or paused).
#[derive(Debug)]
pub struct TurnOutcome {
    pub conversation_id: String,
    pub run_id: String,
    /// The stored answer (None when nothing arrived, e.g. refused by a spending limit, or
    /// while the run is suspended).
    pub message_id: Option<String>,
    /// The last model call's answer; `text` holds the text of every call of the turn.
    pub response: Response,
    pub error: Option<ProviderError>,
    /// `Suspended` when a form or consent request waits for the person.
    pub state: SystemState,
    /// Model calls made.
    pub model_calls: u32,
}
