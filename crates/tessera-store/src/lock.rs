//! One engine owns a data folder at a time. The lock is the operating system's (an exclusive
//! `flock` on `tessera.lock`, std's `File::try_lock`): two starts at the same moment cannot
//! both win, and a crash never leaves a stale lock, since the lock ends with the process. The
//! file also names the owner's pid, for the message a second start shows. It is never
//! removed: removing it while another start has it open would let two processes lock two
//! different files.

use std::{
    fs::{self, File, TryLockError},
    io::{Read, Seek, SeekFrom, Write},
    path::{Path, PathBuf},
    sync::{Arc, Mutex, Weak},
};

use thiserror::Error;

use crate::file_modes::{create_private_dir, private_file};

const LOCK_NAME: &str = "tessera.lock";

#[derive(Debug, Error)]
pub enum LockError {
    #[error("the data folder {folder} is in use by another Tessera process (pid {pid}); close it or choose another folder")]
    Held { folder: PathBuf, pid: u32 },
    #[error("the data folder {folder} is in use by another Tessera process; close it or choose another folder")]
    HeldByUnknown { folder: PathBuf },
    #[error("cannot create the data folder {folder}: {source}")]
    CreateFolder {
        folder: PathBuf,
        source: std::io::Error,
    },
    #[error("cannot write the lock file {path}: {source}")]
    Write {
        path: PathBuf,
        source: std::io::Error,
    },
}

/// The open, locked file, shared by every store of this process over the same folder.
#[derive(Debug)]
struct Held {
    path: PathBuf,
    folder: PathBuf,
    _file: File,
}

/// The folders this process holds. A second open in the same process (a test's "restart",
/// an engine reopened while the last one's tasks end) shares the lock: the operating system's
/// lock is between processes, and ends with the last holder here.
static HELD: Mutex<Vec<Weak<Held>>> = Mutex::new(Vec::new());

/// Held for as long as the process uses the folder.
#[derive(Debug)]
pub struct DataFolderLock {
    // Always Some until dropped (taken in `drop`).
    held: Option<Arc<Held>>,
}

impl Drop for DataFolderLock {
    fn drop(&mut self) {
        // The last holder closes the file (ending the OS lock) while [`HELD`] is locked, so an
        // open in another thread of this process never finds the folder still locked by a
        // holder that is on its way out (it would read its own pid as the owner).
        let _held = HELD
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        self.held.take();
    }
}

impl DataFolderLock {
    /// Takes the lock on `folder`, creating the folder (0700) if needed.
    pub fn acquire(folder: &Path) -> Result<Self, LockError> {
        create_private_dir(folder).map_err(|source| LockError::CreateFolder {
            folder: folder.to_path_buf(),
            source,
        })?;
        let canonical = fs::canonicalize(folder).map_err(|source| LockError::CreateFolder {
            folder: folder.to_path_buf(),
            source,
        })?;
        let mut held = HELD
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        held.retain(|h| h.strong_count() > 0);
        if let Some(shared) = held
            .iter()
            .filter_map(Weak::upgrade)
            .find(|h| h.folder == canonical)
        {
            return Ok(Self { held: Some(shared) });
        }
        let path = folder.join(LOCK_NAME);
        let write_error = |source| LockError::Write {
            path: path.clone(),
            source,
        };
        let mut file = private_file()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .open(&path)
            .map_err(write_error)?;
        match try_lock_own(&mut file) {
            Ok(()) => {}
            Err(TryLockError::WouldBlock) => {
                let mut text = String::new();
                let _ = file
                    .seek(SeekFrom::Start(0))
                    .and_then(|_| file.read_to_string(&mut text));
                return Err(match text.trim().parse::<u32>() {
                    Ok(pid) => LockError::Held {
                        folder: folder.to_path_buf(),
                        pid,
                    },
                    Err(_) => LockError::HeldByUnknown {
                        folder: folder.to_path_buf(),
                    },
                });
            }
            Err(TryLockError::Error(source)) => return Err(write_error(source)),
        }
        // Ours now: whatever pid an earlier owner left is replaced by this one.
        file.set_len(0)
            .and_then(|()| file.seek(SeekFrom::Start(0)))
            .and_then(|_| write!(file, "{}", std::process::id()))
            .and_then(|()| file.sync_all())
            .map_err(write_error)?;
        let shared = Arc::new(Held {
            path,
            folder: canonical,
            _file: file,
        });
        held.push(Arc::downgrade(&shared));
        Ok(Self { held: Some(shared) })
    }

    pub fn path(&self) -> &Path {
        self.held.as_ref().map_or(Path::new(""), |h| &h.path)
    }
}

/// `file.try_lock()`, waiting a moment when the holder is this very process: a lock this
/// process just let go of stays held while a child it is starting (fork, then exec) still
/// shares the closed file's description, for the few milliseconds until the exec closes it.
fn try_lock_own(file: &mut File) -> Result<(), TryLockError> {
    let mut waited = std::time::Duration::ZERO;
    let step = std::time::Duration::from_millis(10);
    loop {
        match file.try_lock() {
            Err(TryLockError::WouldBlock)
                if waited < std::time::Duration::from_secs(2) && owner_is_me(file) =>
            {
                std::thread::sleep(step);
                waited += step;
            }
            other => return other,
        }
    }
}

fn owner_is_me(file: &mut File) -> bool {
    let mut text = String::new();
    let read = file
        .seek(SeekFrom::Start(0))
        .and_then(|_| file.read_to_string(&mut text));
    read.is_ok() && text.trim().parse::<u32>().ok() == Some(std::process::id())
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use super::*;

    #[test]
    fn this_process_shares_the_lock_until_its_last_holder_lets_go() {
        let dir = tempfile::tempdir().unwrap();
        let first = DataFolderLock::acquire(dir.path()).unwrap();
        let second = DataFolderLock::acquire(dir.path()).unwrap();
        // Another open of the file (as another process would) finds it locked.
        let probe = || {
            let file = File::open(dir.path().join(LOCK_NAME)).unwrap();
            matches!(file.try_lock(), Err(TryLockError::WouldBlock))
        };
        assert!(probe());
        drop(first);
        assert!(probe(), "still held by the second");
        drop(second);
        assert!(!probe(), "released with the last");
    }

    #[test]
    fn a_pid_left_by_a_crash_locks_nothing() {
        let dir = tempfile::tempdir().unwrap();
        // pid 1 is alive, but holds no lock: only the OS lock counts.
        fs::write(dir.path().join(LOCK_NAME), "1").unwrap();
        let lock = DataFolderLock::acquire(dir.path()).unwrap();
        assert_eq!(
            fs::read_to_string(lock.path()).unwrap(),
            std::process::id().to_string()
        );
    }

    #[cfg(unix)]
    #[test]
    fn the_folder_and_the_lock_are_the_owners_only() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let folder = dir.path().join("new");
        let lock = DataFolderLock::acquire(&folder).unwrap();
        let mode = |p: &Path| fs::metadata(p).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode(&folder), 0o700);
        assert_eq!(mode(lock.path()), 0o600);
    }
}
