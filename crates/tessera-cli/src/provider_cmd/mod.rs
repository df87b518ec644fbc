//! `tessera provider`: model providers from the command line, by the steps the settings page
//! takes too (`tessera_app::providers`).
//! Settings go to the data folder's provider settings (JSON, never a key); keys go only to the
//! secret store (the OS keyring, or the key file the person chose). Exit codes: 0 done, 1 the
//! provider or the keyring failed, 2 the command itself was wrong (or its data folder unusable).

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Duration;

use clap::{Args, Subcommand};
use tessera_app::providers::checks::*;
use tessera_app::providers::{Providers, ProvidersError};
use tessera_app::{error_chain, App, WireKind};

use tessera_app::data_dir::default_data_dir;

mod add;
mod keys;
mod list;
mod models;
mod settings;

use add::*;
use keys::*;
use list::*;
use models::*;
use settings::*;

/// How long `detect` waits for an Ollama to answer.
const DETECT_TIMEOUT: Duration = Duration::from_secs(3);

#[derive(Debug, Subcommand)]
pub enum ProviderCommand {
    /// Saved providers and presets: kind, base URL, default model, where the key is found.
    List {
        /// One JSON array, for scripts.
        #[arg(long)]
        json: bool,
    },
    /// Save a provider (or update a saved one, or a preset: only the flags given change).
    Add(AddArgs),
    /// Forget a saved provider and remove its key from the secret store.
    Remove { name: String },
    /// Store a provider's API key in the secret store (the OS keyring, or the key file chosen
    /// in the settings), read from standard input (one line).
    SetKey { name: String },
    /// Remove a provider's API key from the secret store.
    DeleteKey { name: String },
    /// The models the provider serves, asked of the provider, one per line.
    Models {
        name: String,
        /// Also add them to the saved provider's models.
        #[arg(long)]
        save: bool,
    },
    /// Look for a local Ollama or LM Studio (no key needed) and print what each serves.
    Detect {
        /// Where to look (default: Ollama's and LM Studio's usual addresses, 127.0.0.1:11434
        /// and 127.0.0.1:1234, or $TESSERA_OLLAMA_URL and $TESSERA_LMSTUDIO_URL).
        #[arg(long, value_name = "URL")]
        url: Option<String>,
        /// Save what was found as provider `ollama` or `lmstudio`.
        #[arg(long)]
        save: bool,
    },
    /// Show, or set, the provider `tessera chat` uses without --provider.
    Default { name: Option<String> },
    /// Show, or set, the spending limits (estimated cost in USD).
    Limits {
        /// Across all conversations since local midnight; `none` for no limit.
        #[arg(long, value_name = "USD|none", allow_hyphen_values = true)]
        per_day: Option<String>,
        /// Within one conversation; `none` for no limit.
        #[arg(long, value_name = "USD|none", allow_hyphen_values = true)]
        per_conversation: Option<String>,
    },
}

#[derive(Debug, Args)]
pub struct AddArgs {
    /// The provider's name (also its keyring entry and its TESSERA_<NAME>_API_KEY variable).
    pub name: String,
    /// Its wire: openai (any OpenAI-compatible server) or anthropic. Needed for a new name.
    #[arg(long, value_parser = parse_kind)]
    pub kind: Option<WireKind>,
    /// Base URL, e.g. http://127.0.0.1:8000/v1 (default: the kind's official API).
    #[arg(long, value_name = "URL")]
    pub base_url: Option<String>,
    /// A model it serves (repeat for more).
    #[arg(long = "model", value_name = "M")]
    pub models: Vec<String>,
    #[arg(long, value_name = "M")]
    pub default_model: Option<String>,
    /// Used when the provider says it is overloaded.
    #[arg(long, value_name = "M")]
    pub fallback_model: Option<String>,
    /// Context window in tokens of the models named in this command (else of all its models).
    #[arg(long, value_name = "N")]
    pub context_window: Option<u64>,
    /// The longest answer to ask for, in tokens, of the models named in this command (else of
    /// all its models); unset, the server decides (Anthropic: the model's known limit).
    #[arg(long, value_name = "N")]
    pub max_output_tokens: Option<u32>,
    /// The first model call of each run must call a tool (`required`) or this tool (a name),
    /// for the models named in this command (else all its models); `auto` undoes it.
    #[arg(long, value_name = "required|NAME|auto")]
    pub tool_choice: Option<String>,
    /// A proxy for this provider only; `none` bypasses the system proxy, `system` follows it.
    #[arg(long, value_name = "URL|none|system")]
    pub proxy: Option<String>,
    /// A PEM file of certificate authorities to trust (repeat for more).
    #[arg(long = "ca-cert", value_name = "FILE")]
    pub ca_certs: Vec<PathBuf>,
    /// USD per million input/output tokens (optionally /cached input), e.g. gpt-4o=2.5/10.
    #[arg(long = "price", value_name = "MODEL=IN/OUT")]
    pub prices: Vec<String>,
    /// The server needs no API key (a local model server).
    #[arg(long, conflicts_with = "requires_key")]
    pub no_key: bool,
    /// The server needs an API key (undoes --no-key).
    #[arg(long)]
    pub requires_key: bool,
}

