//! The engine's front door: one handle both shells (HTTP and Tauri) call. Start a run for what
//! the person said, follow a conversation's events from any seq, cancel a run. Runs go on in the
//! background whoever listens: a client that disconnects never cancels a run.

mod bus;
mod subscription;

use std::collections::HashMap;
use std::sync::{Arc, Mutex, RwLock};

use tessera_protocol::easyflow::{EventBody, SystemState};
use tessera_providers::ProviderClient;
use tessera_store::conversations::NewConversation;
use tessera_store::{Store, StoreError};
use thiserror::Error;
use tokio_util::sync::CancellationToken;

pub use bus::EventBus;
pub use subscription::Subscription;

use crate::turn::close::CloseReason;
use crate::turn::{new_id, run_turn, Said, TurnError, TurnInput, TurnOptions, TurnOutcome};

mod answering;
mod attachments;
mod failed_run;
mod picked_model;
mod profile_run;
mod recover;
mod resend;

pub use picked_model::ConversationModel;

pub use recover::Recovered;
pub use resend::SaidBefore;

/// A run's work, as [`Engine::spawn_run`] takes it.
type TurnFuture =
    std::pin::Pin<Box<dyn std::future::Future<Output = Result<TurnOutcome, TurnError>> + Send>>;

/// Passes a run's stored events to the bus; from its `done` on, the run can no longer be
/// cancelled.
struct Publisher {
    bus: Arc<EventBus>,
    runs: Arc<Mutex<HashMap<String, RunEntry>>>,
    conversation: String,
    run: String,
    stretch: u64,
}

impl Publisher {
    fn publish(&self, event: tessera_store::StoredEvent) {
        // From its `done`, or its suspension, the run is no longer running here: a cancel then
        // closes what is stored, and an answer may resume it.
        let stops = match &event.event.body {
            EventBody::Done(_) => true,
            EventBody::SystemStatus(s) => s.state == SystemState::Suspended,
            _ => false,
        };
        if stops {
            forget(&self.runs, &self.run, self.stretch);
        }
        self.bus.publish(&self.conversation, event);
    }
}

#[derive(Debug, Error)]
pub enum EngineError {
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error("conversation {0} does not exist")]
    NoConversation(String),
    #[error("the engine is shutting down")]
    ShuttingDown,
    #[error("run {0} is already running")]
    AlreadyRunning(String),
    #[error(transparent)]
    Turn(#[from] TurnError),
    #[error("no model is set up: add a provider (and its key) in the settings, or start with --provider/--model")]
    NoModel,
    #[error("conversation {conversation} has no message {message}")]
    NoMessage {
        conversation: String,
        message: String,
    },
    #[error("message {0} is not the person's: only what the person said can be answered again")]
    NotUserMessage(String),
    /// A client's `messageId` already names another message of the conversation.
    #[error(
        "conversation {conversation} already has a message {message} with other content: a \
         messageId names one message (send this one under a new id)"
    )]
    MessageIdInUse {
        conversation: String,
        message: String,
    },
    #[error(transparent)]
    Secrets(tessera_secrets::SecretError),
    /// An attachment of the message cannot be read or is not allowed.
    #[error(transparent)]
    Attachment(crate::attachments::AttachmentError),
    /// The conversation's own model (picked now when `requested`, else earlier) cannot be used.
    #[error("model {model} of provider {provider} cannot be used: {reason}")]
    ModelUnavailable {
        provider: String,
        model: String,
        reason: Box<ModelUnavailableReason>,
        requested: bool,
    },
}

