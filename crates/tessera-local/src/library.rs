//! The models on this machine: the `models` folder of the data folder, its GGUF files and the
//! downloads stopped part way.

use std::path::{Path, PathBuf};

use serde::Serialize;

use crate::catalogue::{self, CatalogueModel};
use crate::download::{self, DownloadError, HubFile};

/// The folder models are kept in, under the data folder.
pub fn models_dir(data_dir: &Path) -> PathBuf {
    data_dir.join("models")
}

/// A model file on disk, whole or still downloading.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct LocalModel {
    /// The file's name in the models folder.
    pub file: String,
    pub path: PathBuf,
    pub bytes: u64,
    /// The download stopped part way (paused, cut, or the app quit); `bytes` is what it holds.
    pub partial: bool,
    /// The catalogue's model this file is, if it is one.
    pub catalogue_id: Option<&'static str>,
}

#[derive(Debug, thiserror::Error)]
pub enum LibraryError {
    #[error("cannot read the models folder {path}: {source}")]
    Read {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("no model `{0}` in the models folder (`tessera local list` shows what is there)")]
    NotFound(String),
    #[error("`{0}` is not a model file's name (a name, without folders)")]
    BadName(String),
    #[error(
        "`{0}` is neither a model of the catalogue ({ids}) nor OWNER/REPO:FILE.gguf",
        ids = catalogue_ids()
    )]
    UnknownModel(String),
    #[error(transparent)]
    Download(#[from] DownloadError),
    #[error(transparent)]
    HubSetting(#[from] crate::hub_settings::HubSettingError),
}

fn catalogue_ids() -> String {
    catalogue::CATALOGUE
        .iter()
        .map(|m| m.id)
        .collect::<Vec<_>>()
        .join(", ")
}

/// What `pull` is asked for: a catalogue id, or `owner/repo:path/file.gguf` (any GGUF of the hub).
/// Without a `revision`, a catalogue model comes from its pinned commit and any other from `main`.
pub fn hub_file_for(spec: &str, revision: Option<&str>) -> Result<HubFile, LibraryError> {
    if let Some(model) = catalogue::find(spec) {
        let mut file = model.hub_file();
        if let Some(revision) = revision {
            file.revision = revision.to_owned();
        }
        return Ok(file);
    }
    let revision = revision.unwrap_or("main");
    let (repo, file) = spec
        .split_once(':')
        .ok_or_else(|| LibraryError::UnknownModel(spec.to_owned()))?;
    let repo_ok =
        repo.split('/').count() == 2 && repo.split('/').all(|p| !p.is_empty() && p != "..");
    let file_ok = file.to_ascii_lowercase().ends_with(".gguf")
        && file.split('/').all(|p| !p.is_empty() && p != "..");
    if !repo_ok || !file_ok {
        return Err(LibraryError::UnknownModel(spec.to_owned()));
    }
    Ok(HubFile {
        repo: repo.to_owned(),
        revision: revision.to_owned(),
        file: file.to_owned(),
    })
}

/// The models folder of one data folder.
#[derive(Debug, Clone)]
pub struct Library {
    dir: PathBuf,
}

impl Library {
    pub fn new(data_dir: &Path) -> Self {
        Self {
            dir: models_dir(data_dir),
        }
    }

    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Where `file` is kept once downloaded.
    pub fn target(&self, file: &HubFile) -> PathBuf {
        self.dir.join(file.file_name())
    }

    /// The GGUF files, whole and partial, by name.
    pub fn list(&self) -> Result<Vec<LocalModel>, LibraryError> {
        let entries = match std::fs::read_dir(&self.dir) {
            Ok(entries) => entries,
            Err(err) if err.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
            Err(source) => {
                return Err(LibraryError::Read {
                    path: self.dir.clone(),
                    source,
                })
            }
        };
        let mut models = Vec::new();
        for entry in entries.flatten() {
            let name = entry.file_name().to_string_lossy().into_owned();
            let (file, partial) = match name.strip_suffix(".incomplete") {
                Some(file) => (file.to_owned(), true),
                None => (name.clone(), false),
            };
            if !file.to_ascii_lowercase().ends_with(".gguf") {
                continue;
            }
            let Ok(meta) = entry.metadata() else { continue };
            if !meta.is_file() {
                continue;
            }
            models.push(LocalModel {
                catalogue_id: catalogue::CATALOGUE
                    .iter()
                    .find(|m: &&CatalogueModel| m.file == file)
                    .map(|m| m.id),
                file,
                path: entry.path(),
                bytes: meta.len(),
                partial,
            });
        }
        models.sort_by(|a, b| a.file.cmp(&b.file).then(a.partial.cmp(&b.partial)));
        Ok(models)
    }

    /// Deletes the model file `name` and what a stopped download of it left; returns the bytes
    /// freed.
    pub fn remove(&self, name: &str) -> Result<u64, LibraryError> {
        if name.is_empty() || name.contains('/') || name.contains('\0') || name == ".." {
            return Err(LibraryError::BadName(name.to_owned()));
        }
        let path = self.dir.join(name);
        let found: Vec<LocalModel> = self
            .list()?
            .into_iter()
            .filter(|m| m.file == name)
            .collect();
        if found.is_empty() {
            return Err(LibraryError::NotFound(name.to_owned()));
        }
        let mut freed = 0;
        for model in &found {
            if !model.partial {
                std::fs::remove_file(&model.path).map_err(|source| LibraryError::Read {
                    path: model.path.clone(),
                    source,
                })?;
            }
            freed += model.bytes;
        }
        download::remove_partial(&path)?;
        Ok(freed)
    }
}
