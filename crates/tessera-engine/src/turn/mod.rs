//! One turn of the conversation, start to end, with nothing lost: the person's message is
//! stored before the first call; every delta and every tool event becomes a stored event before
//! anyone sees it; the model is called again with the tool results until it answers without
//! tools or the turn limit is reached; each call is kept as the provider saw it with a
//! `model_usage` record and its estimated cost; spending limits are checked before any call.
//! A form or a consent request suspends the turn ([`round`]); the answer resumes it, also in
//! another process, from what the store kept ([`resume`]); a run the process died in is closed
//! as interrupted ([`close`]).

mod call;
mod cite;
mod cleared_history;
pub mod close;
mod context;
mod drive;
pub mod extra_context;
pub mod fits;
pub(crate) mod limits;
mod read_ahead;
pub mod resume;
mod round;

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

use tessera_protocol::context_doc::UsageStage;
use tessera_protocol::easyflow::{Event, SystemState};
use tessera_protocol::request::Role as WireRole;
use tessera_providers::cost::PriceTable;
use tessera_providers::cost::SpendingLimits;
use tessera_providers::stream::Response;
use tessera_providers::{ProviderClient, ProviderError};
use tessera_store::conversations::NewConversation;
use tessera_store::{
    text_message, NewInteraction, NewMessage, Parent, Store, StoreError, StoredEvent,
};
use thiserror::Error;
use tokio::sync::Notify;
use tokio_util::sync::CancellationToken;

use crate::event_log::EventLog;
use crate::model_events::EventShaper;
use crate::specialist_report::SpecialistReport;
use crate::tools::ToolRegistry;

pub use context::readable_document;
pub use drive::TurnState;

/// What stops a turn from being recorded at all (a provider failure is not one: it is part of
/// the outcome).
#[derive(Debug, Error)]
pub enum TurnError {
    #[error("the context database failed: {0}")]
    Store(#[from] StoreError),
    #[error("conversation {0} does not exist")]
    NoConversation(String),
    #[error("the conversation has no message {0} of the person's to answer")]
    NoUserMessage(String),
    #[error("run {0} cannot resume: {1}")]
    CannotResume(String, String),
    #[error("the conversation cannot be put in the model's window: {0}")]
    Context(String),
    /// The person's message alone passes the model's window ([`fits::check_message_fits`]).
    #[error(
        "the message needs ~{needed} tokens; the model's window is {window} tokens, {reserved} of \
         them kept for the answer (model {model}): shorten the message, or pick a model whose \
         window holds it"
    )]
    MessageTooLong {
        needed: u64,
        window: u64,
        reserved: u64,
        model: String,
    },
    #[error("internal error: {0}")]
    Internal(String),
}

impl TurnError {
    /// The `system/error` code a run that ended on this error carries.
    pub fn code(&self) -> &'static str {
        match self {
            TurnError::Store(_) => "store_error",
            TurnError::NoConversation(_) | TurnError::NoUserMessage(_) => "not_found",
            TurnError::CannotResume(..) => "cannot_resume",
            TurnError::Context(_) => CONTEXT_WINDOW_EXCEEDED,
            TurnError::MessageTooLong { .. } => MESSAGE_TOO_LONG,
            TurnError::Internal(_) => "internal",
        }
    }
}

/// The `system/error` code of a run whose message alone passes the model's window.
pub const MESSAGE_TOO_LONG: &str = "message_too_long";
/// The `system/error` code of a run whose prompt's parts that are always sent (the message,
/// the system prompt, the tools) pass the model's window together.
pub const CONTEXT_WINDOW_EXCEEDED: &str = "context_window_exceeded";

/// The field of a run's first `running` status naming the person's message it answers
/// ([`tessera_protocol::easyflow::SystemStatusPayload::user_message_id`]), as the store looks
/// runs up by it.
pub const USER_MESSAGE_KEY: &str = "user_message_id";

/// The bytes of a tool call's arguments or a tool result's value, as the run limit counts them.
pub(crate) fn tool_bytes_of(body: &tessera_protocol::easyflow::EventBody) -> usize {
    use crate::executor::limits::json_size;
    use tessera_protocol::easyflow::EventBody;
    match body {
        EventBody::ToolCall(p) => json_size(&p.arguments),
        EventBody::ToolResult(p) => p.result.as_ref().map_or(0, json_size),
        _ => 0,
    }
}

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
    /// What the person attached to `text`, read and stored ([`crate::attachments::ingest`]).
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

