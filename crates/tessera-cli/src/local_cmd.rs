//! `tessera local list|pull|rm`: models on this machine, from the command line. The models
//! folder is apart from the database, so these run beside an open desktop app.

use std::io::{IsTerminal, Write};
use std::path::PathBuf;
use std::time::Duration;

use tessera_local::catalogue::{self, CATALOGUE};
use tessera_local::download::{self, DownloadError, Hub, Phase, Progress};
use tessera_local::library::{hub_file_for, Library, LibraryError};
use tokio_util::sync::CancellationToken;

#[derive(Debug, clap::Subcommand)]
pub enum LocalCommand {
    /// The recommended models (the one for this machine marked) and the models on disk.
    List,
    /// Download a model into the data folder's `models` folder: a catalogue id
    /// (`tessera local list`) or OWNER/REPO:FILE.gguf of Hugging Face. --hub or HF_ENDPOINT
    /// picks another hub. Ctrl-C pauses; the same command resumes.
    Pull {
        /// A catalogue id, or OWNER/REPO:FILE.gguf.
        model: String,
        /// The branch, tag or commit of the repository (default: a catalogue model's pinned
        /// commit, else `main`).
        #[arg(long)]
        revision: Option<String>,
        /// The hub to download from (a mirror such as https://hf-mirror.com); default:
        /// HF_ENDPOINT, else Hugging Face.
        #[arg(long, value_name = "URL")]
        hub: Option<String>,
        /// A proxy for the download (`none` for none); default: the system's (HTTPS_PROXY).
        #[arg(long)]
        proxy: Option<String>,
        /// A PEM file of certificate authorities to trust too (repeatable).
        #[arg(long = "ca-cert", value_name = "PEM")]
        ca_certs: Vec<PathBuf>,
    },
    /// Delete a downloaded model (or what a stopped download of it left), by file name.
    Rm { file: String },
    /// Show, or set, where the app downloads models from: a hub address (a mirror) and a proxy,
    /// as Settings → Models on this computer sets them.
    Hub {
        /// The hub's address, e.g. https://hf-mirror.com; `none` for HF_ENDPOINT or Hugging Face.
        #[arg(long, value_name = "URL|none")]
        address: Option<String>,
        /// The proxy downloads go through, e.g. http://127.0.0.1:7890; `none` for the on-device
        /// provider's or the system's.
        #[arg(long, value_name = "URL|none")]
        proxy: Option<String>,
    },
    /// Serve a GGUF model on 127.0.0.1 with the OpenAI chat-completions wire (tools too), for
    /// any OpenAI client: prints the base URL and the key to use. Runs the `tessera-llama`
    /// worker (beside this program, or TESSERA_LLAMA_BIN).
    Serve {
        /// A .gguf file, or the name of one in the models folder.
        model: String,
        /// The port (0: a free one).
        #[arg(long, default_value_t = 0)]
        port: u16,
        /// The context length in tokens (default: the model's, at most 16384, less where the
        /// memory would not hold its cache).
        #[arg(long)]
        ctx: Option<u32>,
        /// CPU threads (default: all).
        #[arg(long)]
        threads: Option<u32>,
        /// The API key clients must send (default: a fresh random one, printed).
        #[arg(long, env = "TESSERA_LOCAL_TOKEN", hide_env_values = true)]
        token: Option<String>,
    },
}

