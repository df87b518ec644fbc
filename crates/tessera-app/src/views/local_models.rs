//! What the local-model endpoints answer (`/v1/local-models…`): the catalogue, the files on
//! disk, the downloads under way, the worker's state, and which model is the default.

use std::path::PathBuf;

use serde::Serialize;
use tessera_protocol::settings_api::ModelStatus;
use ts_rs::TS;

/// How large a catalogue model is, and so what it asks of the machine.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "snake_case")]
pub enum ModelTier {
    Small,
    Medium,
    Large,
}

/// A recommended model.
#[derive(Clone, Debug, Serialize, TS)]
pub struct CatalogueEntry {
    /// What `POST /v1/local-models/downloads` and `tessera local pull` take.
    pub id: String,
    pub name: String,
    pub tier: ModelTier,
    /// Where it comes from: `owner/name` on the hub.
    pub repo: String,
    /// Its file's name in the models folder.
    pub file: String,
    /// About (the hub's exact size is checked when it downloads).
    pub approx_bytes: u64,
    pub licence: String,
    pub good_at: String,
    pub good_at_zh: String,
    /// The one for this machine's memory.
    pub recommended: bool,
}

/// A model file in the models folder, whole or stopped part way.
#[derive(Clone, Debug, Serialize, TS)]
pub struct LocalFile {
    pub file: String,
    pub bytes: u64,
    /// A download stopped part way (paused, cut, or the app quit): a download of the same
    /// model resumes it.
    pub partial: bool,
    pub catalogue_id: Option<String>,
    /// The model new runs use.
    pub default: bool,
}

/// What a download is doing.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "snake_case")]
pub enum DownloadPhase {
    /// Asking the hub for the file's size and checksum.
    Starting,
    /// Reading back what an earlier attempt wrote, to go on from its end.
    CheckingPartial,
    Downloading,
    /// Checking the whole file's SHA-256.
    Verifying,
    /// Stopped by the person; the bytes so far are kept.
    Paused,
    /// Stopped by a problem (`problem` says which); the bytes so far are kept.
    Failed,
}

/// A download the app is running or has stopped, until it ends or is cancelled.
#[derive(Clone, Debug, Serialize, TS)]
pub struct DownloadView {
    /// The file's name in the models folder (the download's name in the routes).
    pub file: String,
    /// What was asked for: a catalogue id or `OWNER/REPO:FILE.gguf`.
    pub model: String,
    pub phase: DownloadPhase,
    pub done: u64,
    /// 0 until the hub has said.
    pub total: u64,
    /// Over the last few seconds; 0 until known.
    pub bytes_per_second: f64,
    pub seconds_left: Option<f64>,
    pub problem: Option<String>,
    /// What `problem` says, for a page to say it in the person's language (and offer a mirror
    /// or proxy when the hub could not be reached).
    pub failure: Option<DownloadFailure>,
    /// The model becomes the default when the download ends.
    pub use_when_done: bool,
}

/// Why a download failed, as a code.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "snake_case")]
pub enum DownloadFailureCode {
    /// No connection to the hub (a name that does not resolve, refused, reset, timed out, a
    /// certificate, a proxy that does not answer): a mirror or a proxy may get through.
    HubUnreachable,
    /// The hub (or what stands between) answered with an error (`status`).
    HubRefused,
    /// The hub has no such file (404).
    NotOnHub,
    /// The disk lacks room (`needed_bytes`, `free_bytes`).
    NotEnoughSpace,
    /// The file came out different from the hub's checksum (and was removed).
    ChecksumMismatch,
    /// Anything else: `problem` says what.
    Other,
}

/// A failed download's cause, as a page writes it for a person.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, TS)]
pub struct DownloadFailure {
    pub code: DownloadFailureCode,
    /// The hub's address the download went to.
    pub hub: String,
    /// The proxy it went through, when one was set for downloads.
    pub proxy: Option<String>,
    /// The HTTP status of `hub_refused` and `not_on_hub`.
    pub status: Option<u16>,
    /// What `not_enough_space` needs beyond what it has.
    pub needed_bytes: Option<u64>,
    pub free_bytes: Option<u64>,
}

/// The local-model worker, as a person needs to know it.
#[derive(Clone, Debug, Serialize, TS)]
#[serde(tag = "state", rename_all = "snake_case")]
pub enum WorkerView {
    /// Not started (it starts on the first message to a local model) or stopped when idle.
    NotRunning,
    Running {
        model: String,
        /// Its context, in tokens.
        n_ctx: u32,
    },
    /// It stopped by itself (a crash, or killed): the next message starts it again.
    Died {
        model: String,
        status: String,
        /// The end of its log.
        said: String,
    },
}

/// `GET /v1/local-models`.
#[derive(Clone, Debug, Serialize, TS)]
pub struct LocalModelsView {
    pub catalogue: Vec<CatalogueEntry>,
    pub files: Vec<LocalFile>,
    pub downloads: Vec<DownloadView>,
    /// The models folder.
    pub folder: PathBuf,
    /// Taken by the files (whole and partial).
    pub used_bytes: u64,
    /// Free on the models folder's disk, when known.
    pub free_bytes: Option<u64>,
    /// Where downloads come from: `hub_address`, else `HF_ENDPOINT`, else Hugging Face.
    pub hub: String,
    /// The hub address a person set (a mirror), if any (`PUT /v1/settings/model_hub_address`).
    pub hub_address: Option<String>,
    /// The proxy a person set for downloads, if any (`PUT /v1/settings/model_hub_proxy`).
    pub hub_proxy: Option<String>,
    /// The worker program that runs them, and whether it is there: without it a model can be
    /// downloaded but not used.
    pub worker_program: PathBuf,
    pub worker_found: bool,
    pub worker: WorkerView,
    /// The local model new runs use, when the default provider is the on-device one.
    pub default_file: Option<String>,
    /// The context a person chose for local models, in tokens; None: the worker's choice (the
    /// model's own, at most 16,384, less where the memory would not hold its cache).
    pub context_tokens: Option<u32>,
}

/// `PUT /v1/local-models/context`.
#[derive(Clone, Debug, Serialize, TS)]
pub struct LocalContextSet {
    pub context_tokens: Option<u32>,
}

/// `POST /v1/local-models/files/{file}/default`.
#[derive(Clone, Debug, Serialize, TS)]
pub struct LocalModelChosen {
    pub file: String,
    pub model: ModelStatus,
}

/// `DELETE /v1/local-models/files/{file}`.
#[derive(Clone, Debug, Serialize, TS)]
pub struct LocalFileRemoved {
    pub file: String,
    pub freed_bytes: u64,
    pub model: ModelStatus,
}

/// `DELETE /v1/local-models/downloads/{file}`.
#[derive(Clone, Debug, Serialize, TS)]
pub struct DownloadCancelled {
    pub file: String,
    /// The partial file's bytes, deleted.
    pub freed_bytes: u64,
    /// The partial file's bytes, kept for a later download of the same model to go on from
    /// (`?keep_partial=true`).
    pub kept_bytes: u64,
}
