//! `tessera serve`: bind the router to a loopback address (any address with `--allow-remote`)
//! and print the URL to open.

use std::{
    io::Write,
    net::{IpAddr, SocketAddr},
    path::PathBuf,
    sync::Arc,
};

use thiserror::Error;
use tokio::net::TcpListener;

use crate::{
    auth::{new_token, Guard, LocalAddr},
    chat_cmd::ModelArgs,
    router::{router, RouterConfig},
};

/// The shortest API token taken from TESSERA_TOKEN or --token: a guessable token gives a page
/// on this machine everything the person can do.
pub const MIN_TOKEN_CHARS: usize = 32;

#[derive(Debug, Error)]
pub enum ServeError {
    #[error(
        "refusing to listen on {0}: the API is for this machine only (use 127.0.0.1 or ::1), \
         unless --allow-remote is given to let other machines reach it"
    )]
    NotLoopback(IpAddr),
    #[error(
        "the token is {0} characters long: set TESSERA_TOKEN (or --token) to a random string \
         of at least {MIN_TOKEN_CHARS} characters, or leave it unset for a new one each start"
    )]
    ShortToken(usize),
    #[error("the UI folder {0} has no index.html (build it with `npm --prefix ui run build`, or pass --ui-dir)")]
    NoUi(PathBuf),
    #[error("cannot listen on {addr}: {source}")]
    Bind {
        addr: SocketAddr,
        source: std::io::Error,
    },
    #[error("server error: {0}")]
    Io(#[from] std::io::Error),
}

#[derive(Debug, Clone)]
pub struct ServeOptions {
    pub host: IpAddr,
    pub port: u16,
    pub ui_dir: Option<PathBuf>,
    pub token: Option<String>,
    /// `--allow-remote`: listen on any address, for clients on other machines.
    pub allow_remote: bool,
    /// The engine behind `/v1`; None serves the UI and `/api/v1` only.
    pub engine: Option<tessera_engine::engine::Engine>,
    /// The model flags given, to rebuild the model from when providers change.
    pub model_args: ModelArgs,
}

/// Tools the app around the engine adds to every model's registry (the desktop shell's native
/// tools), registered after the built-in ones.
pub type ExtraTools = Arc<
    dyn Fn(
            &mut tessera_engine::tools::ToolRegistry,
            &Arc<tessera_store::Store>,
        ) -> anyhow::Result<()>
        + Send
        + Sync,
>;

/// The model flags `tessera serve` started with, and one lane for rebuilding the model from
/// them: two provider changes in quick succession must not leave the older one's model in
/// place because its rebuild finished last.
#[derive(Default)]
pub struct ModelFlags {
    pub args: ModelArgs,
    extra_tools: Option<ExtraTools>,
    rebuilding: tokio::sync::Mutex<()>,
}

impl std::fmt::Debug for ModelFlags {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ModelFlags")
            .field("args", &self.args)
            .field("extra_tools", &self.extra_tools.is_some())
            .finish_non_exhaustive()
    }
}

impl ModelFlags {
    pub fn new(args: ModelArgs) -> Self {
        Self {
            args,
            extra_tools: None,
            rebuilding: tokio::sync::Mutex::new(()),
        }
    }

    /// Adds `extra` to the tools of every model built from these flags.
    pub fn with_extra_tools(mut self, extra: ExtraTools) -> Self {
        self.extra_tools = Some(extra);
        self
    }

    /// Rebuilds the model new runs use from the data folder as it is now. When that fails the
    /// engine has no model (NO_MODEL) and the reason is logged and returned.
    pub async fn refresh(&self, engine: &tessera_engine::engine::Engine) -> Result<(), String> {
        let _lane = self.rebuilding.lock().await;
        match model_choice_with(engine.store(), &self.args, self.extra_tools.as_ref()).await {
            Ok(choice) => {
                engine.set_model(Some(choice));
                Ok(())
            }
            Err(err) => {
                let reason = format!("{err:#}");
                tracing::warn!(%reason, "no model after the change");
                engine.set_model(None);
                Err(reason)
            }
        }
    }

