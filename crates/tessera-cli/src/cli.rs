//! The `tessera` command line: its arguments and the subcommand each runs.

use std::{
    net::{IpAddr, SocketAddr},
    path::PathBuf,
    process::ExitCode,
};

use clap::{Parser, Subcommand};
use tessera_app::{data_dir::default_data_dir, ToolPlugin};
use tessera_protocol::DocumentKind;
use tessera_server::serve;

use crate::provider_cmd;
use crate::{chat_cmd, context_cmd, validate_cmd};
use crate::{condition_cmd, local_cmd, project_cmd, run_cmd};

#[derive(Debug, Parser)]
#[command(
    name = "tessera",
    version,
    about = "Tessera, a desktop AI agent: server and tools"
)]
struct Cli {
    /// The data folder (default: the desktop app's, e.g. ~/.local/share/dev.tessera.desktop).
    #[arg(long, global = true, env = "TESSERA_DATA_DIR", value_name = "DIR")]
    data_dir: Option<PathBuf>,
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Serve the HTTP API and the web UI on this machine (loopback, unless --allow-remote).
    Serve {
        /// Address to bind: 127.0.0.1 or ::1.
        #[arg(long, default_value = "127.0.0.1")]
        host: IpAddr,
        /// Port; 0 picks a free one (the chosen URL is printed).
        #[arg(long, default_value_t = 0)]
        port: u16,
        /// Address and port to bind in one (127.0.0.1:8080, [::1]:0, localhost:8080); instead of
        /// --host and --port.
        #[arg(long, value_name = "HOST:PORT", value_parser = parse_addr, conflicts_with_all = ["host", "port"])]
        addr: Option<SocketAddr>,
        /// Let other machines reach the API: any address may be bound (0.0.0.0:PORT). The token
        /// is still required; plain HTTP, so only on a network you trust.
        #[arg(long)]
        allow_remote: bool,
        /// Folder of the built web UI (ui/dist). Without it only the API is served.
        #[arg(long)]
        ui_dir: Option<PathBuf>,
        /// Bearer token to require (default: a fresh random one, printed in the URL).
        #[arg(long, env = "TESSERA_TOKEN", hide_env_values = true)]
        token: Option<String>,
        /// The model behind `/v1` (as `tessera chat` takes it); without these, the data
        /// folder's default provider (or none yet: the settings endpoints add one).
        #[command(flatten)]
        model: chat_cmd::ModelArgs,
    },
    /// Check a document against the protocol rules: prints `ok`, or one line per problem.
    Validate {
        /// message | event | request | response | context | tool-definition | mcp-context | form-submission
        kind: DocumentKind,
        /// A JSON file (or NDJSON: one document per line), or `-` for standard input.
        file: String,
    },
    /// The local context database: export, import, assemble a prompt.
    #[command(subcommand)]
    Context(ContextCommand),
    /// Run an MCP-CP TOOL_CALL_REQUEST or INSTRUCTION message: prints the events as NDJSON,
    /// then the results as the last line.
    Run(run_cmd::RunArgs),
    /// Evaluate an instruction condition against a JSON context: prints `true` or `false`.
    CheckCondition(condition_cmd::CheckConditionArgs),
    /// Model providers: list, add, remove, API keys in the OS keyring, models, the default
    /// provider, spending limits.
    #[command(subcommand)]
    Provider(provider_cmd::ProviderCommand),
    /// Projects: a name, instructions for its conversations, the folders it knows.
    #[command(subcommand)]
    Project(project_cmd::ProjectCommand),
    /// A project's folders as knowledge: add, remove, status, search.
    #[command(subcommand)]
    Knowledge(project_cmd::KnowledgeCommand),
    /// Memories kept for a conversation, a project or everywhere: list, forget.
    #[command(subcommand)]
    Memory(project_cmd::MemoryCommand),
    /// Models on this machine, with no account: the catalogue, downloads (Hugging Face or
    /// HF_ENDPOINT; resumable, checked), what is on disk.
    #[command(subcommand)]
    Local(local_cmd::LocalCommand),
    /// One turn with a model, recorded in the data folder: prints the answer, or with
    /// `--events ndjson` the turn's easyflow-chat events one per line.
    Chat {
        #[command(flatten)]
        model: chat_cmd::ModelArgs,
        /// Print the turn's events instead of the text.
        #[arg(long, value_enum)]
        events: Option<chat_cmd::EventsFormat>,
        /// Continue this conversation instead of starting a new one.
        #[arg(long)]
        conversation: Option<String>,
        /// Chat in this project (its name or id): a new conversation starts in it, and its
        /// instructions and files join the prompt.
        #[arg(long)]
        project: Option<String>,
        /// A system prompt.
        #[arg(long)]
        system: Option<String>,
        /// The longest answer to ask for, in tokens.
        #[arg(long)]
        max_tokens: Option<u32>,
        /// Let the model call tools: `builtin` (get_current_datetime, calculator,
        /// search_context, save_memory). Without it the model answers with text only.
        #[arg(long, value_enum)]
        tools: Option<chat_cmd::ToolSet>,
        /// The first model call's tool choice (with --tools or --ask): auto, required, none, or
        /// a tool's name the model must call (request_form with --ask). Later calls of the turn
        /// choose freely.
        #[arg(long, value_name = "auto|required|none|TOOL")]
        tool_choice: Option<tessera_providers::ToolChoice>,
        /// Let the model ask: it may ask for a form (request_form) and call tools that need
        /// consent. Both are asked on the terminal (standard error), the answers read a line
        /// at a time from standard input. Without it such calls are refused.
        #[arg(long)]
        ask: bool,
        /// What to say.
        text: String,
    },
}

