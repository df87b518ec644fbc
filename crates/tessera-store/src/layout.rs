//! Where things live in a data folder.

use std::path::{Path, PathBuf};

use crate::error::{Result, StoreError};
use crate::file_modes::{create_private_dir, private_file, tighten, FILE_MODE, FOLDER_MODE};

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

    /// Creates the folders (0700; not the database) and the database file (0600) when there
    /// is none, so SQLite's WAL and SHM, which take the database's mode, are private too.
    pub(crate) fn create_folders(&self) -> Result<()> {
        for dir in [&self.root, &self.attachments, &self.backups] {
            create_private_dir(dir).map_err(StoreError::io("cannot create the folder", dir))?;
        }
        for dir in [&self.attachments, &self.backups] {
            tighten(dir, FOLDER_MODE).map_err(StoreError::io("cannot protect the folder", dir))?;
        }
        match private_file()
            .write(true)
            .create_new(true)
            .open(&self.database)
        {
            Ok(_) => {}
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {}
            Err(e) => return Err(StoreError::io("cannot create the database", &self.database)(e)),
        }
        for suffix in ["", "-wal", "-shm"] {
            let file = PathBuf::from(format!("{}{suffix}", self.database.display()));
            tighten(&file, FILE_MODE).map_err(StoreError::io("cannot protect the file", &file))?;
        }
        Ok(())
    }
}
