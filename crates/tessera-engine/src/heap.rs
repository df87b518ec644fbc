//! Giving freed memory back to the operating system after a burst. glibc keeps what its
//! threads freed in their arenas: after a long answer (a million deltas through the store, the
//! bus and the SSE streams) the process stayed 60–130 MB above where it started although that
//! memory was free. Two things return it: [`keep_large_blocks_apart`] (once, at the engine's
//! start) and a trim shortly after each run and each stream ends.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

/// Makes every block of 128 KB or more a mapping of its own, given back as soon as it is freed.
/// glibc starts there too, but raises the bar to the size of each large block freed (up to
/// 32 MB), after which the multi-megabyte texts of a long answer (the folded message, its JSON,
/// its SSE frame) come from the arenas and stay resident as holes. Measured with the serve
/// bench: growth over a 1M-delta answer 35–107 MB with the moving bar, 23–28 MB without.
pub(crate) fn keep_large_blocks_apart() {
    static ONCE: OnceLock<()> = OnceLock::new();
    ONCE.get_or_init(set_mmap_threshold);
}

#[cfg(all(target_os = "linux", target_env = "gnu"))]
#[allow(unsafe_code)]
fn set_mmap_threshold() {
    // glibc moved the trim threshold with the mmap threshold (to twice it); left at its 128 KB
    // start, the main heap would hand its top back after nearly every large free while a
    // stream runs. 16 MB keeps a stream's working memory; the trims after each run return it.
    // SAFETY: mallopt takes two integers and only changes the allocator's own parameters,
    // under its lock.
    let set = unsafe {
        libc::mallopt(libc::M_MMAP_THRESHOLD, 128 * 1024) == 1
            && libc::mallopt(libc::M_TRIM_THRESHOLD, 16 * 1024 * 1024) == 1
    };
    if !set {
        tracing::debug!("the allocator kept its thresholds");
    }
}

#[cfg(not(all(target_os = "linux", target_env = "gnu")))]
fn set_mmap_threshold() {}

/// Whether a trim is queued and has not started yet: many requests at once (200 subscribers
/// leaving together) make one trim.
static QUEUED: AtomicBool = AtomicBool::new(false);
/// When the latest request came, in milliseconds since [`epoch`].
static LATEST: AtomicU64 = AtomicU64::new(0);

/// How long a queued trim waits after the latest request: when a run ends, its streams, their
/// clients and the store's writer are still freeing what they held for a few tens of
/// milliseconds.
const SETTLE: Duration = Duration::from_millis(200);

fn epoch() -> Instant {
    static EPOCH: OnceLock<Instant> = OnceLock::new();
    *EPOCH.get_or_init(Instant::now)
}

fn now_ms() -> u64 {
    u64::try_from(epoch().elapsed().as_millis()).unwrap_or(u64::MAX)
}

/// Returns freed memory to the system once no request has come for [`SETTLE`], off the
/// caller's thread when there is a runtime (a trim locks each arena in turn and may take
/// milliseconds on a large heap).
/// `first` runs before the trim (caches to drop); when a trim is already queued, the queued
/// one's runs instead.
pub(crate) fn release_freed_memory_soon(first: impl FnOnce() + Send + 'static) {
    LATEST.store(now_ms(), Ordering::Release);
    if QUEUED.swap(true, Ordering::AcqRel) {
        return;
    }
    match tokio::runtime::Handle::try_current() {
        Ok(runtime) => {
            runtime.spawn_blocking(|| {
                settle();
                QUEUED.store(false, Ordering::Release);
                first();
                release_freed_memory();
            });
        }
        // No runtime to wait on (a synchronous caller): at once.
        Err(_) => {
            QUEUED.store(false, Ordering::Release);
            first();
            release_freed_memory();
        }
    }
}

/// Sleeps until no request has come for [`SETTLE`].
fn settle() {
    loop {
        let quiet = now_ms().saturating_sub(LATEST.load(Ordering::Acquire));
        let settle = u64::try_from(SETTLE.as_millis()).unwrap_or(u64::MAX);
        let Some(left) = settle.checked_sub(quiet) else {
            return;
        };
        std::thread::sleep(Duration::from_millis(left.max(1)));
    }
}

/// Returns the free pages of every malloc arena to the system; true when some were.
#[cfg(all(target_os = "linux", target_env = "gnu"))]
#[allow(unsafe_code)]
pub(crate) fn release_freed_memory() -> bool {
    // SAFETY: malloc_trim takes no pointer and has no precondition; it only changes the
    // allocator's own free lists, under the allocator's locks.
    let released = unsafe { libc::malloc_trim(0) } != 0;
    tracing::debug!(released, "returned freed heap memory to the system");
    released
}

/// Other allocators (musl, macOS, Windows) return freed memory on their own.
#[cfg(not(all(target_os = "linux", target_env = "gnu")))]
pub(crate) fn release_freed_memory() -> bool {
    false
}

#[cfg(all(test, target_os = "linux", target_env = "gnu"))]
mod tests {
    use super::*;

    fn rss_kb() -> u64 {
        std::fs::read_to_string("/proc/self/status")
            .ok()
            .and_then(|s| {
                s.lines()
                    .find_map(|l| l.strip_prefix("VmRSS:"))
                    .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
            })
            .unwrap_or(0)
    }

    #[test]
    fn memory_freed_in_small_pieces_goes_back_to_the_system() {
        // Many small blocks (below glibc's mmap threshold), every other one kept: freeing the
        // rest leaves holes that glibc holds on to until it is trimmed.
        let mut blocks: Vec<Vec<u8>> = (0..200_000).map(|i| vec![i as u8; 1000]).collect();
        let mut kept = Vec::new();
        for (i, block) in blocks.drain(..).enumerate() {
            if i % 50 == 0 {
                kept.push(block);
            }
        }
        let before = rss_kb();
        release_freed_memory();
        let after = rss_kb();
        assert!(
            before.saturating_sub(after) > 100_000,
            "RSS before the trim {before} kB, after {after} kB"
        );
        assert_eq!(kept.len(), 4000);
    }
}