#[derive(Debug, Subcommand)]
enum ContextCommand {
    /// Print a conversation as a seed-004 context document, as MCP-CP messages, or as a
    /// Markdown transcript of the branch shown.
    Export {
        conversation: String,
        #[arg(long, value_enum, default_value = "context")]
        format: context_cmd::ExportFormatArg,
    },
    /// Import a context document or a list of MCP-CP messages; nothing is written when anything
    /// in it is wrong (every problem is printed).
    Import {
        /// A JSON file, or `-` for standard input.
        file: String,
    },
    /// Print a conversation's MCP-CP context (state, history, version) and its change log.
    Show { conversation: String },
    /// Build the prompt for a conversation within a token budget.
    Assemble {
        conversation: String,
        /// The model's context window, in tokens.
        #[arg(long)]
        budget: u64,
        /// Tokens kept free for the answer.
        #[arg(long, default_value_t = 0)]
        reserve: u64,
        /// The model the prompt is for (chooses the tokenizer).
        #[arg(long, default_value = "gpt-4o")]
        model: String,
        /// Also print which blocks, messages and evidences were used or dropped, and why.
        #[arg(long)]
        explain: bool,
    },
}

/// Runs the command line. `plugins` add tools to what `tessera serve` offers, as the desktop
/// shell adds its native ones: the `tessera` binary passes none.
pub fn main_with(plugins: Vec<ToolPlugin>) -> ExitCode {
    let cli = Cli::parse();
    let data_dir = cli.data_dir;
    match cli.command {
        Command::Serve {
            host,
            port,
            addr,
            allow_remote,
            ui_dir,
            token,
            model,
        } => {
            let (host, port) = addr.map_or((host, port), |a| (a.ip(), a.port()));
            run_serve(
                serve::ServeOptions {
                    host,
                    port,
                    ui_dir,
                    token,
                    allow_remote,
                    app: None,
                },
                data_dir,
                model,
                plugins,
            )
        }
        Command::Validate { kind, file } => match validate_cmd::run(kind, &file) {
            Ok(report) => {
                for line in &report.lines {
                    println!("{line}");
                }
                if report.valid {
                    ExitCode::SUCCESS
                } else {
                    ExitCode::from(1)
                }
            }
            Err(err) => {
                eprintln!("tessera validate: {err}");
                ExitCode::from(2)
            }
        },
        Command::Context(cmd) => run_context(data_dir, cmd),
        Command::Run(args) => run_cmd::main(args),
        Command::CheckCondition(args) => condition_cmd::main(args),
        Command::Provider(cmd) => provider_cmd::main(data_dir, cmd),
        Command::Local(cmd) => local_cmd::main(data_dir, cmd),
        Command::Project(cmd) => project_cmd::project_main(data_dir, cmd),
        Command::Knowledge(cmd) => project_cmd::knowledge_main(data_dir, cmd),
        Command::Memory(cmd) => project_cmd::memory_main(data_dir, cmd),
        Command::Chat {
            model,
            events,
            conversation,
            project,
            system,
            max_tokens,
            tools,
            tool_choice,
            ask,
            text,
        } => run_chat(
            data_dir,
            chat_cmd::ChatArgs {
                model,
                events,
                conversation,
                project,
                system,
                max_tokens,
                tools,
                tool_choice,
                ask,
                text,
            },
        ),
    }
}

