//! Images in tool results. A tool stores the bytes as an attachment and lists them under
//! [`TOOL_IMAGES_KEY`] of its JSON result ([`ToolImage`]); the engine references them from the
//! result's evidence and sends them to the model as image parts, never as base64 in the JSON.

use base64::Engine as _;
use serde_json::Value;
use tessera_providers::request::{Image, ToolResultPart};
use tessera_store::attachments::is_sha256;
use tessera_store::{AttachmentRef, Store, StoreError};

pub use tessera_protocol::easyflow::{ToolImage, TOOL_IMAGES_KEY};

/// Largest image sent to a model; providers refuse bigger ones (Anthropic: 5 MB).
pub(crate) const MAX_IMAGE_BYTES: u64 = 5 * 1024 * 1024;

/// Stores `bytes` as an attachment and returns the entry a tool lists under
/// [`TOOL_IMAGES_KEY`] of its result.
pub fn attach_image(
    store: &Store,
    bytes: &[u8],
    mime_type: &str,
    width: Option<u32>,
    height: Option<u32>,
) -> Result<ToolImage, StoreError> {
    let info = store.put_attachment(bytes, Some(mime_type))?;
    Ok(ToolImage {
        sha256: info.sha256,
        mime_type: mime_type.to_owned(),
        width,
        height,
        name: None,
    })
}

/// The images of a result that name a well-formed hash (the rest cannot be attachments).
pub(crate) fn images_of(result: &Value) -> Vec<ToolImage> {
    ToolImage::list_in(result)
        .into_iter()
        .filter(|image| is_sha256(&image.sha256))
        .collect()
}

/// The attachment refs an evidence of `result` carries: its images that are in the store.
pub(crate) fn attachment_refs(store: &Store, result: &Value) -> Vec<AttachmentRef> {
    images_of(result)
        .into_iter()
        .filter(|image| match store.attachment(&image.sha256) {
            Ok(found) => found.is_some(),
            Err(error) => {
                tracing::warn!(%error, sha256 = %image.sha256, "cannot look up a tool image");
                false
            }
        })
        .map(|image| AttachmentRef {
            sha256: image.sha256,
            mime_type: Some(image.mime_type),
            file_name: image.name,
        })
        .collect()
}

/// What the model gets for the images of a successful result: each image inline, or a note
/// saying why it is not there.
pub(crate) fn image_parts(store: &Store, result: &Value) -> Vec<ToolResultPart> {
    images_of(result)
        .into_iter()
        .map(|image| image_part(store, &image))
        .collect()
}

fn image_part(store: &Store, image: &ToolImage) -> ToolResultPart {
    let label = image.name.as_deref().unwrap_or(&image.sha256);
    let note = |why: &str| ToolResultPart::Text {
        text: format!("[Image {label} {why}, so it was left out.]"),
    };
    match store.attachment(&image.sha256) {
        Ok(Some(info)) if info.size > MAX_IMAGE_BYTES => {
            return note(&format!(
                "is {} bytes, over the {MAX_IMAGE_BYTES}-byte limit",
                info.size
            ))
        }
        Ok(Some(_)) => {}
        Ok(None) => return note("is not stored"),
        Err(error) => {
            tracing::warn!(%error, sha256 = %image.sha256, "cannot look up a tool image");
            return note("could not be read");
        }
    }
    match store.read_attachment(&image.sha256) {
        Ok(bytes) => ToolResultPart::Image(Image {
            media_type: image.mime_type.clone(),
            data_base64: base64::engine::general_purpose::STANDARD.encode(bytes),
        }),
        Err(error) => {
            tracing::warn!(%error, sha256 = %image.sha256, "cannot read a tool image");
            note("could not be read")
        }
    }
}

/// A stored copy of a wire request without the inline image bytes: the images are in the
/// attachment store, and each later call of the run would otherwise store them again.
pub(crate) fn without_inline_images(value: &mut Value) {
    match value {
        Value::String(text) => {
            let data_url = |at: &usize| {
                text.starts_with("data:") && !text[..*at].contains(char::is_whitespace)
            };
            if let Some(at) = text.find(";base64,").filter(data_url) {
                let omitted = text.len() - at - ";base64,".len();
                text.truncate(at + ";base64,".len());
                text.push_str(&format!("[{omitted} characters omitted]"));
            }
        }
        Value::Object(map) => {
            let inline = map.get("type").and_then(Value::as_str) == Some("base64");
            for (key, item) in map.iter_mut() {
                match item {
                    Value::String(data) if inline && key == "data" => {
                        *data = format!("[{} characters omitted]", data.len());
                    }
                    _ => without_inline_images(item),
                }
            }
        }
        Value::Array(items) => items.iter_mut().for_each(without_inline_images),
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn entries_that_are_not_images_are_left_out() {
        let sha = "a".repeat(64);
        let result = json!({"images": [
            {"sha256": sha, "mime_type": "image/png", "width": 2, "name": "screen"},
            {"sha256": "not-a-hash", "mime_type": "image/png"},
            {"sha256": sha, "mime_type": "text/plain"},
            {"mime_type": "image/png"}
        ]});
        let images = images_of(&result);
        assert_eq!(images.len(), 1);
        assert_eq!(images[0].width, Some(2));
        assert_eq!(images[0].name.as_deref(), Some("screen"));
    }

    #[test]
    fn stored_requests_lose_the_inline_bytes_only() {
        let mut request = json!({"messages": [
            {"content": [{"type": "image_url", "image_url": {"url": "data:image/png;base64,AAAA"}}]},
            {"content": [{"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "BBBBBB"}}]},
            {"content": "data: a sentence that mentions ;base64, is no data URL"}
        ]});
        let prose = request["messages"][2].clone();
        without_inline_images(&mut request);
        assert_eq!(
            request["messages"][0]["content"][0]["image_url"]["url"],
            "data:image/png;base64,[4 characters omitted]"
        );
        assert_eq!(
            request["messages"][1]["content"][0]["source"]["data"],
            "[6 characters omitted]"
        );
        assert_eq!(
            request["messages"][1]["content"][0]["source"]["media_type"],
            "image/png"
        );
        assert_eq!(request["messages"][2], prose);
    }
}
