//! `secrets.json`: the secrets of a person who chose a file over the OS keyring. Owner-only
//! (0600 in a 0700 folder), rewritten whole through a temporary file and a rename so a crash
//! leaves the old file or the new one, never half of one.
//!
//! Only a file carrying [`FORMAT`] is the key file. A folder chosen with `--data-dir` may hold
//! a `secrets.json` of the person's own: it is never read as keys nor rewritten, and every use
//! of it is refused with the reason. The file an older Tessera wrote (no marker) is taken over
//! only when it is exactly that file: the two fields it wrote, its own sentence, mode 0600.
//!
//! Modes are checked at every open, not once: a file or folder loosened after the first start
//! (a restore, a `chmod`, a sync tool) is tightened again, and the person is told.

use std::collections::BTreeMap;
use std::fs;
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::sync::{Mutex, MutexGuard};

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::{check_account, KeyStore, Result, Secret, SecretBackend, SecretError};

/// The marker of Tessera's key file, and the version of its shape.
pub const FORMAT: &str = "tessera-secrets/1";

/// What the file says about itself, for a person who opens it. Also what tells the file an
/// older Tessera wrote (without [`FORMAT`]) from anyone else's.
const ABOUT: &str = "Tessera's secrets (API keys, MCP server secrets), kept in this file because \
                     the system keyring was not used. Readable by you alone; never share or copy it.";

/// Owner only.
const FILE_MODE: u32 = 0o600;
const FOLDER_MODE: u32 = 0o700;

#[derive(Default, Serialize, Deserialize)]
struct Contents {
    format: String,
    about: String,
    secrets: BTreeMap<String, String>,
}

impl Contents {
    fn fresh() -> Self {
        Self {
            format: FORMAT.to_owned(),
            about: ABOUT.to_owned(),
            secrets: BTreeMap::new(),
        }
    }
}

/// What is at the key file's path.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum KeyFileState {
    Absent,
    /// Tessera's key file (carrying [`FORMAT`], or an older Tessera's, taken over).
    Ours,
    /// A file that is not Tessera's: never read as keys, never written; why it is not.
    NotOurs(String),
}

/// What reading the path found.
enum Found {
    Absent,
    Ours(Contents),
    /// An older Tessera's file: taken over by writing it again with the marker.
    Older(Contents),
    NotOurs(String),
}

/// The key file at one path.
#[derive(Debug)]
pub struct KeyFile {
    path: PathBuf,
    // Each change reads, edits and rewrites the whole file: one at a time in this process
    // (the data-folder lock keeps other processes of the app out).
    writing: Mutex<()>,
    /// Modes found loosened and tightened, in words for the person; kept while the process
    /// runs, for the settings page.
    notices: Mutex<Vec<String>>,
}

