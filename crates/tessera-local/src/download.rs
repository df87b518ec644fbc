//! Model files from Hugging Face: resumable, checked against the hub's SHA-256, with progress,
//! pause and cancel, and the disk space checked before the first byte.
//!
//! A file is written to `<name>.incomplete` beside where it will live and renamed only once its
//! hash matches, so a model file on disk is always whole. Nothing past the size the hub
//! announced is written, and a file the hub gives no SHA-256 for (nor the catalogue pins) is
//! refused: what is kept is always what was checked. Folders made here are 0700 and files 0600,
//! as the rest of the data folder (`tessera local pull` may be the first command to make it). The hub is `HF_ENDPOINT` when set (a
//! mirror, or a local server in tests), else <https://huggingface.co>, as the hub's own clients
//! read it.

use std::io::{Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use futures_util::StreamExt;
use reqwest::header::{HeaderMap, CONTENT_LENGTH, CONTENT_RANGE, ETAG, LOCATION, RANGE};
use reqwest::{Client, StatusCode};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use tokio_util::sync::CancellationToken;

use crate::disk::{free_bytes, try_lock};

/// The hub when `HF_ENDPOINT` is not set.
pub const DEFAULT_ENDPOINT: &str = "https://huggingface.co";
/// Left free on the disk beyond the file itself: a full disk breaks more than the download.
pub const SPARE_BYTES: u64 = 512 * 1024 * 1024;
/// Connection cuts survived in one download before it gives up (it resumes each time).
const ATTEMPTS: u32 = 4;
/// How often progress is reported at most.
const PROGRESS_EVERY: Duration = Duration::from_millis(200);

/// One file of a model repository at a revision.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct HubFile {
    /// `owner/name`.
    pub repo: String,
    /// A branch, tag or commit (`main` when unsure).
    pub revision: String,
    /// The file's path in the repository.
    pub file: String,
}

impl HubFile {
    /// The file's name on disk: its last path segment.
    pub fn file_name(&self) -> &str {
        self.file.rsplit('/').next().unwrap_or(&self.file)
    }
}

/// What the hub says of a file before it is downloaded.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RemoteFile {
    pub size: u64,
    /// Lower-case hex; the hub gives it for every file stored with Git LFS (every GGUF).
    pub sha256: Option<String>,
}

/// How far a download is.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Progress {
    pub done: u64,
    pub total: u64,
    /// Over the last few seconds; 0 until known.
    pub bytes_per_second: f64,
    /// Seconds left at that speed, when known.
    pub seconds_left: Option<f64>,
    pub phase: Phase,
}

/// What a download is doing.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Phase {
    /// Reading back what an earlier attempt wrote, to go on hashing from its end.
    CheckingPartial,
    Downloading,
    /// Checking the whole file's hash.
    Verifying,
}

#[derive(Debug, thiserror::Error)]
pub enum DownloadError {
    #[error("cannot reach the model hub at {url}: {reason}")]
    Unreachable { url: String, reason: String },
    #[error("the model hub answered {status} for {url}")]
    Status { url: String, status: u16 },
    #[error("the model hub gave no size for {url}")]
    NoSize { url: String },
    #[error(
        "not enough disk space in {folder}: the model needs {needed} more bytes (and {spare} spare), \
         {free} are free"
    )]
    NotEnoughSpace {
        folder: PathBuf,
        needed: u64,
        spare: u64,
        free: u64,
    },
    #[error(
        "the downloaded file's SHA-256 is {got}, the hub's is {expected}: the file was removed; \
         try again, or check a mirror or proxy (HF_ENDPOINT) that may alter files"
    )]
    ChecksumMismatch { expected: String, got: String },
    #[error("the hub's file is {got}, not the {expected} expected of it (it changed on the hub)")]
    Changed { expected: String, got: String },
    #[error(
        "the model hub gave no SHA-256 for {file} ({url}), so it cannot be checked and was not \
         downloaded: use a hub that gives it (Hugging Face does for every GGUF; check --hub, \
         HF_ENDPOINT or the app's hub setting), or put a copy you trust in the data folder's \
         `models` folder yourself"
    )]
    NoChecksum { file: String, url: String },
    #[error(
        "the model hub sent more than the {announced} bytes it announced for {url}: the download \
         was stopped there and what it wrote removed"
    )]
    Oversized { url: String, announced: u64 },
    #[error("the download was stopped")]
    Stopped,
    #[error("{0} is being downloaded already (by another window or command)")]
    Busy(PathBuf),
    #[error("{context} {path}: {source}")]
    Io {
        context: &'static str,
        path: PathBuf,
        source: std::io::Error,
    },
}

