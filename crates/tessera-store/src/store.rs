//! [`Store`]: opening a data folder, and the read and write paths every operation goes through.

use std::marker::PhantomData;
use std::path::Path;
use std::sync::atomic::Ordering;
use std::sync::{mpsc, Arc, Mutex};

use rusqlite::{Connection, OpenFlags};

use crate::checkpoint::Checkpointer;
use crate::error::{Result, StoreError};
use crate::layout::DataPaths;
use crate::lock::DataFolderLock;
use crate::tx::{ReadTx, WriteTx, WriterContext};
use crate::writer::{Completion, Job, JobOutcome, Queued, Writer};
use crate::{migrate, rows, search_backlog};

/// How long a connection waits for a lock held by another connection before giving up.
const BUSY_TIMEOUT_MS: u64 = 5_000;
/// Idle read connections kept for reuse.
const MAX_IDLE_READERS: usize = 8;

/// The local context database of one data folder. Cheap to clone; all clones share one writer
/// thread and one pool of read connections. The data folder stays locked until the last clone
/// is dropped.
#[derive(Clone, Debug)]
pub struct Store {
    inner: Arc<Inner>,
}

#[derive(Debug)]
struct Inner {
    ctx: Arc<WriterContext>,
    // Fields drop in this order. The writer's connection closes last: the last connection to
    // close copies what is left of the WAL into the database and deletes it, which a read-only
    // connection cannot do. Left behind, a WAL is read whole again by the next process to open
    // the folder (its index rebuilt, every frame copied anew).
    readers: ReaderPool,
    _checkpointer: Checkpointer,
    // The writer finishes what is queued and closes the database, before the lock goes.
    writer: Writer,
    _lock: DataFolderLock,
}

impl Store {
    /// Opens the data folder `data_dir`: takes its lock (a second process gets an error naming
    /// the owner's pid), creates the folder layout, migrates the database (after copying it to
    /// `backups/`), and starts the writer thread.
    pub fn open(data_dir: impl AsRef<Path>) -> Result<Self> {
        let made_now = !data_dir.as_ref().exists();
        let lock = DataFolderLock::acquire(data_dir.as_ref())?;
        let paths = DataPaths::new(data_dir.as_ref());
        paths.create_folders()?;
        let report = migrate::prepare(&paths)?;
        if let Some(backup) = &report.backup {
            tracing::info!(
                from = report.from,
                to = report.to,
                backup = %backup.display(),
                "migrated the database"
            );
        }
        let conn = open_writer_connection(&paths.database)?;
        let ctx = Arc::new(WriterContext::new(paths.clone()));
        // A process that ended before indexing them left texts listed for indexing.
        ctx.search_backlog
            .store(search_backlog::any(&conn)?, Ordering::Release);
        let writer = Writer::start(conn, Arc::clone(&ctx))?;
        let checkpointer = Checkpointer::start(&paths.database, Arc::clone(&ctx))?;
        let store = Store {
            inner: Arc::new(Inner {
                ctx,
                writer,
                _checkpointer: checkpointer,
                readers: ReaderPool::new(&paths),
                _lock: lock,
            }),
        };
        store.sweep_attachments()?;
        if !made_now {
            store.tighten_once()?;
        }
        Ok(store)
    }

    /// Tightens the modes of a data folder an earlier version made (once: recorded in the
    /// app settings). The folder itself only when it holds nothing but Tessera's files.
    fn tighten_once(&self) -> Result<()> {
        use crate::file_modes::{holds_only_tessera, tighten, tighten_tree, TIGHTENED_SETTING};
        if self.app_setting(TIGHTENED_SETTING)?.is_some() {
            return Ok(());
        }
        let paths = self.paths();
        let io = |path: &Path| StoreError::io("cannot protect", path.to_path_buf());
        let changed = if holds_only_tessera(&paths.root) {
            tighten_tree(&paths.root).map_err(io(&paths.root))?
        } else {
            let mut changed = 0;
            for dir in [
                &paths.attachments,
                &paths.backups,
                &paths.root.join("logs"),
                &paths.root.join("models"),
            ] {
                changed += tighten_tree(dir).map_err(io(dir))?;
            }
            for name in ["tessera.lock", "mcp.json", "secrets.json"] {
                let file = paths.root.join(name);
                changed +=
                    usize::from(tighten(&file, crate::file_modes::FILE_MODE).map_err(io(&file))?);
            }
            changed
        };
        if changed > 0 {
            tracing::info!(changed, folder = %paths.root.display(), "tightened the data folder's modes");
        }
        self.set_app_setting(
            TIGHTENED_SETTING,
            serde_json::json!({"at": crate::clock::now().as_str(), "changed": changed}),
        )
    }

