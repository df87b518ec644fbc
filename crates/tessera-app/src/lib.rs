//! Tessera's application core. [`App::open`] opens a data folder with everything a person's
//! Tessera has: the store, the secret store, the built-in, test, shell (native) and specialist
//! tools, the MCP servers, the model, and the runs the last process left unfinished. The desktop
//! shell, `tessera serve` and the command line all open it this way and nothing else assembles
//! tools or models; the shells parse, call the core, and answer.

pub mod answers;
pub mod branches;
pub mod client_tools;
pub mod context;
pub mod context_updates;
pub mod conversations;
pub mod data_dir;
mod direct_run;
pub mod direct_runs;
pub mod embedding;
mod error;
pub mod grants;
mod knowledge_tool;
pub mod local_models;
pub mod mcp;
pub mod memories;
pub mod messages;
pub mod models;
mod one_turn;
pub mod outcome;
pub mod problem;
pub mod profiles;
pub mod project_context;
pub mod projects;
pub mod providers;
pub mod requests;
pub mod settings;
pub mod specialists;
pub mod views;

use std::path::{Path, PathBuf};
use std::sync::Arc;

use tessera_engine::engine::{Engine, EngineError, ModelChoice};
use tessera_engine::tools::{RegistryError, ToolRegistry};
use tessera_protocol::settings_api::ModelStatus;
use tessera_store::Store;
use thiserror::Error;

pub use error::{error_chain, CoreError};
pub use models::{ModelError, ModelOverrides};
pub use outcome::{RunEnd, RunFailure, RunOutcome, WaitingInteraction};
pub use problem::Problem;
pub use tessera_engine::engine::{ConversationModel, StartedRun, Subscription};
pub use tessera_engine::interactions::{Answer, Answered};
pub use tessera_engine::{file_modes, sync};
pub use tessera_providers::WireKind;
pub use tessera_store::{
    AttachmentInfo, Interaction, InteractionKind, InteractionState, StoreError, StoredEvent,
};

fn open_store(dir: &Path) -> Result<Arc<Store>, AppError> {
    Store::open(dir)
        .map(Arc::new)
        .map_err(|source| AppError::OpenStore {
            dir: dir.to_owned(),
            source,
        })
}

/// Tools a shell adds to every registry the core builds (the desktop's native tools), given the
/// store they keep their results in.
pub type ToolPlugin =
    Arc<dyn Fn(&mut ToolRegistry, &Arc<Store>) -> Result<(), RegistryError> + Send + Sync>;

/// The model new runs use, as the UI shows it.
pub fn model_status(engine: &Engine) -> ModelStatus {
    match engine.model() {
        Some(choice) => ModelStatus {
            ready: true,
            provider: Some(choice.client.config().name.clone()),
            model: Some(choice.model.clone()),
            reason: None,
        },
        None => ModelStatus::default(),
    }
}

/// Why the application could not open.
#[derive(Debug, Error)]
pub enum AppError {
    #[error("cannot open the data folder {dir}: {source}")]
    OpenStore { dir: PathBuf, source: StoreError },
    #[error(transparent)]
    Model(#[from] ModelError),
    #[error("cannot settle the runs the last session left unfinished: {0}")]
    Recover(EngineError),
}

/// Something opening found that the person should hear about, though the app works without it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum StartNote {
    /// No override named a model and the folder has no usable provider yet: a message is
    /// refused with NO_MODEL until one is added.
    NoModelYet(String),
    /// `mcp.json` could not be read: no MCP server's tools are offered.
    McpUnavailable(String),
    /// The knowledge index could not be opened: projects answer without their files.
    KnowledgeUnavailable(String),
}

impl std::fmt::Display for StartNote {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::NoModelYet(reason) => write!(
                f,
                "no model yet ({reason}); add a provider to start chatting"
            ),
            Self::McpUnavailable(reason) => write!(f, "MCP servers are not used: {reason}"),
            Self::KnowledgeUnavailable(reason) => {
                write!(f, "projects' files are not searched: {reason}")
            }
        }
    }
}

/// The application over one data folder. Cheap to clone: every clone is the same app.
#[derive(Clone)]
pub struct App {
    engine: Engine,
    inner: Arc<Inner>,
}

struct Inner {
    overrides: ModelOverrides,
    plugins: Vec<ToolPlugin>,
    /// Set once, as [`App::open`] ends.
    notes: std::sync::OnceLock<Vec<StartNote>>,
    /// One lane for rebuilding the model: two provider changes in quick succession must not
    /// leave the older one's model in place because its rebuild finished last.
    rebuilding: tokio::sync::Mutex<()>,
    downloads: local_models::Downloads,
    /// The knowledge index, opened at start (or on first use by a command).
    knowledge: std::sync::OnceLock<Result<tessera_knowledge::Knowledge, String>>,
    /// Set once the projects' folders are watched (not by a command that exits).
    watching: std::sync::atomic::AtomicBool,
}

