//! Free space on the disk a folder is on, and the machine's memory: what decides whether a
//! model fits and which one to recommend.

use std::path::Path;

/// Bytes an unprivileged process may still write on the file system holding `folder`.
#[allow(unsafe_code)]
pub fn free_bytes(folder: &Path) -> std::io::Result<u64> {
    use std::os::unix::ffi::OsStrExt;
    let path = std::ffi::CString::new(folder.as_os_str().as_bytes())
        .map_err(|_| std::io::Error::new(std::io::ErrorKind::InvalidInput, "a NUL in the path"))?;
    // SAFETY: `path` is a valid NUL-terminated string and `stats` a writable statvfs the call
    // fills in; nothing else is read or kept.
    let mut stats: libc::statvfs = unsafe { std::mem::zeroed() };
    let result = unsafe { libc::statvfs(path.as_ptr(), &mut stats) };
    if result != 0 {
        return Err(std::io::Error::last_os_error());
    }
    // Both are u64 on 64-bit Linux, the only target the desktop build has.
    Ok(stats.f_bavail.saturating_mul(stats.f_frsize))
}

/// The machine's physical memory in bytes (`MemTotal` of /proc/meminfo), if it can be read.
pub fn total_memory() -> Option<u64> {
    let text = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = text.lines().find(|l| l.starts_with("MemTotal:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib * 1024)
}

/// Takes `file`'s advisory lock for this process, without waiting: false when another process
/// (or another open file of this one) holds it. Released when the file is closed.
#[allow(unsafe_code)]
pub fn try_lock(file: &std::fs::File) -> std::io::Result<bool> {
    use std::os::fd::AsRawFd;
    // SAFETY: the descriptor belongs to `file`, open for the whole call.
    let result = unsafe { libc::flock(file.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) };
    if result == 0 {
        return Ok(true);
    }
    let err = std::io::Error::last_os_error();
    if err.kind() == std::io::ErrorKind::WouldBlock {
        Ok(false)
    } else {
        Err(err)
    }
}
