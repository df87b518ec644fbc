//! `file_picker` and `save_file`: the person chooses in a dialog; the model gets the contents of
//! what was picked (text, Markdown and code as text, PDF as its text, images as images) and a
//! file name, never a path it could widen into the rest of the disk.

use std::path::{Path, PathBuf};
use std::pin::Pin;

use serde_json::{json, Value};
use tessera_engine::tools::{
    RetryPolicy, ToolContext, ToolFailure, ToolFailureCode, ToolKind, ToolSpec,
};
use tessera_protocol::mcp_cp::{PermissionLevel, Runtime};

use crate::dialog::{FileFilter, PickRequest, SaveRequest};
use crate::{images, LeftOut, NativeEnv};

pub const NAME: &str = "file_picker";
pub const SAVE_NAME: &str = "save_file";

/// A picked file larger than this is left out, with the reason.
pub const MAX_FILE_BYTES: u64 = 20 * 1024 * 1024;
/// Text longer than this is left out: more than a model takes at once.
pub const MAX_TEXT_CHARS: usize = tessera_engine::attachments::MAX_TEXT_CHARS;
/// The most files one pick hands over.
const MAX_FILES: usize = 20;

type Fut = Pin<Box<dyn std::future::Future<Output = Result<Value, ToolFailure>> + Send>>;

pub fn spec() -> ToolSpec {
    ToolSpec::new(
        NAME,
        "Asks the person to choose one or more files on this computer and gives you their \
         contents: text, Markdown and code as text, PDF as its extracted text, images as images. \
         You never see paths. `filters` limit the choice by extension, e.g. \
         [{\"name\": \"Images\", \"extensions\": [\"png\", \"jpg\"]}]. Files over 20 MB are \
         left out with the reason.",
    )
    .input_schema(json!({
        "type": "object",
        "properties": {
            "title": {"type": "string", "maxLength": 200},
            "multiple": {"type": "boolean", "default": false},
            "accept": {
                "type": "string",
                "maxLength": 300,
                "description": "Extensions accepted, as in seed 000 §4.6.1: \".jpg,.png\""
            },
            "filters": {
                "type": "array",
                "maxItems": 10,
                "items": {
                    "type": "object",
                    "properties": {
                        "name": {"type": "string", "minLength": 1, "maxLength": 100},
                        "extensions": {
                            "type": "array",
                            "minItems": 1,
                            "maxItems": 30,
                            "items": {"type": "string", "pattern": "^[A-Za-z0-9]{1,16}$"}
                        }
                    },
                    "required": ["name", "extensions"],
                    "additionalProperties": false
                }
            }
        },
        "additionalProperties": false
    }))
    .kind(ToolKind::FrontEnd)
    .runtime(Runtime::Frontend)
    // The person's choice in the dialog is the consent.
    .permission(PermissionLevel::None)
    .reads(["filesystem"])
    .safe(true)
    // A person takes their time in a dialog.
    .timeout_ms(10 * 60 * 1000)
    .estimated_ms(15_000)
    .retry(RetryPolicy::none())
}

pub fn save_spec() -> ToolSpec {
    ToolSpec::new(
        SAVE_NAME,
        "Saves text you wrote as a file where the person chooses, in a save dialog. \
         `suggested_name` is the file name offered (e.g. report.md).",
    )
    .input_schema(json!({
        "type": "object",
        "properties": {
            "suggested_name": {"type": "string", "minLength": 1, "maxLength": 255},
            "content": {"type": "string", "maxLength": 10_000_000},
            "title": {"type": "string", "maxLength": 200}
        },
        "required": ["suggested_name", "content"],
        "additionalProperties": false
    }))
    .kind(ToolKind::FrontEnd)
    .runtime(Runtime::Frontend)
    .permission(PermissionLevel::None)
    .writes(["filesystem"])
    .safe(false)
    .timeout_ms(10 * 60 * 1000)
    .estimated_ms(15_000)
    .retry(RetryPolicy::none())
}

fn filters_of(args: &Value) -> Vec<FileFilter> {
    let mut filters = listed_filters(args);
    if let Some(accept) = args.get("accept").and_then(Value::as_str) {
        let extensions: Vec<String> = accept
            .split(',')
            .map(|e| e.trim().trim_start_matches('.').to_lowercase())
            .filter(|e| !e.is_empty() && e.chars().all(|c| c.is_ascii_alphanumeric()))
            .collect();
        if !extensions.is_empty() {
            filters.push(FileFilter {
                name: accept.to_owned(),
                extensions,
            });
        }
    }
    filters
}

fn listed_filters(args: &Value) -> Vec<FileFilter> {
    args.get("filters")
        .and_then(Value::as_array)
        .map(|filters| {
            filters
                .iter()
                .filter_map(|f| {
                    Some(FileFilter {
                        name: f.get("name")?.as_str()?.to_owned(),
                        extensions: f
                            .get("extensions")?
                            .as_array()?
                            .iter()
                            .filter_map(|e| e.as_str().map(str::to_lowercase))
                            .collect(),
                    })
                })
                .collect()
        })
        .unwrap_or_default()
}

