//! Files dropped on the window from another application. Tauri takes the drop from the
//! webview (WebKitGTK's own handler never sees files from outside) and tells the shell their
//! paths; the page learns only names, sizes and types, and may read only the files the person
//! dropped last, by their place in that drop, never a path it names itself.

use std::path::PathBuf;
use std::sync::Mutex;

use tauri::ipc::Response;
use tauri::State;
use tessera_app::sync::lock;
use tessera_app::views::desktop::{DropRefusal, DroppedFile};

/// The composer's limits (ui/src/components/attachments.ts), said here before anything is read.
const MAX_FILE_BYTES: u64 = 20 * 1024 * 1024;
const MAX_FILES: usize = 20;

/// The paths of the last drop on the window.
#[derive(Default)]
pub struct Drops(Mutex<Vec<PathBuf>>);

impl Drops {
    pub fn record(&self, paths: &[PathBuf]) {
        *lock(&self.0) = paths.to_vec();
    }
}

/// What the last drop holds.
#[tauri::command]
pub async fn dropped_files(drops: State<'_, Drops>) -> Result<Vec<DroppedFile>, String> {
    let paths = lock(&drops.0).clone();
    tauri::async_runtime::spawn_blocking(move || describe(&paths))
        .await
        .map_err(|error| error.to_string())
}

/// The bytes of file `index` of the last drop.
#[tauri::command]
pub async fn dropped_file(drops: State<'_, Drops>, index: usize) -> Result<Response, String> {
    let path = lock(&drops.0)
        .get(index)
        .cloned()
        .ok_or_else(|| format!("no file {index} in the last drop"))?;
    // A pipe or a device would hold the read open (or never end): only plain files are read.
    let plain = std::fs::metadata(&path).is_ok_and(|meta| meta.is_file());
    if !plain {
        return Err(format!("{} is not a file that can be read", path.display()));
    }
    let bytes = tessera_native::files::read_at_most(&path, MAX_FILE_BYTES)
        .await
        .map_err(|error| format!("{} could not be read: {error}", path.display()))?
        .ok_or_else(|| {
            format!(
                "{} holds more than {} MB",
                path.display(),
                MAX_FILE_BYTES / 1024 / 1024
            )
        })?;
    Ok(Response::new(bytes))
}

fn describe(paths: &[PathBuf]) -> Vec<DroppedFile> {
    paths
        .iter()
        .enumerate()
        .map(|(i, path)| {
            let name = path
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_else(|| path.display().to_string());
            let meta = std::fs::metadata(path).ok().filter(|m| m.is_file());
            let size = meta.as_ref().map(|m| m.len()).unwrap_or(0);
            let refused = match &meta {
                None => Some(DropRefusal::Unreadable),
                Some(_) if i >= MAX_FILES => Some(DropRefusal::TooMany),
                Some(_) if size > MAX_FILE_BYTES => Some(DropRefusal::TooBig),
                Some(_) => None,
            };
            let mime = if refused.is_none() {
                mime_of(path)
            } else {
                String::new()
            };
            DroppedFile {
                name,
                size,
                mime,
                refused,
            }
        })
        .collect()
}

/// The type the page gives the file, from its first bytes (images, PDF) or its extension, as
/// a browser's file input does; the engine reads the content by its own rules anyway.
fn mime_of(path: &std::path::Path) -> String {
    use std::io::Read;
    let mut head = [0u8; 16];
    let read = std::fs::File::open(path)
        .and_then(|mut f| f.read(&mut head))
        .unwrap_or(0);
    let head = &head[..read];
    let sniffed = if head.starts_with(b"\x89PNG\r\n\x1a\n") {
        Some("image/png")
    } else if head.starts_with(b"\xff\xd8\xff") {
        Some("image/jpeg")
    } else if head.starts_with(b"GIF8") {
        Some("image/gif")
    } else if head.len() >= 12 && &head[..4] == b"RIFF" && &head[8..12] == b"WEBP" {
        Some("image/webp")
    } else if head.starts_with(b"%PDF-") {
        Some("application/pdf")
    } else {
        None
    };
    if let Some(mime) = sniffed {
        return mime.to_owned();
    }
    let extension = path
        .extension()
        .map(|e| e.to_string_lossy().to_lowercase())
        .unwrap_or_default();
    match extension.as_str() {
        "txt" | "log" | "rs" | "py" | "js" | "ts" | "tsx" | "c" | "h" | "cpp" | "go" | "java"
        | "sh" | "toml" | "yaml" | "yml" | "ini" | "cfg" => "text/plain",
        "md" | "markdown" => "text/markdown",
        "csv" => "text/csv",
        "json" => "application/json",
        "html" | "htm" => "text/html",
        "xml" => "application/xml",
        _ => "application/octet-stream",
    }
    .to_owned()
}