fn run_context(data_dir: Option<PathBuf>, cmd: ContextCommand) -> ExitCode {
    let Some(dir) = data_dir.or_else(default_data_dir) else {
        eprintln!("tessera context: no home folder to keep data in; pass --data-dir DIR");
        return ExitCode::from(2);
    };
    let (name, result) = match &cmd {
        ContextCommand::Export {
            conversation,
            format,
        } => ("export", context_cmd::export(&dir, conversation, *format)),
        ContextCommand::Import { file } => ("import", context_cmd::import(&dir, file)),
        ContextCommand::Show { conversation } => ("show", context_cmd::show(&dir, conversation)),
        ContextCommand::Assemble {
            conversation,
            budget,
            reserve,
            model,
            explain,
        } => (
            "assemble",
            context_cmd::assemble_cmd(
                &dir,
                &tessera_app::context::PromptRequest {
                    conversation,
                    budget: *budget,
                    reserve: *reserve,
                    model,
                    explain: *explain,
                },
            ),
        ),
    };
    match result {
        Ok(outcome) => {
            print!("{}", outcome.stdout);
            if outcome.ok {
                ExitCode::SUCCESS
            } else {
                ExitCode::from(1)
            }
        }
        Err(err) => {
            eprintln!("tessera context {name}: {err}");
            ExitCode::from(1)
        }
    }
}

fn run_chat(data_dir: Option<PathBuf>, args: chat_cmd::ChatArgs) -> ExitCode {
    init_logging();
    let Some(dir) = data_dir.or_else(default_data_dir) else {
        eprintln!("tessera chat: no home folder to keep data in; pass --data-dir DIR");
        return ExitCode::from(2);
    };
    let runtime = match tokio::runtime::Runtime::new() {
        Ok(rt) => rt,
        Err(err) => {
            eprintln!("tessera chat: cannot start the async runtime: {err}");
            return ExitCode::from(2);
        }
    };
    match runtime.block_on(chat_cmd::run(&dir, args)) {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::from(1),
        Err(err) => {
            eprintln!("tessera chat: {err:#}");
            ExitCode::from(2)
        }
    }
}

/// Logs to stderr, `warn` unless TESSERA_LOG says otherwise.
fn init_logging() {
    let _ = tracing_subscriber::fmt()
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_env("TESSERA_LOG")
                .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("warn")),
        )
        .with_writer(std::io::stderr)
        .try_init();
}

/// `HOST:PORT`: an IP address (IPv6 in brackets) or `localhost`, and a port.
fn parse_addr(text: &str) -> Result<SocketAddr, String> {
    if let Ok(addr) = text.parse() {
        return Ok(addr);
    }
    match text.rsplit_once(':') {
        Some((host, port)) if host.eq_ignore_ascii_case("localhost") => port
            .parse()
            .map(|port| SocketAddr::from(([127, 0, 0, 1], port)))
            .map_err(|_| format!("`{port}` is not a port (0 to 65535)")),
        _ => Err(format!(
            "`{text}` is not HOST:PORT with an IP address (127.0.0.1:8080, [::1]:8080, \
             0.0.0.0:8080) or localhost"
        )),
    }
}

fn run_serve(
    mut opts: serve::ServeOptions,
    data_dir: Option<PathBuf>,
    model: chat_cmd::ModelArgs,
    plugins: Vec<ToolPlugin>,
) -> ExitCode {
    init_logging();
    let runtime = match tokio::runtime::Runtime::new() {
        Ok(rt) => rt,
        Err(err) => {
            eprintln!("tessera serve: cannot start the async runtime: {err}");
            return ExitCode::from(2);
        }
    };
    if let Err(err) = serve::check_options(&opts) {
        eprintln!("tessera serve: {err}");
        return ExitCode::from(2);
    }
    // The engine always runs: without a model it still serves history, providers and
    // settings (a message is refused with NO_MODEL until a provider is added).
    let Some(dir) = data_dir.or_else(default_data_dir) else {
        eprintln!("tessera serve: no home folder to keep data in; pass --data-dir DIR");
        return ExitCode::from(2);
    };
    match runtime.block_on(tessera_app::App::open(&dir, model.overrides(), plugins)) {
        Ok(app) => {
            for note in app.start_notes() {
                match note {
                    tessera_app::StartNote::NoModelYet(_) => eprintln!("tessera serve: {note}"),
                    tessera_app::StartNote::McpUnavailable(_)
                    | tessera_app::StartNote::KnowledgeUnavailable(_) => {
                        eprintln!("tessera: {note}")
                    }
                }
            }
            opts.app = Some(app);
        }
        Err(err) => {
            eprintln!("tessera serve: {err:#}");
            return ExitCode::from(2);
        }
    }
    match runtime.block_on(serve::serve(opts)) {
        Ok(()) => ExitCode::SUCCESS,
        Err(err) => {
            eprintln!("tessera serve: {err}");
            ExitCode::from(2)
        }
    }
}
