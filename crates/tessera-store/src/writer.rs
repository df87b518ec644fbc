//! The one writer thread. Writes arrive on a channel; consecutive queued writes, and those
//! queued while they run, share a transaction (each inside its own savepoint, so one failing
//! write does not undo the others),
//! and every caller is answered only after the commit. A big write (one that changes a great
//! many rows) runs in a transaction of its own instead, without a savepoint: a savepoint keeps
//! the original of every page the write changes in memory until the commit. With nothing to
//! do for a moment, the writer indexes the texts left for later (see `search_backlog`).

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{mpsc, Arc};
use std::thread::JoinHandle;
use std::time::Duration;

use rusqlite::Connection;

use crate::error::{Result, StoreError};
use crate::search_backlog::{IDLE_INDEXING_BUDGET, INDEX_WHEN_IDLE_AFTER, KEEP_INDEXING_AFTER};
use crate::tx::{AfterCommit, WriteTx, WriterContext};

/// How many queued writes may share one transaction.
const MAX_BATCH: usize = 64;

/// Tells a caller how its write ended; the argument is the commit error, if the batch failed
/// to commit.
pub(crate) type Completion = Box<dyn FnOnce(Option<&str>) + Send>;

/// What running a write produced: whether to keep its changes, and how to answer the caller.
pub(crate) struct JobOutcome {
    pub keep: bool,
    pub complete: Completion,
}

pub(crate) type Job = Box<dyn for<'a, 'b> FnOnce(&'a mut WriteTx<'b>) -> JobOutcome + Send>;

/// A write as queued: whether it shares a transaction with others or runs alone.
pub(crate) struct Queued {
    pub job: Job,
    pub alone: bool,
}

#[derive(Debug)]
pub(crate) struct Writer {
    sender: Option<mpsc::Sender<Queued>>,
    thread: Option<JoinHandle<()>>,
    ctx: Arc<WriterContext>,
}

impl Writer {
    pub fn start(conn: Connection, ctx: Arc<WriterContext>) -> Result<Self> {
        let (sender, receiver) = mpsc::channel::<Queued>();
        let inbox = Inbox {
            receiver,
            ctx: Arc::clone(&ctx),
        };
        let thread = std::thread::Builder::new()
            .name("tessera-store-writer".into())
            .spawn(move || run(&conn, &inbox.ctx, &inbox))
            .map_err(StoreError::io(
                "cannot start the writer thread for",
                "the store",
            ))?;
        Ok(Self {
            sender: Some(sender),
            thread: Some(thread),
            ctx,
        })
    }

    pub fn submit(&self, job: Queued) -> Result<()> {
        let Some(sender) = &self.sender else {
            return Err(StoreError::WriteAbandoned);
        };
        self.ctx.queued.fetch_add(1, Ordering::AcqRel);
        sender.send(job).map_err(|_| {
            self.ctx.queued.fetch_sub(1, Ordering::AcqRel);
            StoreError::WriteAbandoned
        })
    }
}

/// The writer's end of the channel, counting the writes still queued (see
/// `WriterContext::queued`).
struct Inbox {
    receiver: mpsc::Receiver<Queued>,
    ctx: Arc<WriterContext>,
}

impl Inbox {
    fn took(&self, queued: Queued) -> Queued {
        self.ctx.queued.fetch_sub(1, Ordering::AcqRel);
        queued
    }

    fn recv(&self) -> std::result::Result<Queued, mpsc::RecvError> {
        self.receiver.recv().map(|q| self.took(q))
    }

    fn recv_timeout(&self, wait: Duration) -> std::result::Result<Queued, mpsc::RecvTimeoutError> {
        self.receiver.recv_timeout(wait).map(|q| self.took(q))
    }

    fn try_recv(&self) -> std::result::Result<Queued, mpsc::TryRecvError> {
        self.receiver.try_recv().map(|q| self.took(q))
    }
}

impl Drop for Writer {
    fn drop(&mut self) {
        // Closing the channel lets the thread finish what is queued and stop.
        self.sender.take();
        if let Some(thread) = self.thread.take() {
            if thread.join().is_err() {
                tracing::error!("the store writer thread panicked");
            }
        }
    }
}