pub fn handler(env: NativeEnv) -> impl Fn(Value, ToolContext) -> Fut + Send + Sync {
    move |args: Value, ctx: ToolContext| {
        let env = env.clone();
        Box::pin(async move {
            let request = PickRequest {
                title: args.get("title").and_then(Value::as_str).map(str::to_owned),
                multiple: args
                    .get("multiple")
                    .and_then(Value::as_bool)
                    .unwrap_or(false),
                filters: filters_of(&args),
                folder: false,
            };
            let filters = request.filters.clone();
            let picked = env
                .dialog
                .pick(request)
                .await
                .map_err(|e| ToolFailure::new(ToolFailureCode::DialogFailed, e.to_string()))?;
            if picked.is_empty() {
                return Ok(json!({"cancelled": true, "files": []}));
            }
            let total = picked.len().min(MAX_FILES);
            let mut files = Vec::new();
            let mut image_entries = Vec::new();
            let mut skipped = Vec::new();
            for (n, path) in picked.into_iter().take(MAX_FILES).enumerate() {
                ctx.progress(
                    n as f64,
                    Some(total as f64),
                    Some("reading the picked files"),
                );
                let name = file_name(&path);
                match read_picked(&env, &path, &name, &filters).await {
                    Ok(Picked::Text { kind, text, size }) => {
                        files.push(json!({"name": name, "kind": kind, "size": size, "text": text}))
                    }
                    Ok(Picked::Image { entry, size }) => {
                        // `fileId` names the image for local_image_resize (seed 000 §4.6.1).
                        files.push(json!({"name": name, "kind": "image", "size": size,
                                          "fileId": entry["sha256"].clone()}));
                        image_entries.push(entry);
                    }
                    Err(reason) => {
                        skipped.push(json!({"name": name, "reason": reason.to_string()}))
                    }
                }
            }
            if files.is_empty() {
                let reasons: Vec<String> = skipped
                    .iter()
                    .filter_map(|s| {
                        Some(format!(
                            "{}: {}",
                            s["name"].as_str()?,
                            s["reason"].as_str()?
                        ))
                    })
                    .collect();
                return Err(ToolFailure::new(
                    ToolFailureCode::NothingReadable,
                    format!(
                        "none of the picked files could be given to you ({})",
                        reasons.join("; ")
                    ),
                ));
            }
            let mut out = json!({"files": files});
            if !skipped.is_empty() {
                out["skipped"] = Value::Array(skipped);
            }
            if !image_entries.is_empty() {
                out[images::IMAGES_KEY] = Value::Array(image_entries);
            }
            Ok(out)
        })
    }
}

fn file_name(path: &Path) -> String {
    path.file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "file".into())
}

enum Picked {
    Text {
        kind: &'static str,
        text: String,
        size: u64,
    },
    Image {
        entry: Value,
        size: u64,
    },
}

/// Reads one picked file; `Err` is the reason it is left out, in words for the model.
async fn read_picked(
    env: &NativeEnv,
    path: &Path,
    name: &str,
    filters: &[FileFilter],
) -> Result<Picked, LeftOut> {
    if !filters.is_empty() {
        let extension = path
            .extension()
            .map(|e| e.to_string_lossy().to_lowercase())
            .unwrap_or_default();
        if !filters.iter().any(|f| f.extensions.contains(&extension)) {
            return Err(LeftOut::NotAskedFor);
        }
    }
    let meta = tokio::fs::metadata(path)
        .await
        .map_err(LeftOut::Unreadable)?;
    if !meta.is_file() {
        return Err(LeftOut::NotAFile);
    }
    let size = meta.len();
    if size > MAX_FILE_BYTES {
        return Err(LeftOut::TooLarge {
            size,
            limit: MAX_FILE_BYTES,
        });
    }
    // The size read above may be stale (the file grows, or is a device): the read stops at the
    // limit whatever it said.
    let bytes = read_at_most(path, MAX_FILE_BYTES)
        .await
        .map_err(LeftOut::Unreadable)?
        .ok_or(LeftOut::Grew {
            limit: MAX_FILE_BYTES,
        })?;
    classify(env, bytes, name, size).await
}

/// The file's bytes, or None when it holds more than `max`.
pub async fn read_at_most(path: &Path, max: u64) -> std::io::Result<Option<Vec<u8>>> {
    use tokio::io::AsyncReadExt;
    let file = tokio::fs::File::open(path).await?;
    let mut bytes = Vec::new();
    file.take(max.saturating_add(1))
        .read_to_end(&mut bytes)
        .await?;
    Ok((bytes.len() as u64 <= max).then_some(bytes))
}

