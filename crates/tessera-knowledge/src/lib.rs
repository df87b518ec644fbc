//! A project's folders as knowledge the agent cites.
//!
//! [`Knowledge::open`] opens the index of a data folder (`knowledge.sqlite`, see [`index_db`])
//! and starts its worker ([`indexer`]): folders are walked ([`walk`]: `.gitignore`, a default
//! ignore list, no symlink followed, secrets files listed as skipped), each file read within
//! bounds ([`extract`]), refused when the secret detector flags its text, cut into chunks that
//! keep their line or page span ([`chunk`]) and indexed ([`scan`]). [`Knowledge::search`]
//! returns hits that carry their citation and become seed-004 `rag_doc` evidences
//! ([`search`]). Projects themselves (name, instructions, folders) are rows of the context
//! database; this crate is told which folders each project knows.

pub mod chunk;
pub mod error;
pub mod extract;
pub mod index_db;
pub mod indexer;
pub mod scan;
pub mod search;
pub mod status;
pub mod walk;
pub mod watch;

use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

pub use error::{KnowledgeError, Result};
pub use extract::Limits;
pub use indexer::Job;
pub use search::KnowledgeHit;
pub use status::{KnowledgeStatus, ScanProgress, SkippedFile};

use indexer::{Shared, State};

/// The knowledge index of one data folder, with its worker. Cheap to clone.
#[derive(Clone)]
pub struct Knowledge {
    shared: Arc<Shared>,
    watcher: Arc<Mutex<Option<watch::Watcher>>>,
}

impl std::fmt::Debug for Knowledge {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Knowledge")
            .field("index", &self.shared.index_path)
            .finish_non_exhaustive()
    }
}

impl Knowledge {
    /// Opens (or makes) the index in `data_dir` and starts the worker, paused until
    /// [`Knowledge::resume`] when `paused`.
    pub fn open(data_dir: &Path, limits: Limits) -> Result<Self> {
        let index_path = index_db::path_in(data_dir);
        let conn = index_db::open_writer(&index_path)?;
        let shared = Arc::new(Shared {
            state: Mutex::new(State::default()),
            wake: Condvar::new(),
            idle: Condvar::new(),
            index_path,
            limits,
            abandon: AtomicBool::new(false),
        });
        let worker = shared.clone();
        std::thread::Builder::new()
            .name("knowledge-indexer".into())
            .spawn(move || indexer::run(worker, conn))
            .map_err(|source| KnowledgeError::Io {
                action: "cannot start the indexer for",
                path: shared.index_path.clone(),
                source,
            })?;
        Ok(Self {
            shared,
            watcher: Arc::new(Mutex::new(None)),
        })
    }

    fn reader(&self) -> Result<rusqlite::Connection> {
        index_db::open_reader(&self.shared.index_path)
    }

    /// Checks that `path` is absolute and exists as a folder or a regular file.
    pub fn check_source(path: &Path) -> Result<()> {
        if !path.is_absolute() {
            return Err(KnowledgeError::RelativePath(path.to_owned()));
        }
        match std::fs::metadata(path) {
            Ok(m) if m.is_dir() || m.is_file() => Ok(()),
            Ok(_) => Err(KnowledgeError::BadSource {
                path: path.to_owned(),
                reason: "neither a folder nor a regular file".into(),
            }),
            Err(e) => Err(KnowledgeError::BadSource {
                path: path.to_owned(),
                reason: e.to_string(),
            }),
        }
    }

    /// Queues a scan of `source` for `project_id` (by mtime and hash: only what changed is
    /// read again); returns at once.
    pub fn queue_scan(&self, project_id: &str, source: &Path) {
        self.shared.push(Job::Scan {
            project_id: project_id.to_owned(),
            source: source.to_owned(),
        });
    }

    /// Queues a look at one changed path under `source`.
    pub fn queue_change(&self, project_id: &str, source: &Path, path: &Path) {
        self.shared.push(Job::Changed {
            project_id: project_id.to_owned(),
            source: source.to_owned(),
            path: path.to_owned(),
        });
    }

