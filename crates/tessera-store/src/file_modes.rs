//! Who may read the data folder: only the person. The folder and the folders in it are 0700,
//! every file Tessera writes in it (the database with its WAL and SHM, attachments, backups,
//! logs, the lock, `mcp.json`, the key file) 0600, whatever the umask. A data folder Tessera
//! made earlier with looser modes is tightened once when it is opened (and that is recorded in
//! the app settings); a folder that holds anything else than Tessera's own files is someone's
//! own folder, chosen with `--data-dir`, and its own mode is left as it is.

use std::fs;
use std::io;
use std::path::Path;

/// Owner only.
pub const FOLDER_MODE: u32 = 0o700;
/// Owner read and write.
pub const FILE_MODE: u32 = 0o600;

/// The app setting recording when a data folder's modes were tightened.
pub const TIGHTENED_SETTING: &str = "file_modes_tightened_at";

/// The names Tessera keeps at the top of a data folder (anything else there is the person's).
const OWN_NAMES: &[&str] = &[
    "attachments",
    "backups",
    "logs",
    "mcp.json",
    // Downloaded models (`tessera local pull` may be the first command to make the folder).
    "models",
    "tessera.lock",
    "secrets.json",
    // The key file's next version, between its write and its rename.
    "secrets.json.tmp",
];

/// Creates `dir` (and its parents) with [`FOLDER_MODE`]; an existing folder is left as it is.
pub fn create_private_dir(dir: &Path) -> io::Result<()> {
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

/// Options that create a file with [`FILE_MODE`] (an existing file keeps its mode).
pub fn private_file() -> fs::OpenOptions {
    let mut options = fs::OpenOptions::new();
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.mode(FILE_MODE);
    }
    options
}

/// Sets `path`'s mode to `mode` when it is looser; true when it changed. A missing path is
/// nothing to do.
pub fn tighten(path: &Path, mode: u32) -> io::Result<bool> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let meta = match fs::symlink_metadata(path) {
            Ok(meta) => meta,
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(false),
            Err(e) => return Err(e),
        };
        // Never follow a link out of the folder.
        if meta.file_type().is_symlink() {
            return Ok(false);
        }
        let current = meta.permissions().mode() & 0o777;
        if current & !mode == 0 {
            return Ok(false);
        }
        fs::set_permissions(path, fs::Permissions::from_mode(mode))?;
        Ok(true)
    }
    #[cfg(not(unix))]
    {
        let _ = (path, mode);
        Ok(false)
    }
}

/// Whether `root` holds nothing but Tessera's own files: a data folder Tessera made.
pub fn holds_only_tessera(root: &Path) -> bool {
    let Ok(entries) = fs::read_dir(root) else {
        return false;
    };
    let mut any_database = false;
    for entry in entries.flatten() {
        let name = entry.file_name();
        let name = name.to_string_lossy();
        if name.starts_with(crate::layout::DATABASE_FILE) {
            any_database = true;
            continue;
        }
        if !OWN_NAMES.contains(&name.as_ref()) {
            return false;
        }
    }
    any_database
}

/// Tightens every folder and file under `dir` (not following links); how many changed.
pub fn tighten_tree(dir: &Path) -> io::Result<usize> {
    let mut changed = usize::from(tighten(dir, FOLDER_MODE)?);
    let mut stack = vec![dir.to_path_buf()];
    while let Some(folder) = stack.pop() {
        let entries = match fs::read_dir(&folder) {
            Ok(entries) => entries,
            Err(e) if e.kind() == io::ErrorKind::NotFound => continue,
            Err(e) => return Err(e),
        };
        for entry in entries.flatten() {
            let kind = entry.file_type()?;
            let path = entry.path();
            if kind.is_dir() {
                changed += usize::from(tighten(&path, FOLDER_MODE)?);
                stack.push(path);
            } else if kind.is_file() {
                changed += usize::from(tighten(&path, FILE_MODE)?);
            }
        }
    }
    Ok(changed)
}

#[cfg(all(test, unix))]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use super::*;
    use std::os::unix::fs::PermissionsExt;

    fn mode(path: &Path) -> u32 {
        fs::metadata(path).unwrap().permissions().mode() & 0o777
    }

    #[test]
    fn a_tree_is_tightened_without_following_links() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("data");
        fs::create_dir_all(root.join("attachments")).unwrap();
        fs::write(root.join("attachments/a"), "x").unwrap();
        fs::write(root.join("tessera.sqlite"), "x").unwrap();
        let outside = dir.path().join("outside");
        fs::write(&outside, "x").unwrap();
        fs::set_permissions(&outside, fs::Permissions::from_mode(0o644)).unwrap();
        std::os::unix::fs::symlink(&outside, root.join("attachments/link")).unwrap();
        for p in [&root, &root.join("attachments")] {
            fs::set_permissions(p, fs::Permissions::from_mode(0o755)).unwrap();
        }
        fs::set_permissions(
            root.join("tessera.sqlite"),
            fs::Permissions::from_mode(0o644),
        )
        .unwrap();
        assert!(holds_only_tessera(&root));
        assert_eq!(tighten_tree(&root).unwrap(), 4);
        assert_eq!(mode(&root), 0o700);
        assert_eq!(mode(&root.join("attachments")), 0o700);
        assert_eq!(mode(&root.join("attachments/a")), 0o600);
        assert_eq!(mode(&root.join("tessera.sqlite")), 0o600);
        assert_eq!(mode(&outside), 0o644, "a link was followed");
        assert_eq!(tighten_tree(&root).unwrap(), 0, "once is enough");
    }

    #[test]
    fn a_folder_with_the_persons_own_files_is_not_tessera_s() {
        let dir = tempfile::tempdir().unwrap();
        fs::write(dir.path().join("tessera.sqlite"), "x").unwrap();
        fs::write(dir.path().join("thesis.odt"), "x").unwrap();
        assert!(!holds_only_tessera(dir.path()));
        let empty = tempfile::tempdir().unwrap();
        assert!(!holds_only_tessera(empty.path()));
    }
}