/// Why a conversation's own model cannot be used.
#[derive(Debug, Error)]
pub enum ModelUnavailableReason {
    #[error("a provider and a model must both be named")]
    Unnamed,
    #[error("there is no provider named {0} (it may have been removed)")]
    NoProvider(String),
    #[error(transparent)]
    Lookup(#[from] crate::provider_settings::ProviderLookupError),
    #[error(transparent)]
    Provider(#[from] tessera_providers::ProviderError),
    #[error("no configured provider has a model named `{wanted}` (known: {})", known_models(.known))]
    NoSuchModel { wanted: String, known: Vec<String> },
}

fn known_models(known: &[String]) -> String {
    if known.is_empty() {
        "none".to_owned()
    } else {
        known.join(", ")
    }
}

/// Where the message a run answers goes: [`Said`], owned for the run's task.
#[derive(Clone, Debug)]
enum Placement {
    Next,
    After(Option<String>),
    Again(String),
}

impl Placement {
    fn said(&self) -> Said<'_> {
        match self {
            Placement::Next => Said::Next,
            Placement::After(parent) => Said::After(parent.as_deref()),
            Placement::Again(id) => Said::Again(id),
        }
    }
}

/// What the person said, as a run starts with it.
#[derive(Clone, Debug, Default)]
pub struct UserMessage {
    pub text: String,
    /// Read and stored by [`crate::attachments::ingest`].
    pub attachments: Vec<crate::attachments::MessageAttachment>,
    /// The id the message gets (a client's MCP-CP `messageId`, seed 000 §3.1); else a new one.
    pub id: Option<String>,
    /// The client asked for `debug/log` events of the run (seed 002 §5).
    pub debug: bool,
    /// What the client's request sets for this run only (seed 003 §1.2 `config`, system
    /// resources).
    pub overrides: RunOverrides,
}

/// A run's settings a client's request gives (seed 003 §1.2).
#[derive(Clone, Debug, Default)]
pub struct RunOverrides {
    pub temperature: Option<f64>,
    pub top_p: Option<f64>,
    pub max_tokens: Option<u32>,
    /// `function_call: "none"`: the model is offered no tool.
    pub no_tools: bool,
    /// System text added after Tessera's own (the request's `system` resources, in order).
    pub system: Option<String>,
}

impl RunOverrides {
    fn apply(&self, options: &mut TurnOptions) {
        if self.temperature.is_some() {
            options.temperature = self.temperature;
        }
        if self.top_p.is_some() {
            options.top_p = self.top_p;
        }
        if self.max_tokens.is_some() {
            options.max_tokens = self.max_tokens;
        }
        if let Some(extra) = &self.system {
            options.system = Some(match options.system.take() {
                Some(base) => format!("{base}\n\n{extra}"),
                None => extra.clone(),
            });
        }
        if self.no_tools {
            options.tools = None;
        }
    }
}

impl UserMessage {
    /// Text alone, under a new id.
    pub fn text(text: &str) -> Self {
        Self {
            text: text.to_owned(),
            ..Self::default()
        }
    }
}

/// The model the engine talks to.
#[derive(Clone, Debug)]
pub struct ModelChoice {
    pub client: ProviderClient,
    pub model: String,
    pub options: TurnOptions,
}

/// A run that was started.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StartedRun {
    pub conversation_id: String,
    pub run_id: String,
}

struct RunEntry {
    conversation_id: String,
    cancel: CancellationToken,
    /// Tells this stretch of the run from a later one (a resume) under the same run id.
    stretch: u64,
}

/// What a trim does first for `store`: its idle readers drop their cached pages. The store is
/// held weakly, so a trim waiting to run never keeps a closed store (and its lock) alive.
fn cached_pages_of(store: &Arc<Store>) -> impl FnOnce() + Send + 'static {
    let store = Arc::downgrade(store);
    move || {
        if let Some(store) = store.upgrade() {
            store.release_cached_pages();
        }
    }
}

/// Removes run `run` from `runs` if the entry is still the one of `stretch`.
fn forget(runs: &Mutex<HashMap<String, RunEntry>>, run: &str, stretch: u64) {
    {
        let mut runs = crate::sync::lock(runs);
        if runs.get(run).is_some_and(|e| e.stretch == stretch) {
            runs.remove(run);
        }
    }
}