    /// The tools that need no model, set on `engine` for when it has none.
    pub fn set_base_tools(&self, engine: &tessera_engine::engine::Engine) -> anyhow::Result<()> {
        let tools = base_tools(engine.store(), self.extra_tools.as_ref())?;
        engine.set_base_tools(Some(Arc::new(tools)));
        Ok(())
    }
}

/// The engine over the data folder `dir` with the built-in tools, answering with the model
/// `args` name. When no model flag was given and the folder has no provider yet, the engine runs
/// without a model (history, settings and providers work; a message is refused with NO_MODEL
/// until a provider is added).
pub async fn open_engine(
    dir: &std::path::Path,
    args: &crate::chat_cmd::ModelArgs,
) -> anyhow::Result<tessera_engine::engine::Engine> {
    open_engine_with(dir, &ModelFlags::new(args.clone())).await
}

/// [`open_engine`] with the model flags' extra tools.
pub async fn open_engine_with(
    dir: &std::path::Path,
    flags: &ModelFlags,
) -> anyhow::Result<tessera_engine::engine::Engine> {
    use anyhow::Context;
    let args = &flags.args;
    let store = Arc::new(
        tessera_store::Store::open(dir)
            .with_context(|| format!("cannot open the data folder {}", dir.display()))?,
    );
    let engine = tessera_engine::engine::Engine::without_model(store.clone());
    // Tools need no model: direct tool calls and instruction sets work before one is set up.
    flags.set_base_tools(&engine)?;
    match model_choice_with(&store, args, flags.extra_tools.as_ref()).await {
        Ok(choice) => engine.set_model(Some(choice)),
        Err(err) if args.is_empty() => {
            tracing::warn!("no model yet: {err:#}");
            eprintln!("tessera serve: no model yet ({err:#}); add a provider to start chatting");
        }
        Err(err) => return Err(err),
    }
    // MCP servers join every run's tools; a broken mcp.json is reported, never fatal.
    match tessera_mcp::McpHub::open(dir, engine.secrets(), store.clone()) {
        Ok(hub) => engine.add_tool_source(hub),
        Err(err) => {
            tracing::warn!("MCP servers are not used: {err}");
            eprintln!("tessera: MCP servers are not used: {err}");
        }
    }
    // What the last process left unfinished: interrupted runs are closed, forms still wait.
    let recovered = engine
        .recover()
        .context("cannot settle the runs the last session left unfinished")?;
    if !recovered.interrupted.is_empty() || !recovered.resumed.is_empty() {
        tracing::info!(
            interrupted = recovered.interrupted.len(),
            resumed = recovered.resumed.len(),
            waiting = recovered.waiting.len(),
            "runs of the last session settled"
        );
    }
    Ok(engine)
}

/// The model named by `args` (or the data folder's default provider) with the built-in tools:
/// what new runs use. Called again when the person changes providers.
pub async fn model_choice(
    store: &Arc<tessera_store::Store>,
    args: &crate::chat_cmd::ModelArgs,
) -> anyhow::Result<tessera_engine::engine::ModelChoice> {
    model_choice_with(store, args, None).await
}

/// [`model_choice`] with the app's extra tools.
pub async fn model_choice_with(
    store: &Arc<tessera_store::Store>,
    args: &crate::chat_cmd::ModelArgs,
    extra_tools: Option<&ExtraTools>,
) -> anyhow::Result<tessera_engine::engine::ModelChoice> {
    use anyhow::Context;
    let (client, model) = crate::chat_cmd::model_client(store, args).await?;
    let mut tools = base_tools(store, extra_tools)?;
    // Specialists last: they may use every tool above, and never each other.
    tessera_engine::specialists::register_configured(
        &mut tools,
        tessera_engine::specialists::SpecialistDeps {
            store: store.clone(),
            client: client.clone(),
            model: model.clone(),
        },
    )
    .context("cannot register the specialists")?;
    Ok(tessera_engine::engine::ModelChoice {
        client,
        model,
        options: tessera_engine::turn::TurnOptions {
            tools: Some(Arc::new(tools)),
            // A client of the API can answer forms and consent requests.
            interactions: true,
            ..tessera_engine::turn::TurnOptions::default()
        },
    })
}

