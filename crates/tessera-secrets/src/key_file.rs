//! `secrets.json`: the secrets of a person who chose a file over the OS keyring. Owner-only
//! (0600 in a 0700 folder), rewritten whole through a temporary file and a rename so a crash
//! leaves the old file or the new one, never half of one. A file that is not one Tessera wrote
//! is reported and never overwritten.

use std::collections::BTreeMap;
use std::fs;
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::sync::{Mutex, MutexGuard};

use serde::{Deserialize, Serialize};

use crate::{check_account, KeyStore, Result, Secret, SecretError};

/// What the file says about itself, for a person who opens it.
const ABOUT: &str = "Tessera's secrets (API keys, MCP server secrets), kept in this file because \
                     the system keyring was not used. Readable by you alone; never share or copy it.";

#[derive(Default, Serialize, Deserialize)]
struct Contents {
    #[serde(default)]
    about: String,
    #[serde(default)]
    secrets: BTreeMap<String, String>,
}

/// The key file at one path.
#[derive(Debug)]
pub struct KeyFile {
    path: PathBuf,
    // Each change reads, edits and rewrites the whole file: one at a time in this process
    // (the data-folder lock keeps other processes of the app out).
    writing: Mutex<()>,
}

impl KeyFile {
    pub fn new(path: impl Into<PathBuf>) -> Self {
        Self {
            path: path.into(),
            writing: Mutex::new(()),
        }
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    pub fn exists(&self) -> bool {
        self.path.exists()
    }

    fn problem(&self, reason: impl Into<String>) -> SecretError {
        SecretError::KeyFile {
            path: self.path.clone(),
            reason: reason.into(),
        }
    }

    fn guard(&self) -> MutexGuard<'_, ()> {
        self.writing
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    fn read(&self) -> Result<Contents> {
        let text = match fs::read_to_string(&self.path) {
            Ok(text) => text,
            Err(error) if error.kind() == io::ErrorKind::NotFound => return Ok(Contents::default()),
            Err(error) => return Err(self.problem(format!("cannot be read ({error})"))),
        };
        serde_json::from_str(&text).map_err(|error| {
            self.problem(format!(
                "is not a Tessera key file ({error}); it was left as it is"
            ))
        })
    }

    fn write(&self, contents: &Contents) -> Result<()> {
        let text = serde_json::to_string_pretty(contents)
            .map_err(|error| self.problem(format!("cannot be written ({error})")))?;
        let temp = temp_path(&self.path);
        let written = (|| -> io::Result<()> {
            if let Some(dir) = self.path.parent() {
                create_private_dir(dir)?;
            }
            let mut file = private_file()
                .write(true)
                .create(true)
                .truncate(true)
                .open(&temp)?;
            file.write_all(text.as_bytes())?;
            file.write_all(b"\n")?;
            file.sync_all()?;
            fs::rename(&temp, &self.path)?;
            if let Some(dir) = self.path.parent() {
                // The rename is durable once the folder is.
                fs::File::open(dir).and_then(|d| d.sync_all()).ok();
            }
            Ok(())
        })();
        written.map_err(|error| {
            let _ = fs::remove_file(&temp);
            self.problem(format!("cannot be written ({error})"))
        })
    }

    /// The accounts it holds.
    pub fn accounts(&self) -> Result<Vec<String>> {
        Ok(self.read()?.secrets.into_keys().collect())
    }

    /// Stores every one of `secrets` in one write (creating the file): all or none.
    pub fn set_all(&self, secrets: &[(String, Secret)]) -> Result<()> {
        for (account, _) in secrets {
            check_account(account)?;
        }
        let _held = self.guard();
        let mut contents = self.read()?;
        contents.about = ABOUT.to_owned();
        for (account, secret) in secrets {
            contents
                .secrets
                .insert(account.clone(), secret.expose().to_owned());
        }
        self.write(&contents)
    }

    /// Removes the file (after its secrets moved elsewhere).
    pub fn remove(&self) -> Result<()> {
        let _held = self.guard();
        match fs::remove_file(&self.path) {
            Ok(()) => Ok(()),
            Err(error) if error.kind() == io::ErrorKind::NotFound => Ok(()),
            Err(error) => Err(self.problem(format!("cannot be removed ({error})"))),
        }
    }
}

impl KeyStore for KeyFile {
    fn get(&self, account: &str) -> Result<Option<Secret>> {
        check_account(account)?;
        Ok(self.read()?.secrets.remove(account).map(Secret::new))
    }

    fn set(&self, account: &str, secret: &Secret) -> Result<()> {
        check_account(account)?;
        let _held = self.guard();
        let mut contents = self.read()?;
        contents.about = ABOUT.to_owned();
        contents
            .secrets
            .insert(account.to_owned(), secret.expose().to_owned());
        self.write(&contents)
    }

    fn delete(&self, account: &str) -> Result<bool> {
        check_account(account)?;
        let _held = self.guard();
        let mut contents = self.read()?;
        if contents.secrets.remove(account).is_none() {
            return Ok(false);
        }
        self.write(&contents)?;
        Ok(true)
    }
}

fn temp_path(path: &Path) -> PathBuf {
    let mut name = path.file_name().unwrap_or_default().to_os_string();
    name.push(".tmp");
    path.with_file_name(name)
}

/// Options that create a file readable by its owner alone (an existing one is rewritten in
/// place by the rename, so the new file's mode is the one that counts).
fn private_file() -> fs::OpenOptions {
    let mut options = fs::OpenOptions::new();
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.mode(0o600);
    }
    options
}

fn create_private_dir(dir: &Path) -> io::Result<()> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::DirBuilderExt;
        fs::DirBuilder::new()
            .recursive(true)
            .mode(0o700)
            .create(dir)
    }
    #[cfg(not(unix))]
    {
        fs::create_dir_all(dir)
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    #[test]
    fn secrets_round_trip_in_an_owner_only_file() {
        let dir = tempfile::tempdir().unwrap();
        let file = KeyFile::new(dir.path().join("data/secrets.json"));
        assert_eq!(file.get("openai").unwrap(), None);
        assert!(!file.exists(), "reading creates nothing");
        file.set("openai", &Secret::new("sk-1")).unwrap();
        file.set("mcp/gh/env/GITHUB_TOKEN", &Secret::new("ghp_2"))
            .unwrap();
        assert_eq!(file.get("openai").unwrap(), Some(Secret::new("sk-1")));
        assert_eq!(
            file.accounts().unwrap(),
            ["mcp/gh/env/GITHUB_TOKEN", "openai"]
        );
        assert!(file.delete("openai").unwrap());
        assert!(!file.delete("openai").unwrap());
        assert!(!temp_path(file.path()).exists());
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = fs::metadata(file.path()).unwrap().permissions().mode();
            assert_eq!(mode & 0o777, 0o600);
            let dir_mode = fs::metadata(dir.path().join("data"))
                .unwrap()
                .permissions()
                .mode();
            assert_eq!(dir_mode & 0o777, 0o700);
        }
    }

    #[test]
    fn a_file_tessera_did_not_write_is_reported_and_left_alone() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("secrets.json");
        fs::write(&path, "not json {").unwrap();
        let file = KeyFile::new(&path);
        let err = file.set("openai", &Secret::new("sk")).unwrap_err();
        assert!(
            err.to_string().contains("is not a Tessera key file"),
            "{err}"
        );
        assert!(err.to_string().contains("secrets.json"), "{err}");
        assert_eq!(fs::read_to_string(&path).unwrap(), "not json {");
        assert!(file.get("openai").is_err());
    }
}