    /// The data folder's paths.
    pub fn paths(&self) -> &DataPaths {
        &self.inner.ctx.paths
    }

    pub(crate) fn writer_context(&self) -> &WriterContext {
        &self.inner.ctx
    }

    /// Runs `f` in the writer thread inside a transaction and returns its result once the
    /// transaction has committed. If `f` fails, none of its changes are kept.
    ///
    /// `f` must not call back into this store's `write` (the writer would wait for itself);
    /// use [`WriteTx::read`] to read inside a write.
    pub fn write<T, F>(&self, f: F) -> Result<T>
    where
        T: Send + 'static,
        F: for<'a, 'b> FnOnce(&'a mut WriteTx<'b>) -> Result<T> + Send + 'static,
    {
        let (reply, answer) = mpsc::sync_channel::<Result<T>>(1);
        self.write_then(f, move |result| {
            let _ = reply.send(result);
        });
        answer.recv().map_err(|_| StoreError::WriteAbandoned)?
    }

    /// Queues `f` for the writer thread and returns at once; `on_commit` hears how it ended:
    /// its result once the transaction holding it has committed (so whatever it wrote is
    /// durable by then), or the error. Writes run and commit in the order they were queued,
    /// so a caller that queues several and handles their answers in that order sees them
    /// commit in order; queued writes share transactions (each in its own savepoint).
    ///
    /// `on_commit` is called exactly once, on the writer thread (keep it short: wake someone
    /// up), or at once on this thread with [`StoreError::WriteAbandoned`] when the writer has
    /// stopped. A write that panics is answered `WriteAbandoned` as soon as it panicked, which
    /// may be before writes queued ahead of it are answered.
    pub fn write_then<T, F, C>(&self, f: F, on_commit: C)
    where
        T: Send + 'static,
        F: for<'a, 'b> FnOnce(&'a mut WriteTx<'b>) -> Result<T> + Send + 'static,
        C: FnOnce(Result<T>) + Send + 'static,
    {
        self.queue(f, on_commit, false);
    }

    /// [`Store::write`] for a write that changes a great many rows (folding a long run):
    /// it runs in a transaction of its own, which is cheaper for it than sharing one (the
    /// savepoint a shared transaction needs keeps the original of every page the write
    /// changes in memory until the commit).
    pub fn write_alone<T, F>(&self, f: F) -> Result<T>
    where
        T: Send + 'static,
        F: for<'a, 'b> FnOnce(&'a mut WriteTx<'b>) -> Result<T> + Send + 'static,
    {
        let (reply, answer) = mpsc::sync_channel::<Result<T>>(1);
        self.queue(
            f,
            move |result| {
                let _ = reply.send(result);
            },
            true,
        );
        answer.recv().map_err(|_| StoreError::WriteAbandoned)?
    }

    fn queue<T, F, C>(&self, f: F, on_commit: C, alone: bool)
    where
        T: Send + 'static,
        F: for<'a, 'b> FnOnce(&'a mut WriteTx<'b>) -> Result<T> + Send + 'static,
        C: FnOnce(Result<T>) + Send + 'static,
    {
        let reply = Reply::new(on_commit);
        let job: Job = Box::new(move |tx| {
            let result = f(tx);
            let keep = result.is_ok();
            let complete: Completion = Box::new(move |commit_error| {
                reply.send(match (result, commit_error) {
                    (Ok(_), Some(message)) => Err(StoreError::CommitFailed(message.to_owned())),
                    (result, _) => result,
                });
            });
            JobOutcome { keep, complete }
        });
        // A refused job is dropped here, and its `Reply` answers `WriteAbandoned`.
        let _ = self.inner.writer.submit(Queued { job, alone });
    }