/// Writes of streamed events the store may have at once; events streamed meanwhile wait and
/// go together as the next write, so the writer thread gets bigger writes the further it is
/// behind.
const MAX_WRITES_IN_FLIGHT: u64 = 2;
/// Streamed events that may wait for a write at most (keeps memory bounded when the provider
/// outpaces the disk).
const MAX_WAITING: usize = 512;

/// Stores events, then hands them on, each only once it has committed and in the order they
/// were given. Streamed events ([`Recorder::stream`]) are queued without waiting for their
/// commit, so the call goes on while the writer thread commits them in batches; every other
/// write first waits for those ([`Recorder::flush`]), so it sees them in the store and comes
/// after them.
pub(crate) struct Recorder<'a> {
    store: &'a Arc<Store>,
    conversation_id: String,
    shaper: EventShaper,
    /// Where every event of the run is written.
    log: EventLog,
    emit: &'a mut (dyn FnMut(StoredEvent) + Send),
    /// Where the writer thread leaves the answers to the writes of streamed events.
    landing: Arc<Landing>,
    /// Streamed events not given to the store yet: they go with the next write.
    waiting: Vec<crate::event_log::Prepared>,
    /// Tickets: writes given to the store so far, and the next one to hand on.
    written: u64,
    handed_on: u64,
    /// What specialists called in this stretch cost, from their results: the turn adds it to
    /// its own usage.
    specialist_usage: Vec<crate::specialist_report::SpecialistUsage>,
    /// What each specialist call cost, from its result: for the run's per-agent summary.
    specialist_costs: Vec<crate::specialist_report::SpecialistCost>,
    /// The assembler's explanation of the prompt, kept with the run's first model call as it
    /// is recorded (so it is there before the run's `done` is sent).
    assembly: Option<serde_json::Value>,
    /// Bytes of tool arguments and results the run has stored ([`crate::executor::Limits::run_bytes`]).
    tool_bytes: usize,
}

/// The answers to a recorder's writes, by ticket, left by the writer thread.
#[derive(Default)]
struct Landing {
    state: Mutex<Landed>,
    /// Answers landed so far: the recorder looks at it for every streamed event, and takes
    /// the lock only once an answer it has not handed on is there.
    count: AtomicU64,
    /// For a synchronous wait.
    landed: Condvar,
    /// For an asynchronous one.
    notify: Notify,
}

#[derive(Default)]
struct Landed {
    answers: HashMap<u64, Result<Vec<StoredEvent>, StoreError>>,
    /// Whether someone waits on the condvar (waking it costs a system call).
    sync_waiter: bool,
}

impl Landing {
    fn land(&self, ticket: u64, answer: Result<Vec<StoredEvent>, StoreError>) {
        let mut state = lock(&self.state);
        state.answers.insert(ticket, answer);
        let sync_waiter = state.sync_waiter;
        self.count.fetch_add(1, Ordering::Release);
        drop(state);
        if sync_waiter {
            self.landed.notify_all();
        }
        self.notify.notify_one();
    }

    /// Blocks until write `ticket` has an answer.
    fn wait_for(&self, ticket: u64) {
        let mut state = lock(&self.state);
        state.sync_waiter = true;
        let mut state = self
            .landed
            .wait_while(state, |s| !s.answers.contains_key(&ticket))
            .unwrap_or_else(|e| e.into_inner());
        state.sync_waiter = false;
    }
}

use crate::sync::lock;

impl<'a> Recorder<'a> {
    pub(crate) fn new(
        store: &'a Arc<Store>,
        shaper: EventShaper,
        conversation_id: &str,
        emit: &'a mut (dyn FnMut(StoredEvent) + Send),
    ) -> Self {
        Self {
            store,
            conversation_id: conversation_id.to_owned(),
            shaper,
            log: EventLog::new(Arc::clone(store), conversation_id.to_owned()),
            emit,
            landing: Arc::default(),
            waiting: Vec::new(),
            written: 0,
            handed_on: 0,
            specialist_usage: Vec::new(),
            specialist_costs: Vec::new(),
            assembly: None,
            tool_bytes: 0,
        }
    }

    /// Bytes of tool arguments and results this run has stored so far.
    pub(crate) fn tool_bytes(&self) -> usize {
        self.tool_bytes
    }

    /// Counts what the run stored before this stretch of it (a resumed run's earlier rounds).
    pub(crate) fn count_earlier_tool_bytes(&mut self, bytes: usize) {
        self.tool_bytes = self.tool_bytes.saturating_add(bytes);
    }

    /// The specialists' usage seen since the last call.
    pub(crate) fn take_specialist_usage(
        &mut self,
    ) -> Vec<crate::specialist_report::SpecialistUsage> {
        std::mem::take(&mut self.specialist_usage)
    }

