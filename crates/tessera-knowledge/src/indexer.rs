//! The indexing worker: one thread of its own, a queue of jobs (scan a folder, look at one
//! path a watcher saw change), pause and resume, and progress others can read. It holds the
//! index's only long-lived writing connection; a chat never waits for it.

use std::collections::{HashSet, VecDeque};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::time::Instant;

use rusqlite::Connection;

use crate::extract::Limits;
use crate::scan::{self, ScanReport, BATCH_FILES};
use crate::status::ScanProgress;
use crate::walk::{self, Found};

/// One piece of work.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Job {
    /// Walk a folder (or look at a single file) a project knows, and bring the index in line.
    Scan { project_id: String, source: PathBuf },
    /// A path under a known source changed (written, created, removed, moved).
    Changed {
        project_id: String,
        source: PathBuf,
        path: PathBuf,
    },
    /// Embed what has no vector (a model was just chosen).
    Embed,
}

impl Job {
    fn project_id(&self) -> &str {
        match self {
            Job::Scan { project_id, .. } | Job::Changed { project_id, .. } => project_id,
            Job::Embed => "",
        }
    }
}

#[derive(Default)]
pub(crate) struct State {
    pub queue: VecDeque<Job>,
    pub running: Option<Running>,
    pub paused: bool,
    pub stop: bool,
}

pub(crate) struct Running {
    pub job: Job,
    pub started: Instant,
    pub done: u64,
    pub total: Option<u64>,
}

pub(crate) struct Shared {
    pub state: Mutex<State>,
    pub wake: Condvar,
    /// Signalled whenever a job ends (for `wait_idle`).
    pub idle: Condvar,
    pub index_path: PathBuf,
    pub limits: Limits,
    /// Set to abandon the running scan (its source was removed).
    pub abandon: AtomicBool,
    /// Moves on every write, so searches reload the vectors they scan.
    pub generation: std::sync::atomic::AtomicU64,
    /// What embeds chunks, when the person chose a model.
    pub embedder: Mutex<Option<Arc<dyn crate::vectors::Embedder>>>,
    /// Why embedding stopped last, until it works again.
    pub embed_error: Mutex<Option<String>>,
}

impl Shared {
    pub fn embedder(&self) -> Option<Arc<dyn crate::vectors::Embedder>> {
        self.embedder
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .clone()
    }

    pub fn bump(&self) {
        self.generation
            .fetch_add(1, std::sync::atomic::Ordering::SeqCst);
    }

    pub fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Queues a job unless the same one is already waiting.
    pub fn push(&self, job: Job) {
        let mut state = self.lock();
        if !state.queue.contains(&job) {
            state.queue.push_back(job);
        }
        self.wake.notify_all();
    }

    /// Pending work for one project (or all): queued jobs, and the rest of the running scan.
    pub fn pending(&self, project_id: Option<&str>) -> (u64, Option<ScanProgress>) {
        let state = self.lock();
        let mine = |job: &Job| project_id.is_none_or(|p| job.project_id() == p);
        let queued = state.queue.iter().filter(|j| mine(j)).count() as u64;
        let progress = state.running.as_ref().filter(|r| mine(&r.job)).map(|r| {
            let elapsed = r.started.elapsed().as_secs_f64().max(0.001);
            let rate = r.done as f64 / elapsed;
            let (project_id, source) = match &r.job {
                Job::Scan { project_id, source }
                | Job::Changed {
                    project_id, source, ..
                } => (project_id.clone(), source.display().to_string()),
                Job::Embed => (String::new(), "embedding".to_owned()),
            };
            ScanProgress {
                project_id,
                source,
                done: r.done,
                total: r.total,
                files_per_second: (rate * 10.0).round() / 10.0,
                seconds_left: r
                    .total
                    .filter(|_| rate > 0.0)
                    .map(|t| (t.saturating_sub(r.done) as f64 / rate * 10.0).round() / 10.0),
            }
        });
        let running_left = progress.as_ref().map_or(0, |p| {
            p.total.map_or(1, |t| t.saturating_sub(p.done).max(1))
        });
        (queued + running_left, progress)
    }
}

/// The worker's loop: runs until `stop`.
pub(crate) fn run(shared: Arc<Shared>, mut conn: Connection) {
    loop {
        let job = {
            let mut state = shared.lock();
            loop {
                if state.stop {
                    return;
                }
                if !state.paused {
                    if let Some(job) = state.queue.pop_front() {
                        state.running = Some(Running {
                            job: job.clone(),
                            started: Instant::now(),
                            done: 0,
                            total: None,
                        });
                        break job;
                    }
                }
                state = shared.wake.wait(state).unwrap_or_else(|p| p.into_inner());
            }
        };
        shared.abandon.store(false, Ordering::SeqCst);
        let result = match &job {
            Job::Scan { project_id, source } => scan_source(&shared, &mut conn, project_id, source),
            Job::Changed {
                project_id,
                source,
                path,
            } => changed(&shared, &mut conn, project_id, source, path),
            Job::Embed => Ok(ScanReport::default()),
        };
        match result {
            Ok(report) => tracing::info!(
                seen = report.seen,
                indexed = report.indexed,
                unchanged = report.unchanged,
                skipped = report.skipped,
                removed = report.removed,
                "knowledge: {} done",
                describe(&job)
            ),
            Err(err) => tracing::warn!("knowledge: {} failed: {err}", describe(&job)),
        }
        shared.bump();
        embed(&shared, &mut conn);
        let mut state = shared.lock();
        state.running = None;
        shared.idle.notify_all();
    }
}