static STRETCHES: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);

/// A run the engine did not start itself (a client's direct tool calls or instruction set),
/// listed with the engine's runs while this lives, so [`Engine::cancel`] (and quitting) reach it.
pub struct ExternalRun {
    runs: Arc<Mutex<HashMap<String, RunEntry>>>,
    run_id: String,
    stretch: u64,
    cancel: CancellationToken,
}

impl ExternalRun {
    /// Cancelled when someone cancels the run.
    pub fn cancel_token(&self) -> &CancellationToken {
        &self.cancel
    }
}

impl Drop for ExternalRun {
    fn drop(&mut self) {
        forget(&self.runs, &self.run_id, self.stretch);
    }
}

/// Cheap to clone; every clone is the same engine.
#[derive(Clone)]
pub struct Engine {
    store: Arc<Store>,
    bus: Arc<EventBus>,
    runs: Arc<Mutex<HashMap<String, RunEntry>>>,
    /// Replaced when the person changes providers; a run keeps the model it started with.
    model: Arc<RwLock<Option<Arc<ModelChoice>>>>,
    /// Conversations' own models, readied ([`Engine::prepare_model`]); forgotten with the
    /// default when the providers change.
    picked: Arc<Mutex<HashMap<ConversationModel, Arc<ModelChoice>>>>,
    /// Front-end tools clients announced, and their calls waiting for an answer.
    client_tools: Arc<crate::client_tools::ClientTools>,
    /// Forms running tools wait for (MCP elicitation).
    live_forms: Arc<crate::interactions::LiveForms>,
    /// The tools that need no model (built-in, native, the app's): what direct runs call and
    /// `GET /v1/tools` lists while no model is set up. A model's own registry (with its
    /// specialists) takes their place when there is one.
    base_tools: Arc<RwLock<Option<Arc<crate::tools::ToolRegistry>>>>,
    /// Tools that come and go while the engine runs (MCP servers), asked at each run's start.
    tool_sources: Arc<RwLock<Vec<Arc<dyn crate::tools::ToolSource>>>>,
    /// The engine's tools with the sources', kept until either changes.
    served: Arc<crate::tools::MergedTools>,
    /// Every secret of the data folder (API keys, MCP servers' secrets): the keyring or the
    /// key file, as the person chose.
    secrets: Arc<tessera_secrets::SecretStore>,
    /// The `on-device` provider's models and their worker.
    local_models: Arc<crate::local_models::LocalModels>,
}

impl std::fmt::Debug for Engine {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Engine")
            .field("model", &self.model())
            .finish_non_exhaustive()
    }
}

impl Engine {
    pub fn new(store: Arc<Store>, model: ModelChoice) -> Self {
        let engine = Self::without_model(store);
        engine.set_model(Some(model));
        engine
    }

    /// An engine with no model yet: history, settings and interactions work; a new run is
    /// refused with [`EngineError::NoModel`] until [`Engine::set_model`].
    pub fn without_model(store: Arc<Store>) -> Self {
        // Long answers pass multi-megabyte texts around; see `heap`.
        crate::heap::keep_large_blocks_apart();
        let bus = Arc::new(EventBus::new());
        let secrets = Arc::new(tessera_secrets::SecretStore::open(&store.paths().root));
        let local_models = Arc::new(crate::local_models::LocalModels::new(store.clone()));
        Self {
            secrets,
            local_models,
            live_forms: Arc::new(crate::interactions::LiveForms::new(
                store.clone(),
                bus.clone(),
            )),
            store,
            bus,
            runs: Arc::new(Mutex::new(HashMap::new())),
            model: Arc::new(RwLock::new(None)),
            picked: Arc::new(Mutex::new(HashMap::new())),
            client_tools: Arc::new(crate::client_tools::ClientTools::new()),
            tool_sources: Arc::new(RwLock::new(Vec::new())),
            served: Arc::default(),
            base_tools: Arc::new(RwLock::new(None)),
        }
    }