fn parse_kind(s: &str) -> Result<WireKind, String> {
    s.parse()
}

/// Why a command failed, and so its exit code: 2, the command was wrong; 1, a provider or
/// the keyring failed.
#[derive(Debug)]
pub(crate) enum Failure {
    Usage(String),
    Remote(String),
}

pub(crate) type Outcome<T = ()> = Result<T, Failure>;

fn usage(message: impl std::fmt::Display) -> Failure {
    Failure::Usage(message.to_string())
}

impl From<ProvidersError> for Failure {
    fn from(err: ProvidersError) -> Self {
        let message = error_chain(&err);
        if err.is_remote() {
            Failure::Remote(message)
        } else {
            Failure::Usage(message)
        }
    }
}

/// Runs `tessera provider …`.
pub fn main(data_dir: Option<PathBuf>, cmd: ProviderCommand) -> ExitCode {
    let name = match &cmd {
        ProviderCommand::List { .. } => "list",
        ProviderCommand::Add(_) => "add",
        ProviderCommand::Remove { .. } => "remove",
        ProviderCommand::SetKey { .. } => "set-key",
        ProviderCommand::DeleteKey { .. } => "delete-key",
        ProviderCommand::Models { .. } => "models",
        ProviderCommand::Detect { .. } => "detect",
        ProviderCommand::Default { .. } => "default",
        ProviderCommand::Limits { .. } => "limits",
    };
    let Some(dir) = data_dir.or_else(default_data_dir) else {
        eprintln!("tessera provider {name}: no home folder to keep data in; pass --data-dir DIR");
        return ExitCode::from(2);
    };
    let runtime = match tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    {
        Ok(rt) => rt,
        Err(err) => {
            eprintln!("tessera provider {name}: cannot start the async runtime: {err}");
            return ExitCode::from(2);
        }
    };
    match runtime.block_on(run(&dir, cmd)) {
        Ok(()) => ExitCode::SUCCESS,
        Err(Failure::Usage(err)) => {
            eprintln!("tessera provider {name}: {err}");
            ExitCode::from(2)
        }
        Err(Failure::Remote(err)) => {
            eprintln!("tessera provider {name}: {err}");
            ExitCode::from(1)
        }
    }
}

async fn run(dir: &Path, cmd: ProviderCommand) -> Outcome {
    let app = App::open_for_command(dir, Default::default())
        .map_err(|err| Failure::Usage(error_chain(&err)))?;
    let providers = app.providers();
    let outcome = command(&providers, cmd).await;
    // This command logs nothing: what the person must know about the key file (someone
    // else's file at its path, modes set back to owner-only) is said here.
    for warning in app.secret_store_warnings() {
        eprintln!("warning: {warning}");
    }
    outcome
}

async fn command(providers: &Providers<'_>, cmd: ProviderCommand) -> Outcome {
    match cmd {
        ProviderCommand::List { json } => list(providers, json).await,
        ProviderCommand::Add(args) => add(providers, args),
        ProviderCommand::Remove { name } => remove(providers, &name).await,
        ProviderCommand::SetKey { name } => store_key(providers, &name).await,
        ProviderCommand::DeleteKey { name } => forget_key(providers, &name).await,
        ProviderCommand::Models { name, save } => models(providers, &name, save).await,
        ProviderCommand::Detect { url, save } => detect(providers, url.as_deref(), save).await,
        ProviderCommand::Default { name } => default(providers, name.as_deref()),
        ProviderCommand::Limits {
            per_day,
            per_conversation,
        } => limits(providers, per_day.as_deref(), per_conversation.as_deref()),
    }
}