    /// Runs `f` on a read-only connection inside one read transaction (a consistent snapshot
    /// that includes every write that returned before it started).
    pub fn read<T>(&self, f: impl FnOnce(&ReadTx<'_>) -> Result<T>) -> Result<T> {
        let conn = self.inner.readers.take()?;
        conn.execute_batch("BEGIN")?;
        let result = f(&ReadTx { conn: &conn });
        let end = conn.execute_batch("COMMIT");
        self.inner.readers.give_back(conn);
        let value = result?;
        end?;
        Ok(value)
    }

    /// Lets the idle read connections drop the pages they cache (SQLite keeps up to 2 MB per
    /// connection, and a subscriber catching up on a long answer fills them): called once a
    /// burst is over, before the engine returns freed memory to the system.
    pub fn release_cached_pages(&self) {
        let idle = self
            .inner
            .readers
            .idle
            .lock()
            .unwrap_or_else(|e| e.into_inner());
        for conn in idle.iter() {
            if let Err(error) = conn.execute_batch("PRAGMA shrink_memory") {
                tracing::debug!(%error, "cannot release a reader's page cache");
            }
        }
    }

    /// `PRAGMA integrity_check`: `ok`, or what SQLite found wrong.
    pub fn integrity_check(&self) -> Result<String> {
        self.read(|r| {
            let lines: Vec<String> = rows::all(r.conn, "PRAGMA integrity_check", [])?;
            Ok(lines.join("\n"))
        })
    }
}

/// The answer to a queued write, given exactly once: dropping it unanswered (the writer
/// stopped, or the write panicked) answers `WriteAbandoned`.
struct Reply<T, C: FnOnce(Result<T>)> {
    on_commit: Option<C>,
    _result: PhantomData<fn(T)>,
}

impl<T, C: FnOnce(Result<T>)> Reply<T, C> {
    fn new(on_commit: C) -> Self {
        Self {
            on_commit: Some(on_commit),
            _result: PhantomData,
        }
    }

    fn send(mut self, result: Result<T>) {
        if let Some(on_commit) = self.on_commit.take() {
            on_commit(result);
        }
    }
}

impl<T, C: FnOnce(Result<T>)> Drop for Reply<T, C> {
    fn drop(&mut self) {
        if let Some(on_commit) = self.on_commit.take() {
            on_commit(Err(StoreError::WriteAbandoned));
        }
    }
}

fn open_writer_connection(path: &Path) -> Result<Connection> {
    let conn = Connection::open(path)?;
    conn.busy_timeout(std::time::Duration::from_millis(BUSY_TIMEOUT_MS))?;
    // WAL was set by the migration step and persists; NORMAL keeps every commit across a
    // killed process (only an OS crash may lose the last commits, never consistency).
    // Checkpoints are the checkpoint thread's job (see `checkpoint`).
    conn.execute_batch(
        "PRAGMA foreign_keys = ON;
         PRAGMA synchronous = NORMAL;
         PRAGMA temp_store = MEMORY;
         PRAGMA wal_autocheckpoint = 0;",
    )?;
    conn.set_prepared_statement_cache_capacity(64);
    Ok(conn)
}

#[derive(Debug)]
struct ReaderPool {
    path: std::path::PathBuf,
    idle: Mutex<Vec<Connection>>,
}

impl ReaderPool {
    fn new(paths: &DataPaths) -> Self {
        Self {
            path: paths.database.clone(),
            idle: Mutex::new(Vec::new()),
        }
    }

    fn take(&self) -> Result<Connection> {
        let idle = self.idle.lock().unwrap_or_else(|e| e.into_inner()).pop();
        match idle {
            Some(conn) => Ok(conn),
            None => {
                let conn = Connection::open_with_flags(
                    &self.path,
                    OpenFlags::SQLITE_OPEN_READ_ONLY
                        | OpenFlags::SQLITE_OPEN_NO_MUTEX
                        | OpenFlags::SQLITE_OPEN_URI,
                )?;
                conn.busy_timeout(std::time::Duration::from_millis(BUSY_TIMEOUT_MS))?;
                conn.set_prepared_statement_cache_capacity(64);
                Ok(conn)
            }
        }
    }

    fn give_back(&self, conn: Connection) {
        let mut idle = self.idle.lock().unwrap_or_else(|e| e.into_inner());
        if idle.len() < MAX_IDLE_READERS {
            idle.push(conn);
        }
    }
}