    /// The tools that need no model: used while no model is set up (tools never need one).
    pub fn set_base_tools(&self, tools: Option<Arc<crate::tools::ToolRegistry>>) {
        {
            let mut base = crate::sync::write(&self.base_tools);
            *base = tools;
        }
    }

    /// Adds tools that come and go (an MCP hub): every run from now on asks `source` for its
    /// tools as it starts, beside the model's.
    pub fn add_tool_source(&self, source: Arc<dyn crate::tools::ToolSource>) {
        {
            let mut sources = crate::sync::write(&self.tool_sources);
            sources.push(source);
        }
    }

    /// The tool source of type `T` that was added, if one was.
    pub fn tool_source<T: crate::tools::ToolSource>(&self) -> Option<Arc<T>> {
        let sources = crate::sync::read(&self.tool_sources).clone();
        sources
            .into_iter()
            .find_map(|s| s.as_any().downcast::<T>().ok())
    }

    /// `base` with the tools of every source and what a run needs to ask the person from a
    /// running tool, for a run in `conversation_id`.
    pub(crate) async fn run_tools(
        &self,
        conversation_id: &str,
        options: &mut crate::turn::TurnOptions,
    ) {
        let sources: Vec<_> = crate::sync::read(&self.tool_sources).clone();
        let mut tools = options.tools.take();
        if !sources.is_empty() {
            tools =
                crate::tools::with_sourced_tools(tools, &sources, options.allowed_tools.as_deref())
                    .await;
        }
        // The client's front-end tools join the tools the profile allows.
        options.tools = self.client_tools.registry_for(conversation_id, tools);
        // The context's `activeTools` (seed 000 §8.1, set by UPDATE_STATE) narrows what the
        // model is offered; a name it lists that no tool has grants nothing.
        let active = self
            .store
            .context_state(conversation_id)
            .map(|state| state.and_then(|s| s.active_tools));
        match active {
            Ok(Some(names)) => {
                if let Some(tools) = &options.tools {
                    options.tools = Some(Arc::new(tools.subset(&names)));
                }
            }
            Ok(None) => {}
            Err(error) => {
                // A narrowing that cannot be read is not lifted: no tool is offered.
                tracing::warn!(%error, "the context's active tools cannot be read");
                options.tools = Some(Arc::new(crate::tools::ToolRegistry::new()));
            }
        }
        if options.interactions {
            options.live_forms = Some(self.live_forms.clone());
        }
    }

    /// The model new runs use (runs going on keep theirs).
    pub fn set_model(&self, model: Option<ModelChoice>) {
        {
            let mut current = crate::sync::write(&self.model);
            *current = model.map(Arc::new);
        }
        // Built from providers as they were: the next run readies them again.
        {
            let mut picked = crate::sync::lock(&self.picked);
            picked.clear();
        }
    }

    /// The model new runs use, if one is set up.
    pub fn model(&self) -> Option<Arc<ModelChoice>> {
        crate::sync::read(&self.model).clone()
    }

    /// The engine's own tools: the model's (with its specialists), or without a model the
    /// tools that need none.
    pub fn tools(&self) -> Option<Arc<crate::tools::ToolRegistry>> {
        self.model()
            .and_then(|m| m.options.tools.clone())
            .or_else(|| crate::sync::read(&self.base_tools).clone())
    }

    pub fn store(&self) -> &Arc<Store> {
        &self.store
    }

    /// Where the data folder's secrets are kept (the keyring or the key file), with the
    /// person's choice between them.
    pub fn secret_store(&self) -> &Arc<tessera_secrets::SecretStore> {
        &self.secrets
    }

