//! `tessera-llama MODEL.gguf [--port N] [--ctx N] [--threads N] [--flash-attn auto|on|off]
//! [--model-id ID]`: one local
//! model behind an OpenAI-compatible endpoint on 127.0.0.1.
//!
//! Tessera starts it as a child (a crash in native code takes only this process down): the
//! bearer token comes in `TESSERA_LLAMA_TOKEN` (read, then removed: never in argv, where any
//! user's `ps` sees it); when the model is loaded and the port bound it prints one JSON line,
//! `{"port":…,"pid":…,"model":…,"n_ctx":…}`; it exits when its standard input closes (the
//! parent is gone) or on SIGTERM. `tessera local serve` runs it by hand.

mod answer;
mod api;
mod clock;
mod context_size;
mod embed;
mod engine;

use std::path::PathBuf;
use std::sync::Arc;

use anyhow::{bail, Context};
use tokio::io::AsyncReadExt;

struct Args {
    model: PathBuf,
    port: u16,
    ctx: Option<u32>,
    threads: Option<i32>,
    flash_attn: engine::FlashAttn,
    model_id: Option<String>,
    /// Keep running when standard input closes (a person started it in a terminal).
    detached: bool,
}

fn parse_args() -> anyhow::Result<Args> {
    let mut args = std::env::args().skip(1);
    let mut model = None;
    let (mut port, mut ctx, mut threads, mut model_id, mut detached) = (0, None, None, None, false);
    let mut flash_attn = engine::FlashAttn::Auto;
    while let Some(arg) = args.next() {
        let mut value = |name: &str| args.next().with_context(|| format!("{name} needs a value"));
        match arg.as_str() {
            "--port" => {
                port = value("--port")?
                    .parse()
                    .context("--port takes a port number")?
            }
            "--ctx" => {
                ctx = Some(
                    value("--ctx")?
                        .parse()
                        .context("--ctx takes a number of tokens")?,
                )
            }
            "--threads" => {
                threads = Some(
                    value("--threads")?
                        .parse()
                        .context("--threads takes a number")?,
                )
            }
            "--flash-attn" => {
                flash_attn = match value("--flash-attn")?.as_str() {
                    "auto" => engine::FlashAttn::Auto,
                    "on" => engine::FlashAttn::On,
                    "off" => engine::FlashAttn::Off,
                    other => bail!("--flash-attn takes auto, on or off, not {other:?}"),
                }
            }
            "--model-id" => model_id = Some(value("--model-id")?),
            "--detached" => detached = true,
            "-h" | "--help" => {
                println!("usage: tessera-llama MODEL.gguf [--port N] [--ctx TOKENS] [--threads N] [--flash-attn auto|on|off] [--model-id ID] [--detached]\nthe bearer token is read from TESSERA_LLAMA_TOKEN");
                std::process::exit(0);
            }
            other if other.starts_with('-') => bail!("unknown option {other}"),
            other => model = Some(PathBuf::from(other)),
        }
    }
    let model = model.context("no model file given: tessera-llama MODEL.gguf")?;
    Ok(Args {
        model,
        port,
        ctx,
        threads,
        flash_attn,
        model_id,
        detached,
    })
}

/// Descriptors kept for the worker's own work beside connections (the model file, its pipes,
/// llama.cpp's threads' files).
const RESERVED_DESCRIPTORS: u64 = 64;
/// Connections at most: the worker serves one Tessera, or one person's client.
const MOST_CONNECTIONS: usize = 256;

/// What the worker writes unless `TESSERA_LOG` says otherwise: its own warnings, and llama.cpp's
/// errors only. llama.cpp warns of things that are as meant at every load (a context smaller
/// than the model's, the layout of its log lines), and the app shows a person the last lines a
/// worker wrote when it stops: those must be why it stopped.
const DEFAULT_LOG: &str = "warn,llama-cpp-2=error,llama_cpp_2=error";

fn main() -> std::process::ExitCode {
    tracing_subscriber::fmt()
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_env("TESSERA_LOG")
                .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new(DEFAULT_LOG)),
        )
        .with_writer(std::io::stderr)
        .with_ansi(std::io::IsTerminal::is_terminal(&std::io::stderr()))
        .init();
    // llama.cpp's own log lines go through the same filter (debug and trace by default hidden).
    llama_cpp_2::send_logs_to_tracing(llama_cpp_2::LogOptions::default());
    match run() {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(err) => {
            eprintln!("tessera-llama: {err:#}");
            std::process::ExitCode::from(1)
        }
    }
}

fn run() -> anyhow::Result<()> {
    let args = parse_args()?;
    let token = std::env::var("TESSERA_LLAMA_TOKEN")
        .ok()
        .filter(|t| !t.is_empty());
    // SAFETY of the environment: nothing else runs yet (no thread reads it meanwhile).
    std::env::remove_var("TESSERA_LLAMA_TOKEN");
    let token = token
        .context("TESSERA_LLAMA_TOKEN is not set: the worker serves no one without a token")?;
    if !args.model.is_file() {
        bail!("{} is not a file", args.model.display());
    }
    let engine = engine::Engine::start(&args.model, args.ctx, args.threads, args.flash_attn)?;
    let source = engine
        .info
        .chat_template
        .clone()
        .context("the model file has no chat template (tokenizer.chat_template)")?;
    let template = tessera_local::chat_format::ChatTemplate::new(
        &source,
        &engine.info.bos_token,
        &engine.info.eos_token,
    )
    .map_err(|err| anyhow::anyhow!("the model's chat template cannot be read: {err}"))?;
    let model_id = args.model_id.clone().unwrap_or_else(|| {
        args.model
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_else(|| engine.info.name.clone())
    });
    let n_ctx = engine.info.n_ctx;
    let served = Arc::new(api::Served {
        engine,
        template,
        token,
        model_id: model_id.clone(),
    });
    // Before the runtime's threads start: the limit is the process's.
    let limits = tessera_local::serve_limits::Limits::for_this_process(
        RESERVED_DESCRIPTORS,
        MOST_CONNECTIONS,
    );
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .context("cannot start the async runtime")?;
    runtime.block_on(async move {
        let listener = tokio::net::TcpListener::bind(("127.0.0.1", args.port))
            .await
            .with_context(|| format!("cannot listen on 127.0.0.1:{}", args.port))?;
        let port = listener.local_addr()?.port();
        println!(
            "{}",
            serde_json::json!({"port": port, "pid": std::process::id(), "model": model_id, "n_ctx": n_ctx})
        );
        let app = api::router(served);
        let stop = async move {
            let stdin_closed = async {
                if args.detached {
                    std::future::pending::<()>().await;
                }
                let mut stdin = tokio::io::stdin();
                let mut buf = [0u8; 64];
                while matches!(stdin.read(&mut buf).await, Ok(n) if n > 0) {}
            };
            let terminated = async {
                match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
                    Ok(mut term) => {
                        term.recv().await;
                    }
                    Err(_) => std::future::pending::<()>().await,
                }
            };
            tokio::select! {
                () = stdin_closed => {}
                () = terminated => {}
                _ = tokio::signal::ctrl_c() => {}
            }
        };
        tessera_local::serve_limits::serve(listener, limits, |_| app.clone(), stop)
            .await
            .context("the server stopped")
    })
}