async fn classify(
    env: &NativeEnv,
    bytes: Vec<u8>,
    name: &str,
    size: u64,
) -> Result<Picked, LeftOut> {
    use tessera_engine::attachments::Classified;
    // One reading for files picked here and files attached to a message (a PDF's text takes a
    // while: off the async threads).
    let (bytes, classified) = tokio::task::spawn_blocking(move || {
        let classified = tessera_engine::attachments::classify(&bytes);
        (bytes, classified)
    })
    .await
    .map_err(|e| LeftOut::Interrupted(e.to_string()))?;
    match classified? {
        Classified::Pdf { text } => Ok(Picked::Text {
            kind: "pdf",
            text,
            size,
        }),
        Classified::Text { text } => Ok(Picked::Text {
            kind: "text",
            text,
            size,
        }),
        Classified::Image {
            mime,
            width,
            height,
        } => {
            let entry = images::attach(&env.store, &bytes, mime, (width, height), name)
                .map_err(|e| LeftOut::ImageNotKept(e.message))?;
            Ok(Picked::Image { entry, size })
        }
        Classified::Other => Err(LeftOut::Unsupported),
    }
}

pub fn save_handler(env: NativeEnv) -> impl Fn(Value, ToolContext) -> Fut + Send + Sync {
    move |args: Value, _ctx: ToolContext| {
        let env = env.clone();
        Box::pin(async move {
            let suggested = args
                .get("suggested_name")
                .and_then(Value::as_str)
                .map(|n| file_name(Path::new(n)))
                .unwrap_or_else(|| "file.txt".into());
            let content = args
                .get("content")
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_owned();
            let chosen: Option<PathBuf> = env
                .dialog
                .save(SaveRequest {
                    title: args.get("title").and_then(Value::as_str).map(str::to_owned),
                    suggested_name: suggested,
                })
                .await
                .map_err(|e| ToolFailure::new(ToolFailureCode::DialogFailed, e.to_string()))?;
            let Some(path) = chosen else {
                return Ok(json!({"saved": false, "cancelled": true}));
            };
            tokio::fs::write(&path, content.as_bytes())
                .await
                .map_err(|e| {
                    ToolFailure::new(
                        ToolFailureCode::WriteFailed,
                        format!("{} could not be written: {e}", file_name(&path)),
                    )
                })?;
            Ok(json!({"saved": true, "name": file_name(&path), "bytes": content.len()}))
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    #[tokio::test]
    async fn a_read_stops_at_its_limit_whatever_the_size_said() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("f");
        std::fs::write(&path, b"0123456789").unwrap();
        assert_eq!(read_at_most(&path, 10).await.unwrap().unwrap().len(), 10);
        assert!(read_at_most(&path, 9).await.unwrap().is_none());
        // A device that never ends is read only up to the limit.
        let endless = read_at_most(Path::new("/dev/zero"), 1024).await.unwrap();
        assert!(endless.is_none());
    }

    fn env() -> (tempfile::TempDir, NativeEnv) {
        let dir = tempfile::tempdir().unwrap();
        let store = Arc::new(tessera_store::Store::open(dir.path()).unwrap());
        let dialog = Arc::new(crate::CommandDialog {
            program: "/bin/false".into(),
        });
        (
            dir,
            NativeEnv {
                store,
                dialog,
                windows: Arc::new(crate::NoWindows),
            },
        )
    }

    #[tokio::test]
    async fn text_images_and_other_files_are_told_apart() {
        let (_dir, env) = env();
        match classify(&env, "# Title\n中文".as_bytes().to_vec(), "a.md", 14).await {
            Ok(Picked::Text { kind, text, .. }) => {
                assert_eq!(kind, "text");
                assert!(text.contains("中文"));
            }
            _ => panic!("Markdown is text"),
        }
        let mut png = Vec::new();
        image::RgbaImage::from_pixel(3, 2, image::Rgba([1, 2, 3, 255]))
            .write_to(&mut std::io::Cursor::new(&mut png), image::ImageFormat::Png)
            .unwrap();
        match classify(&env, png.clone(), "p.png", png.len() as u64).await {
            Ok(Picked::Image { entry, .. }) => {
                assert_eq!(entry["width"], 3);
                assert_eq!(entry["mime_type"], "image/png");
                let sha = entry["sha256"].as_str().unwrap();
                assert_eq!(env.store.read_attachment(sha).unwrap(), png);
            }
            _ => panic!("a PNG is an image"),
        }
        let binary = classify(&env, vec![0, 159, 146, 150], "x.bin", 4).await;
        assert!(matches!(binary, Err(LeftOut::Unsupported)));
    }

    #[test]
    fn text_beyond_the_limit_is_refused_with_its_size() {
        let long = "a".repeat(MAX_TEXT_CHARS + 1);
        assert!(
            matches!(tessera_engine::attachments::classify(long.as_bytes()), Err(r) if r.to_string().contains("200000"))
        );
    }
}