impl std::fmt::Debug for App {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("App")
            .field("overrides", &self.inner.overrides)
            .field("plugins", &self.inner.plugins.len())
            .finish_non_exhaustive()
    }
}

impl App {
    /// Opens the application over `dir`. With no override the folder's default provider is
    /// the model, or none yet (history, settings and providers work; see
    /// [`App::start_notes`]); a model the overrides name must be usable.
    pub async fn open(
        dir: &Path,
        overrides: ModelOverrides,
        plugins: Vec<ToolPlugin>,
    ) -> Result<Self, AppError> {
        let store = open_store(dir)?;
        let app = Self::assemble(Engine::without_model(store.clone()), overrides, plugins);
        let mut notes = Vec::new();
        // Tools need no model: direct tool calls and instruction sets work before one is set up.
        let base = app.base_tools()?;
        app.engine.set_base_tools(Some(Arc::new(base)));
        match app.model_choice().await {
            Ok(choice) => app.engine.set_model(Some(choice)),
            Err(err) if app.inner.overrides.is_empty() => {
                tracing::warn!("no model yet: {err}");
                notes.push(StartNote::NoModelYet(err.to_string()));
            }
            Err(err) => return Err(err.into()),
        }
        // MCP servers join every run's tools; a broken mcp.json is reported, never fatal.
        match tessera_mcp::McpHub::open(dir, app.engine.secrets(), store) {
            Ok(hub) => app.engine.add_tool_source(hub),
            Err(err) => {
                tracing::warn!("MCP servers are not used: {err}");
                notes.push(StartNote::McpUnavailable(err.to_string()));
            }
        }
        // Projects' folders: caught up and watched; a broken index is reported, never fatal.
        if let Err(err) = app.start_knowledge() {
            tracing::warn!("knowledge: {err}");
            notes.push(StartNote::KnowledgeUnavailable(err.to_string()));
        }
        // What the last process left unfinished: interrupted runs are closed, forms still wait.
        let recovered = app.engine.recover().map_err(AppError::Recover)?;
        if !recovered.interrupted.is_empty() || !recovered.resumed.is_empty() {
            tracing::info!(
                interrupted = recovered.interrupted.len(),
                resumed = recovered.resumed.len(),
                waiting = recovered.waiting.len(),
                "runs of the last session settled"
            );
        }
        let _ = app.inner.notes.set(notes);
        Ok(app)
    }

    /// The application for one command that runs and exits (`tessera chat`): the store and the
    /// engine, no model built yet and no tool (the command asks for what it needs), no MCP
    /// server, and the runs another session left are left to it (a command that exits must
    /// not take over a suspended run).
    pub fn open_for_command(dir: &Path, overrides: ModelOverrides) -> Result<Self, AppError> {
        let engine = Engine::without_model(open_store(dir)?);
        Ok(Self::assemble(engine, overrides, Vec::new()))
    }

    /// An app around an engine set up by hand (a bench's model on a fake server): no override,
    /// no shell tool, nothing recovered.
    pub fn over_engine(engine: Engine) -> Self {
        Self::assemble(engine, ModelOverrides::default(), Vec::new())
    }

    fn assemble(engine: Engine, overrides: ModelOverrides, plugins: Vec<ToolPlugin>) -> Self {
        Self {
            engine,
            inner: Arc::new(Inner {
                overrides,
                plugins,
                notes: std::sync::OnceLock::new(),
                rebuilding: tokio::sync::Mutex::new(()),
                downloads: local_models::Downloads::default(),
                knowledge: std::sync::OnceLock::new(),
                watching: std::sync::atomic::AtomicBool::new(false),
            }),
        }
    }

    /// The provider's client and the model name the overrides (or the folder's default
    /// provider) pick, with no tool.
    pub async fn model_client(
        &self,
    ) -> Result<(tessera_providers::ProviderClient, String), ModelError> {
        models::model_client(&self.engine, &self.inner.overrides).await
    }

    /// The engine: runs, events, interactions, the store behind them. The core's own: the
    /// shells call the core's operations.
    pub(crate) fn engine(&self) -> &Engine {
        &self.engine
    }

    /// What opening found that the shell should tell the person.
    pub fn start_notes(&self) -> &[StartNote] {
        self.inner.notes.get().map_or(&[], Vec::as_slice)
    }

