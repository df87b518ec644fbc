//! Locks, taken one way everywhere. A lock is poisoned when a thread panicked while holding it;
//! the data it guards is still there, and Tessera's data behind locks (maps of runs, waiting
//! calls, caches) stays usable after a panic elsewhere. So a poisoned lock is taken anyway and
//! said once in the log: never skipped silently (which would drop a run's cancel, a waiting
//! answer, a tool list), never a second panic.
//!
//! And a store write awaited from async code (`blocking`), taken one way everywhere too.

use std::sync::{Mutex, MutexGuard, PoisonError, RwLock, RwLockReadGuard, RwLockWriteGuard};

fn recovered<G>(poisoned: PoisonError<G>) -> G {
    tracing::error!("a lock was poisoned by a panic elsewhere; its data is used as it was left");
    poisoned.into_inner()
}

pub fn lock<T: ?Sized>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(recovered)
}

pub fn read<T: ?Sized>(lock: &RwLock<T>) -> RwLockReadGuard<'_, T> {
    lock.read().unwrap_or_else(recovered)
}

pub fn write<T: ?Sized>(lock: &RwLock<T>) -> RwLockWriteGuard<'_, T> {
    lock.write().unwrap_or_else(recovered)
}

/// Runs a store write (which waits for its commit) without holding up the other tasks of a
/// multi-threaded runtime: tokio moves them to another worker meanwhile. On a single-threaded
/// runtime there is nothing to move, so it simply runs.
pub(crate) fn blocking<T>(write: impl FnOnce() -> T) -> T {
    match tokio::runtime::Handle::try_current().map(|h| h.runtime_flavor()) {
        Ok(tokio::runtime::RuntimeFlavor::MultiThread) => tokio::task::block_in_place(write),
        _ => write(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_poisoned_lock_still_gives_its_data() {
        let shared = std::sync::Arc::new(Mutex::new(vec![1]));
        let holder = shared.clone();
        let _ = std::thread::spawn(move || {
            let mut guard = lock(&holder);
            guard.push(2);
            panic!("a panic while holding the lock");
        })
        .join();
        assert!(shared.is_poisoned());
        assert_eq!(*lock(&shared), vec![1, 2]);
    }
}