    pub(crate) fn take_specialist_costs(
        &mut self,
    ) -> Vec<crate::specialist_report::SpecialistCost> {
        std::mem::take(&mut self.specialist_costs)
    }

    /// An event stored and handed on before this returns (after every streamed one).
    fn put(&mut self, event: Event) -> Result<(), TurnError> {
        self.flush()?;
        let log = &self.log;
        let stored = blocking(|| log.append(event))?;
        (self.emit)(stored);
        Ok(())
    }

    /// A streamed event: queued for the store; handed on once committed, by this call or a
    /// later one ([`Recorder::next_committed`], [`Recorder::drain`], [`Recorder::flush`]).
    async fn stream(&mut self, event: Event) -> Result<(), TurnError> {
        // Events wait only while writes are in flight, and each landing write takes them.
        while self.waiting.len() >= MAX_WAITING {
            self.next_committed().await?;
        }
        self.waiting.push(self.log.prepare(event));
        if self.written - self.handed_on < MAX_WRITES_IN_FLIGHT {
            self.write_waiting();
        }
        while self.hand_on_landed()? {}
        Ok(())
    }

    /// Gives the waiting events to the store as one write.
    fn write_waiting(&mut self) {
        let ticket = self.written;
        self.written += 1;
        let landing = Arc::clone(&self.landing);
        self.log
            .append_prepared_then(std::mem::take(&mut self.waiting), move |answer| {
                landing.land(ticket, answer)
            });
    }

    /// Whether streamed events wait for their commit (or to be written).
    fn pending(&self) -> bool {
        self.written > self.handed_on
    }

    /// Hands on the events of the oldest write if it committed (then the waiting events
    /// follow as the next write); false when its answer has not come yet.
    fn hand_on_landed(&mut self) -> Result<bool, TurnError> {
        // Every write before `handed_on` has landed and been handed on: until more have
        // landed, the oldest one's answer cannot be there.
        if !self.pending() || self.landing.count.load(Ordering::Acquire) <= self.handed_on {
            return Ok(false);
        }
        let Some(answer) = lock(&self.landing.state).answers.remove(&self.handed_on) else {
            return Ok(false);
        };
        self.handed_on += 1;
        for stored in answer? {
            (self.emit)(stored);
        }
        if !self.waiting.is_empty() {
            self.write_waiting();
        }
        Ok(true)
    }

    /// Waits until the oldest write of streamed events has committed, and hands its events
    /// on (with those of any later write that has too). Cancel-safe: nothing is lost when the
    /// wait is dropped.
    async fn next_committed(&mut self) -> Result<(), TurnError> {
        if !self.pending() {
            return Ok(());
        }
        loop {
            if self.hand_on_landed()? {
                while self.hand_on_landed()? {}
                return Ok(());
            }
            // A commit landing between the check and here leaves a permit: no wake-up is lost.
            self.landing.notify.notified().await;
        }
    }

    /// Waits for every streamed event to commit, handing each on.
    async fn drain(&mut self) -> Result<(), TurnError> {
        while self.pending() {
            self.next_committed().await?;
        }
        Ok(())
    }

    /// [`Recorder::drain`] for a caller that is not async.
    fn flush(&mut self) -> Result<(), TurnError> {
        while self.pending() {
            if !self.hand_on_landed()? {
                let (landing, ticket) = (&self.landing, self.handed_on);
                blocking(|| landing.wait_for(ticket));
            }
        }
        Ok(())
    }

    /// A tool event: stored with the call record it updates, before this returns.
    fn put_tool_event(&mut self, event: Event) -> Result<(), TurnError> {
        self.flush()?;
        self.count_tool_event(&event);
        let log = &self.log;
        let stored = blocking(|| log.append(event))?;
        (self.emit)(stored);
        Ok(())
    }

    /// A tool event of calls that run meanwhile: queued as streamed events are, so the
    /// events of concurrent calls share commits; handed on, in order, once committed.
    async fn stream_tool_event(&mut self, event: Event) -> Result<(), TurnError> {
        self.count_tool_event(&event);
        self.stream(event).await
    }

    /// What a tool event adds to the run's figures: the bytes it holds, a specialist's cost.
    fn count_tool_event(&mut self, event: &Event) {
        self.tool_bytes = self.tool_bytes.saturating_add(tool_bytes_of(&event.body));
        if let tessera_protocol::easyflow::EventBody::ToolResult(p) = &event.body {
            if let Some(result) = &p.result {
                let from_specialist = self.log.provider_of(&p.tool_call_id).as_deref()
                    == Some(crate::specialist_report::SPECIALIST_PROVIDER);
                if let Some(report) = from_specialist
                    .then(|| SpecialistReport::of(result))
                    .flatten()
                {
                    self.specialist_costs.push(report.cost());
                    self.specialist_usage.extend(report.usage);
                }
            }
        }
    }

