//! WAL checkpoints off the writer thread. SQLite's automatic checkpoint runs inside the commit
//! that crosses the threshold and fsyncs the database there, which is where a write's worst
//! latency came from; here a separate connection runs passive checkpoints (they never block
//! the writer) a few times a second instead.

use std::path::Path;
use std::sync::mpsc;
use std::thread::JoinHandle;
use std::time::Duration;

use rusqlite::Connection;

use crate::error::{Result, StoreError};

const EVERY: Duration = Duration::from_millis(250);

#[derive(Debug)]
pub(crate) struct Checkpointer {
    stop: Option<mpsc::Sender<()>>,
    thread: Option<JoinHandle<()>>,
}

impl Checkpointer {
    pub fn start(database: &Path) -> Result<Self> {
        let conn = Connection::open(database)?;
        conn.busy_timeout(Duration::from_millis(100))?;
        let (stop, stopped) = mpsc::channel::<()>();
        let thread = std::thread::Builder::new()
            .name("tessera-store-checkpoint".into())
            .spawn(move || {
                while let Err(mpsc::RecvTimeoutError::Timeout) = stopped.recv_timeout(EVERY) {
                    if let Err(error) =
                        conn.query_row("PRAGMA wal_checkpoint(PASSIVE)", [], |_| Ok(()))
                    {
                        tracing::debug!(%error, "checkpoint skipped");
                    }
                }
            })
            .map_err(StoreError::io(
                "cannot start the checkpoint thread for",
                database,
            ))?;
        Ok(Self {
            stop: Some(stop),
            thread: Some(thread),
        })
    }
}

impl Drop for Checkpointer {
    fn drop(&mut self) {
        self.stop.take();
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}