    /// Moves every secret of the data folder to `to` (the person's choice): the providers'
    /// keys (saved providers and presets) and the secrets of every tool source.
    pub async fn choose_secret_store(
        &self,
        to: tessera_secrets::SecretBackend,
    ) -> Result<tessera_secrets::SecretStoreMoved, EngineError> {
        let saved: Vec<String> =
            crate::turn::blocking(|| self.store.read(|r| r.all_provider_settings()))?
                .into_iter()
                .map(|(name, _)| name)
                .collect();
        let sources: Vec<_> = crate::sync::read(&self.tool_sources).clone();
        // Secrets known to exist: the MCP servers' (their config marks each) and, maybe, the
        // saved providers' keys. A preset's key is carried when found, but a keyring that
        // cannot be asked is no reason to name every preset the person never used.
        let known: Vec<String> = saved
            .into_iter()
            .chain(sources.iter().flat_map(|s| s.secret_accounts()))
            .collect();
        let accounts: Vec<String> = known
            .iter()
            .cloned()
            .chain(tessera_providers::presets::preset_names().map(str::to_owned))
            .collect();
        let mut moved = self
            .secrets
            .switch(to, &accounts)
            .await
            .map_err(EngineError::Secrets)?;
        moved.not_moved.retain(|n| known.contains(&n.account));
        Ok(moved)
    }

    /// The client of the provider `config`, with `key`: the `on-device` provider's calls go to the
    /// local-model worker, started on the first one.
    pub fn provider_client(
        &self,
        config: tessera_providers::ProviderConfig,
        key: Option<tessera_providers::keys::Secret>,
    ) -> Result<tessera_providers::ProviderClient, tessera_providers::ProviderError> {
        if tessera_providers::presets::is_local(&config) {
            tessera_providers::ProviderClient::with_endpoint_source(
                config,
                self.local_models.clone(),
            )
        } else {
            tessera_providers::ProviderClient::new(config, key)
        }
    }

    /// The `on-device` provider's models and their worker.
    pub fn local_models(&self) -> &Arc<crate::local_models::LocalModels> {
        &self.local_models
    }

    /// The data folder's secrets, as the key store every reader of one uses.
    pub fn secrets(&self) -> Arc<dyn tessera_secrets::KeyStore> {
        self.secrets.clone()
    }

    /// The tools a run in `conversation_id` may call, as a model run gets them: the engine's,
    /// every tool source's (MCP servers), and the front-end tools a client of the conversation
    /// announced ([`crate::client_tools`]).
    pub async fn tools_for(
        &self,
        conversation_id: &str,
    ) -> Option<Arc<crate::tools::ToolRegistry>> {
        let tools = self.served_tools().await;
        self.client_tools.registry_for(conversation_id, tools)
    }

    /// The engine's tools with every tool source's (MCP servers' ready tools): what the server
    /// side offers any conversation.
    pub async fn served_tools(&self) -> Option<Arc<crate::tools::ToolRegistry>> {
        let sources: Vec<_> = crate::sync::read(&self.tool_sources).clone();
        let tools = self.tools();
        if sources.is_empty() {
            return tools;
        }
        self.served.get(tools, &sources).await
    }

    /// The consent gate of a run in `conversation_id` that nobody is asked in (a direct
    /// TOOL_CALL_REQUEST or INSTRUCTION run): stored grants let a call through, nothing else.
    pub fn consent_gate(&self, conversation_id: &str) -> Arc<crate::tools::ConsentGate> {
        Arc::new(crate::tools::ConsentGate::new(
            Arc::clone(self.store()),
            conversation_id,
        ))
    }

    /// The front-end tools announced, and the calls waiting for a client.
    pub fn client_tools(&self) -> &Arc<crate::client_tools::ClientTools> {
        &self.client_tools
    }