    /// An interaction and the event that shows it, in one transaction.
    fn put_interaction(&mut self, new: NewInteraction, event: Event) -> Result<(), TurnError> {
        self.flush()?;
        let (log, conversation_id) = (&self.log, self.conversation_id.clone());
        let stored = blocking(|| {
            log.append_with(event, move |tx| {
                tx.create_interaction(&conversation_id, new).map(drop)
            })
        })?;
        (self.emit)(stored);
        Ok(())
    }
}

/// Runs a store write (which waits for its commit) without holding up the other tasks of a
/// multi-threaded runtime: tokio moves them to another worker meanwhile. On a single-threaded
/// runtime there is nothing to move, so it simply runs.
pub(crate) fn blocking<T>(write: impl FnOnce() -> T) -> T {
    match tokio::runtime::Handle::try_current().map(|h| h.runtime_flavor()) {
        Ok(tokio::runtime::RuntimeFlavor::MultiThread) => tokio::task::block_in_place(write),
        _ => write(),
    }
}

/// A new unique id (UUID v7, as the store makes them).
pub(crate) fn new_id() -> String {
    uuid::Uuid::now_v7().to_string()
}

/// Runs one turn: the person's text, answered by the model on `client` (calling tools when
/// given). `emit` sees each event after it was stored. Ends `Suspended` when the person must
/// answer a form or a consent request first; [`resume::resume_turn`] goes on from there.
pub async fn run_turn(
    store: &Arc<Store>,
    client: &ProviderClient,
    input: TurnInput<'_>,
    cancel: CancellationToken,
    mut emit: impl FnMut(StoredEvent) + Send,
) -> Result<TurnOutcome, TurnError> {
    let TurnInput {
        conversation,
        text,
        said,
        model,
        options,
        run_id,
        attachments,
        message_id: chosen_id,
    } = input;
    let begun = Instant::now();
    // Refused before anything is stored. A stored message answered again is checked too: the
    // model may have changed since.
    fits::check_message_fits(client.config(), model, text, options.max_tokens)?;
    let conversation_id = match conversation {
        Some(id) => {
            if store.conversation(id)?.is_none() {
                return Err(TurnError::NoConversation(id.to_owned()));
            }
            id.to_owned()
        }
        None => {
            store
                .create_conversation(NewConversation {
                    id: None,
                    title: title_of(text),
                    locale: None,
                    actor: None,
                    created_at: None,
                    project_id: None,
                })?
                .id
        }
    };
    let user_message = place_user_message(
        store,
        &conversation_id,
        NewUserMessage {
            text,
            attachments,
            id: chosen_id,
        },
        said,
    )?;
    let run_id = run_id.map_or_else(new_id, str::to_owned);
    let message_id = new_id();
    let shaper = EventShaper::new(&conversation_id, &message_id, &run_id);
    let mut recorder = Recorder::new(store, shaper, &conversation_id, &mut emit);
    // Seed 002 §8.2: the run is being set up (its context assembled) until `running`.
    recorder.put(recorder.shaper.status(SystemState::Initializing))?;
    let mut running = recorder.shaper.status(SystemState::Running);
    if let tessera_protocol::easyflow::EventBody::SystemStatus(p) = &mut running.body {
        p.profile.clone_from(&options.profile);
        p.user_message_id = Some(user_message.clone());
        p.debug = options.debug.then_some(true);
    }
    let prompt = match context::prompt(
        store,
        &conversation_id,
        Some(&user_message),
        client.config(),
        model,
        options,
    ) {
        Ok(prompt) => prompt,
        Err(err) => {
            // The run has begun (`initializing` is out): it ends as a failed run does, so a
            // client following it sees why and its stream ends.
            recorder.put(
                recorder
                    .shaper
                    .system_error(err.code(), err.to_string(), false, None),
            )?;
            recorder.put(recorder.shaper.status(SystemState::Failed))?;
            recorder.put(recorder.shaper.done(&drive::failed_summary(begun)))?;
            return Err(err);
        }
    };
    recorder.put(running)?;
    let state = TurnState {
        messages: prompt.messages,
        system: prompt.system,
        started: Instant::now(),
        user_message: Some(user_message),
        ..TurnState::default()
    };
    if options.debug {
        recorder.put(recorder.shaper.debug_log(
            "context assembled",
            context::debug_facts(&prompt.explanation, state.messages.len()),
        ))?;
    }
    recorder.assembly = Some(prompt.explanation);
    drive::drive(&mut recorder, client, model, options, state, &cancel).await
}