impl KeyFile {
    pub fn new(path: impl Into<PathBuf>) -> Self {
        Self {
            path: path.into(),
            writing: Mutex::new(()),
            notices: Mutex::new(Vec::new()),
        }
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Whether something is at the path (Tessera's key file or not).
    pub fn exists(&self) -> bool {
        fs::symlink_metadata(&self.path).is_ok()
    }

    /// Whether the path holds Tessera's key file, someone else's file, or nothing. Opening it
    /// checks (and tightens) its modes, as every use does.
    pub fn state(&self) -> Result<KeyFileState> {
        let _held = self.guard();
        Ok(match self.open()? {
            Found::Absent => KeyFileState::Absent,
            Found::Ours(_) | Found::Older(_) => KeyFileState::Ours,
            Found::NotOurs(reason) => KeyFileState::NotOurs(reason),
        })
    }

    /// The modes found loosened (and tightened) since this process started.
    pub fn notices(&self) -> Vec<String> {
        lock(&self.notices).clone()
    }

    fn problem(&self, reason: impl Into<String>) -> SecretError {
        SecretError::KeyFile {
            path: self.path.clone(),
            reason: reason.into(),
        }
    }

    fn not_ours(&self, reason: String) -> SecretError {
        SecretError::NotKeyFile {
            path: self.path.clone(),
            reason,
        }
    }

    fn guard(&self) -> MutexGuard<'_, ()> {
        lock(&self.writing)
    }

    /// Reads and identifies the file; Tessera's has its modes checked and, when loosened,
    /// tightened. Called with the guard held.
    fn open(&self) -> Result<Found> {
        let meta = match fs::symlink_metadata(&self.path) {
            Ok(meta) => meta,
            Err(error) if error.kind() == io::ErrorKind::NotFound => return Ok(Found::Absent),
            Err(error) => return Err(self.problem(format!("cannot be read ({error})"))),
        };
        if !meta.file_type().is_file() {
            // A link could point anywhere; Tessera never writes one.
            return Ok(Found::NotOurs("it is not a plain file".into()));
        }
        let text = fs::read_to_string(&self.path)
            .map_err(|error| self.problem(format!("cannot be read ({error})")))?;
        let found = identify(&text, mode_of(&meta));
        if let Found::Ours(_) | Found::Older(_) = found {
            self.tighten_modes()?;
        }
        Ok(found)
    }

    /// The contents of Tessera's key file (empty when there is none); someone else's file is
    /// refused with the reason. An older Tessera's file is written again with the marker.
    fn load(&self) -> Result<Contents> {
        match self.open()? {
            Found::Absent => Ok(Contents::fresh()),
            Found::Ours(contents) => Ok(contents),
            Found::Older(mut contents) => {
                contents.format = FORMAT.to_owned();
                self.write(&contents)?;
                tracing::info!(path = %self.path.display(), "the key file now carries its format marker");
                Ok(contents)
            }
            Found::NotOurs(reason) => Err(self.not_ours(reason)),
        }
    }

    /// Sets the file back to 0600 and its folder to 0700 when either was loosened, and says so
    /// (logged, and kept for [`KeyFile::notices`]).
    fn tighten_modes(&self) -> Result<()> {
        let mut changed = Vec::new();
        let folder = self.path.parent().filter(|d| !d.as_os_str().is_empty());
        for (path, mode, what) in [
            (Some(self.path.as_path()), FILE_MODE, "the key file"),
            (folder, FOLDER_MODE, "the key file's folder"),
        ] {
            let Some(path) = path else { continue };
            match tighten(path, mode) {
                Ok(Some(was)) => changed.push(format!(
                    "{what} {} was open to other users (mode {was:04o}); it was set back to                      {mode:04o}",
                    path.display()
                )),
                Ok(None) => {}
                Err(error) => {
                    return Err(self.problem(format!(
                        "is open to other users and its mode cannot be set back to {mode:04o}                          ({error}); it was not used"
                    )))
                }
            }
        }
        for notice in changed {
            tracing::warn!("{notice}");
            let mut notices = lock(&self.notices);
            if !notices.contains(&notice) {
                notices.push(notice);
            }
        }
        Ok(())
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
        let _held = self.guard();
        Ok(self.load()?.secrets.into_keys().collect())
    }

    /// Stores every one of `secrets` in one write (creating the file): all or none.
    pub fn set_all(&self, secrets: &[(String, Secret)]) -> Result<()> {
        for (account, _) in secrets {
            check_account(account)?;
        }
        let _held = self.guard();
        let mut contents = self.load()?;
        for (account, secret) in secrets {
            contents
                .secrets
                .insert(account.clone(), secret.expose().to_owned());
        }
        self.write(&contents)
    }

    /// Removes Tessera's key file (after its secrets moved elsewhere); someone else's file is
    /// refused and left.
    pub fn remove(&self) -> Result<()> {
        let _held = self.guard();
        if let Found::NotOurs(reason) = self.open()? {
            return Err(self.not_ours(reason));
        }
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
        let _held = self.guard();
        Ok(self.load()?.secrets.remove(account).map(Secret::new))
    }

    fn set(&self, account: &str, secret: &Secret) -> Result<()> {
        check_account(account)?;
        let _held = self.guard();
        let mut contents = self.load()?;
        contents
            .secrets
            .insert(account.to_owned(), secret.expose().to_owned());
        self.write(&contents)
    }

    fn delete(&self, account: &str) -> Result<bool> {
        check_account(account)?;
        let _held = self.guard();
        let mut contents = self.load()?;
        if contents.secrets.remove(account).is_none() {
            return Ok(false);
        }
        self.write(&contents)?;
        Ok(true)
    }

    fn kept_in(&self) -> SecretBackend {
        SecretBackend::File
    }
}

/// Which file `text` is. Tessera's carries [`FORMAT`]; an older Tessera's is exactly its two
/// fields with its own sentence, in an owner-only file (`mode`, None where modes do not exist).
fn identify(text: &str, mode: Option<u32>) -> Found {
    let value: Value = match serde_json::from_str(text) {
        Ok(value) => value,
        Err(error) => return Found::NotOurs(format!("it is not JSON ({error})")),
    };
    let Value::Object(fields) = &value else {
        return Found::NotOurs("it is not a JSON object".into());
    };
    let strings = |v: Option<&Value>| -> Option<BTreeMap<String, String>> {
        v?.as_object()?
            .iter()
            .map(|(k, v)| Some((k.clone(), v.as_str()?.to_owned())))
            .collect()
    };
    match fields.get("format") {
        Some(Value::String(format)) if format == FORMAT => match strings(fields.get("secrets")) {
            Some(secrets) => Found::Ours(Contents {
                format: FORMAT.to_owned(),
                about: ABOUT.to_owned(),
                secrets,
            }),
            None => Found::NotOurs(
                "it carries Tessera's format marker but its `secrets` is not an object of \
                     strings"
                    .into(),
            ),
        },
        Some(other) => Found::NotOurs(format!(
            "its format is {other}, not \"{FORMAT}\" (written by another program, or a newer \
             Tessera)"
        )),
        None => {
            let older_shape = fields.len() == 2
                && fields.get("about").and_then(Value::as_str) == Some(ABOUT)
                && strings(fields.get("secrets")).is_some();
            if !older_shape {
                return Found::NotOurs(format!(
                    "it does not carry Tessera's format marker (\"format\": \"{FORMAT}\")"
                ));
            }
            match mode {
                Some(mode) if mode != FILE_MODE => Found::NotOurs(format!(
                    "it looks like an older Tessera's key file but is mode {mode:04o}, not \
                     0600, so it may not be the one Tessera wrote; if it is yours, `chmod 600` \
                     it"
                )),
                _ => Found::Older(Contents {
                    format: String::new(),
                    about: ABOUT.to_owned(),
                    secrets: strings(fields.get("secrets")).unwrap_or_default(),
                }),
            }
        }
    }
}

fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

#[cfg(unix)]
fn mode_of(meta: &fs::Metadata) -> Option<u32> {
    use std::os::unix::fs::PermissionsExt;
    Some(meta.permissions().mode() & 0o777)
}

#[cfg(not(unix))]
fn mode_of(_: &fs::Metadata) -> Option<u32> {
    None
}

/// Sets `path`'s mode to `mode` when it grants more; the mode it had when it changed.
#[cfg(unix)]
fn tighten(path: &Path, mode: u32) -> io::Result<Option<u32>> {
    use std::os::unix::fs::PermissionsExt;
    let current = fs::metadata(path)?.permissions().mode() & 0o777;
    if current & !mode == 0 {
        return Ok(None);
    }
    fs::set_permissions(path, fs::Permissions::from_mode(mode))?;
    Ok(Some(current))
}

#[cfg(not(unix))]
fn tighten(_: &Path, _: u32) -> io::Result<Option<u32>> {
    Ok(None)
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
        options.mode(FILE_MODE);
    }
    options
}