fn io<'a>(
    context: &'static str,
    path: &'a Path,
) -> impl FnOnce(std::io::Error) -> DownloadError + 'a {
    move |source| DownloadError::Io {
        context,
        path: path.to_owned(),
        source,
    }
}

/// The hub files come from.
#[derive(Debug, Clone)]
pub struct Hub {
    endpoint: String,
    /// Follows redirects (the hub sends file bodies from a CDN).
    client: Client,
    /// Does not: the hub's own answer carries the file's size and hash.
    head_client: Client,
}

impl Hub {
    /// The hub at `endpoint` (`HF_ENDPOINT`'s value, or [`DEFAULT_ENDPOINT`]), with clients
    /// from `builder` (proxy and certificates set, e.g. with the providers layer's
    /// `network_builder`).
    pub fn new<E: std::fmt::Display>(
        endpoint: &str,
        builder: impl Fn() -> Result<reqwest::ClientBuilder, E>,
    ) -> Result<Self, DownloadError> {
        let unreachable = |reason: String| DownloadError::Unreachable {
            url: endpoint.to_owned(),
            reason,
        };
        let build = |follow: bool| {
            let mut builder = builder().map_err(|err| unreachable(err.to_string()))?;
            if !follow {
                builder = builder.redirect(reqwest::redirect::Policy::none());
            }
            builder.build().map_err(|err| unreachable(err.to_string()))
        };
        Ok(Self {
            endpoint: endpoint.trim_end_matches('/').to_owned(),
            client: build(true)?,
            head_client: build(false)?,
        })
    }

    /// `HF_ENDPOINT` when set and not blank, else the public hub.
    pub fn endpoint_from_env() -> String {
        std::env::var("HF_ENDPOINT")
            .ok()
            .filter(|e| !e.trim().is_empty())
            .unwrap_or_else(|| DEFAULT_ENDPOINT.to_owned())
    }

    pub fn endpoint(&self) -> &str {
        &self.endpoint
    }

    /// Where the hub serves the file.
    pub fn url(&self, file: &HubFile) -> String {
        format!(
            "{}/{}/resolve/{}/{}",
            self.endpoint, file.repo, file.revision, file.file
        )
    }

    /// The file's size and SHA-256, from the hub's answer to a HEAD (not followed: an LFS file's
    /// redirect carries `X-Linked-Size` and `X-Linked-Etag`, the hash). A catalogue model at its
    /// pinned revision must have its pinned hash; a file with no hash at all is refused.
    pub async fn remote(&self, file: &HubFile) -> Result<RemoteFile, DownloadError> {
        let url = self.url(file);
        let answer = self
            .head_client
            .head(&url)
            .send()
            .await
            .map_err(|err| unreachable(&url, &err))?;
        let status = answer.status();
        if !(status.is_success() || status.is_redirection()) {
            return Err(DownloadError::Status {
                url,
                status: status.as_u16(),
            });
        }
        let headers = answer.headers();
        let size = header_u64(headers, "x-linked-size")
            .or_else(|| {
                (!headers.contains_key(LOCATION))
                    .then(|| header_u64(headers, CONTENT_LENGTH.as_str()))
                    .flatten()
            })
            .ok_or_else(|| DownloadError::NoSize { url: url.clone() })?;
        let sha256 = ["x-linked-etag", ETAG.as_str()]
            .into_iter()
            .filter_map(|name| headers.get(name)?.to_str().ok())
            .map(|etag| {
                etag.trim_start_matches("W/")
                    .trim_matches('"')
                    .to_ascii_lowercase()
            })
            .find(|etag| is_sha256(etag));
        let sha256 = match (crate::catalogue::pinned_sha256(file), sha256) {
            (Some(pinned), Some(hub)) if hub != pinned => {
                return Err(DownloadError::Changed {
                    expected: format!("SHA-256 {pinned}"),
                    got: format!("SHA-256 {hub}"),
                })
            }
            (Some(pinned), _) => pinned.to_owned(),
            (None, Some(hub)) => hub,
            (None, None) => {
                return Err(DownloadError::NoChecksum {
                    file: file.file.clone(),
                    url,
                })
            }
        };
        Ok(RemoteFile {
            size,
            sha256: Some(sha256),
        })
    }
}

