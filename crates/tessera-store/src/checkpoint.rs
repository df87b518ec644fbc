//! WAL checkpoints off the writer thread. SQLite's automatic checkpoint runs inside the commit
//! that crosses the threshold and fsyncs the database there, which is where a write's worst
//! latency came from; here a separate connection runs passive checkpoints (they never block
//! the writer) a few times a second instead.
//!
//! A passive checkpoint alone never ends a busy stretch: writes committed while it copies are
//! left for the next one, the WAL can only start over once every frame has been copied, and
//! under steady writes (a client's TOOL_CALL_REQUESTs one after another, a fast model's
//! stream) that moment never came: the WAL grew by 70 MB a second, each new frame past its end
//! cost the kernel a zeroed block, and the next process to open the folder copied it all. So
//! once the WAL holds more than `CATCH_UP_FRAMES`, the frames the passive pass could not reach
//! are copied with the writer held off (the pass before copied the rest; held 2.5–5 ms under
//! 1,000 TOOL_CALL_REQUESTs a second), and the next write starts the WAL over from its
//! beginning, in blocks the file already has.

use std::path::Path;
use std::sync::{mpsc, Arc};
use std::thread::JoinHandle;
use std::time::Duration;

use rusqlite::Connection;

use crate::error::{Result, StoreError};
use crate::rows;
use crate::tx::WriterContext;

const EVERY: Duration = Duration::from_millis(250);
/// About 4 MB of pages: a WAL this long is brought to its end with the writer held off.
const CATCH_UP_FRAMES: i64 = 1000;

#[derive(Debug)]
pub(crate) struct Checkpointer {
    stop: Option<mpsc::Sender<()>>,
    thread: Option<JoinHandle<()>>,
}

impl Checkpointer {
    pub fn start(database: &Path, ctx: Arc<WriterContext>) -> Result<Self> {
        let conn = Connection::open(database)?;
        conn.busy_timeout(Duration::from_millis(100))?;
        let (stop, stopped) = mpsc::channel::<()>();
        let thread = std::thread::Builder::new()
            .name("tessera-store-checkpoint".into())
            .spawn(move || {
                while let Err(mpsc::RecvTimeoutError::Timeout) = stopped.recv_timeout(EVERY) {
                    match passive(&conn) {
                        Ok(frames) if frames > CATCH_UP_FRAMES => {
                            let _gate = ctx.write_gate();
                            if let Err(error) = passive(&conn) {
                                tracing::debug!(%error, "checkpoint skipped");
                            }
                        }
                        Ok(_) => {}
                        Err(error) => tracing::debug!(%error, "checkpoint skipped"),
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

/// Runs a passive checkpoint; returns the WAL's length in frames as it found it (frames
/// committed while it copied are not counted, nor always copied).
fn passive(conn: &Connection) -> Result<i64> {
    // `(busy, frames in the WAL, frames copied)`.
    let (_, frames, _): (i64, i64, i64) = rows::one(conn, "PRAGMA wal_checkpoint(PASSIVE)", [])?;
    Ok(frames)
}

impl Drop for Checkpointer {
    fn drop(&mut self) {
        self.stop.take();
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}
