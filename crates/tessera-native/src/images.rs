//! Images a tool hands back, by the engine's convention (`tessera_engine::tools::ToolImage`
//! under `TOOL_IMAGES_KEY`): stored as attachments, then evidences, image parts for the model
//! and pictures in the chat.

use serde_json::Value;
use tessera_engine::tools::{attach_image, ToolFailure};
use tessera_store::Store;

pub use tessera_engine::tools::TOOL_IMAGES_KEY as IMAGES_KEY;

/// Stores `bytes` and describes them as an entry of a result's `images`.
pub fn attach(
    store: &Store,
    bytes: &[u8],
    mime_type: &str,
    size: (u32, u32),
    name: &str,
) -> Result<Value, ToolFailure> {
    let mut image =
        attach_image(store, bytes, mime_type, Some(size.0), Some(size.1)).map_err(|error| {
            ToolFailure::new(
                "STORAGE_FAILED",
                format!("the image could not be stored: {error}"),
            )
        })?;
    image.name = Some(name.to_owned());
    serde_json::to_value(image)
        .map_err(|error| ToolFailure::new("STORAGE_FAILED", error.to_string()))
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
