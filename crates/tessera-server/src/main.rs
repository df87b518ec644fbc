//! `tessera`: the headless server and command-line tools.

use std::{net::IpAddr, path::PathBuf, process::ExitCode};

use clap::{Parser, Subcommand};
use tessera_protocol::DocumentKind;
use tessera_server::{serve, validate_cmd};

#[derive(Debug, Parser)]
#[command(
    name = "tessera",
    version,
    about = "Tessera, a desktop AI agent: server and tools"
)]
struct Cli {
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
}

fn main() -> ExitCode {
    let cli = Cli::parse();
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