    /// Remembers the front-end tools a client can run in `conversation_id` (CLIENT_CAPABILITIES);
    /// runs started from now on offer them to the model.
    pub fn announce_client_tools(
        &self,
        conversation_id: &str,
        capabilities: tessera_protocol::mcp_cp::ClientCapabilities,
    ) -> Result<crate::client_tools::Announcement, crate::client_tools::AnnounceError> {
        self.client_tools.announce(conversation_id, capabilities)
    }

    /// A client's TOOL_CALL_RESPONSE: each result goes to the call waiting for it.
    pub fn client_tool_response(
        &self,
        conversation_id: &str,
        results: Vec<tessera_protocol::mcp_cp::ToolResult>,
    ) -> crate::client_tools::Delivered {
        self.client_tools.respond(conversation_id, results)
    }

    /// Where work outside a model run (a TOOL_CALL_REQUEST, an INSTRUCTION set) sends its
    /// events: stored like a run's, then published to the conversation's subscribers.
    pub fn event_sink(&self, conversation_id: &str) -> Arc<dyn crate::executor::EventSink> {
        let (bus, conversation) = (self.bus.clone(), conversation_id.to_owned());
        Arc::new(crate::event_log::EventLog::published(
            self.store.clone(),
            conversation_id,
            Arc::new(move |stored| bus.publish(&conversation, stored)),
        ))
    }

    /// Starts answering `text` in `conversation` (a new one when None), after the branch
    /// shown. Returns at once; the run's events follow on [`Engine::subscribe`]. A run of the
    /// conversation still waiting for a form or a consent is closed first: the person moved on.
    pub fn start_run(
        &self,
        conversation: Option<&str>,
        text: &str,
    ) -> Result<StartedRun, EngineError> {
        self.launch(conversation, UserMessage::text(text), Placement::Next)
    }

    /// [`Engine::start_run`] for what the person said: the text, what they attached to it (read
    /// and stored by [`crate::attachments::ingest`]: the model gets them with the text) and the
    /// id the client gave the message.
    pub fn start_run_with(
        &self,
        conversation: Option<&str>,
        said: UserMessage,
    ) -> Result<StartedRun, EngineError> {
        self.launch(conversation, said, Placement::Next)
    }

    /// [`Engine::start_run`] for `text` said after message `parent` of `conversation` (None:
    /// as its first message), on a new branch that is then shown; the branch it leaves stays.
    /// Editing a message and resending it is this, after that message's parent.
    pub fn start_run_after(
        &self,
        conversation: &str,
        parent: Option<&str>,
        said: UserMessage,
    ) -> Result<StartedRun, EngineError> {
        if let Some(parent) = parent {
            self.require_message(conversation, parent)?;
        }
        self.launch(
            Some(conversation),
            said,
            Placement::After(parent.map(str::to_owned)),
        )
    }

    /// Answers the person's message `message_id` of `conversation` again (regenerate): the
    /// branch shown is cut back to it and the new answer follows it, beside the earlier ones,
    /// which stay (a branch switch shows them again).
    pub fn regenerate(
        &self,
        conversation: &str,
        message_id: &str,
    ) -> Result<StartedRun, EngineError> {
        let message = self.require_message(conversation, message_id)?;
        if message.message.role != tessera_protocol::request::Role::User {
            return Err(EngineError::NotUserMessage(message_id.to_owned()));
        }
        // Its attachments are on the stored message: the prompt reads them from there.
        self.launch(
            Some(conversation),
            UserMessage::text(&message.message.content),
            Placement::Again(message_id.to_owned()),
        )
    }

    fn require_message(
        &self,
        conversation: &str,
        message_id: &str,
    ) -> Result<tessera_store::StoredMessage, EngineError> {
        if self.store.conversation(conversation)?.is_none() {
            return Err(EngineError::NoConversation(conversation.to_owned()));
        }
        self.store
            .message(conversation, message_id)?
            .ok_or_else(|| EngineError::NoMessage {
                conversation: conversation.to_owned(),
                message: message_id.to_owned(),
            })
    }

