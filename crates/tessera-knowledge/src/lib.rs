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
pub use tessera_extract as extract;
pub mod index_db;
pub mod indexer;
pub mod scan;
pub mod search;
pub mod status;
pub mod vectors;
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

/// Candidates each ranking gives the fusion.
const CANDIDATES: usize = 50;

/// The knowledge index of one data folder, with its worker. Cheap to clone.
#[derive(Clone)]
pub struct Knowledge {
    shared: Arc<Shared>,
    vectors: vectors::VectorCache,
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
            generation: std::sync::atomic::AtomicU64::new(0),
            embedder: Mutex::new(None),
            embed_error: Mutex::new(None),
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
            vectors: vectors::VectorCache::default(),
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
            Job::Embed => false,
        });
        let conn = index_db::open_writer(&self.shared.index_path)?;
        let removed = scan::remove_source(&conn, project_id, &source.to_string_lossy())?;
        self.shared.bump();
        Ok(removed)
    }

    /// Takes a whole project out of the index.
    pub fn remove_project(&self, project_id: &str) -> Result<u64> {
        self.forget_jobs(|job| match job {
            Job::Scan { project_id: p, .. } | Job::Changed { project_id: p, .. } => p == project_id,
            Job::Embed => false,
        });
        let conn = index_db::open_writer(&self.shared.index_path)?;
        let removed = scan::remove_project(&conn, project_id)?;
        self.shared.bump();
        Ok(removed)
    }

    /// Sets (or with None takes away) the model that embeds chunks; chunks without a vector of
    /// its model are embedded in the background, and searches become hybrid.
    pub fn set_embedder(&self, embedder: Option<Arc<dyn vectors::Embedder>>) {
        *self
            .shared
            .embedder
            .lock()
            .unwrap_or_else(|p| p.into_inner()) = embedder;
        *self
            .shared
            .embed_error
            .lock()
            .unwrap_or_else(|p| p.into_inner()) = None;
        // The worker embeds after each job: this one reads nothing, only embeds.
        self.shared.push(Job::Embed);
    }

    /// Embeds what has no vector now, in the caller's thread (a command that exits, a test).
    pub fn embed_now(&self) -> std::result::Result<usize, String> {
        let Some(embedder) = self.shared.embedder() else {
            return Ok(0);
        };
        let mut conn = index_db::open_writer(&self.shared.index_path).map_err(|e| e.to_string())?;
        let done = vectors::embed_pending(&mut conn, embedder.as_ref(), usize::MAX, &mut 0)?;
        self.shared.bump();
        Ok(done)
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
        status.embed_error = self
            .shared
            .embed_error
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .clone();
        match self.shared.embedder() {
            Some(embedder) => {
                let model = embedder.model();
                status.embedded_chunks = status::embedded(&conn, project_id, &model)?;
                status.embedding_model = Some(model);
                status.retrieval = if status.embedded_chunks > 0 {
                    "hybrid".into()
                } else {
                    "lexical".into()
                };
            }
            None => status.retrieval = "lexical".into(),
        }
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
        let Some(embedder) = self.shared.embedder() else {
            return search::lexical(&conn, project_id, query, limit);
        };
        let embedded = match embedder.embed(&[query.to_owned()]) {
            Ok(mut v) if v.len() == 1 => v.remove(0),
            Ok(_) | Err(_) => {
                // The embedder is not answering: words alone, as without one.
                return search::lexical(&conn, project_id, query, limit);
            }
        };
        let generation = self
            .shared
            .generation
            .load(std::sync::atomic::Ordering::SeqCst);
        let loaded = self
            .vectors
            .get(&conn, project_id, &embedder.model(), generation)?;
        // The two rankings at once, one a core each: the scan of the vectors beside the words'.
        let (lexical, near) = std::thread::scope(|scope| {
            let scan = scope.spawn(|| vectors::nearest(&loaded, &embedded, CANDIDATES));
            let lexical = search::lexical(&conn, project_id, query, CANDIDATES);
            (lexical, scan.join().unwrap_or_default())
        });
        let lexical = lexical?;
        let near_ids: Vec<i64> = near.iter().map(|(id, _)| *id).collect();
        let lexical_ids: Vec<i64> = lexical.iter().map(|h| h.chunk_id).collect();
        let fused = vectors::fuse(&[lexical_ids, near_ids.clone()]);
        let mut by_id: std::collections::HashMap<i64, KnowledgeHit> =
            lexical.into_iter().map(|h| (h.chunk_id, h)).collect();
        let missing: Vec<i64> = fused
            .iter()
            .take(limit)
            .map(|(id, _)| *id)
            .filter(|id| !by_id.contains_key(id))
            .collect();
        for mut hit in search::by_chunk_ids(&conn, project_id, &missing)? {
            hit.matched_by = Vec::new();
            by_id.insert(hit.chunk_id, hit);
        }
        Ok(fused
            .into_iter()
            .take(limit)
            .filter_map(|(id, score)| {
                let mut hit = by_id.remove(&id)?;
                if near_ids.contains(&id) {
                    hit.matched_by.push("vector".into());
                }
                hit.score = (score * 10_000.0).round() / 10_000.0;
                Some(hit)
            })
            .collect())
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