fn unreachable(url: &str, err: &reqwest::Error) -> DownloadError {
    // reqwest's own text names only the URL: the cause (refused, reset, a certificate) is in
    // its sources.
    let mut reason = String::new();
    let mut cause: Option<&dyn std::error::Error> = std::error::Error::source(err);
    while let Some(inner) = cause {
        if !reason.is_empty() {
            reason.push_str(": ");
        }
        reason.push_str(&inner.to_string());
        cause = inner.source();
    }
    if reason.is_empty() {
        reason = err.to_string();
    }
    DownloadError::Unreachable {
        url: url.to_owned(),
        reason,
    }
}

fn header_u64(headers: &HeaderMap, name: &str) -> Option<u64> {
    headers.get(name)?.to_str().ok()?.trim().parse().ok()
}

pub(crate) fn is_sha256(text: &str) -> bool {
    text.len() == 64 && text.bytes().all(|b| b.is_ascii_hexdigit())
}

/// What a finished download left.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Downloaded {
    pub path: PathBuf,
    pub size: u64,
    pub sha256: String,
}

/// The partial file of `target`, and the note beside it saying what it is part of (so a
/// resumed download never appends another file's bytes).
fn partial_paths(target: &Path) -> (PathBuf, PathBuf) {
    let mut partial = target.as_os_str().to_owned();
    partial.push(".incomplete");
    let mut note = partial.clone();
    note.push(".json");
    (PathBuf::from(partial), PathBuf::from(note))
}

#[derive(Debug, Serialize, Deserialize, PartialEq, Eq)]
struct PartialNote {
    url: String,
    size: u64,
    sha256: Option<String>,
}

