//! The files of a project's folder: `.gitignore` (and `.ignore`) followed as git would, a
//! default list of what is never knowledge (version control, dependencies, build outputs,
//! caches), and no symbolic link followed (a link could lead out of the folder the person
//! chose). Secrets files are found here by name and listed as skipped, not left out silently.

use std::path::{Path, PathBuf};

use ignore::WalkBuilder;
use tessera_protocol::secret_files::is_secret_file_name;

/// Folders never walked into, wherever they are.
pub const IGNORED_DIRS: &[&str] = &[
    ".git",
    ".hg",
    ".svn",
    "node_modules",
    "bower_components",
    "target",
    "build",
    "dist",
    "out",
    ".next",
    ".nuxt",
    "__pycache__",
    ".venv",
    "venv",
    ".tox",
    ".mypy_cache",
    ".pytest_cache",
    ".cache",
    ".gradle",
    ".idea",
    ".vscode",
    ".terraform",
    ".ssh",
    ".gnupg",
];

/// Most entries one walk looks at: a folder bigger than this is indexed in part, and says so.
pub const MAX_ENTRIES: usize = 200_000;

/// What the walk found at one path.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Found {
    /// A regular file to read.
    File {
        path: PathBuf,
        size: u64,
        mtime_ms: i64,
    },
    /// A file listed as skipped before it is read.
    Skipped { path: PathBuf, reason: String },
}

/// What one walk ended with besides its files.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct WalkEnd {
    /// Stopped at [`MAX_ENTRIES`].
    pub truncated: bool,
}

fn mtime_ms(meta: &std::fs::Metadata) -> i64 {
    meta.modified()
        .ok()
        .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
        .map_or(0, |d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX))
}

/// Whether one entry (by its own name) is skipped for being a secrets file.
pub fn secret_by_name(path: &Path) -> bool {
    path.file_name()
        .and_then(|n| n.to_str())
        .is_some_and(is_secret_file_name)
}

/// One file judged alone (a single file a project knows, or one a watcher saw change).
pub fn judge(path: &Path) -> Found {
    if secret_by_name(path) {
        return Found::Skipped {
            path: path.to_owned(),
            reason: "a secrets file (by its name)".into(),
        };
    }
    match std::fs::symlink_metadata(path) {
        Ok(meta) if meta.file_type().is_symlink() => Found::Skipped {
            path: path.to_owned(),
            reason: "a symbolic link (not followed)".into(),
        },
        Ok(meta) if meta.is_file() => Found::File {
            path: path.to_owned(),
            size: meta.len(),
            mtime_ms: mtime_ms(&meta),
        },
        Ok(_) => Found::Skipped {
            path: path.to_owned(),
            reason: "not a regular file".into(),
        },
        Err(e) => Found::Skipped {
            path: path.to_owned(),
            reason: format!("cannot be read: {e}"),
        },
    }
}

/// Whether `path`, inside `root`, is (or is under) a folder the default list leaves out: a
/// watcher reports a folder created there, and what is in it, in either order.
pub fn in_ignored_dir(root: &Path, path: &Path) -> bool {
    path.strip_prefix(root).is_ok_and(|rel| {
        rel.components().any(|c| {
            c.as_os_str()
                .to_str()
                .is_some_and(|name| IGNORED_DIRS.contains(&name))
        })
    })
}

/// Walks `root` (a folder), calling `found` for each file and each skipped entry.
pub fn walk(root: &Path, mut found: impl FnMut(Found)) -> WalkEnd {
    let walker = WalkBuilder::new(root)
        .hidden(false)
        .parents(false)
        .git_ignore(true)
        .git_global(false)
        .git_exclude(false)
        .require_git(false)
        .ignore(true)
        .follow_links(false)
        .filter_entry(|entry| {
            let is_dir = entry.file_type().is_some_and(|t| t.is_dir());
            !(is_dir
                && entry.depth() > 0
                && entry
                    .file_name()
                    .to_str()
                    .is_some_and(|n| IGNORED_DIRS.contains(&n)))
        })
        .build();
    let mut seen = 0usize;
    for entry in walker {
        seen += 1;
        if seen > MAX_ENTRIES {
            return WalkEnd { truncated: true };
        }
        let entry = match entry {
            Ok(entry) => entry,
            Err(err) => {
                tracing::debug!("walk: {err}");
                continue;
            }
        };
        let Some(kind) = entry.file_type() else {
            continue;
        };
        if kind.is_dir() {
            continue;
        }
        found(judge(entry.path()));
    }
    WalkEnd::default()
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn gitignore_defaults_secrets_and_links_are_honoured() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::create_dir_all(root.join("node_modules/x")).unwrap();
        std::fs::create_dir_all(root.join("docs")).unwrap();
        std::fs::write(root.join("node_modules/x/a.js"), "x").unwrap();
        std::fs::write(root.join(".gitignore"), "secret-notes/\n*.tmp\n").unwrap();
        std::fs::create_dir_all(root.join("secret-notes")).unwrap();
        std::fs::write(root.join("secret-notes/n.md"), "x").unwrap();
        std::fs::write(root.join("a.tmp"), "x").unwrap();
        std::fs::write(root.join("docs/n.md"), "x").unwrap();
        std::fs::write(root.join(".env"), "A=b").unwrap();
        let outside = tempfile::tempdir().unwrap();
        std::fs::write(outside.path().join("o.md"), "outside").unwrap();
        std::os::unix::fs::symlink(outside.path(), root.join("link")).unwrap();
        std::os::unix::fs::symlink(outside.path().join("o.md"), root.join("o.md")).unwrap();
        let mut got = Vec::new();
        walk(root, |f| got.push(f));
        let files: Vec<String> = got
            .iter()
            .filter_map(|f| match f {
                Found::File { path, .. } => {
                    Some(path.strip_prefix(root).unwrap().display().to_string())
                }
                Found::Skipped { .. } => None,
            })
            .collect();
        let mut files = files;
        files.sort();
        assert_eq!(files, vec![".gitignore", "docs/n.md"]);
        let skipped: Vec<String> = got
            .iter()
            .filter_map(|f| match f {
                Found::Skipped { path, reason } => Some(format!(
                    "{} {reason}",
                    path.strip_prefix(root).unwrap().display()
                )),
                Found::File { .. } => None,
            })
            .collect();
        assert!(
            skipped.iter().any(|s| s.starts_with(".env a secrets file")),
            "{skipped:?}"
        );
        assert!(
            skipped
                .iter()
                .any(|s| s.starts_with("link a symbolic link")),
            "{skipped:?}"
        );
        assert!(
            skipped
                .iter()
                .any(|s| s.starts_with("o.md a symbolic link")),
            "{skipped:?}"
        );
    }
}