/// The tools that need no model: the built-in ones, the test tools when asked for, the app's.
pub fn base_tools(
    store: &Arc<tessera_store::Store>,
    extra_tools: Option<&ExtraTools>,
) -> anyhow::Result<tessera_engine::tools::ToolRegistry> {
    use anyhow::Context;
    let mut tools = tessera_engine::tools::ToolRegistry::new();
    tessera_engine::builtin_tools::register_builtin_tools(&mut tools, store.clone())
        .context("cannot register the built-in tools")?;
    if crate::test_tools::wanted() {
        crate::test_tools::register(&mut tools, store.paths().root.clone(), store.clone())
            .context("cannot register the test tools")?;
    }
    if let Some(extra) = extra_tools {
        extra(&mut tools, store).context("cannot register the app's tools")?;
    }
    Ok(tools)
}

/// What can be refused before anything is opened (so a refused command leaves no data folder).
pub fn check_options(opts: &ServeOptions) -> Result<(), ServeError> {
    if !opts.host.is_loopback() && !opts.allow_remote {
        return Err(ServeError::NotLoopback(opts.host));
    }
    if let Some(token) = &opts.token {
        let chars = token.trim().chars().count();
        if chars < MIN_TOKEN_CHARS {
            return Err(ServeError::ShortToken(chars));
        }
    }
    if let Some(dir) = &opts.ui_dir {
        if !dir.join("index.html").is_file() {
            return Err(ServeError::NoUi(dir.clone()));
        }
    }
    Ok(())
}

/// Runs until ctrl-c or SIGTERM.
pub async fn serve(opts: ServeOptions) -> Result<(), ServeError> {
    check_options(&opts)?;
    let addr = SocketAddr::new(opts.host, opts.port);
    let listener = TcpListener::bind(addr)
        .await
        .map_err(|source| ServeError::Bind { addr, source })?;
    let local = listener.local_addr()?;
    let token = opts.token.unwrap_or_else(new_token);
    let mut guard = Guard::new(token.clone(), local.port());
    if opts.allow_remote {
        guard = guard.allowing_remote();
    }
    if !local.ip().is_loopback() {
        let place = if local.ip().is_unspecified() {
            format!("every address of this machine, port {}", local.port())
        } else {
            local.to_string()
        };
        eprintln!(
            "tessera serve: warning: the API is reachable from the network on {place} \
             (--allow-remote; plain HTTP: anyone who learns the token can use it and read \
             your conversations)"
        );
    }
    let app = router(RouterConfig {
        guard: Arc::new(guard),
        ui_dir: opts.ui_dir,
        engine: opts.engine,
        model_flags: Arc::new(ModelFlags::new(opts.model_args)),
    });
    // Listen for SIGTERM before announcing the URL, so a script that reads the line and then
    // asks the server to stop always gets a graceful exit.
    let shutdown = shutdown_signal()?;
    // A server on every interface is also on loopback: the URL for the browser here.
    let shown_host = match local.ip() {
        IpAddr::V6(ip) if ip.is_unspecified() => "[::1]".to_owned(),
        IpAddr::V6(ip) => format!("[{ip}]"),
        IpAddr::V4(ip) if ip.is_unspecified() => "127.0.0.1".to_owned(),
        IpAddr::V4(ip) => ip.to_string(),
    };
    // Scripts and tests read this exact line; the token sits in the fragment so that it never
    // reaches a server log.
    let mut out = std::io::stdout().lock();
    writeln!(
        out,
        "Listening on http://{shown_host}:{}/#token={token}",
        local.port()
    )?;
    out.flush()?;
    drop(out);
    tracing::info!(port = local.port(), "tessera serve is listening");
    // Each connection records the address it arrived at, for the Host check.
    axum::serve(
        listener,
        app.into_make_service_with_connect_info::<LocalAddr>(),
    )
    .with_graceful_shutdown(shutdown)
    .await?;
    Ok(())
}

fn shutdown_signal() -> std::io::Result<impl std::future::Future<Output = ()>> {
    #[cfg(unix)]
    let mut term = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate())?;
    Ok(async move {
        #[cfg(unix)]
        let term = async move {
            term.recv().await;
        };
        #[cfg(not(unix))]
        let term = std::future::pending::<()>();
        tokio::select! {
            _ = tokio::signal::ctrl_c() => {},
            () = term => {},
        }
    })
}