/// The person's message as a turn stores it.
struct NewUserMessage<'a> {
    text: &'a str,
    attachments: &'a [crate::attachments::MessageAttachment],
    id: Option<&'a str>,
}

/// The id of the person's message the turn answers: a new one stored where `said` puts it
/// (then shown), or, to answer a stored one again, that one, with the branch shown cut back to
/// it so that the new answer follows it beside the earlier ones.
fn place_user_message(
    store: &Store,
    conversation_id: &str,
    new: NewUserMessage<'_>,
    said: Said<'_>,
) -> Result<String, TurnError> {
    let parent = match said {
        Said::Next => Parent::ActiveLeaf,
        Said::After(Some(id)) => Parent::Message(id.to_owned()),
        Said::After(None) => Parent::Root,
        Said::Again(id) => {
            match store.message(conversation_id, id)? {
                Some(m) if m.message.role == WireRole::User => {}
                _ => return Err(TurnError::NoUserMessage(id.to_owned())),
            }
            store.show_branch_to(conversation_id, id)?;
            return Ok(id.to_owned());
        }
    };
    Ok(store_user_input(store, conversation_id, new, parent)?)
}

/// The person's message, and its `user_input` evidence (docs/design.md: written before anything
/// else, so what they said can be cited), in one transaction; its id.
fn store_user_input(
    store: &Store,
    conversation_id: &str,
    new: NewUserMessage<'_>,
    parent: Parent,
) -> Result<String, StoreError> {
    let NewUserMessage {
        text,
        attachments,
        id,
    } = new;
    let conversation_id = conversation_id.to_owned();
    let text = text.to_owned();
    let id = id.map(str::to_owned);
    let refs = crate::attachments::refs_of(attachments);
    let mut said = text_message(WireRole::User, &text);
    if !attachments.is_empty() {
        said.extra.insert(
            crate::attachments::MESSAGE_ATTACHMENTS_KEY.into(),
            serde_json::to_value(attachments).unwrap_or_default(),
        );
    }
    store.write(move |tx| {
        let mut placed = NewMessage::new(said).with_parent(parent);
        placed.id = id;
        let message = tx.append_message(&conversation_id, placed)?;
        let evidence = tessera_protocol::context_doc::Evidence {
            evidence_id: crate::builtin_tools::search_context::derived_evidence_id(
                &conversation_id,
                "message",
                &message.id,
            ),
            evidence_type: tessera_protocol::context_doc::EvidenceType::UserInput,
            source: tessera_protocol::context_doc::EvidenceSource {
                kind: tessera_protocol::context_doc::SourceKind::User,
                name: None,
                uri: Some(format!(
                    "tessera://conversations/{conversation_id}/messages/{}",
                    message.id
                )),
                extra: Default::default(),
            },
            content: Some(serde_json::Value::String(text)),
            confidence: None,
            metadata: None,
            links: None,
            extra: Default::default(),
        };
        tx.put_evidence(&conversation_id, &evidence, &refs)?;
        Ok(message.id)
    })
}

/// The person's message a run answers, as its first `running` status names it.
pub(crate) fn user_message_of(events: &[StoredEvent]) -> Option<String> {
    events.iter().find_map(|e| match &e.event.body {
        tessera_protocol::easyflow::EventBody::SystemStatus(s) => s.user_message_id.clone(),
        _ => None,
    })
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

#[cfg(test)]
mod title_tests {
    use super::title_of;

    #[test]
    fn a_title_ends_at_a_word_with_an_ellipsis() {
        let long =
            "Plan a two-week trip through Norway in March, with trains, fjords and a day in Bergen";
        let title = title_of(long);
        assert_eq!(
            title,
            "Plan a two-week trip through Norway in March, with trains…"
        );
        assert!(long.starts_with(title.trim_end_matches('…')));
        assert_eq!(title_of("  \n Short one \n more"), "Short one");
        assert_eq!(title_of(""), "New conversation");
        let chinese = "请帮我规划一次为期两周的挪威之旅，三月出发，乘火车游览峡湾，并在卑尔根停留一天，预算有限，希望多看自然风光";
        let title = title_of(&chinese.repeat(2));
        assert_eq!(title.chars().count(), 61);
        assert!(title.ends_with('…'));
    }
}
