//! Models on this machine, for the settings page and the first-run offer: the catalogue, the
//! files in the data folder's `models` folder, downloads in the background (progress, pause,
//! resume, cancel), delete, and making one the model new runs use (the `on-device` provider).
//! `tessera local` does the same from the command line with the same pieces. Downloads come
//! from the hub address a person set (a mirror), else `HF_ENDPOINT`, else Hugging Face, through
//! the proxy a person set for them, else the on-device provider's, else the system's.

mod downloads;

use std::io::Read;
use std::path::{Path, PathBuf};
use std::time::Duration;

use tessera_local::catalogue::{self, CatalogueModel, Tier, CATALOGUE};
use tessera_local::download::{self, DownloadError, Hub};
use tessera_local::hub_settings::{check_hub_address, check_hub_proxy, HubSettingError};
use tessera_local::library::{hub_file_for, Library, LibraryError};
use tessera_local::runtime::WorkerState;
use tessera_providers::presets;
use thiserror::Error;

use crate::providers::ProvidersError;
use crate::views::local_models::{
    CatalogueEntry, DownloadCancelled, DownloadFailure, DownloadFailureCode, DownloadPhase,
    DownloadView, LocalContextSet, LocalFile, LocalFileRemoved, LocalModelChosen, LocalModelsView,
    ModelTier, WorkerView,
};
use crate::App;
use tessera_engine::local_models::ContextError;

pub(crate) use downloads::Downloads;
use downloads::Stop;

/// The provider local models are offered through.
pub const ON_DEVICE: &str = "on-device";

/// The app setting (JSON text) holding the hub address a person set: a mirror.
pub const HUB_ADDRESS_SETTING: &str = "model_hub_address";
/// The app setting (JSON text) holding the proxy a person set for downloads.
pub const HUB_PROXY_SETTING: &str = "model_hub_proxy";

/// How long downloads wait for the hub to accept a connection.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(15);