fn run(conn: &Connection, ctx: &WriterContext, receiver: &Inbox) {
    // A write that must run alone, met while gathering a batch: it goes next.
    let mut next: Option<Queued> = None;
    let indexed = Arc::new(AtomicBool::new(false));
    let mut idle_wait = INDEX_WHEN_IDLE_AFTER;
    loop {
        let first = match next.take() {
            Some(queued) => queued,
            None if ctx.search_backlog.load(Ordering::Acquire) => {
                match receiver.recv_timeout(idle_wait) {
                    Ok(queued) => {
                        // Writes are coming: indexing waits for the next quiet moment again
                        // (a failure's back-off stays).
                        idle_wait = idle_wait.max(INDEX_WHEN_IDLE_AFTER);
                        queued
                    }
                    Err(mpsc::RecvTimeoutError::Timeout) => {
                        let _gate = ctx.write_gate();
                        run_alone(conn, ctx, index_listed_texts(Arc::clone(&indexed)));
                        // A failure (a full disk; a transaction that could not begin) is tried
                        // again less and less often; the text stays listed, and the next search
                        // tries too and reports it. Texts still listed are indexed on while no
                        // write comes.
                        idle_wait = if !indexed.swap(false, Ordering::AcqRel) {
                            (idle_wait.max(INDEX_WHEN_IDLE_AFTER) * 2).min(MAX_IDLE_RETRY)
                        } else if ctx.search_backlog.load(Ordering::Acquire) {
                            KEEP_INDEXING_AFTER
                        } else {
                            INDEX_WHEN_IDLE_AFTER
                        };
                        continue;
                    }
                    Err(mpsc::RecvTimeoutError::Disconnected) => break,
                }
            }
            None => match receiver.recv() {
                Ok(queued) => queued,
                Err(_) => break,
            },
        };
        let _gate = ctx.write_gate();
        if first.alone {
            run_alone(conn, ctx, first.job);
        } else {
            run_batch(conn, ctx, first.job, receiver, &mut next);
        }
    }
}

/// The longest the idle writer waits before it tries again to index a text it failed to.
const MAX_IDLE_RETRY: Duration = Duration::from_secs(60);

/// Indexes texts listed for indexing later (see `search_backlog`) for a moment; `indexed` is
/// raised only once what it indexed has committed (not when the write, its transaction or its
/// commit failed, nor when it panicked).
fn index_listed_texts(indexed: Arc<AtomicBool>) -> Job {
    Box::new(move |tx| {
        let result = tx.index_search_backlog(Some(IDLE_INDEXING_BUDGET));
        if let Err(error) = &result {
            tracing::warn!(%error, "cannot index a stored text for search");
        }
        let ok = result.is_ok();
        JobOutcome {
            keep: ok,
            complete: Box::new(move |commit_error| match commit_error {
                Some(error) => tracing::warn!(%error, "cannot index a stored text for search"),
                None => indexed.store(ok, Ordering::Release),
            }),
        }
    })
}

/// One write in a transaction of its own: what it changed is undone by rolling the
/// transaction back, so it needs no savepoint.
fn run_alone(conn: &Connection, ctx: &WriterContext, job: Job) {
    if let Err(error) = exec(conn, "BEGIN IMMEDIATE") {
        // Dropping the job answers its caller with `WriteAbandoned`.
        tracing::error!(%error, "cannot begin a write transaction");
        return;
    }
    let mut tx = WriteTx::new(conn, ctx);
    let outcome = catch_unwind(AssertUnwindSafe(|| job(&mut tx)));
    let after_commit = std::mem::take(&mut tx.after_commit);
    let outcome = match outcome {
        Ok(outcome) => outcome,
        Err(_) => {
            tracing::error!("a write panicked; its changes were rolled back");
            ctx.run_folds().forget_all();
            let _ = exec(conn, "ROLLBACK");
            return;
        }
    };
    if !outcome.keep {
        ctx.run_folds().forget_all();
        if let Err(error) = exec(conn, "ROLLBACK") {
            tracing::error!(%error, "cannot roll back a failed write");
        }
        (outcome.complete)(None);
        return;
    }
    match exec(conn, "COMMIT") {
        Ok(()) => {
            run_after_commit(ctx, after_commit);
            (outcome.complete)(None);
            // A write that runs alone is a big one: the pages it read need not stay cached.
            if let Err(error) = conn.execute_batch("PRAGMA shrink_memory") {
                tracing::debug!(%error, "cannot release the page cache");
            }
        }
        Err(error) => {
            tracing::error!(%error, "commit failed");
            ctx.run_folds().forget_all();
            let _ = conn.execute_batch("ROLLBACK");
            (outcome.complete)(Some(&error.to_string()));
        }
    }
}

