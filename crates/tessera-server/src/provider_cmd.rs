//! `tessera provider`: model providers from the command line, until the settings page exists.
//! Settings go to the data folder's provider settings (JSON, never a key); keys go only to the
//! OS keyring. Exit codes: 0 done, 1 the provider or the keyring failed, 2 the command itself
//! was wrong (or its data folder unusable).

use std::collections::BTreeMap;
use std::io::{BufRead, IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

use anyhow::anyhow;
use clap::{Args, Subcommand};
use serde_json::{json, Value};
use tessera_providers::config::{ModelPrice, ModelSettings};
use tessera_providers::cost::{day_start, SpendingLimits, SPENDING_LIMITS_SETTING};
use tessera_providers::http::build_client;
use tessera_providers::keys::{
    delete_key, env_key, env_var_names, get_key, resolve_key, set_key, KeyStore, OsKeyring, Secret,
};
use tessera_providers::models::{detect_ollama, list_models, OLLAMA_PROVIDER, OLLAMA_URL};
use tessera_providers::{presets, ProviderConfig, ProviderError, ProviderKind};
use tessera_store::Store;

use crate::data_dir::default_data_dir;

/// The app setting naming the provider `tessera chat` uses without `--provider`.
pub const DEFAULT_PROVIDER_SETTING: &str = "default_provider";

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
    /// Forget a saved provider and remove its key from the keyring.
    Remove { name: String },
    /// Store a provider's API key in the OS keyring, read from standard input (one line).
    SetKey { name: String },
    /// Remove a provider's API key from the OS keyring.
    DeleteKey { name: String },
    /// The models the provider serves, asked of the provider, one per line.
    Models {
        name: String,
        /// Also add them to the saved provider's models.
        #[arg(long)]
        save: bool,
    },
    /// Look for a local Ollama (no key needed) and print what it serves.
    Detect {
        /// Where to look.
        #[arg(long, default_value = OLLAMA_URL, value_name = "URL")]
        url: String,
        /// Save it as provider `ollama`.
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
    pub kind: Option<ProviderKind>,
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

fn parse_kind(s: &str) -> Result<ProviderKind, String> {
    s.parse()
}

/// Why a command failed, and so its exit code.
#[derive(Debug)]
enum Failure {
    /// Exit 2: the command was wrong, or could not run at all.
    Usage(anyhow::Error),
    /// Exit 1: the provider or the keyring failed.
    Remote(anyhow::Error),
}

type Outcome<T = ()> = Result<T, Failure>;

fn usage(message: impl std::fmt::Display) -> Failure {
    Failure::Usage(anyhow!("{message}"))
}

impl From<ProviderError> for Failure {
    fn from(err: ProviderError) -> Self {
        match err {
            ProviderError::Config(_) | ProviderError::MissingKey { .. } => {
                Failure::Usage(err.into())
            }
            other => Failure::Remote(other.into()),
        }
    }
}

impl From<tessera_store::StoreError> for Failure {
    fn from(err: tessera_store::StoreError) -> Self {
        Failure::Usage(err.into())
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
            eprintln!("tessera provider {name}: {err:#}");
            ExitCode::from(2)
        }
        Err(Failure::Remote(err)) => {
            eprintln!("tessera provider {name}: {err:#}");
            ExitCode::from(1)
        }
    }
}

async fn run(dir: &Path, cmd: ProviderCommand) -> Outcome {
    let store = Store::open(dir).map_err(|err| {
        Failure::Usage(
            anyhow!(err).context(format!("cannot open the data folder {}", dir.display())),
        )
    })?;
    let keyring: Arc<dyn KeyStore> = Arc::new(OsKeyring::new());
    match cmd {
        ProviderCommand::List { json } => list(&store, &keyring, json).await,
        ProviderCommand::Add(args) => add(&store, args),
        ProviderCommand::Remove { name } => remove(&store, &keyring, &name).await,
        ProviderCommand::SetKey { name } => store_key(&store, &keyring, &name).await,
        ProviderCommand::DeleteKey { name } => forget_key(&keyring, &name).await,
        ProviderCommand::Models { name, save } => models(&store, keyring, &name, save).await,
        ProviderCommand::Detect { url, save } => detect(&store, &url, save).await,
        ProviderCommand::Default { name } => default(&store, name.as_deref()),
        ProviderCommand::Limits {
            per_day,
            per_conversation,
        } => limits(&store, per_day.as_deref(), per_conversation.as_deref()),
    }
}

// ---------------------------------------------------------------------------------------------
// Finding providers

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Source {
    Saved,
    Preset,
}

impl Source {
    fn as_str(self) -> &'static str {
        match self {
            Source::Saved => "saved",
            Source::Preset => "preset",
        }
    }
}

