//! Live knowledge: the `notify` crate watches each source (inotify on Linux), and a thread
//! gathers the paths it reports for [`SETTLE`] before queueing one look at each, so an editor's
//! save (write to a temporary file, rename over) is read once, whole. The look itself decides
//! what happened: a path that exists is indexed again, one that does not leaves the index.

use std::collections::BTreeSet;
use std::path::PathBuf;
use std::sync::mpsc;
use std::time::{Duration, Instant};

use notify::{RecursiveMode, Watcher as _};

use crate::Knowledge;

/// How long changes are gathered before they are looked at.
pub const SETTLE: Duration = Duration::from_millis(400);

/// Watches sources while it lives.
pub struct Watcher {
    _inner: notify::RecommendedWatcher,
}

impl Watcher {
    /// Starts watching `sources` (project id, folder or file) for `knowledge`.
    pub fn start(knowledge: Knowledge, sources: Vec<(String, PathBuf)>) -> notify::Result<Self> {
        let (tx, rx) = mpsc::channel::<notify::Result<notify::Event>>();
        let mut inner = notify::recommended_watcher(tx)?;
        for (_, source) in &sources {
            let mode = if source.is_dir() {
                RecursiveMode::Recursive
            } else {
                RecursiveMode::NonRecursive
            };
            if let Err(err) = inner.watch(source, mode) {
                tracing::warn!("knowledge: cannot watch {}: {err}", source.display());
            }
        }
        std::thread::Builder::new()
            .name("knowledge-watch".into())
            .spawn(move || gather(knowledge, sources, rx))
            .map_err(notify::Error::io)?;
        Ok(Self { _inner: inner })
    }
}

fn gather(
    knowledge: Knowledge,
    sources: Vec<(String, PathBuf)>,
    rx: mpsc::Receiver<notify::Result<notify::Event>>,
) {
    let mut pending: BTreeSet<PathBuf> = BTreeSet::new();
    let mut since: Option<Instant> = None;
    loop {
        let wait = since.map_or(Duration::from_secs(3600), |s| {
            SETTLE.saturating_sub(s.elapsed())
        });
        match rx.recv_timeout(wait) {
            Ok(Ok(event)) => {
                if matches!(event.kind, notify::EventKind::Access(_)) {
                    continue;
                }
                pending.extend(event.paths);
                since.get_or_insert_with(Instant::now);
            }
            Ok(Err(err)) => tracing::debug!("knowledge watch: {err}"),
            Err(mpsc::RecvTimeoutError::Timeout) => {}
            // The watcher was dropped: its sources are no longer watched.
            Err(mpsc::RecvTimeoutError::Disconnected) => return,
        }
        if since.is_some_and(|s| s.elapsed() >= SETTLE) {
            for path in std::mem::take(&mut pending) {
                for (project_id, source) in &sources {
                    if path.starts_with(source) {
                        knowledge.queue_change(project_id, source, &path);
                    }
                }
            }
            since = None;
        }
    }
}