    /// Takes everything `source` brought in out of the index (its queued work too).
    pub fn remove_source(&self, project_id: &str, source: &Path) -> Result<u64> {
        self.forget_jobs(|job| match job {
            Job::Scan {
                project_id: p,
                source: s,
            }
            | Job::Changed {
                project_id: p,
                source: s,
                ..
            } => p == project_id && s == source,
        });
        let conn = index_db::open_writer(&self.shared.index_path)?;
        scan::remove_source(&conn, project_id, &source.to_string_lossy())
    }

    /// Takes a whole project out of the index.
    pub fn remove_project(&self, project_id: &str) -> Result<u64> {
        self.forget_jobs(|job| match job {
            Job::Scan { project_id: p, .. } | Job::Changed { project_id: p, .. } => p == project_id,
        });
        let conn = index_db::open_writer(&self.shared.index_path)?;
        scan::remove_project(&conn, project_id)
    }

    fn forget_jobs(&self, matches: impl Fn(&Job) -> bool) {
        let mut state = self.shared.lock();
        state.queue.retain(|job| !matches(job));
        if state.running.as_ref().is_some_and(|r| matches(&r.job)) {
            self.shared
                .abandon
                .store(true, std::sync::atomic::Ordering::SeqCst);
            // The running job ends at its next batch; wait so nothing it writes outlives this.
            while state.running.as_ref().is_some_and(|r| matches(&r.job)) {
                state = self
                    .shared
                    .idle
                    .wait_timeout(state, Duration::from_millis(200))
                    .map(|(s, _)| s)
                    .unwrap_or_else(|p| p.into_inner().0);
            }
        }
    }

    /// Stops reading files until [`Knowledge::resume`] (searches still work).
    pub fn pause(&self) {
        self.shared.lock().paused = true;
        self.shared.wake.notify_all();
    }

    pub fn resume(&self) {
        self.shared.lock().paused = false;
        self.shared.wake.notify_all();
    }

    /// The index's state for one project (or all), with what is pending.
    pub fn status(&self, project_id: Option<&str>) -> Result<KnowledgeStatus> {
        let conn = self.reader()?;
        let mut status = status::counts(&conn, project_id)?;
        let (pending, scanning) = self.shared.pending(project_id);
        status.pending = pending;
        status.scanning = scanning;
        status.paused = self.shared.lock().paused;
        status.idle = pending == 0;
        status.retrieval = "lexical".into();
        Ok(status)
    }

    /// Waits until nothing is pending (or `timeout`); true when idle.
    pub fn wait_idle(&self, timeout: Duration) -> bool {
        let deadline = Instant::now() + timeout;
        let mut state = self.shared.lock();
        loop {
            if state.queue.is_empty() && state.running.is_none() {
                return true;
            }
            let now = Instant::now();
            if now >= deadline || state.paused {
                return false;
            }
            state = self
                .shared
                .idle
                .wait_timeout(state, (deadline - now).min(Duration::from_millis(250)))
                .map(|(s, _)| s)
                .unwrap_or_else(|p| p.into_inner().0);
        }
    }

    /// The chunks of `project_id` that best answer `query`, best first.
    pub fn search(&self, project_id: &str, query: &str, limit: usize) -> Result<Vec<KnowledgeHit>> {
        let conn = self.reader()?;
        search::lexical(&conn, project_id, query, limit)
    }

    /// Watches the given sources (project id, folder or file) for changes, replacing what was
    /// watched before. A source that cannot be watched is logged and left to the next scan.
    pub fn watch(&self, sources: Vec<(String, PathBuf)>) {
        let mut slot = self.watcher.lock().unwrap_or_else(|p| p.into_inner());
        *slot = None;
        if sources.is_empty() {
            return;
        }
        match watch::Watcher::start(self.clone(), sources) {
            Ok(w) => *slot = Some(w),
            Err(err) => tracing::warn!("knowledge: folders are not watched: {err}"),
        }
    }
}

impl Knowledge {
    /// Stops the worker after the batch it is writing (the app closing).
    pub fn shutdown(&self) {
        self.shared.lock().stop = true;
        self.shared.wake.notify_all();
    }
}