fn saved(store: &Store, name: &str) -> Outcome<Option<ProviderConfig>> {
    let Some(value) = store.provider_settings(name)? else {
        return Ok(None);
    };
    let mut config: ProviderConfig = serde_json::from_value(value).map_err(|err| {
        usage(format!(
            "the saved settings of provider {name} are not readable ({err}); \
             `tessera provider remove {name}` and add it again"
        ))
    })?;
    config.name = name.to_owned();
    Ok(Some(config))
}

/// A provider by name: saved settings first, then a preset.
fn find(store: &Store, name: &str) -> Outcome<Option<(ProviderConfig, Source)>> {
    if let Some(config) = saved(store, name)? {
        return Ok(Some((config, Source::Saved)));
    }
    Ok(presets::preset(name).map(|p| (p, Source::Preset)))
}

fn find_or_fail(store: &Store, name: &str) -> Outcome<(ProviderConfig, Source)> {
    find(store, name)?.ok_or_else(|| {
        usage(format!(
            "no provider named {name}: add it with `tessera provider add {name} --kind …`, \
             or use one of {}",
            presets::preset_names().collect::<Vec<_>>().join(", ")
        ))
    })
}

fn default_provider(store: &Store) -> Outcome<Option<String>> {
    Ok(match store.app_setting(DEFAULT_PROVIDER_SETTING)? {
        Some(Value::String(name)) => Some(name),
        _ => None,
    })
}

fn save(store: &Store, config: &ProviderConfig) -> Outcome {
    let value = serde_json::to_value(config)
        .map_err(|err| usage(format!("cannot encode the settings: {err}")))?;
    store.set_provider_settings(&config.name, value)?;
    Ok(())
}

// ---------------------------------------------------------------------------------------------
// list

/// Where a provider's key would come from, as `list` reports it. Never the key itself.
enum KeyFound {
    Env(String),
    Keyring,
    Missing,
    NotNeeded,
    Unknown,
}

impl KeyFound {
    fn label(&self) -> String {
        match self {
            KeyFound::Env(var) => format!("env {var}"),
            KeyFound::Keyring => "keyring".into(),
            KeyFound::Missing => "missing".into(),
            KeyFound::NotNeeded => "not needed".into(),
            KeyFound::Unknown => "unknown".into(),
        }
    }

    fn code(&self) -> &'static str {
        match self {
            KeyFound::Env(_) => "env",
            KeyFound::Keyring => "keyring",
            KeyFound::Missing => "missing",
            KeyFound::NotNeeded => "not_needed",
            KeyFound::Unknown => "unknown",
        }
    }
}

/// Where the key of `config` is. After one keyring failure the keyring is not asked again
/// (`keyring_error` holds why), so a dead keyring costs one timeout, not one per provider.
async fn key_found(
    config: &ProviderConfig,
    keyring: &Arc<dyn KeyStore>,
    keyring_error: &mut Option<String>,
) -> KeyFound {
    if let Some((var, _)) = env_key(config, |var| std::env::var(var).ok()) {
        return KeyFound::Env(var);
    }
    if !config.requires_key {
        return KeyFound::NotNeeded;
    }
    if keyring_error.is_some() {
        return KeyFound::Unknown;
    }
    match get_key(keyring, &config.name).await {
        Ok(Some(key)) if !key.is_empty() => KeyFound::Keyring,
        Ok(_) => KeyFound::Missing,
        Err(ProviderError::Keyring(reason)) => {
            *keyring_error = Some(reason);
            KeyFound::Unknown
        }
        Err(err) => {
            *keyring_error = Some(err.to_string());
            KeyFound::Unknown
        }
    }
}

