//! The downloads the app runs in the background: one per file, with its progress for the UI to
//! read, paused (the bytes kept), cancelled keeping its bytes (it leaves the list, its partial
//! file stays) or cancelled deleting them, at any time. They end with the
//! app; the partial file they leave is resumed by the next download of the same model.

use std::collections::HashMap;
use std::sync::{Mutex, PoisonError};

use tessera_local::download::{HubFile, Phase, Progress};
use tokio_util::sync::CancellationToken;

use crate::views::local_models::{DownloadFailure, DownloadPhase, DownloadView};

/// How a download was stopped, when it was.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Stop {
    Pause,
    /// It leaves the list; its partial file stays, for a later download to go on from.
    CancelKeeping,
    Cancel,
}

pub(super) struct Job {
    pub(super) view: DownloadView,
    pub(super) file: HubFile,
    /// None once the task has ended (paused or failed).
    running: Option<Running>,
}

struct Running {
    token: CancellationToken,
    stop: Option<Stop>,
    /// Which start of this file the task belongs to: a task that ends after a new start must
    /// not write over the new one's state.
    generation: u64,
}

/// The downloads by file name.
#[derive(Default)]
pub(crate) struct Downloads {
    jobs: Mutex<HashMap<String, Job>>,
    generations: std::sync::atomic::AtomicU64,
}

/// A start's handle, given to the task that runs it.
pub(super) struct Ticket {
    pub(super) file_name: String,
    pub(super) token: CancellationToken,
    generation: u64,
}

impl Downloads {
    fn jobs(&self) -> std::sync::MutexGuard<'_, HashMap<String, Job>> {
        // A panic while holding the map leaves plain data: go on with it.
        self.jobs.lock().unwrap_or_else(PoisonError::into_inner)
    }

    pub(super) fn views(&self) -> Vec<DownloadView> {
        let mut views: Vec<DownloadView> = self.jobs().values().map(|j| j.view.clone()).collect();
        views.sort_by(|a, b| a.file.cmp(&b.file));
        views
    }

    pub(super) fn view(&self, file_name: &str) -> Option<DownloadView> {
        self.jobs().get(file_name).map(|j| j.view.clone())
    }

    pub(super) fn is_running(&self, file_name: &str) -> bool {
        self.jobs()
            .get(file_name)
            .is_some_and(|j| j.running.is_some())
    }

    /// Registers a start of `file`, or None when it runs already (the running one's view is
    /// the answer then).
    pub(super) fn start(
        &self,
        model: String,
        file: HubFile,
        use_when_done: bool,
        kept: u64,
    ) -> Result<Ticket, Box<DownloadView>> {
        let file_name = file.file_name().to_owned();
        let mut jobs = self.jobs();
        if let Some(job) = jobs.get_mut(&file_name) {
            if job.running.is_some() {
                job.view.use_when_done |= use_when_done;
                return Err(Box::new(job.view.clone()));
            }
        }
        let generation = self
            .generations
            .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let token = CancellationToken::new();
        let previous_total = jobs.get(&file_name).map_or(0, |j| j.view.total);
        jobs.insert(
            file_name.clone(),
            Job {
                view: DownloadView {
                    file: file_name.clone(),
                    model,
                    phase: DownloadPhase::Starting,
                    done: kept,
                    total: previous_total,
                    bytes_per_second: 0.0,
                    seconds_left: None,
                    problem: None,
                    failure: None,
                    use_when_done,
                },
                file,
                running: Some(Running {
                    token: token.clone(),
                    stop: None,
                    generation,
                }),
            },
        );
        Ok(Ticket {
            file_name,
            token,
            generation,
        })
    }

    /// Applies `change` to the ticket's job while it is still that start's.
    fn update(&self, ticket: &Ticket, change: impl FnOnce(&mut Job)) {
        let mut jobs = self.jobs();
        if let Some(job) = jobs.get_mut(&ticket.file_name) {
            if job
                .running
                .as_ref()
                .is_some_and(|r| r.generation == ticket.generation)
            {
                change(job);
            }
        }
    }

    pub(super) fn progress(&self, ticket: &Ticket, progress: &Progress) {
        self.update(ticket, |job| {
            job.view.phase = match progress.phase {
                Phase::CheckingPartial => DownloadPhase::CheckingPartial,
                Phase::Downloading => DownloadPhase::Downloading,
                Phase::Verifying => DownloadPhase::Verifying,
            };
            job.view.done = progress.done;
            job.view.total = progress.total;
            job.view.bytes_per_second = progress.bytes_per_second;
            job.view.seconds_left = progress.seconds_left;
        });
    }

    pub(super) fn sized(&self, ticket: &Ticket, total: u64) {
        self.update(ticket, |job| job.view.total = total);
    }

    /// Asks a running download to stop; false when none runs for `file_name`.
    pub(super) fn stop(&self, file_name: &str, how: Stop) -> bool {
        let mut jobs = self.jobs();
        let Some(running) = jobs.get_mut(file_name).and_then(|j| j.running.as_mut()) else {
            return false;
        };
        // A cancel wins over an earlier pause that has not landed yet, and deleting over keeping.
        let rank = |stop: Option<Stop>| match stop {
            None => 0,
            Some(Stop::Pause) => 1,
            Some(Stop::CancelKeeping) => 2,
            Some(Stop::Cancel) => 3,
        };
        if rank(Some(how)) > rank(running.stop) {
            running.stop = Some(how);
        }
        running.token.cancel();
        true
    }

    /// How the ticket's start was asked to stop, if it was.
    pub(super) fn stop_asked(&self, ticket: &Ticket) -> Option<Stop> {
        self.jobs()
            .get(&ticket.file_name)
            .and_then(|j| j.running.as_ref())
            .filter(|r| r.generation == ticket.generation)
            .and_then(|r| r.stop)
    }

    /// The start ended: paused or failed (`problem`), it stays listed, resumable.
    pub(super) fn halted(
        &self,
        ticket: &Ticket,
        phase: DownloadPhase,
        problem: Option<(String, DownloadFailure)>,
    ) {
        self.update(ticket, |job| {
            job.view.phase = phase;
            (job.view.problem, job.view.failure) = problem.unzip();
            job.view.bytes_per_second = 0.0;
            job.view.seconds_left = None;
            job.running = None;
        });
    }

    /// The start ended for good (done, or cancelled): it leaves the list. Returns its view.
    pub(super) fn finished(&self, ticket: &Ticket) -> Option<DownloadView> {
        let mut jobs = self.jobs();
        let ours = jobs.get(&ticket.file_name).is_some_and(|j| {
            j.running
                .as_ref()
                .is_some_and(|r| r.generation == ticket.generation)
        });
        if ours {
            jobs.remove(&ticket.file_name).map(|j| j.view)
        } else {
            None
        }
    }

    /// Forgets a stopped download (after its partial file was deleted).
    pub(super) fn forget(&self, file_name: &str) -> Option<DownloadView> {
        let mut jobs = self.jobs();
        if jobs.get(file_name).is_some_and(|j| j.running.is_none()) {
            jobs.remove(file_name).map(|j| j.view)
        } else {
            None
        }
    }

    /// What a stopped download of `file_name` was for, to resume it.
    pub(super) fn stopped_request(&self, file_name: &str) -> Option<(String, HubFile, bool)> {
        self.jobs()
            .get(file_name)
            .filter(|j| j.running.is_none())
            .map(|j| (j.view.model.clone(), j.file.clone(), j.view.use_when_done))
    }
}