/// Downloads `file` to `target`, resuming what an earlier, stopped download of the same file
/// left. `expected` is the hub's answer from [`Hub::remote`] (asked again when None). When
/// `stop` is cancelled the partial file stays for a later call to resume ([`remove_partial`]
/// deletes it: a cancel rather than a pause).
pub async fn download(
    hub: &Hub,
    file: &HubFile,
    target: &Path,
    expected: Option<RemoteFile>,
    stop: &CancellationToken,
    mut progress: impl FnMut(Progress),
) -> Result<Downloaded, DownloadError> {
    let remote = match expected {
        Some(remote) => remote,
        None => hub.remote(file).await?,
    };
    let url = hub.url(file);
    if remote.sha256.is_none() {
        return Err(DownloadError::NoChecksum {
            file: file.file.clone(),
            url,
        });
    }
    let folder = target
        .parent()
        .map(Path::to_owned)
        .unwrap_or_else(|| PathBuf::from("."));
    private_dir(&folder).map_err(io("cannot create the models folder", &folder))?;
    let (partial, note_path) = partial_paths(target);
    // Held until the download ends: two downloads of one file would write over each other.
    let mut out = private_file()
        .create(true)
        .read(true)
        .append(true)
        .open(&partial)
        .map_err(io("cannot open", &partial))?;
    if !try_lock(&out).map_err(io("cannot lock", &partial))? {
        return Err(DownloadError::Busy(target.to_owned()));
    }
    let note = PartialNote {
        url: url.clone(),
        size: remote.size,
        sha256: remote.sha256.clone(),
    };
    let same_file = std::fs::read(&note_path)
        .ok()
        .and_then(|bytes| serde_json::from_slice::<PartialNote>(&bytes).ok())
        .is_some_and(|old| old == note);
    if !same_file {
        out.set_len(0).map_err(io("cannot truncate", &partial))?;
    }
    let note_json = serde_json::to_vec(&note).map_err(|err| DownloadError::Io {
        context: "cannot write",
        path: note_path.clone(),
        source: std::io::Error::other(err),
    })?;
    private_file()
        .create(true)
        .write(true)
        .truncate(true)
        .open(&note_path)
        .and_then(|mut f| f.write_all(&note_json))
        .map_err(io("cannot write", &note_path))?;

    let mut have = out.metadata().map_err(io("cannot read", &partial))?.len();
    if have > remote.size {
        out.set_len(0).map_err(io("cannot truncate", &partial))?;
        have = 0;
    }
    let free = free_bytes(&folder).map_err(io("cannot read the free space of", &folder))?;
    let needed = remote.size - have;
    if free < needed.saturating_add(SPARE_BYTES) {
        return Err(DownloadError::NotEnoughSpace {
            folder,
            needed,
            spare: SPARE_BYTES,
            free,
        });
    }

    // The hash goes on from where the partial file ends: what it holds is read back first.
    let mut hasher = Sha256::new();
    if have > 0 {
        hash_existing(
            &mut out,
            have,
            &mut hasher,
            &partial,
            stop,
            &mut progress,
            remote.size,
        )?;
    }
    let mut meter = Meter::new(have, remote.size);
    let mut cut = 0;
    while have < remote.size {
        match fetch_from(
            hub,
            &url,
            have,
            &mut out,
            &partial,
            &mut hasher,
            stop,
            &mut meter,
            &mut progress,
            remote.size,
        )
        .await
        {
            Ok(Fetched::Bytes(n)) => have += n,
            Ok(Fetched::Restarted(n)) => {
                // The server sent the whole file instead of the range asked: what was kept
                // was dropped and hashed afresh (`fetch_from` did both).
                have = n;
            }
            Err(DownloadError::Unreachable { .. })
                if cut + 1 < ATTEMPTS && !stop.is_cancelled() =>
            {
                cut += 1;
                have = out.metadata().map_err(io("cannot read", &partial))?.len();
                tracing::info!(attempt = cut, have, "the download was cut; resuming");
                tokio::time::sleep(Duration::from_millis(250 * u64::from(cut))).await;
            }
            Err(err @ DownloadError::Oversized { .. }) => {
                drop(out);
                remove_partial(target)?;
                return Err(err);
            }
            Err(err) => return Err(err),
        }
        if have > remote.size {
            break;
        }
    }
    out.flush().map_err(io("cannot write", &partial))?;
    out.sync_all().map_err(io("cannot write", &partial))?;
    drop(out);
    progress(Progress {
        done: have,
        total: remote.size,
        bytes_per_second: 0.0,
        seconds_left: None,
        phase: Phase::Verifying,
    });
    let got = hex(&hasher.finalize());
    let wrong_size = have != remote.size;
    match &remote.sha256 {
        Some(expected) if *expected != got || wrong_size => {
            remove_partial(target)?;
            return Err(DownloadError::ChecksumMismatch {
                expected: expected.clone(),
                got,
            });
        }
        None if wrong_size => {
            remove_partial(target)?;
            return Err(DownloadError::Changed {
                expected: format!("{} bytes", remote.size),
                got: format!("{have} bytes"),
            });
        }
        _ => {}
    }
    std::fs::rename(&partial, target).map_err(io("cannot move the finished file to", target))?;
    remove_if_there(&note_path)?;
    Ok(Downloaded {
        path: target.to_owned(),
        size: have,
        sha256: got,
    })
}