async fn list(store: &Store, keyring: &Arc<dyn KeyStore>, as_json: bool) -> Outcome {
    let mut providers: BTreeMap<String, (ProviderConfig, Source)> = BTreeMap::new();
    for name in presets::preset_names() {
        if let Some(config) = presets::preset(name) {
            providers.insert(name.to_owned(), (config, Source::Preset));
        }
    }
    for (name, _) in store.read(|r| r.all_provider_settings())? {
        if let Some(config) = saved(store, &name)? {
            providers.insert(name, (config, Source::Saved));
        }
    }
    let default = default_provider(store)?;
    let mut keyring_error = None;
    let mut rows = Vec::new();
    for (name, (config, source)) in &providers {
        let key = key_found(config, keyring, &mut keyring_error).await;
        rows.push((name, config, *source, key));
    }

    let mut out = std::io::stdout().lock();
    let written = if as_json {
        let items: Vec<Value> = rows
            .iter()
            .map(|(name, config, source, key)| {
                json!({
                    "name": name,
                    "kind": config.kind.as_str(),
                    "source": source.as_str(),
                    "default": default.as_deref() == Some(name.as_str()),
                    "base_url": config.base_url,
                    "default_model": config.default_model,
                    "fallback_model": config.fallback_model,
                    "models": config.models.keys().collect::<Vec<_>>(),
                    "requires_key": config.requires_key,
                    "key": key.code(),
                    "key_env_var": match key { KeyFound::Env(var) => Some(var), _ => None },
                    "key_env_vars": env_var_names(config),
                    "proxy": config.proxy,
                    "extra_ca_certs": config.extra_ca_certs,
                })
            })
            .collect();
        serde_json::to_string_pretty(&items)
            .map_err(std::io::Error::other)
            .and_then(|text| writeln!(out, "{text}"))
    } else {
        let header = ["NAME", "KIND", "SOURCE", "DEFAULT MODEL", "KEY", "BASE URL"];
        let mut table: Vec<[String; 6]> = vec![header.map(str::to_owned)];
        for (name, config, source, key) in &rows {
            let mark = if default.as_deref() == Some(name.as_str()) {
                "*"
            } else {
                " "
            };
            table.push([
                format!("{mark} {name}"),
                config.kind.as_str().to_owned(),
                source.as_str().to_owned(),
                config.default_model.clone().unwrap_or_else(|| "-".into()),
                key.label(),
                config.base_url.clone(),
            ]);
        }
        table[0][0] = format!("  {}", table[0][0]);
        let widths: Vec<usize> = (0..6)
            .map(|i| {
                table
                    .iter()
                    .map(|r| r[i].chars().count())
                    .max()
                    .unwrap_or(0)
            })
            .collect();
        table.iter().try_for_each(|row| {
            let mut line = String::new();
            for (i, cell) in row.iter().enumerate() {
                if i + 1 == row.len() {
                    line.push_str(cell);
                } else {
                    line.push_str(&format!("{cell:<w$}  ", w = widths[i]));
                }
            }
            writeln!(out, "{}", line.trim_end())
        })
    };
    written.map_err(|err| usage(format!("cannot write the list: {err}")))?;
    if let Some(reason) = keyring_error {
        eprintln!(
            "tessera provider list: the keyring could not be read, so keys kept there show as \
             unknown: {reason}"
        );
    }
    Ok(())
}

// ---------------------------------------------------------------------------------------------
// add

fn check_name(name: &str) -> Outcome {
    let ok = !name.is_empty()
        && name.len() <= 64
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'));
    if ok {
        Ok(())
    } else {
        Err(usage(format!(
            "`{name}` cannot be a provider name: use letters, digits, `-`, `_` or `.` \
             (at most 64)"
        )))
    }
}

fn check_base_url(url: &str) -> Outcome<String> {
    let url = url.trim();
    let parsed = url::Url::parse(url)
        .map_err(|err| usage(format!("--base-url `{url}` is not a URL: {err}")))?;
    if !matches!(parsed.scheme(), "http" | "https") {
        return Err(usage(format!(
            "--base-url `{url}` must start with http:// or https://"
        )));
    }
    if parsed.host_str().is_none_or(str::is_empty) {
        return Err(usage(format!("--base-url `{url}` names no host")));
    }
    Ok(url.to_owned())
}

fn check_model(flag: &str, model: &str) -> Outcome<String> {
    let model = model.trim();
    if model.is_empty() {
        return Err(usage(format!("{flag} needs a model name")));
    }
    Ok(model.to_owned())
}

