//! One engine owns a data folder at a time. The lock is a file holding the owner's pid, created
//! atomically; a stale lock (its process is gone) is taken over.

use std::{
    fs::{self, OpenOptions},
    io::{ErrorKind, Write},
    path::{Path, PathBuf},
};

use thiserror::Error;

const LOCK_NAME: &str = "tessera.lock";

#[derive(Debug, Error)]
pub enum LockError {
    #[error("the data folder {folder} is in use by another Tessera process (pid {pid}); close it or choose another folder")]
    Held { folder: PathBuf, pid: u32 },
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

/// Held for as long as the process uses the folder; removed on drop.
#[derive(Debug)]
pub struct DataFolderLock {
    path: PathBuf,
}

impl DataFolderLock {
    /// Takes the lock on `folder`, creating the folder if needed.
    pub fn acquire(folder: &Path) -> Result<Self, LockError> {
        fs::create_dir_all(folder).map_err(|source| LockError::CreateFolder {
            folder: folder.to_path_buf(),
            source,
        })?;
        let path = folder.join(LOCK_NAME);
        // Two attempts: the second after removing a lock whose owner is gone.
        for _ in 0..2 {
            match OpenOptions::new().write(true).create_new(true).open(&path) {
                Ok(mut file) => {
                    write!(file, "{}", std::process::id())
                        .and_then(|()| file.sync_all())
                        .map_err(|source| LockError::Write {
                            path: path.clone(),
                            source,
                        })?;
                    return Ok(Self { path });
                }
                Err(e) if e.kind() == ErrorKind::AlreadyExists => {
                    let owner = fs::read_to_string(&path)
                        .ok()
                        .and_then(|s| s.trim().parse::<u32>().ok());
                    match owner {
                        Some(pid) if pid != std::process::id() && process_alive(pid) => {
                            return Err(LockError::Held {
                                folder: folder.to_path_buf(),
                                pid,
                            });
                        }
                        _ => {
                            let _ = fs::remove_file(&path);
                        }
                    }
                }
                Err(source) => {
                    return Err(LockError::Write {
                        path: path.clone(),
                        source,
                    })
                }
            }
        }
        Err(LockError::Write {
            path,
            source: std::io::Error::other("the lock file keeps reappearing"),
        })
    }

    pub fn path(&self) -> &Path {
        &self.path
    }
}

impl Drop for DataFolderLock {
    fn drop(&mut self) {
        let _ = fs::remove_file(&self.path);
    }
}

/// A zombie (exited, not yet reaped: an app whose parent died without waiting for it, under an
/// init that does not reap) holds nothing any more, so it does not own the folder.
#[cfg(target_os = "linux")]
fn process_alive(pid: u32) -> bool {
    match fs::read_to_string(format!("/proc/{pid}/stat")) {
        Ok(stat) => {
            let state = stat
                .rfind(')')
                .and_then(|end| stat[end + 1..].split_whitespace().next());
            !matches!(state, Some("Z") | Some("X"))
        }
        Err(_) => false,
    }
}

#[cfg(not(target_os = "linux"))]
fn process_alive(_pid: u32) -> bool {
    // Without a cheap portable check, assume the owner is alive: refusing is the safe side.
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    #[cfg(target_os = "linux")]
    #[test]
    fn a_lock_left_by_a_zombie_is_taken_over() {
        let dir = tempfile::tempdir().unwrap();
        // Not waited for: once it exits it stays a zombie until this test ends.
        let mut child = std::process::Command::new("true").spawn().unwrap();
        let pid = child.id();
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
        while process_alive(pid) && std::time::Instant::now() < deadline {
            std::thread::sleep(std::time::Duration::from_millis(10));
        }
        assert!(
            Path::new(&format!("/proc/{pid}")).exists(),
            "the child is a zombie"
        );
        fs::write(dir.path().join(LOCK_NAME), pid.to_string()).unwrap();
        let lock = DataFolderLock::acquire(dir.path()).unwrap();
        assert_eq!(
            fs::read_to_string(lock.path()).unwrap(),
            std::process::id().to_string()
        );
        let _ = child.wait();
    }

    #[test]
    fn a_second_owner_is_refused_with_the_owners_pid() {
        let dir = tempfile::tempdir().unwrap();
        let _held = DataFolderLock::acquire(dir.path()).unwrap();
        // Pretend another live process holds it: pid 1 is always alive.
        fs::write(dir.path().join(LOCK_NAME), "1").unwrap();
        let err = DataFolderLock::acquire(dir.path()).unwrap_err();
        assert!(matches!(err, LockError::Held { pid: 1, .. }), "{err}");
        assert!(err.to_string().contains("pid 1"));
    }

    #[test]
    fn a_stale_lock_is_taken_over_and_released_on_drop() {
        let dir = tempfile::tempdir().unwrap();
        // A pid far above pid_max belongs to no process.
        fs::write(dir.path().join(LOCK_NAME), "4194305").unwrap();
        let lock = DataFolderLock::acquire(dir.path()).unwrap();
        let written = fs::read_to_string(lock.path()).unwrap();
        assert_eq!(written, std::process::id().to_string());
        let path = lock.path().to_path_buf();
        drop(lock);
        assert!(!path.exists());
    }
}