/// Creates `folder` and the folders above it that are missing, owner only; an existing folder
/// keeps its mode.
fn private_dir(folder: &Path) -> std::io::Result<()> {
    use std::os::unix::fs::DirBuilderExt;
    std::fs::DirBuilder::new()
        .recursive(true)
        .mode(0o700)
        .create(folder)
}

/// Opens files the person alone may read (an existing file keeps its mode).
fn private_file() -> std::fs::OpenOptions {
    use std::os::unix::fs::OpenOptionsExt;
    let mut options = std::fs::OpenOptions::new();
    options.mode(0o600);
    options
}

/// Deletes what a stopped download of `target` left (a cancel, not a pause).
pub fn remove_partial(target: &Path) -> Result<(), DownloadError> {
    let (partial, note) = partial_paths(target);
    remove_if_there(&partial)?;
    remove_if_there(&note)
}

/// The bytes a stopped download of `target` holds, if any.
pub fn partial_size(target: &Path) -> Option<u64> {
    let (partial, _) = partial_paths(target);
    std::fs::metadata(partial).ok().map(|m| m.len())
}

fn remove_if_there(path: &Path) -> Result<(), DownloadError> {
    match std::fs::remove_file(path) {
        Ok(()) => Ok(()),
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => Ok(()),
        Err(err) => Err(DownloadError::Io {
            context: "cannot remove",
            path: path.to_owned(),
            source: err,
        }),
    }
}

fn hash_existing(
    file: &mut std::fs::File,
    have: u64,
    hasher: &mut Sha256,
    path: &Path,
    stop: &CancellationToken,
    progress: &mut impl FnMut(Progress),
    total: u64,
) -> Result<(), DownloadError> {
    file.seek(SeekFrom::Start(0))
        .map_err(io("cannot read", path))?;
    let mut left = have;
    let mut buffer = vec![0u8; 1 << 20];
    let mut last = Instant::now();
    while left > 0 {
        if stop.is_cancelled() {
            return Err(DownloadError::Stopped);
        }
        let want = usize::try_from(left.min(buffer.len() as u64)).unwrap_or(buffer.len());
        let n = file
            .read(&mut buffer[..want])
            .map_err(io("cannot read", path))?;
        if n == 0 {
            break;
        }
        hasher.update(&buffer[..n]);
        left -= n as u64;
        if last.elapsed() >= PROGRESS_EVERY {
            last = Instant::now();
            progress(Progress {
                done: have - left,
                total,
                bytes_per_second: 0.0,
                seconds_left: None,
                phase: Phase::CheckingPartial,
            });
        }
    }
    Ok(())
}

enum Fetched {
    /// This many more bytes were appended.
    Bytes(u64),
    /// The file was started over and now holds this many bytes.
    Restarted(u64),
}