/// `MODEL=IN/OUT[/CACHED]`, USD per million tokens.
fn parse_price(text: &str) -> Outcome<(String, ModelPrice)> {
    let bad = |why: &str| {
        usage(format!(
            "--price `{text}`: {why}; expected MODEL=IN/OUT in USD per million input/output \
             tokens, e.g. gpt-4o=2.5/10 (optionally /CACHED_IN)"
        ))
    };
    let (model, amounts) = text.rsplit_once('=').ok_or_else(|| bad("no `=`"))?;
    let model = model.trim();
    if model.is_empty() {
        return Err(bad("no model name"));
    }
    let numbers = amounts
        .split('/')
        .map(|n| {
            let n = n.trim().trim_start_matches('$');
            match n.parse::<f64>() {
                Ok(v) if v.is_finite() && v >= 0.0 => Ok(v),
                _ => Err(bad(&format!("`{n}` is not a price (a number, 0 or more)"))),
            }
        })
        .collect::<Outcome<Vec<f64>>>()?;
    let price = match numbers.as_slice() {
        [input, output] => ModelPrice {
            input_per_mtok: *input,
            output_per_mtok: *output,
            cached_input_per_mtok: None,
        },
        [input, output, cached] => ModelPrice {
            input_per_mtok: *input,
            output_per_mtok: *output,
            cached_input_per_mtok: Some(*cached),
        },
        _ => return Err(bad("two or three amounts are needed")),
    };
    Ok((model.to_owned(), price))
}

/// A client built with only `probe`'s network settings: the check that a proxy URL is usable
/// and a CA file holds PEM certificates.
fn check_network(flag: &str, name: &str, apply: impl FnOnce(&mut ProviderConfig)) -> Outcome {
    let mut probe = ProviderConfig::new(name, ProviderKind::Openai, "http://127.0.0.1/");
    apply(&mut probe);
    build_client(&probe).map(|_| ()).map_err(|err| match err {
        ProviderError::Config(message) => usage(format!("{flag}: {message}")),
        other => usage(format!("{flag}: {other}")),
    })
}

fn add(store: &Store, args: AddArgs) -> Outcome {
    let name = args.name.trim().to_owned();
    check_name(&name)?;
    let (mut config, existed) = match saved(store, &name)? {
        Some(config) => (config, true),
        None => match (presets::preset(&name), args.kind) {
            (Some(preset), None) => (preset, false),
            (Some(preset), Some(kind)) if preset.kind == kind => (preset, false),
            (_, Some(kind)) => (
                ProviderConfig::new(name.clone(), kind, kind.default_base_url()),
                false,
            ),
            (None, None) => {
                return Err(usage(format!(
                    "--kind openai|anthropic is needed for a new provider ({name} is neither \
                     saved nor a preset)"
                )))
            }
        },
    };
    if let Some(kind) = args.kind {
        if kind != config.kind && args.base_url.is_none() {
            config.base_url = kind.default_base_url().to_owned();
        }
        config.kind = kind;
    }
    if let Some(url) = &args.base_url {
        config.base_url = check_base_url(url)?;
    }

    // The models this command names: --context-window applies to them.
    let mut named = Vec::new();
    for model in &args.models {
        named.push(check_model("--model", model)?);
    }
    if let Some(model) = &args.default_model {
        let model = check_model("--default-model", model)?;
        config.default_model = Some(model.clone());
        named.push(model);
    }
    if let Some(model) = &args.fallback_model {
        let model = check_model("--fallback-model", model)?;
        config.fallback_model = Some(model.clone());
        named.push(model);
    }
    for text in &args.prices {
        let (model, price) = parse_price(text)?;
        config.models.entry(model.clone()).or_default().price = Some(price);
        named.push(model);
    }
    for model in &named {
        config.models.entry(model.clone()).or_default();
    }
    if let Some(window) = args.context_window {
        if window == 0 {
            return Err(usage("--context-window must be a number of tokens above 0"));
        }
        let targets: Vec<String> = if named.is_empty() {
            config.models.keys().cloned().collect()
        } else {
            named.clone()
        };
        if targets.is_empty() {
            return Err(usage(
                "--context-window is set per model: name one with --model M",
            ));
        }
        for model in targets {
            config.models.entry(model).or_default().context_window = Some(window);
        }
    }

    if let Some(proxy) = &args.proxy {
        let proxy = proxy.trim();
        match proxy {
            "system" | "" => config.proxy = None,
            "none" => config.proxy = Some("none".into()),
            url => {
                if let Ok(parsed) = url::Url::parse(url) {
                    if !matches!(parsed.scheme(), "http" | "https") {
                        return Err(usage(format!(
                            "--proxy `{url}`: only http:// and https:// proxies are supported"
                        )));
                    }
                }
                check_network("--proxy", &name, |p| p.proxy = Some(url.to_owned()))?;
                config.proxy = Some(url.to_owned());
            }
        }
    }
    for path in &args.ca_certs {
        let absolute = std::fs::canonicalize(path).map_err(|err| {
            usage(format!(
                "--ca-cert {}: cannot read it: {err}",
                path.display()
            ))
        })?;
        check_network("--ca-cert", &name, |p| {
            p.extra_ca_certs = vec![absolute.clone()]
        })?;
        if !config.extra_ca_certs.contains(&absolute) {
            config.extra_ca_certs.push(absolute);
        }
    }
    if args.no_key {
        config.requires_key = false;
    }
    if args.requires_key {
        config.requires_key = true;
    }
    // Everything together (the same checks, once more, as the engine will make them).
    build_client(&config).map_err(|err| usage(err.to_string()))?;
    save(store, &config)?;

    println!(
        "{} provider {name}: {}, {}, default model {}",
        if existed { "updated" } else { "saved" },
        config.kind.as_str(),
        config.base_url,
        config.default_model.as_deref().unwrap_or("(none)")
    );
    if config.requires_key && env_key(&config, |var| std::env::var(var).ok()).is_none() {
        println!(
            "its API key: `tessera provider set-key {name}` (stored in the OS keyring), or set {}",
            env_var_names(&config).join(" or ")
        );
    }
    Ok(())
}