/// `first` and the writes queued behind it, up to [`MAX_BATCH`], in one transaction. Writes
/// that arrive while the batch runs join it before the commit: they wait for nothing, and
/// the commit (the writing of every page changed, and a hand-off to each caller) is shared.
/// A write that must run alone stops the gathering and goes `next`.
fn run_batch(
    conn: &Connection,
    ctx: &WriterContext,
    first: Job,
    receiver: &Inbox,
    next: &mut Option<Queued>,
) {
    if let Err(error) = exec(conn, "BEGIN IMMEDIATE") {
        // Dropping the job answers its caller with `WriteAbandoned`.
        tracing::error!(%error, "cannot begin a write transaction");
        return;
    }
    let mut completions = Vec::new();
    let mut after_commit = Vec::new();
    let mut job = Some(first);
    let mut ran = 0;
    while let Some(current) = job.take() {
        ran += 1;
        run_in_savepoint(conn, ctx, current, &mut completions, &mut after_commit);
        if ran < MAX_BATCH {
            match receiver.try_recv() {
                Ok(queued) if queued.alone => *next = Some(queued),
                Ok(queued) => job = Some(queued.job),
                Err(_) => {}
            }
        }
    }
    match exec(conn, "COMMIT") {
        Ok(()) => {
            run_after_commit(ctx, after_commit);
            for complete in completions {
                complete(None);
            }
        }
        Err(error) => {
            tracing::error!(%error, "commit failed");
            ctx.run_folds().forget_all();
            let _ = conn.execute_batch("ROLLBACK");
            let message = error.to_string();
            for complete in completions {
                complete(Some(&message));
            }
        }
    }
}

/// Runs `job` in a savepoint of the open transaction: kept, or undone alone if it fails.
fn run_in_savepoint(
    conn: &Connection,
    ctx: &WriterContext,
    job: Job,
    completions: &mut Vec<Completion>,
    after_commit: &mut Vec<AfterCommit>,
) {
    if let Err(error) = exec(conn, "SAVEPOINT job") {
        // Dropping the job answers its caller with `WriteAbandoned`.
        tracing::error!(%error, "cannot open a savepoint; write abandoned");
        return;
    }
    let mut tx = WriteTx::new(conn, ctx);
    let outcome = catch_unwind(AssertUnwindSafe(|| job(&mut tx)));
    let keep = matches!(&outcome, Ok(JobOutcome { keep: true, .. }));
    let pending = std::mem::take(&mut tx.after_commit);
    let end = if keep {
        after_commit.extend(pending);
        exec(conn, "RELEASE job")
    } else {
        ctx.run_folds().forget_all();
        exec(conn, "ROLLBACK TO job").and_then(|()| exec(conn, "RELEASE job"))
    };
    if let Err(error) = end {
        tracing::error!(%error, "cannot close a savepoint");
    }
    match outcome {
        Ok(outcome) => completions.push(outcome.complete),
        Err(_) => tracing::error!("a write panicked; its changes were rolled back"),
    }
}

/// Runs one statement, prepared once per connection (these run several times per batch).
fn exec(conn: &Connection, sql: &str) -> rusqlite::Result<()> {
    conn.prepare_cached(sql)?.execute([]).map(drop)
}

fn run_after_commit(ctx: &WriterContext, actions: Vec<AfterCommit>) {
    for action in actions {
        match action {
            // On the writer thread, before any later write could list a text again.
            AfterCommit::SearchBacklogEmpty => {
                ctx.search_backlog.store(false, Ordering::Release);
            }
            AfterCommit::ConversationGone(id) => {
                let mut known = ctx
                    .known_conversations
                    .lock()
                    .unwrap_or_else(|e| e.into_inner());
                known.ids.remove(&id);
                known.deletions += 1;
            }
            AfterCommit::RemoveFile(path) => {
                if let Err(error) = std::fs::remove_file(&path) {
                    if error.kind() != std::io::ErrorKind::NotFound {
                        // Left for the sweep at the next open.
                        tracing::warn!(path = %path.display(), %error, "cannot remove a file");
                    }
                }
            }
        }
    }
}