pub fn main(data_dir: Option<PathBuf>, command: LocalCommand) -> std::process::ExitCode {
    let Some(dir) = data_dir.or_else(tessera_app::data_dir::default_data_dir) else {
        eprintln!("tessera local: no home folder to keep models in; pass --data-dir DIR");
        return std::process::ExitCode::from(2);
    };
    let library = Library::new(&dir);
    let outcome = match command {
        LocalCommand::List => list(&library),
        LocalCommand::Rm { file } => library.remove(&file).map(|freed| {
            println!("removed {file} ({})", bytes(freed));
        }),
        LocalCommand::Serve {
            model,
            port,
            ctx,
            threads,
            token,
        } => return serve(&library, &model, port, ctx, threads, token),
        LocalCommand::Hub { address, proxy } => return hub(&dir, address, proxy),
        LocalCommand::Pull {
            model,
            revision,
            hub,
            proxy,
            ca_certs,
        } => match tokio::runtime::Runtime::new() {
            Ok(runtime) => runtime.block_on(pull(
                &library,
                &model,
                revision.as_deref(),
                hub.as_deref(),
                proxy,
                ca_certs,
            )),
            Err(err) => {
                eprintln!("tessera local: cannot start the async runtime: {err}");
                return std::process::ExitCode::from(2);
            }
        },
    };
    match outcome {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(LibraryError::Download(DownloadError::Stopped)) => std::process::ExitCode::from(130),
        Err(err) => {
            eprintln!("tessera local: {err}");
            std::process::ExitCode::from(1)
        }
    }
}

/// Runs the worker in the foreground: it stops with this command (Ctrl-C reaches both).
fn serve(
    library: &Library,
    model: &str,
    port: u16,
    ctx: Option<u32>,
    threads: Option<u32>,
    token: Option<String>,
) -> std::process::ExitCode {
    use std::io::BufRead;
    let file = PathBuf::from(model);
    let file = if file.is_file() {
        file
    } else {
        library.dir().join(model)
    };
    if !file.is_file() {
        eprintln!(
            "tessera local serve: no model file {model} (a path, or a name in {}: tessera local list)",
            library.dir().display()
        );
        return std::process::ExitCode::from(2);
    }
    let worker = tessera_local::worker::worker_binary();
    let token = token.unwrap_or_else(tessera_server::auth::new_token);
    let mut command = tessera_local::worker::command(&worker, &file, port, ctx, threads, &token);
    let mut child = match command.spawn() {
        Ok(child) => child,
        Err(err) => {
            eprintln!(
                "tessera local serve: cannot start the local-model worker {}: {err} (build it with `make llama-worker`, or set TESSERA_LLAMA_BIN)",
                worker.display()
            );
            return std::process::ExitCode::from(2);
        }
    };
    // Held open while the worker runs: it stops when its input closes (and `wait` would close
    // it first).
    let _input = child.stdin.take();
    eprintln!("loading {} …", file.display());
    let ready = child.stdout.take().and_then(|out| {
        let mut line = String::new();
        std::io::BufReader::new(out).read_line(&mut line).ok()?;
        tessera_local::worker::Ready::parse(&line)
    });
    match ready {
        Some(ready) => {
            println!("serving {} (context {} tokens)", ready.model, ready.n_ctx);
            println!("  base URL  http://127.0.0.1:{}/v1", ready.port);
            println!("  API key   {token}");
            println!("  model     {}", ready.model);
            println!("Ctrl-C stops it.");
        }
        None => {
            let status = child.wait().ok();
            eprintln!(
                "tessera local serve: the worker stopped before it was ready ({})",
                status.map_or_else(|| "no status".into(), |s| s.to_string())
            );
            return std::process::ExitCode::from(1);
        }
    }
    match child.wait() {
        Ok(status) if status.success() => {
            eprintln!("stopped");
            std::process::ExitCode::SUCCESS
        }
        Ok(status) => {
            eprintln!("tessera local serve: the worker stopped: {status}");
            std::process::ExitCode::from(1)
        }
        Err(err) => {
            eprintln!("tessera local serve: {err}");
            std::process::ExitCode::from(1)
        }
    }
}