// ---------------------------------------------------------------------------------------------
// remove, set-key, delete-key

async fn remove(store: &Store, keyring: &Arc<dyn KeyStore>, name: &str) -> Outcome {
    let removed = store.delete_provider_settings(name)?;
    let key = delete_key(keyring, name).await;
    let is_preset = presets::preset(name).is_some();
    match (removed, key) {
        (true, key) => {
            let preset_note = if is_preset {
                format!(" (the {name} preset remains available)")
            } else {
                String::new()
            };
            match key {
                Ok(true) => {
                    println!("removed provider {name} and its key in the keyring{preset_note}")
                }
                Ok(false) => println!("removed provider {name}{preset_note}"),
                Err(err) => {
                    println!("removed provider {name}{preset_note}");
                    eprintln!(
                        "tessera provider remove: warning: a key of {name} may remain in the \
                         keyring: {err}"
                    );
                }
            }
        }
        (false, Ok(true)) => println!("removed the key of {name} from the keyring"),
        (false, Ok(false)) => {
            return Err(usage(format!(
                "no saved provider named {name}, and no key of it in the keyring"
            )))
        }
        (false, Err(err)) => {
            return Err(Failure::Remote(anyhow!(
                "no saved provider named {name}; a key of it in the keyring could not be \
                 looked for: {err}"
            )))
        }
    }
    if !removed || is_preset {
        return Ok(());
    }
    if default_provider(store)?.as_deref() == Some(name) {
        store.delete_app_setting(DEFAULT_PROVIDER_SETTING)?;
        println!("{name} was the default provider; there is none now");
    }
    Ok(())
}

/// One line of standard input, without echo when it is a terminal.
fn read_key_line(name: &str) -> Outcome<String> {
    let stdin = std::io::stdin();
    let terminal = stdin.is_terminal();
    let stty = |arg: &str| {
        std::process::Command::new("stty")
            .arg(arg)
            .stdin(std::process::Stdio::inherit())
            .status()
            .is_ok_and(|s| s.success())
    };
    let mut echo_off = false;
    if terminal {
        eprint!("API key of {name} (not shown; Enter to finish): ");
        let _ = std::io::stderr().flush();
        echo_off = stty("-echo");
    }
    let mut line = String::new();
    let read = stdin.lock().read_line(&mut line);
    if echo_off {
        stty("echo");
        eprintln!();
    }
    read.map_err(|err| usage(format!("cannot read the key from standard input: {err}")))?;
    Ok(line.trim().to_owned())
}

