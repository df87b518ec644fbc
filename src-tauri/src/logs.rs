//! Logs: a file per day in `<data folder>/logs`, the last seven kept, and stderr. The level comes
//! from `TESSERA_LOG` (default `info` in the file, `warn` on stderr).

use std::path::{Path, PathBuf};

use tracing_appender::non_blocking::{NonBlockingBuilder, WorkerGuard};
use tracing_appender::rolling::{Builder, Rotation};
use tracing_subscriber::{fmt, layer::SubscriberExt, util::SubscriberInitExt, EnvFilter, Layer};

pub const LOG_FILE_PREFIX: &str = "tessera-desktop";
const KEPT_FILES: usize = 7;
/// Lines waiting for the log writer's thread. The default (128,000) is a queue allocated and
/// touched whole at start: 4 MB resident for an app that logs a few lines a minute. When this
/// many are waiting, a logging thread waits for the disk instead of dropping lines.
const QUEUED_LINES: usize = 4_096;

pub fn folder(data_dir: &Path) -> PathBuf {
    data_dir.join("logs")
}

/// Starts logging; the guard flushes the file when dropped (keep it for the app's life). When
/// the folder cannot be written, logs go to stderr only and the reason is printed.
pub fn init(data_dir: &Path) -> Option<WorkerGuard> {
    let filter = |default: &str| {
        EnvFilter::try_from_env("TESSERA_LOG").unwrap_or_else(|_| EnvFilter::new(default))
    };
    let stderr = fmt::layer()
        .with_writer(std::io::stderr)
        .with_filter(filter("warn"));
    // The appender lists the folder to prune old files: it must exist first.
    // Private: the appender makes its files with the umask's mode, the folder keeps them ours.
    let _ = tessera_app::file_modes::create_private_dir(&folder(data_dir));
    let _ =
        tessera_app::file_modes::tighten(&folder(data_dir), tessera_app::file_modes::FOLDER_MODE);
    let appender = Builder::new()
        .rotation(Rotation::DAILY)
        .filename_prefix(LOG_FILE_PREFIX)
        .filename_suffix("log")
        .max_log_files(KEPT_FILES)
        .build(folder(data_dir));
    match appender {
        Ok(appender) => {
            let (writer, guard) = NonBlockingBuilder::default()
                .buffered_lines_limit(QUEUED_LINES)
                .lossy(false)
                .finish(appender);
            let file = fmt::layer()
                .with_ansi(false)
                .with_writer(writer)
                .with_filter(filter("info"));
            tracing_subscriber::registry()
                .with(stderr)
                .with(file)
                .init();
            Some(guard)
        }
        Err(error) => {
            tracing_subscriber::registry().with(stderr).init();
            eprintln!(
                "tessera-desktop: cannot write logs in {}: {error}",
                folder(data_dir).display()
            );
            None
        }
    }
}

/// The newest log file's lines at WARN or ERROR, the last `limit` of them.
pub fn recent_problems(data_dir: &Path, limit: usize) -> Vec<String> {
    let Ok(entries) = std::fs::read_dir(folder(data_dir)) else {
        return Vec::new();
    };
    let mut files: Vec<PathBuf> = entries
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| {
            p.file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.starts_with(LOG_FILE_PREFIX))
        })
        .collect();
    // Daily names sort by date.
    files.sort();
    let Some(newest) = files.last() else {
        return Vec::new();
    };
    let text = std::fs::read_to_string(newest).unwrap_or_default();
    let problems: Vec<String> = text
        .lines()
        .filter(|l| l.contains(" WARN ") || l.contains(" ERROR "))
        .map(str::to_owned)
        .collect();
    problems[problems.len().saturating_sub(limit)..].to_vec()
}