fn list(library: &Library) -> Result<(), LibraryError> {
    let recommended = catalogue::recommended(tessera_local::disk::total_memory());
    println!("Recommended models (no account needed):");
    for model in CATALOGUE {
        let mark = if model.id == recommended.id {
            "  <- for this machine"
        } else {
            ""
        };
        println!(
            "  {:<28} {:>8}  {:<10} {}{mark}",
            model.id,
            bytes(model.approx_bytes),
            model.licence,
            model.name
        );
    }
    let on_disk = library.list()?;
    println!("In {}:", library.dir().display());
    if on_disk.is_empty() {
        println!("  nothing yet: tessera local pull {}", recommended.id);
    }
    for model in on_disk {
        let state = if model.partial {
            " (stopped part way: pull it again to resume)"
        } else {
            ""
        };
        println!("  {:<40} {:>8}{state}", model.file, bytes(model.bytes));
    }
    Ok(())
}

/// `tessera local hub`: the app's hub address and download proxy, shown or set (checked as the
/// settings page checks them; `none` clears one).
fn hub(
    dir: &std::path::Path,
    address: Option<String>,
    proxy: Option<String>,
) -> std::process::ExitCode {
    let app = match tessera_app::App::open_for_command(dir, Default::default()) {
        Ok(app) => app,
        Err(err) => {
            eprintln!("tessera local hub: {}", tessera_app::error_chain(&err));
            return std::process::ExitCode::from(2);
        }
    };
    let local = app.local_models();
    fn cleared(text: &str) -> Option<&str> {
        (!text.trim().eq_ignore_ascii_case("none")).then_some(text)
    }
    let mut outcome = Ok(());
    if let Some(text) = &address {
        outcome = local.set_hub_address(cleared(text)).map(drop);
    }
    if let (Some(text), Ok(())) = (&proxy, &outcome) {
        outcome = local.set_hub_proxy(cleared(text)).map(drop);
    }
    let shown = outcome.and_then(|()| local.hub_settings());
    match shown {
        Ok(settings) => {
            let address = settings.address.as_deref().map_or_else(
                || format!("none (downloads come from {})", settings.endpoint()),
                str::to_owned,
            );
            println!("hub address: {address}");
            println!(
                "proxy:       {}",
                settings
                    .proxy
                    .as_deref()
                    .unwrap_or("none (the on-device provider's, or the system's)")
            );
            std::process::ExitCode::SUCCESS
        }
        Err(err) => {
            eprintln!("tessera local hub: {}", tessera_app::error_chain(&err));
            std::process::ExitCode::from(2)
        }
    }
}

async fn pull(
    library: &Library,
    spec: &str,
    revision: Option<&str>,
    endpoint: Option<&str>,
    proxy: Option<String>,
    ca_certs: Vec<PathBuf>,
) -> Result<(), LibraryError> {
    let file = hub_file_for(spec, revision)?;
    let endpoint = match endpoint {
        Some(text) => tessera_local::hub_settings::check_hub_address(text)?
            .unwrap_or_else(Hub::endpoint_from_env),
        None => Hub::endpoint_from_env(),
    };
    let hub = Hub::new(&endpoint, || {
        tessera_providers::http::network_builder(
            "downloads",
            proxy.as_deref(),
            &ca_certs,
            Duration::from_secs(15),
        )
    })?;
    let target = library.target(&file);
    if target.exists() {
        println!("{} is downloaded already", target.display());
        return Ok(());
    }
    let remote = hub.remote(&file).await?;
    let kept = download::partial_size(&target).unwrap_or(0);
    eprintln!(
        "{} from {}: {}{}",
        file.file_name(),
        hub.endpoint(),
        bytes(remote.size),
        if kept > 0 {
            format!(", resuming after {}", bytes(kept))
        } else {
            String::new()
        }
    );
    let stop = CancellationToken::new();
    {
        let stop = stop.clone();
        tokio::spawn(async move {
            if tokio::signal::ctrl_c().await.is_ok() {
                stop.cancel();
            }
        });
    }
    let mut line = ProgressLine::new(std::io::stderr().is_terminal());
    let result =
        download::download(&hub, &file, &target, Some(remote), &stop, |p| line.show(&p)).await;
    line.end();
    match result {
        Ok(done) => {
            println!(
                "saved {} ({}, SHA-256 {})",
                done.path.display(),
                bytes(done.size),
                done.sha256
            );
            Ok(())
        }
        Err(DownloadError::Stopped) => {
            let kept = download::partial_size(&target).unwrap_or(0);
            eprintln!(
                "paused with {} kept; run the same command to resume, or `tessera local rm {}` to drop it",
                bytes(kept),
                file.file_name()
            );
            Err(DownloadError::Stopped.into())
        }
        Err(err) => Err(err.into()),
    }
}