#[derive(Debug, Error)]
pub enum LocalModelsError {
    #[error(transparent)]
    Library(#[from] LibraryError),
    #[error(transparent)]
    Providers(#[from] ProvidersError),
    #[error("{0} is downloaded already")]
    AlreadyThere(String),
    #[error("no download of {0} is running or stopped")]
    NoDownload(String),
    #[error("{0} is still downloading: pause or cancel it first")]
    StillDownloading(String),
    #[error("{file} is not a GGUF model file ({why})")]
    NotAModel { file: String, why: String },
    #[error(transparent)]
    Context(#[from] tessera_engine::local_models::ContextError),
    #[error(transparent)]
    HubSetting(#[from] HubSettingError),
    #[error(transparent)]
    Store(#[from] crate::StoreError),
}

impl LocalModelsError {
    /// A request the person can correct (a name, a state), as opposed to a disk or store failure.
    pub fn is_conflict(&self) -> bool {
        matches!(
            self,
            Self::AlreadyThere(_) | Self::StillDownloading(_) | Self::NotAModel { .. }
        )
    }

    pub fn is_not_found(&self) -> bool {
        matches!(
            self,
            Self::NoDownload(_) | Self::Library(LibraryError::NotFound(_))
        )
    }

    pub fn is_bad_request(&self) -> bool {
        matches!(
            self,
            Self::Library(LibraryError::BadName(_) | LibraryError::UnknownModel(_))
                | Self::Context(tessera_engine::local_models::ContextError::OutOfRange(_))
                | Self::HubSetting(_)
        )
    }
}

type Outcome<T> = Result<T, LocalModelsError>;

/// The local-model operations of an [`App`].
pub struct LocalModels<'a> {
    app: &'a App,
}

impl App {
    pub fn local_models(&self) -> LocalModels<'_> {
        LocalModels { app: self }
    }
}

impl LocalModels<'_> {
    fn library(&self) -> Library {
        Library::new(&self.app.engine().store().paths().root)
    }

    /// Everything the settings page shows.
    pub async fn overview(&self) -> Outcome<LocalModelsView> {
        let library = self.library();
        let on_disk = library.list()?;
        let default_file = self.default_file();
        let recommended = catalogue::recommended(tessera_local::disk::total_memory()).id;
        let catalogue = CATALOGUE
            .iter()
            .map(|m| catalogue_entry(m, m.id == recommended))
            .collect();
        let files = on_disk
            .iter()
            .map(|m| LocalFile {
                file: m.file.clone(),
                bytes: m.bytes,
                partial: m.partial,
                catalogue_id: m.catalogue_id.map(str::to_owned),
                default: !m.partial && default_file.as_deref() == Some(m.file.as_str()),
            })
            .collect();
        let worker_program = tessera_local::worker::worker_binary();
        let saved = self.hub_settings()?;
        Ok(LocalModelsView {
            catalogue,
            files,
            downloads: self.app.downloads().views(),
            used_bytes: on_disk.iter().map(|m| m.bytes).sum(),
            free_bytes: tessera_local::disk::free_bytes(existing_ancestor(library.dir())).ok(),
            folder: library.dir().to_owned(),
            hub: saved.endpoint(),
            hub_address: saved.address,
            hub_proxy: saved.proxy,
            worker_found: program_found(&worker_program),
            worker_program,
            worker: worker_view(self.app.engine().local_models().state().await),
            default_file,
            context_tokens: self
                .app
                .engine()
                .local_models()
                .context_tokens()
                .map_err(ContextError::from)?,
        })
    }

    /// The file the on-device provider answers with, when it is the default provider.
    fn default_file(&self) -> Option<String> {
        let providers = self.app.providers();
        if providers.default().ok().flatten().as_deref() != Some(ON_DEVICE) {
            return None;
        }
        let (config, _) = providers.find(ON_DEVICE).ok().flatten()?;
        config.default_model.filter(|m| !m.is_empty())
    }

    /// Starts downloading `model` (a catalogue id or `OWNER/REPO:FILE.gguf`) in the background,
    /// resuming what an earlier download of it left; its progress is in [`Self::overview`].
    /// Asking again while it runs answers the running one. With `use_when_done` the model
    /// becomes the default once it is whole.
    pub fn download(&self, model: &str, use_when_done: bool) -> Outcome<DownloadView> {
        let file = hub_file_for(model, None)?;
        let library = self.library();
        let target = library.target(&file);
        if target.exists() {
            return Err(LocalModelsError::AlreadyThere(file.file_name().to_owned()));
        }
        let (hub, proxy) = self.hub()?;
        let kept = download::partial_size(&target).unwrap_or(0);
        let ticket =
            match self
                .app
                .downloads()
                .start(model.to_owned(), file.clone(), use_when_done, kept)
            {
                Ok(ticket) => ticket,
                Err(running) => return Ok(*running),
            };
        let view = self
            .app
            .downloads()
            .view(&ticket.file_name)
            .ok_or_else(|| LocalModelsError::NoDownload(ticket.file_name.clone()))?;
        let app = self.app.clone();
        tokio::spawn(async move {
            let downloads = app.downloads();
            let result = async {
                let remote = hub.remote(&file).await?;
                downloads.sized(&ticket, remote.size);
                download::download(&hub, &file, &target, Some(remote), &ticket.token, |p| {
                    downloads.progress(&ticket, &p)
                })
                .await
            }
            .await;
            match result {
                Ok(done) => {
                    let view = downloads.finished(&ticket);
                    tracing::info!(file = %ticket.file_name, bytes = done.size, "model downloaded");
                    if view.is_some_and(|v| v.use_when_done) {
                        if let Err(err) = app.local_models().make_default(&ticket.file_name).await {
                            tracing::warn!(file = %ticket.file_name, "cannot use the downloaded model: {err}");
                        }
                    }
                }
                Err(DownloadError::Stopped) => match downloads.stop_asked(&ticket) {
                    Some(Stop::Cancel) => {
                        if let Err(err) = download::remove_partial(&target) {
                            tracing::warn!(file = %ticket.file_name, "cannot delete the cancelled download: {err}");
                        }
                        downloads.finished(&ticket);
                    }
                    Some(Stop::CancelKeeping) => {
                        downloads.finished(&ticket);
                    }
                    _ => downloads.halted(&ticket, DownloadPhase::Paused, None),
                },
                Err(err) => {
                    tracing::warn!(file = %ticket.file_name, "download failed: {err}");
                    let failure = failure_of(&err, hub.endpoint(), proxy);
                    downloads.halted(
                        &ticket,
                        DownloadPhase::Failed,
                        Some((err.to_string(), failure)),
                    );
                }
            }
        });
        Ok(view)
    }

    /// Pauses a running download; its bytes stay for a later download of the same model.
    pub fn pause(&self, file: &str) -> Outcome<DownloadView> {
        let downloads = self.app.downloads();
        if !downloads.stop(file, Stop::Pause) {
            return Err(LocalModelsError::NoDownload(file.to_owned()));
        }
        downloads
            .view(file)
            .ok_or_else(|| LocalModelsError::NoDownload(file.to_owned()))
    }

    /// Resumes a paused or failed download.
    pub fn resume(&self, file: &str) -> Outcome<DownloadView> {
        match self.app.downloads().stopped_request(file) {
            Some((model, _, use_when_done)) => self.download(&model, use_when_done),
            None if self.app.downloads().is_running(file) => self
                .app
                .downloads()
                .view(file)
                .ok_or_else(|| LocalModelsError::NoDownload(file.to_owned())),
            // A partial file an earlier session left: a catalogue model's is resumed by name.
            None => match CATALOGUE.iter().find(|m| m.file == file) {
                Some(model)
                    if download::partial_size(&self.library().dir().join(file)).is_some() =>
                {
                    self.download(model.id, false)
                }
                _ => Err(LocalModelsError::NoDownload(file.to_owned())),
            },
        }
    }

    /// Stops a download (running, paused, failed, or left by an earlier session) and deletes
    /// what it wrote; with `keep_partial` it only leaves the list, its partial file staying
    /// for a later download of the same model to go on from (gigabytes are not thrown away
    /// by a click).
    pub async fn cancel(&self, file: &str, keep_partial: bool) -> Outcome<DownloadCancelled> {
        bad_name(file)?;
        let downloads = self.app.downloads();
        let target = self.library().dir().join(file);
        // Read first: a running download's task deletes its file itself as it ends.
        let before = download::partial_size(&target);
        let stop = if keep_partial {
            Stop::CancelKeeping
        } else {
            Stop::Cancel
        };
        if downloads.stop(file, stop) {
            // The task deletes the partial file as it ends; wait for it so the answer is true.
            for _ in 0..200 {
                if !downloads.is_running(file) {
                    break;
                }
                tokio::time::sleep(Duration::from_millis(25)).await;
            }
        } else {
            let forgotten = downloads.forget(file);
            if download::partial_size(&target).is_none() && forgotten.is_none() {
                return Err(LocalModelsError::NoDownload(file.to_owned()));
            }
        }
        let written = download::partial_size(&target).or(before).unwrap_or(0);
        if keep_partial {
            return Ok(DownloadCancelled {
                file: file.to_owned(),
                freed_bytes: 0,
                kept_bytes: written,
            });
        }
        download::remove_partial(&target).map_err(LibraryError::from)?;
        Ok(DownloadCancelled {
            file: file.to_owned(),
            freed_bytes: written,
            kept_bytes: 0,
        })
    }

    /// The hub address and the download proxy a person set.
    pub fn hub_settings(&self) -> Outcome<HubSettings> {
        let store = self.app.engine().store();
        let text = |key: &str| -> Outcome<Option<String>> {
            Ok(store
                .app_setting(key)?
                .and_then(|v| v.as_str().map(str::to_owned))
                .filter(|v| !v.is_empty()))
        };
        Ok(HubSettings {
            address: text(HUB_ADDRESS_SETTING)?,
            proxy: text(HUB_PROXY_SETTING)?,
        })
    }

    /// Downloads come from `address` (a mirror such as https://hf-mirror.com), checked first;
    /// None or blank: from `HF_ENDPOINT`, or Hugging Face. A running download keeps its hub.
    pub fn set_hub_address(&self, address: Option<&str>) -> Outcome<HubSettings> {
        let checked = check_hub_address(address.unwrap_or(""))?;
        self.save_hub_setting(HUB_ADDRESS_SETTING, checked)
    }

    /// Downloads go through `proxy` (http:// or https://), checked first; None or blank: the
    /// on-device provider's proxy, or the system's.
    pub fn set_hub_proxy(&self, proxy: Option<&str>) -> Outcome<HubSettings> {
        let checked = check_hub_proxy(proxy.unwrap_or(""))?;
        self.save_hub_setting(HUB_PROXY_SETTING, checked)
    }

    fn save_hub_setting(&self, key: &str, value: Option<String>) -> Outcome<HubSettings> {
        let store = self.app.engine().store();
        match value {
            Some(value) => store.set_app_setting(key, serde_json::Value::String(value))?,
            None => {
                store.delete_app_setting(key)?;
            }
        }
        self.hub_settings()
    }

    /// Deletes a model file (stopping the worker first when it runs that model); the default
    /// model gone, new runs have none until another is chosen.
    pub async fn remove(&self, file: &str) -> Outcome<LocalFileRemoved> {
        bad_name(file)?;
        if self.app.downloads().is_running(file) {
            return Err(LocalModelsError::StillDownloading(file.to_owned()));
        }
        let library = self.library();
        let path = library.dir().join(file);
        if let WorkerState::Running { model, .. } = self.app.engine().local_models().state().await {
            if model == path {
                self.app.engine().local_models().unload().await;
            }
        }
        let freed_bytes = library.remove(file)?;
        self.app.downloads().forget(file);
        let model = self.app.reload_model_status().await;
        Ok(LocalFileRemoved {
            file: file.to_owned(),
            freed_bytes,
            model,
        })
    }

    /// Makes `file` (whole, in the models folder) the model new runs use: the on-device
    /// provider, with that model, becomes the default.
    pub async fn make_default(&self, file: &str) -> Outcome<LocalModelChosen> {
        bad_name(file)?;
        let path = self.library().dir().join(file);
        check_gguf(&path, file)?;
        self.choose(file.to_owned()).await
    }

    /// Uses a GGUF file from elsewhere on this computer where it is (a model is gigabytes:
    /// nothing is copied); the models folder's own files by their name.
    pub async fn use_file(&self, path: &Path) -> Outcome<LocalModelChosen> {
        let shown = path.display().to_string();
        if !path.is_absolute() {
            return Err(LocalModelsError::NotAModel {
                file: shown,
                why: "give the file's full path".into(),
            });
        }
        let path = match std::fs::canonicalize(path) {
            Ok(path) => path,
            Err(_) => return Err(LibraryError::NotFound(shown).into()),
        };
        if !path.is_file() {
            return Err(LocalModelsError::NotAModel {
                file: shown,
                why: "it is not a file".into(),
            });
        }
        check_gguf(&path, &shown)?;
        let library = self.library();
        let in_folder = path
            .parent()
            .zip(std::fs::canonicalize(library.dir()).ok())
            .is_some_and(|(parent, dir)| parent == dir);
        let model = match path.file_name() {
            Some(name) if in_folder => name.to_string_lossy().into_owned(),
            _ => path.to_string_lossy().into_owned(),
        };
        self.choose(model).await
    }

    /// The on-device provider, answering with `model` (a file of the models folder or a full
    /// path), becomes the default.
    async fn choose(&self, model: String) -> Outcome<LocalModelChosen> {
        let file = model.as_str();
        let providers = self.app.providers();
        let (mut config, _) = providers.require(ON_DEVICE)?;
        if !presets::is_local(&config) {
            return Err(ProvidersError::Invalid(format!(
                "the saved provider {ON_DEVICE} is not the on-device one (its base URL is {}): \
                 remove it to use models on this machine",
                config.base_url
            ))
            .into());
        }
        config.default_model = Some(file.to_owned());
        config.models.entry(file.to_owned()).or_default();
        providers.check_and_save(&mut config)?;
        providers.set_default(ON_DEVICE)?;
        let model = self.app.reload_model_status().await;
        Ok(LocalModelChosen {
            file: file.to_owned(),
            model,
        })
    }

    /// The context local models are loaded with, in tokens (None: the worker chooses from the
    /// model and the memory). A running model keeps its context until the next message to it,
    /// which loads it again with this one.
    pub fn set_context(&self, tokens: Option<u64>) -> Outcome<LocalContextSet> {
        let tokens = self
            .app
            .engine()
            .local_models()
            .set_context_tokens(tokens)?;
        Ok(LocalContextSet {
            context_tokens: tokens,
        })
    }

    /// Stops the worker now (its memory goes back to the system); the next message to a local
    /// model starts it again.
    pub async fn stop_worker(&self) -> WorkerView {
        let local = self.app.engine().local_models();
        local.unload().await;
        worker_view(local.state().await)
    }

    /// The hub, with the proxy a person set for downloads, else the on-device provider's; and
    /// that proxy, to name it when the hub cannot be reached.
    fn hub(&self) -> Outcome<(Hub, Option<String>)> {
        let saved = self.hub_settings()?;
        let (provider_proxy, certs) = match self.app.providers().find(ON_DEVICE) {
            Ok(Some((config, _))) => (config.proxy, config.extra_ca_certs),
            _ => (None, Vec::new()),
        };
        let proxy = saved.proxy.clone().or(provider_proxy);
        let hub = Hub::new(&saved.endpoint(), || {
            tessera_providers::http::network_builder(
                "downloads",
                proxy.as_deref(),
                &certs,
                CONNECT_TIMEOUT,
            )
        })
        .map_err(LibraryError::from)?;
        let shown = proxy.filter(|p| !p.trim().is_empty() && p.trim() != "none");
        Ok((hub, shown))
    }
}

/// The hub address and download proxy a person set (None: not set).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct HubSettings {
    pub address: Option<String>,
    pub proxy: Option<String>,
}

impl HubSettings {
    /// Where downloads come from: the address set, else `HF_ENDPOINT`, else Hugging Face.
    pub fn endpoint(&self) -> String {
        self.address.clone().unwrap_or_else(Hub::endpoint_from_env)
    }
}

/// What a failed download's error is, for a page to say in the person's language.
fn failure_of(err: &DownloadError, hub: &str, proxy: Option<String>) -> DownloadFailure {
    let mut failure = DownloadFailure {
        code: DownloadFailureCode::Other,
        hub: hub.to_owned(),
        proxy,
        status: None,
        needed_bytes: None,
        free_bytes: None,
    };
    match err {
        DownloadError::Unreachable { .. } => failure.code = DownloadFailureCode::HubUnreachable,
        DownloadError::Status { status, .. } => {
            failure.code = if *status == 404 {
                DownloadFailureCode::NotOnHub
            } else {
                DownloadFailureCode::HubRefused
            };
            failure.status = Some(*status);
        }
        DownloadError::NotEnoughSpace {
            needed,
            spare,
            free,
            ..
        } => {
            failure.code = DownloadFailureCode::NotEnoughSpace;
            failure.needed_bytes = Some(needed.saturating_add(*spare));
            failure.free_bytes = Some(*free);
        }
        DownloadError::ChecksumMismatch { .. } | DownloadError::Changed { .. } => {
            failure.code = DownloadFailureCode::ChecksumMismatch;
        }
        _ => {}
    }
    failure
}

fn catalogue_entry(m: &CatalogueModel, recommended: bool) -> CatalogueEntry {
    CatalogueEntry {
        id: m.id.to_owned(),
        name: m.name.to_owned(),
        tier: match m.tier {
            Tier::Small => ModelTier::Small,
            Tier::Medium => ModelTier::Medium,
            Tier::Large => ModelTier::Large,
        },
        repo: m.repo.to_owned(),
        file: m.file.to_owned(),
        approx_bytes: m.approx_bytes,
        licence: m.licence.to_owned(),
        good_at: m.good_at.to_owned(),
        good_at_zh: m.good_at_zh.to_owned(),
        recommended,
    }
}

fn worker_view(state: WorkerState) -> WorkerView {
    let name = |path: &Path| {
        path.file_name().map_or_else(
            || path.display().to_string(),
            |n| n.to_string_lossy().into_owned(),
        )
    };
    match state {
        WorkerState::NotRunning => WorkerView::NotRunning,
        WorkerState::Running { model, n_ctx, .. } => WorkerView::Running {
            model: name(&model),
            n_ctx,
        },
        WorkerState::Died {
            model,
            status,
            said,
        } => WorkerView::Died {
            model: name(&model),
            status,
            said,
        },
    }
}

/// A file's name alone: no folder, nothing that leaves the models folder.
fn bad_name(file: &str) -> Outcome<()> {
    if file.is_empty() || file.contains(['/', '\\', '\0']) || file == "." || file == ".." {
        return Err(LibraryError::BadName(file.to_owned()).into());
    }
    Ok(())
}

/// A model file is whole and starts with GGUF's magic; anything else would only fail later,
/// in the worker, with less to say.
fn check_gguf(path: &Path, file: &str) -> Outcome<()> {
    let not = |why: String| LocalModelsError::NotAModel {
        file: file.to_owned(),
        why,
    };
    let mut magic = [0u8; 4];
    match std::fs::File::open(path) {
        Ok(mut f) => f
            .read_exact(&mut magic)
            .map_err(|err| not(format!("cannot read it: {err}")))?,
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => {
            return Err(LibraryError::NotFound(file.to_owned()).into())
        }
        Err(err) => return Err(not(format!("cannot open it: {err}"))),
    }
    if &magic != b"GGUF" {
        return Err(not("it does not start with GGUF".into()));
    }
    Ok(())
}

/// The folder, or the nearest one above it that exists (the models folder is made on the first
/// download), for the free space.
fn existing_ancestor(dir: &Path) -> &Path {
    dir.ancestors().find(|d| d.is_dir()).unwrap_or(dir)
}

/// Whether the worker program can be started: a file that exists, or a name the PATH has.
fn program_found(program: &Path) -> bool {
    if program.components().count() > 1 {
        return program.is_file();
    }
    std::env::var_os("PATH").is_some_and(|paths| {
        std::env::split_paths(&paths).any(|dir: PathBuf| dir.join(program).is_file())
    })
}