async fn store_key(store: &Store, keyring: &Arc<dyn KeyStore>, name: &str) -> Outcome {
    let (config, _) = find_or_fail(store, name)?;
    let key = read_key_line(name)?;
    if key.is_empty() {
        return Err(usage(
            "no key on standard input: give it as one line, e.g. `printenv MY_KEY | tessera \
             provider set-key NAME`",
        ));
    }
    if key.chars().any(char::is_control) {
        return Err(usage(
            "the key contains control characters; give it as one line",
        ));
    }
    set_key(keyring, name, Secret::new(key)).await?;
    println!("stored the key of {name} in the keyring");
    if let Some((var, _)) = env_key(&config, |var| std::env::var(var).ok()) {
        eprintln!("note: {var} is set and is used instead of the keyring while it is");
    }
    if !config.requires_key {
        eprintln!(
            "note: {name} is set up as needing no key; `tessera provider add {name} \
             --requires-key` makes it use this one"
        );
    }
    Ok(())
}

async fn forget_key(keyring: &Arc<dyn KeyStore>, name: &str) -> Outcome {
    if delete_key(keyring, name).await? {
        println!("removed the key of {name} from the keyring");
    } else {
        println!("{name} had no key in the keyring");
    }
    Ok(())
}

// ---------------------------------------------------------------------------------------------
// models, detect

async fn models(store: &Store, keyring: Arc<dyn KeyStore>, name: &str, save_them: bool) -> Outcome {
    let (mut config, _) = find_or_fail(store, name)?;
    let key = resolve_key(&config, keyring).await?;
    let models = list_models(&config, key.as_ref()).await?;
    {
        let mut out = std::io::stdout().lock();
        for model in &models {
            writeln!(out, "{}", model.id)
                .map_err(|err| usage(format!("cannot write the list: {err}")))?;
        }
    }
    if save_them {
        let before = config.models.len();
        for model in &models {
            config.models.entry(model.id.clone()).or_default();
        }
        save(store, &config)?;
        eprintln!(
            "saved {} new model(s) to provider {name} ({} in all)",
            config.models.len() - before,
            config.models.len()
        );
    }
    Ok(())
}

async fn detect(store: &Store, url: &str, save_it: bool) -> Outcome {
    let url = check_base_url(url)
        .map_err(|_| usage(format!("--url `{url}` is not an http:// or https:// URL")))?;
    let Some(mut found) = detect_ollama(&url, DETECT_TIMEOUT).await else {
        return Err(Failure::Remote(anyhow!(
            "no Ollama answered at {url} (is it running? `ollama serve`)"
        )));
    };
    println!(
        "found Ollama at {url}: base URL {}, no key needed, {} model(s)",
        found.base_url,
        found.models.len()
    );
    for model in found.models.keys() {
        println!("  {model}");
    }
    if save_it {
        if let Some(previous) = saved(store, OLLAMA_PROVIDER)? {
            // Keep what the person set: settings of models still there, a default still
            // served, the network settings.
            for (model, settings) in previous.models {
                if let Some(current) = found.models.get_mut(&model) {
                    *current = merge_settings(settings, current.clone());
                }
            }
            if let Some(model) = previous.default_model {
                if found.models.contains_key(&model) {
                    found.default_model = Some(model);
                }
            }
            found.proxy = previous.proxy;
            found.extra_ca_certs = previous.extra_ca_certs;
            found.timeouts = previous.timeouts;
            found.retry = previous.retry;
        }
        save(store, &found)?;
        println!(
            "saved as provider {OLLAMA_PROVIDER} (default model {})",
            found.default_model.as_deref().unwrap_or("(none)")
        );
    }
    Ok(())
}

/// What the person configured wins; the detected values fill the gaps.
fn merge_settings(mine: ModelSettings, detected: ModelSettings) -> ModelSettings {
    ModelSettings {
        context_window: mine.context_window.or(detected.context_window),
        image_input: mine.image_input.or(detected.image_input),
        price: mine.price.or(detected.price),
        max_output_tokens: mine.max_output_tokens.or(detected.max_output_tokens),
    }
}

// ---------------------------------------------------------------------------------------------
// default, limits

fn default(store: &Store, name: Option<&str>) -> Outcome {
    let Some(name) = name else {
        match default_provider(store)? {
            Some(name) => println!("{name}"),
            None => println!("(none: `tessera provider default NAME` sets one)"),
        }
        return Ok(());
    };
    find_or_fail(store, name)?;
    store.set_app_setting(DEFAULT_PROVIDER_SETTING, Value::String(name.to_owned()))?;
    println!("default provider: {name}");
    Ok(())
}

