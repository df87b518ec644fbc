//! `tessera chat`: one turn with a model from the command line, recorded in the data folder
//! like any conversation. Plain text by default; `--events ndjson` prints the turn's
//! easyflow-chat events, one per line, ending with `system/done`.

use std::io::Write;
use std::path::Path;
use std::sync::Arc;

use anyhow::{anyhow, bail, Context};
use tessera_engine::provider_settings::{default_provider_name, require_provider};
use tessera_engine::turn::{run_turn, TurnInput, TurnOptions};
use tessera_protocol::easyflow::{EventBody, SystemState};
use tessera_providers::keys::{resolve_key, KeyStore, SecretStore};
use tessera_providers::{presets, ProviderClient, ProviderConfig, WireKind};
use tessera_store::Store;
use tokio_util::sync::CancellationToken;

/// Tools a chat may use.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum ToolSet {
    Builtin,
}

/// How the turn is printed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum EventsFormat {
    Ndjson,
}

/// Which model to talk to: the flags `tessera chat` and `tessera serve` both take.
#[derive(Clone, Debug, Default, clap::Args)]
pub struct ModelArgs {
    /// A saved provider, or a preset: openai, anthropic, deepseek, qwen, moonshot, ollama, lmstudio.
    #[arg(long)]
    pub provider: Option<String>,
    /// The wire of an ad-hoc provider: openai (any OpenAI-compatible server) or anthropic.
    #[arg(long, value_parser = parse_kind)]
    pub kind: Option<WireKind>,
    /// The ad-hoc provider's base URL (e.g. http://127.0.0.1:8000/v1).
    #[arg(long)]
    pub base_url: Option<String>,
    /// The model (default: the provider's default model).
    #[arg(long)]
    pub model: Option<String>,
}

fn parse_kind(s: &str) -> Result<WireKind, String> {
    s.parse()
}

impl ModelArgs {
    pub fn is_empty(&self) -> bool {
        self.provider.is_none()
            && self.kind.is_none()
            && self.base_url.is_none()
            && self.model.is_none()
    }
}

/// The client and model for `args`: the provider resolved, its key from the environment or
/// the OS keyring.
pub async fn model_client(
    store: &Store,
    args: &ModelArgs,
) -> anyhow::Result<(ProviderClient, String)> {
    let config = resolve_provider(store, args)?;
    let model = args
        .model
        .clone()
        .or_else(|| config.default_model.clone())
        .ok_or_else(|| {
            anyhow!(
                "no model: pass --model M (provider {} has no default)",
                config.name
            )
        })?;
    let keyring: Arc<dyn KeyStore> = Arc::new(SecretStore::open(&store.paths().root));
    let key = resolve_key(&config, keyring).await?;
    Ok((ProviderClient::new(config, key)?, model))
}

/// What `tessera chat` was asked.
#[derive(Debug)]
pub struct ChatArgs {
    pub model: ModelArgs,
    pub events: Option<EventsFormat>,
    pub conversation: Option<String>,
    pub system: Option<String>,
    pub max_tokens: Option<u32>,
    pub tools: Option<ToolSet>,
    pub text: String,
}

/// The provider to talk to: ad hoc from `--kind`/`--base-url`, else saved settings or a preset
/// by name, else the default provider.
pub fn resolve_provider(store: &Store, args: &ModelArgs) -> anyhow::Result<ProviderConfig> {
    if let Some(kind) = args.kind {
        let base = args
            .base_url
            .clone()
            .unwrap_or_else(|| kind.default_base_url().to_owned());
        // Unnamed: the key comes from the kind's well-known variable (or --provider's).
        return Ok(ProviderConfig::new(
            args.provider.clone().unwrap_or_default(),
            kind,
            base,
        ));
    }
    if args.base_url.is_some() {
        bail!("--base-url needs --kind openai|anthropic");
    }
    let name = match &args.provider {
        Some(name) => name.clone(),
        None => default_provider_name(store)?.ok_or_else(|| {
            anyhow!(
                "no provider: pass --provider NAME (saved, or one of {}) or --kind openai|anthropic --base-url URL",
                presets::preset_names().collect::<Vec<_>>().join(", ")
            )
        })?,
    };
    Ok(require_provider(store, &name)?.0)
}

/// Runs the turn; the exit code is 0 when the model answered, 1 otherwise.
pub async fn run(data_dir: &Path, args: ChatArgs) -> anyhow::Result<bool> {
    if args.text.trim().is_empty() {
        bail!("nothing to say: give the message as the last argument");
    }
    let store = Arc::new(
        Store::open(data_dir)
            .with_context(|| format!("cannot open the data folder {}", data_dir.display()))?,
    );
    let (client, model) = model_client(&store, &args.model).await?;
    let cancel = CancellationToken::new();
    let on_signal = cancel.clone();
    tokio::spawn(async move {
        if tokio::signal::ctrl_c().await.is_ok() {
            on_signal.cancel();
        }
    });
    let tools = match args.tools {
        None => None,
        Some(ToolSet::Builtin) => {
            let mut registry = tessera_engine::tools::ToolRegistry::new();
            tessera_engine::builtin_tools::register_builtin_tools(&mut registry, store.clone())
                .context("cannot register the built-in tools")?;
            tessera_engine::specialists::register_configured(
                &mut registry,
                tessera_engine::specialists::SpecialistDeps {
                    store: store.clone(),
                    client: client.clone(),
                    model: model.clone(),
                },
            )
            .context("cannot register the specialists")?;
            Some(Arc::new(registry))
        }
    };
    let options = TurnOptions {
        system: args.system.clone(),
        max_tokens: args.max_tokens,
        tools,
        ..TurnOptions::default()
    };
    let mut stdout = std::io::stdout();
    let mut write_failed = None;
    let events = args.events;
    let outcome = run_turn(
        &store,
        &client,
        TurnInput {
            attachments: &[],
            message_id: None,
            conversation: args.conversation.as_deref(),
            text: &args.text,
            said: Default::default(),
            model: &model,
            options: &options,
            run_id: None,
        },
        cancel,
        |stored| {
            let result = match events {
                Some(EventsFormat::Ndjson) => serde_json::to_string(&stored.event)
                    .map_err(std::io::Error::other)
                    .and_then(|line| writeln!(stdout, "{line}")),
                None => match &stored.event.body {
                    EventBody::LlmMessage(p) => p.delta.as_deref().map_or(Ok(()), |d| {
                        write!(stdout, "{d}").and_then(|()| stdout.flush())
                    }),
                    _ => Ok(()),
                },
            };
            if let Err(err) = result {
                write_failed.get_or_insert(err);
            }
        },
    )
    .await?;
    if events.is_none() && !outcome.response.text.is_empty() {
        let _ = writeln!(stdout);
    }
    if let Some(err) = write_failed {
        bail!("cannot write the answer: {err}");
    }
    if let Some(err) = &outcome.error {
        if events.is_none() {
            eprintln!("tessera chat: {err}");
        }
    }
    Ok(outcome.state == SystemState::Completed)
}