    fn launch(
        &self,
        conversation: Option<&str>,
        said: UserMessage,
        placement: Placement,
    ) -> Result<StartedRun, EngineError> {
        let UserMessage {
            text,
            attachments,
            id: message_id,
            debug,
            overrides,
        } = said;
        let default = self.model().ok_or(EngineError::NoModel)?;
        // Before anything is stored or closed: a message that cannot fit starts no run.
        self.check_message_fits(conversation, None, &text, overrides.max_tokens)?;
        let mut own = None;
        let conversation_id = match conversation {
            Some(id) => {
                if self.store.conversation(id)?.is_none() {
                    return Err(EngineError::NoConversation(id.to_owned()));
                }
                own = self.store.conversation_model(id)?;
                self.close_waiting_runs(id, CloseReason::Superseded)?;
                id.to_owned()
            }
            None => {
                self.store
                    .create_conversation(NewConversation {
                        id: None,
                        title: crate::turn::title_of(&text),
                        locale: None,
                        actor: None,
                        created_at: None,
                        project_id: None,
                    })?
                    .id
            }
        };
        // The person's pick names the model too: a profile's own model is for the default
        // provider, and may not exist at the one picked.
        let (model, picked) = self.choice_for(own.as_ref(), default);
        let run_id = new_id();
        let (conversation, run) = (conversation_id.clone(), run_id.clone());
        self.spawn_run(
            &conversation_id,
            &run_id,
            model,
            move |engine, model, cancel, emit| {
                Box::pin(async move {
                    let (mut options, mut model_name) = profile_run::options_for(
                        &engine.store,
                        &model,
                        &conversation,
                        &text,
                        &cancel,
                    )
                    .await;
                    if picked {
                        model_name.clone_from(&model.model);
                    }
                    options.debug = debug;
                    engine.run_tools(&conversation, &mut options).await;
                    overrides.apply(&mut options);
                    let outcome = run_turn(
                        &engine.store,
                        &model.client,
                        TurnInput {
                            conversation: Some(&conversation),
                            text: &text,
                            said: placement.said(),
                            model: &model_name,
                            options: &options,
                            run_id: Some(&run),
                            attachments: &attachments,
                            message_id: message_id.as_deref(),
                        },
                        cancel.clone(),
                        |event| emit.publish(event),
                    )
                    .await?;
                    if outcome.state == SystemState::Completed {
                        profile_run::summarize_if_due(
                            &engine.store,
                            &model,
                            &conversation,
                            &cancel,
                        )
                        .await;
                    }
                    Ok(outcome)
                })
            },
        )?;
        Ok(StartedRun {
            conversation_id,
            run_id,
        })
    }

    /// Lists run `run_id`, which the caller runs, among the engine's runs until the returned
    /// guard is dropped.
    pub fn register_run(
        &self,
        conversation_id: &str,
        run_id: &str,
    ) -> Result<ExternalRun, EngineError> {
        let (cancel, stretch) = self.list_run(conversation_id, run_id)?;
        Ok(ExternalRun {
            runs: self.runs.clone(),
            run_id: run_id.to_owned(),
            stretch,
            cancel,
        })
    }

    /// Puts a run in the list of those going on: its cancel token and stretch.
    fn list_run(
        &self,
        conversation_id: &str,
        run_id: &str,
    ) -> Result<(CancellationToken, u64), EngineError> {
        let cancel = CancellationToken::new();
        let stretch = STRETCHES.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let mut runs = crate::sync::lock(&self.runs);
        if runs.contains_key(run_id) {
            return Err(EngineError::AlreadyRunning(run_id.to_owned()));
        }
        runs.insert(
            run_id.to_owned(),
            RunEntry {
                conversation_id: conversation_id.to_owned(),
                cancel: cancel.clone(),
                stretch,
            },
        );
        Ok((cancel, stretch))
    }