/// Embeds what has no vector yet, a batch at a time, while nothing else waits.
fn embed(shared: &Shared, conn: &mut Connection) {
    let Some(embedder) = shared.embedder() else {
        return;
    };
    let mut after = 0;
    loop {
        if !shared.lock().queue.is_empty() || !may_go_on(shared) {
            return;
        }
        match crate::vectors::embed_pending(
            conn,
            embedder.as_ref(),
            crate::vectors::BATCH,
            &mut after,
        ) {
            Ok(0) => {
                *shared.embed_error.lock().unwrap_or_else(|p| p.into_inner()) = None;
                return;
            }
            Ok(_) => {
                *shared.embed_error.lock().unwrap_or_else(|p| p.into_inner()) = None;
                shared.bump();
            }
            Err(err) => {
                tracing::warn!("knowledge: embedding stopped: {err}");
                *shared.embed_error.lock().unwrap_or_else(|p| p.into_inner()) = Some(err);
                return;
            }
        }
    }
}

fn describe(job: &Job) -> String {
    match job {
        Job::Scan { source, .. } => format!("scan of {}", source.display()),
        Job::Changed { path, .. } => format!("change of {}", path.display()),
        Job::Embed => "embedding".to_owned(),
    }
}

/// Waits while paused; false when the scan should end (stop, or its source removed).
fn may_go_on(shared: &Shared) -> bool {
    let mut state = shared.lock();
    while state.paused && !state.stop {
        state = shared.wake.wait(state).unwrap_or_else(|p| p.into_inner());
    }
    !state.stop && !shared.abandon.load(Ordering::SeqCst)
}

fn scan_source(
    shared: &Shared,
    conn: &mut Connection,
    project_id: &str,
    source: &Path,
) -> crate::error::Result<ScanReport> {
    let source_text = source.to_string_lossy().into_owned();
    let mut found = Vec::new();
    let meta = std::fs::symlink_metadata(source);
    match meta {
        Ok(m) if m.is_dir() => {
            let end = walk::walk(source, |f| found.push(f));
            if end.truncated {
                tracing::warn!(
                    "{}: more than {} entries, indexed in part",
                    source.display(),
                    walk::MAX_ENTRIES
                );
            }
        }
        Ok(_) => found.push(walk::judge(source)),
        // A folder gone (unmounted, moved): what it brought in leaves the index.
        Err(_) => {}
    }
    if let Some(running) = shared.lock().running.as_mut() {
        running.total = Some(found.len() as u64);
    }
    let mut report = ScanReport::default();
    let mut seen = HashSet::with_capacity(found.len());
    for batch in found.chunks(BATCH_FILES) {
        if !may_go_on(shared) {
            return Ok(report);
        }
        let tx = conn.transaction()?;
        for f in batch {
            let path = match f {
                Found::File { path, .. } | Found::Skipped { path, .. } => path,
            };
            seen.insert(path.to_string_lossy().into_owned());
            scan::index_one(
                &tx,
                project_id,
                &source_text,
                f,
                &shared.limits,
                &mut report,
            )?;
        }
        tx.commit()?;
        if let Some(running) = shared.lock().running.as_mut() {
            running.done += batch.len() as u64;
        }
    }
    report.removed = scan::remove_unseen(conn, project_id, &source_text, &seen)?;
    Ok(report)
}

fn changed(
    shared: &Shared,
    conn: &mut Connection,
    project_id: &str,
    source: &Path,
    path: &Path,
) -> crate::error::Result<ScanReport> {
    let source_text = source.to_string_lossy().into_owned();
    let mut report = ScanReport::default();
    let is_dir = std::fs::symlink_metadata(path).is_ok_and(|m| m.is_dir());
    let ignored = walk::in_ignored_dir(source, path) || is_git_ignored(source, path, is_dir);
    match std::fs::symlink_metadata(path) {
        Ok(meta) if meta.is_dir() && !meta.file_type().is_symlink() && !ignored => {
            // A folder moved in: everything under it.
            let mut found = Vec::new();
            walk::walk(path, |f| found.push(f));
            let tx = conn.transaction()?;
            for f in &found {
                scan::index_one(
                    &tx,
                    project_id,
                    &source_text,
                    f,
                    &shared.limits,
                    &mut report,
                )?;
            }
            tx.commit()?;
        }
        Ok(_) if !ignored => {
            let tx = conn.transaction()?;
            scan::index_one(
                &tx,
                project_id,
                &source_text,
                &walk::judge(path),
                &shared.limits,
                &mut report,
            )?;
            tx.commit()?;
        }
        _ => {
            report.removed = scan::remove_path(conn, project_id, &path.to_string_lossy())?;
        }
    }
    Ok(report)
}

/// Whether `.gitignore` files between `root` and `path` leave it out.
fn is_git_ignored(root: &Path, path: &Path, is_dir: bool) -> bool {
    let Ok(rel) = path.strip_prefix(root) else {
        return true;
    };
    let mut dir = root.to_path_buf();
    let mut builder_paths = vec![dir.join(".gitignore"), dir.join(".ignore")];
    for c in rel.parent().into_iter().flat_map(Path::components) {
        dir.push(c);
        builder_paths.push(dir.join(".gitignore"));
        builder_paths.push(dir.join(".ignore"));
    }
    let mut ignored = false;
    for file in builder_paths.iter().filter(|p| p.is_file()) {
        let Some(base) = file.parent() else { continue };
        let mut builder = ignore::gitignore::GitignoreBuilder::new(base);
        if builder.add(file).is_some() {
            continue;
        }
        if let Ok(matcher) = builder.build() {
            let m = matcher.matched_path_or_any_parents(path, is_dir);
            if m.is_ignore() {
                ignored = true;
            } else if m.is_whitelist() {
                ignored = false;
            }
        }
    }
    ignored
}