fn create_private_dir(dir: &Path) -> io::Result<()> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::DirBuilderExt;
        fs::DirBuilder::new()
            .recursive(true)
            .mode(FOLDER_MODE)
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
        assert_eq!(file.state().unwrap(), KeyFileState::Absent);
        file.set("openai", &Secret::new("sk-1")).unwrap();
        file.set("mcp/gh/env/GITHUB_TOKEN", &Secret::new("ghp_2"))
            .unwrap();
        assert_eq!(file.get("openai").unwrap(), Some(Secret::new("sk-1")));
        assert_eq!(
            file.accounts().unwrap(),
            ["mcp/gh/env/GITHUB_TOKEN", "openai"]
        );
        let written: Value =
            serde_json::from_str(&fs::read_to_string(file.path()).unwrap()).unwrap();
        assert_eq!(written["format"], FORMAT);
        assert_eq!(file.state().unwrap(), KeyFileState::Ours);
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
        // The person's own file: not JSON, or JSON with a `secrets` map of its own.
        for text in [
            "not json {",
            r#"{"secrets": {"openai": "theirs"}, "notes": "my vault"}"#,
            r#"{"format": "tessera-secrets/9", "secrets": {}}"#,
        ] {
            fs::write(&path, text).unwrap();
            let file = KeyFile::new(&path);
            assert!(matches!(file.state().unwrap(), KeyFileState::NotOurs(_)));
            let err = file.set("openai", &Secret::new("sk")).unwrap_err();
            let said = err.to_string();
            assert!(said.contains("is not Tessera's key file"), "{said}");
            assert!(said.contains("secrets.json"), "{said}");
            assert!(file.get("openai").is_err(), "read as keys: {text}");
            assert!(file.remove().is_err());
            assert_eq!(fs::read_to_string(&path).unwrap(), text);
        }
    }

    #[cfg(unix)]
    fn set_mode(path: &Path, mode: u32) {
        use std::os::unix::fs::PermissionsExt;
        fs::set_permissions(path, fs::Permissions::from_mode(mode)).unwrap();
    }

    #[cfg(unix)]
    fn mode(path: &Path) -> u32 {
        use std::os::unix::fs::PermissionsExt;
        fs::metadata(path).unwrap().permissions().mode() & 0o777
    }

    #[cfg(unix)]
    #[test]
    fn an_older_tessera_s_file_is_taken_over_only_when_it_is_exactly_that() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("secrets.json");
        let older = serde_json::json!({"about": ABOUT, "secrets": {"openai": "sk-old"}});
        let text = serde_json::to_string_pretty(&older).unwrap();
        fs::write(&path, &text).unwrap();
        // Open to others: it may not be the file Tessera wrote.
        set_mode(&path, 0o644);
        let file = KeyFile::new(&path);
        let err = file.get("openai").unwrap_err().to_string();
        assert!(err.contains("mode 0644"), "{err}");
        assert_eq!(fs::read_to_string(&path).unwrap(), text);
        assert_eq!(mode(&path), 0o644, "someone else's file is not touched");
        // Owner-only: Tessera's, written again with the marker.
        set_mode(&path, 0o600);
        assert_eq!(file.get("openai").unwrap(), Some(Secret::new("sk-old")));
        let now: Value = serde_json::from_str(&fs::read_to_string(&path).unwrap()).unwrap();
        assert_eq!(now["format"], FORMAT);
        assert_eq!(now["secrets"]["openai"], "sk-old");
        // One more field than Tessera ever wrote is someone else's.
        let extra = serde_json::json!({"about": ABOUT, "secrets": {}, "owner": "me"});
        fs::write(&path, extra.to_string()).unwrap();
        assert!(matches!(file.state().unwrap(), KeyFileState::NotOurs(_)));
    }

    #[cfg(unix)]
    #[test]
    fn loosened_modes_are_tightened_at_every_open_and_said() {
        let dir = tempfile::tempdir().unwrap();
        let folder = dir.path().join("data");
        let file = KeyFile::new(folder.join("secrets.json"));
        file.set("openai", &Secret::new("sk-1")).unwrap();
        assert!(file.notices().is_empty());
        set_mode(file.path(), 0o644);
        set_mode(&folder, 0o755);
        assert_eq!(file.get("openai").unwrap(), Some(Secret::new("sk-1")));
        assert_eq!(mode(file.path()), 0o600);
        assert_eq!(mode(&folder), 0o700);
        let notices = file.notices();
        assert_eq!(notices.len(), 2, "{notices:?}");
        assert!(notices[0].contains("mode 0644") && notices[0].contains("0600"));
        assert!(notices[1].contains("mode 0755") && notices[1].contains("0700"));
        // Loosened again later: caught again at the next open.
        set_mode(file.path(), 0o640);
        assert_eq!(file.state().unwrap(), KeyFileState::Ours);
        assert_eq!(mode(file.path()), 0o600);
        assert!(file.notices()[2].contains("mode 0640"));
    }
}