    /// The model overrides the app was opened with.
    pub fn overrides(&self) -> &ModelOverrides {
        &self.inner.overrides
    }

    /// Rebuilds the model new runs use from the data folder as it is now (after a change of
    /// providers, profiles or specialists). When that fails the engine has no model (NO_MODEL)
    /// and the reason is returned.
    pub async fn reload_model(&self) -> Result<(), ModelError> {
        let _lane = self.inner.rebuilding.lock().await;
        match self.model_choice().await {
            Ok(choice) => {
                self.engine.set_model(Some(choice));
                Ok(())
            }
            Err(err) => {
                tracing::warn!(reason = %err, "no model after the change");
                self.engine.set_model(None);
                Err(err)
            }
        }
    }

    /// [`Self::reload_model`], and the model new runs use after it (or why there is none).
    pub async fn reload_model_status(&self) -> ModelStatus {
        match self.reload_model().await {
            Ok(()) => model_status(&self.engine),
            Err(reason) => ModelStatus {
                reason: Some(reason.to_string()),
                ..ModelStatus::default()
            },
        }
    }

    /// The downloads of local models this app runs.
    pub(crate) fn downloads(&self) -> &local_models::Downloads {
        &self.inner.downloads
    }

    /// The model the overrides (or the folder's default provider) name, with every tool:
    /// what new runs use.
    pub async fn model_choice(&self) -> Result<ModelChoice, ModelError> {
        let (client, model) = self.model_client().await?;
        let mut tools = self.base_tools()?;
        self.add_specialists(&mut tools, &client, &model)?;
        Ok(ModelChoice {
            client,
            model,
            options: tessera_engine::turn::TurnOptions {
                tools: Some(Arc::new(tools)),
                // A client of the API can answer forms and consent requests.
                interactions: true,
                context_sources: vec![self.project_context()],
                ..tessera_engine::turn::TurnOptions::default()
            },
        })
    }

    /// What projects add to their conversations' prompts.
    pub fn project_context(&self) -> Arc<dyn tessera_engine::turn::extra_context::ContextSource> {
        Arc::new(project_context::ProjectContext {
            store: self.engine.store().clone(),
            knowledge: self.knowledge().ok().cloned(),
        })
    }

    /// The built-in tools and the specialists on `client`'s `model`, without the shell's or
    /// the test tools: what `tessera chat --tools builtin` offers.
    pub fn builtin_tools_for(
        &self,
        client: &tessera_providers::ProviderClient,
        model: &str,
    ) -> Result<ToolRegistry, ModelError> {
        let mut tools = self.builtin_tools()?;
        self.add_specialists(&mut tools, client, model)?;
        Ok(tools)
    }

    /// A registry of the built-in tools alone.
    fn builtin_tools(&self) -> Result<ToolRegistry, ModelError> {
        let mut tools = ToolRegistry::new();
        tessera_engine::builtin_tools::register_builtin_tools(
            &mut tools,
            self.engine.store().clone(),
        )
        .map_err(|source| ModelError::Tools {
            what: "built-in tools",
            source,
        })?;
        knowledge_tool::register(&mut tools, self.clone()).map_err(|source| ModelError::Tools {
            what: "knowledge tool",
            source,
        })?;
        Ok(tools)
    }

    /// Every tool a run in `conversation` may offer: the model's (or, with no model, those
    /// that need none), the MCP servers' and the front-end tools its client announced.
    pub async fn tools_for(&self, conversation: &str) -> Result<Arc<ToolRegistry>, ModelError> {
        match self.engine.tools_for(conversation).await {
            Some(tools) => Ok(tools),
            None => Ok(Arc::new(self.base_tools()?)),
        }
    }

    /// Specialists last: they may use every tool registered before them, never each other.
    fn add_specialists(
        &self,
        tools: &mut ToolRegistry,
        client: &tessera_providers::ProviderClient,
        model: &str,
    ) -> Result<(), ModelError> {
        tessera_engine::specialists::register_configured(
            tools,
            tessera_engine::specialists::SpecialistDeps {
                store: self.engine.store().clone(),
                client: client.clone(),
                model: model.to_owned(),
            },
        )
        .map_err(|source| ModelError::Tools {
            what: "specialists",
            source,
        })
    }

    /// The tools that need no model: the built-in ones and the shell's (its plugins).
    fn base_tools(&self) -> Result<ToolRegistry, ModelError> {
        let store = self.engine.store();
        let mut tools = self.builtin_tools()?;
        for plugin in &self.inner.plugins {
            plugin(&mut tools, store).map_err(|source| ModelError::Tools {
                what: "app's tools",
                source,
            })?;
        }
        Ok(tools)
    }
}