    /// Runs `turn` in the background as run `run_id`: cancellable while it runs, its events
    /// published as they are stored, its interactions armed to expire when it suspends.
    fn spawn_run<F>(
        &self,
        conversation_id: &str,
        run_id: &str,
        model: Arc<ModelChoice>,
        turn: F,
    ) -> Result<(), EngineError>
    where
        F: FnOnce(Engine, Arc<ModelChoice>, CancellationToken, Publisher) -> TurnFuture
            + Send
            + 'static,
    {
        let (cancel, stretch) = self.list_run(conversation_id, run_id)?;
        let engine = self.clone();
        let publisher = Publisher {
            bus: self.bus.clone(),
            runs: self.runs.clone(),
            conversation: conversation_id.to_owned(),
            run: run_id.to_owned(),
            stretch,
        };
        let (conversation, run) = (conversation_id.to_owned(), run_id.to_owned());
        tokio::spawn(async move {
            let outcome = turn(engine.clone(), model, cancel, publisher).await;
            forget(&engine.runs, &run, stretch);
            match outcome {
                Ok(outcome) if outcome.state == SystemState::Suspended => {
                    engine.arm_expiry(&conversation, &run);
                    // An answer that came between the request and the suspension found the
                    // run still running and could not resume it: resume it now. Only answers
                    // count: interactions cancelled by closing the run (a new message, a
                    // cancel) must not bring it back.
                    let answered = engine
                        .store
                        .run_interactions(&conversation, &run)
                        .is_ok_and(|all| {
                            !all.is_empty()
                                && all
                                    .iter()
                                    .all(|i| i.state == tessera_store::InteractionState::Answered)
                        });
                    if answered {
                        if let Err(error) = engine.resume_if_ready(&conversation, &run) {
                            tracing::warn!(%error, run = %run, "could not resume a run answered while it suspended");
                        }
                    }
                }
                Ok(_) => {}
                Err(error) => {
                    tracing::error!(%error, run = %run, "a run stopped on an error");
                    engine.end_failed_run(&conversation, &run, &error);
                }
            }
            // A run's answer, its events and their copies on the way out were freed by now.
            crate::heap::release_freed_memory_soon(cached_pages_of(&engine.store));
        });
        Ok(())
    }

    /// A conversation's events after `after` (all of them when None): the stored ones, then
    /// live ones as they are stored.
    pub fn subscribe(
        &self,
        conversation_id: &str,
        after: Option<u64>,
    ) -> Result<Subscription, EngineError> {
        if self.store.conversation(conversation_id)?.is_none() {
            return Err(EngineError::NoConversation(conversation_id.to_owned()));
        }
        let live = self
            .bus
            .subscribe(conversation_id)
            .ok_or(EngineError::ShuttingDown)?;
        Ok(Subscription::new(
            self.store.clone(),
            Arc::clone(&self.bus),
            conversation_id.to_owned(),
            live,
            after,
        )?)
    }

    /// Cancels a run: one that is running stops at once (keeping its partial answer); one that
    /// waits for the person is closed (its forms and consent requests withdrawn). False when
    /// the run is neither (finished, or unknown).
    pub fn cancel(&self, run_id: &str) -> bool {
        let running = crate::sync::lock(&self.runs)
            .get(run_id)
            .map(|r| r.cancel.cancel())
            .is_some();
        if running {
            return true;
        }
        match self.close_waiting_run(run_id, CloseReason::Cancelled) {
            Ok(closed) => closed,
            Err(error) => {
                tracing::warn!(%error, run = %run_id, "cannot cancel a waiting run");
                false
            }
        }
    }

    /// The runs going on, with their conversations.
    pub fn running(&self) -> Vec<StartedRun> {
        crate::sync::lock(&self.runs)
            .iter()
            .map(|(run_id, entry)| StartedRun {
                conversation_id: entry.conversation_id.clone(),
                run_id: run_id.clone(),
            })
            .collect()
    }
}
