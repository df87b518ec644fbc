//! `tessera`: the headless server and command-line tools.

use std::{net::IpAddr, path::PathBuf, process::ExitCode};

use clap::{Parser, Subcommand};
use tessera_protocol::DocumentKind;
use tessera_server::{context_cmd, data_dir::default_data_dir, serve, validate_cmd};

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
    /// Serve the HTTP API and the web UI on this machine (loopback only).
    Serve {
        /// Address to bind: 127.0.0.1 or ::1.
        #[arg(long, default_value = "127.0.0.1")]
        host: IpAddr,
        /// Port; 0 picks a free one (the chosen URL is printed).
        #[arg(long, default_value_t = 0)]
        port: u16,
        /// Folder of the built web UI (ui/dist). Without it only the API is served.
        #[arg(long)]
        ui_dir: Option<PathBuf>,
        /// Bearer token to require (default: a fresh random one, printed in the URL).
        #[arg(long, env = "TESSERA_TOKEN", hide_env_values = true)]
        token: Option<String>,
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
}

#[derive(Debug, Subcommand)]
enum ContextCommand {
    /// Print a conversation as a seed-004 context document or as MCP-CP messages.
    Export {
        conversation: String,
        #[arg(long, value_enum, default_value = "context")]
        format: context_cmd::ExportFormat,
    },
    /// Import a context document or a list of MCP-CP messages; nothing is written when anything
    /// in it is wrong (every problem is printed).
    Import {
        /// A JSON file, or `-` for standard input.
        file: String,
    },
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

fn main() -> ExitCode {
    let cli = Cli::parse();
    let data_dir = cli.data_dir;
    match cli.command {
        Command::Serve {
            host,
            port,
            ui_dir,
            token,
        } => run_serve(serve::ServeOptions {
            host,
            port,
            ui_dir,
            token,
        }),
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
                &context_cmd::AssembleArgs {
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

fn run_serve(opts: serve::ServeOptions) -> ExitCode {
    tracing_subscriber::fmt()
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_env("TESSERA_LOG")
                .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("warn")),
        )
        .with_writer(std::io::stderr)
        .init();
    let runtime = match tokio::runtime::Runtime::new() {
        Ok(rt) => rt,
        Err(err) => {
            eprintln!("tessera serve: cannot start the async runtime: {err}");
            return ExitCode::from(2);
        }
    };
    match runtime.block_on(serve::serve(opts)) {
        Ok(()) => ExitCode::SUCCESS,
        Err(err) => {
            eprintln!("tessera serve: {err}");
            ExitCode::from(2)
        }
    }
}