/// Progress on one line rewritten in place on a terminal; a line per tenth done otherwise
/// (a log or a pipe gets no carriage returns).
struct ProgressLine {
    terminal: bool,
    shown_tenth: u64,
    open: bool,
}

impl ProgressLine {
    fn new(terminal: bool) -> Self {
        Self {
            terminal,
            shown_tenth: 0,
            open: false,
        }
    }

    fn show(&mut self, p: &Progress) {
        let text = describe(p);
        let mut err = std::io::stderr().lock();
        if self.terminal {
            let _ = write!(err, "\r\x1b[2K{text}");
            let _ = err.flush();
            self.open = true;
        } else {
            let tenth = (p.done * 10).checked_div(p.total).unwrap_or(10);
            if tenth > self.shown_tenth || p.phase == Phase::Verifying {
                self.shown_tenth = tenth;
                let _ = writeln!(err, "{text}");
            }
        }
    }

    fn end(&mut self) {
        if self.open {
            eprintln!();
            self.open = false;
        }
    }
}

fn describe(p: &Progress) -> String {
    let percent = (p.done * 100).checked_div(p.total).unwrap_or(100);
    match p.phase {
        Phase::CheckingPartial => format!(
            "checking what was kept: {} of {}",
            bytes(p.done),
            bytes(p.total)
        ),
        Phase::Verifying => format!("checking the SHA-256 of {}", bytes(p.total)),
        Phase::Downloading => {
            let mut text = format!("{} of {} ({percent} %)", bytes(p.done), bytes(p.total));
            if p.bytes_per_second > 0.0 {
                text.push_str(&format!(", {}/s", bytes(p.bytes_per_second as u64)));
            }
            if let Some(left) = p.seconds_left {
                text.push_str(&format!(", {} left", duration(left)));
            }
            text
        }
    }
}

/// Bytes as a person reads them (decimal units, as disks and the hub count).
fn bytes(n: u64) -> String {
    const UNITS: [&str; 5] = ["B", "kB", "MB", "GB", "TB"];
    let mut value = n as f64;
    let mut unit = 0;
    while value >= 1000.0 && unit + 1 < UNITS.len() {
        value /= 1000.0;
        unit += 1;
    }
    if unit == 0 {
        format!("{n} B")
    } else {
        format!("{value:.1} {}", UNITS[unit])
    }
}

fn duration(seconds: f64) -> String {
    let s = seconds.round() as u64;
    match s {
        0..=59 => format!("{s} s"),
        60..=3599 => format!("{} min {:02} s", s / 60, s % 60),
        _ => format!("{} h {:02} min", s / 3600, (s % 3600) / 60),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_and_times_read_as_people_read_them() {
        assert_eq!(bytes(999), "999 B");
        assert_eq!(bytes(1_120_000_000), "1.1 GB");
        assert_eq!(duration(42.4), "42 s");
        assert_eq!(duration(65.0), "1 min 05 s");
        assert_eq!(duration(7322.0), "2 h 02 min");
        let p = Progress {
            done: 250,
            total: 1000,
            bytes_per_second: 2_000_000.0,
            seconds_left: Some(90.0),
            phase: Phase::Downloading,
        };
        assert_eq!(
            describe(&p),
            "250 B of 1.0 kB (25 %), 2.0 MB/s, 1 min 30 s left"
        );
    }
}