/// `5`, `$5`, `0.5` → Some; `none` → None.
fn parse_limit(flag: &str, text: &str) -> Outcome<Option<f64>> {
    let text = text.trim();
    if text.eq_ignore_ascii_case("none") {
        return Ok(None);
    }
    let value: f64 = text.trim_start_matches('$').trim().parse().map_err(|_| {
        usage(format!(
            "{flag} `{text}`: expected an amount in USD, or `none`"
        ))
    })?;
    let probe = SpendingLimits {
        per_day_usd: Some(value),
        per_conversation_usd: None,
    };
    probe.validate().map_err(|err| match err {
        ProviderError::Config(_) => usage(format!(
            "{flag} `{text}`: a limit is an amount of 0 USD or more"
        )),
        other => usage(format!("{flag}: {other}")),
    })?;
    Ok(Some(value))
}

/// `$5.00`, `$0.0042`: cents unless that would show a small amount as zero.
fn usd(amount: f64) -> String {
    if amount != 0.0 && amount.abs() < 0.01 {
        format!("${amount:.4}")
    } else {
        format!("${amount:.2}")
    }
}

fn limits(store: &Store, per_day: Option<&str>, per_conversation: Option<&str>) -> Outcome {
    let mut limits: SpendingLimits = match store.app_setting(SPENDING_LIMITS_SETTING)? {
        Some(value) => serde_json::from_value(value).map_err(|err| {
            usage(format!(
                "the saved spending limits are not readable ({err}); set both again"
            ))
        })?,
        None => SpendingLimits::default(),
    };
    if per_day.is_some() || per_conversation.is_some() {
        if let Some(text) = per_day {
            limits.per_day_usd = parse_limit("--per-day", text)?;
        }
        if let Some(text) = per_conversation {
            limits.per_conversation_usd = parse_limit("--per-conversation", text)?;
        }
        limits.validate()?;
        let value = serde_json::to_value(limits)
            .map_err(|err| usage(format!("cannot encode the limits: {err}")))?;
        store.set_app_setting(SPENDING_LIMITS_SETTING, value)?;
    }
    let spent_today = jiff::Zoned::now();
    let spent_today = day_start(&spent_today)
        .ok()
        .and_then(|start| store.spend_since(&start.to_string()).ok());
    let show = |limit: Option<f64>| limit.map_or_else(|| "none".to_owned(), usd);
    println!("per day:          {}", show(limits.per_day_usd));
    println!("per conversation: {}", show(limits.per_conversation_usd));
    if let Some(spent) = spent_today {
        println!("spent today:      {} (estimated)", usd(spent));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prices_are_model_equals_in_slash_out() {
        let (model, price) = parse_price("gpt-4o=2.5/10").unwrap_or_else(|_| panic!("parses"));
        assert_eq!(model, "gpt-4o");
        assert_eq!(price.input_per_mtok, 2.5);
        assert_eq!(price.output_per_mtok, 10.0);
        assert_eq!(price.cached_input_per_mtok, None);
        let (_, price) = parse_price("m=$1/$2/0.1").unwrap_or_else(|_| panic!("parses"));
        assert_eq!(price.cached_input_per_mtok, Some(0.1));
        for bad in [
            "gpt-4o",
            "=1/2",
            "m=1",
            "m=a/b",
            "m=-1/2",
            "m=1/2/3/4",
            "m=inf/1",
        ] {
            assert!(parse_price(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn limits_are_amounts_or_none() {
        assert!(matches!(parse_limit("--per-day", "none"), Ok(None)));
        assert!(matches!(parse_limit("--per-day", "$5"), Ok(Some(v)) if v == 5.0));
        assert!(matches!(parse_limit("--per-day", "0"), Ok(Some(v)) if v == 0.0));
        for bad in ["-1", "five", "NaN", ""] {
            assert!(parse_limit("--per-day", bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn names_are_plain() {
        for good in ["openai", "my-vllm", "local_2", "a.b"] {
            assert!(check_name(good).is_ok(), "{good}");
        }
        for bad in ["", "has space", "ü", "a/b"] {
            assert!(check_name(bad).is_err(), "{bad}");
        }
    }
}