/// One request for the file from byte `from` on, appended to `out` until it ends or is cut,
/// never past `size`, the length the hub announced.
#[allow(clippy::too_many_arguments)]
async fn fetch_from(
    hub: &Hub,
    url: &str,
    from: u64,
    out: &mut std::fs::File,
    path: &Path,
    hasher: &mut Sha256,
    stop: &CancellationToken,
    meter: &mut Meter,
    progress: &mut impl FnMut(Progress),
    size: u64,
) -> Result<Fetched, DownloadError> {
    let mut request = hub.client.get(url);
    if from > 0 {
        request = request.header(RANGE, format!("bytes={from}-"));
    }
    let answer = tokio::select! {
        answer = request.send() => answer.map_err(|err| unreachable(url, &err))?,
        () = stop.cancelled() => return Err(DownloadError::Stopped),
    };
    let status = answer.status();
    let restarted = match status {
        StatusCode::PARTIAL_CONTENT => {
            let starts_at = answer
                .headers()
                .get(CONTENT_RANGE)
                .and_then(|v| v.to_str().ok())
                .and_then(|v| v.strip_prefix("bytes "))
                .and_then(|v| v.split('-').next())
                .and_then(|v| v.parse::<u64>().ok());
            if starts_at != Some(from) {
                return Err(DownloadError::Status {
                    url: url.to_owned(),
                    status: status.as_u16(),
                });
            }
            false
        }
        StatusCode::OK => from > 0,
        _ => {
            return Err(DownloadError::Status {
                url: url.to_owned(),
                status: status.as_u16(),
            })
        }
    };
    if restarted {
        out.set_len(0).map_err(io("cannot truncate", path))?;
        *hasher = Sha256::new();
        meter.restart();
    }
    // What the file may still take: a hub that sends more (a lie about the size, or another
    // file) must not fill the disk, whose space was checked against the announced size.
    let mut room = size.saturating_sub(if restarted { 0 } else { from });
    let oversized = || DownloadError::Oversized {
        url: url.to_owned(),
        announced: size,
    };
    if answer.content_length().is_some_and(|len| len > room) {
        return Err(oversized());
    }
    let mut body = answer.bytes_stream();
    let mut got = 0u64;
    // While the hub sends nothing the progress still moves on: the last bytes are shown, and
    // the speed falls, rather than a figure from before the stall.
    let mut quiet = tokio::time::interval(PROGRESS_EVERY);
    quiet.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        let chunk = tokio::select! {
            chunk = body.next() => chunk,
            _ = quiet.tick() => {
                if let Some(report) = meter.advance(0) {
                    progress(report);
                }
                continue;
            }
            () = stop.cancelled() => {
                out.flush().map_err(io("cannot write", path))?;
                return Err(DownloadError::Stopped);
            }
        };
        let Some(chunk) = chunk else { break };
        let chunk = chunk.map_err(|err| unreachable(url, &err))?;
        if chunk.len() as u64 > room {
            return Err(oversized());
        }
        room -= chunk.len() as u64;
        out.write_all(&chunk).map_err(io("cannot write", path))?;
        hasher.update(&chunk);
        got += chunk.len() as u64;
        if let Some(report) = meter.advance(chunk.len() as u64) {
            progress(report);
        }
    }
    Ok(if restarted {
        Fetched::Restarted(got)
    } else {
        Fetched::Bytes(got)
    })
}

/// Speed over a sliding window of a few seconds, and progress at most every
/// [`PROGRESS_EVERY`].
struct Meter {
    done: u64,
    total: u64,
    samples: std::collections::VecDeque<(Instant, u64)>,
    last_report: Option<Instant>,
}

impl Meter {
    const WINDOW: Duration = Duration::from_secs(5);

    fn new(done: u64, total: u64) -> Self {
        let mut samples = std::collections::VecDeque::new();
        samples.push_back((Instant::now(), done));
        Self {
            done,
            total,
            samples,
            last_report: None,
        }
    }

    fn restart(&mut self) {
        *self = Self::new(0, self.total);
    }

    fn advance(&mut self, bytes: u64) -> Option<Progress> {
        self.done += bytes;
        let now = Instant::now();
        if self
            .last_report
            .is_some_and(|last| now.duration_since(last) < PROGRESS_EVERY)
            && self.done < self.total
        {
            return None;
        }
        self.last_report = Some(now);
        self.samples.push_back((now, self.done));
        while self.samples.len() > 2
            && self
                .samples
                .front()
                .is_some_and(|(at, _)| now.duration_since(*at) > Self::WINDOW)
        {
            self.samples.pop_front();
        }
        let (first_at, first_done) = self.samples.front().copied().unwrap_or((now, self.done));
        let seconds = now.duration_since(first_at).as_secs_f64();
        let speed = if seconds > 0.0 {
            (self.done - first_done) as f64 / seconds
        } else {
            0.0
        };
        Some(Progress {
            done: self.done,
            total: self.total,
            bytes_per_second: speed,
            seconds_left: (speed > 0.0)
                .then(|| self.total.saturating_sub(self.done) as f64 / speed),
            phase: Phase::Downloading,
        })
    }
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}
