//! Images a tool hands back: stored as attachments, listed under the result's `images` key as
//! `{sha256, mime_type, width, height, name}`, which the engine turns into evidences, image
//! parts for the model and pictures in the chat.

use serde_json::{json, Value};
use tessera_engine::tools::ToolFailure;
use tessera_store::Store;

/// The result key the engine reads images from.
pub const IMAGES_KEY: &str = "images";

/// Stores `bytes` and describes them as an entry of a result's `images`.
pub fn attach(
    store: &Store,
    bytes: &[u8],
    mime_type: &str,
    size: (u32, u32),
    name: &str,
) -> Result<Value, ToolFailure> {
    let info = store
        .put_attachment(bytes, Some(mime_type))
        .map_err(|error| {
            ToolFailure::new(
                "STORAGE_FAILED",
                format!("the image could not be stored: {error}"),
            )
        })?;
    Ok(json!({
        "sha256": info.sha256,
        "mime_type": mime_type,
        "width": size.0,
        "height": size.1,
        "name": name,
    }))
}

/// PNG bytes of an RGBA image.
pub fn encode_png(image: &image::RgbaImage) -> Result<Vec<u8>, ToolFailure> {
    let mut out = std::io::Cursor::new(Vec::new());
    image
        .write_to(&mut out, image::ImageFormat::Png)
        .map_err(|error| {
            ToolFailure::new("ENCODE_FAILED", format!("PNG encoding failed: {error}"))
        })?;
    Ok(out.into_inner())
}
