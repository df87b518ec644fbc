//! Where things live in a data folder.

use std::fs;
use std::path::{Path, PathBuf};

use crate::error::{Result, StoreError};

/// The database file's name inside the data folder.
pub const DATABASE_FILE: &str = "tessera.sqlite";

/// The paths of a data folder: the database, content-addressed attachments, pre-migration
/// backups (and the lock file, see [`crate::lock`]).
#[derive(Clone, Debug)]
pub struct DataPaths {
    pub root: PathBuf,
    pub database: PathBuf,
    pub attachments: PathBuf,
    pub backups: PathBuf,
}

impl DataPaths {
    pub fn new(root: &Path) -> Self {
        Self {
            root: root.to_path_buf(),
            database: root.join(DATABASE_FILE),
            attachments: root.join("attachments"),
            backups: root.join("backups"),
        }
    }

    /// Creates the folders (not the database).
    pub(crate) fn create_folders(&self) -> Result<()> {
        for dir in [&self.root, &self.attachments, &self.backups] {
            fs::create_dir_all(dir).map_err(StoreError::io("cannot create the folder", dir))?;
        }
        Ok(())
    }
}
