//! `local_image_resize` (seed 000 §4.5.5): a smaller copy of an image a tool produced earlier
//! (a screenshot, a picked image), made here so the full-size one never has to travel.

use std::pin::Pin;
use std::sync::Arc;

use serde_json::{json, Value};
use tessera_engine::tools::{
    RetryPolicy, ToolContext, ToolFailure, ToolFailureCode, ToolKind, ToolSpec,
};
use tessera_protocol::mcp_cp::{PermissionLevel, Runtime};
use tessera_store::Store;

use crate::images;

pub const NAME: &str = "local_image_resize";
const MAX_SIDE: u32 = 8_192;

type Fut = Pin<Box<dyn std::future::Future<Output = Result<Value, ToolFailure>> + Send>>;

pub fn spec() -> ToolSpec {
    ToolSpec::new(
        NAME,
        "Resizes an image an earlier tool gave you (a screenshot, a picked image): `imageId` is \
         its `sha256` (or `fileId`). With `preserveAspectRatio` (the default) the image fits \
         inside width × height.",
    )
    .input_schema(json!({
        "type": "object",
        "properties": {
            "imageId": {"type": "string", "pattern": "^[0-9a-f]{64}$"},
            "width": {"type": "integer", "minimum": 1, "maximum": MAX_SIDE},
            "height": {"type": "integer", "minimum": 1, "maximum": MAX_SIDE},
            "preserveAspectRatio": {"type": "boolean", "default": true}
        },
        "required": ["imageId", "width", "height"],
        "additionalProperties": false
    }))
    .kind(ToolKind::FrontEnd)
    .runtime(Runtime::Frontend)
    .permission(PermissionLevel::None)
    .safe(true)
    .timeout_ms(30_000)
    .estimated_ms(200)
    .retry(RetryPolicy::none())
}

pub fn handler(store: Arc<Store>) -> impl Fn(Value, ToolContext) -> Fut + Send + Sync {
    move |args: Value, _ctx: ToolContext| {
        let store = store.clone();
        Box::pin(async move {
            let id = args
                .get("imageId")
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_owned();
            let width = args
                .get("width")
                .and_then(Value::as_u64)
                .unwrap_or(1)
                .clamp(1, MAX_SIDE.into()) as u32;
            let height = args
                .get("height")
                .and_then(Value::as_u64)
                .unwrap_or(1)
                .clamp(1, MAX_SIDE.into()) as u32;
            let keep = args
                .get("preserveAspectRatio")
                .and_then(Value::as_bool)
                .unwrap_or(true);
            let bytes = match store.attachment(&id) {
                Ok(Some(_)) => store.read_attachment(&id).map_err(|e| {
                    ToolFailure::new(
                        ToolFailureCode::StorageFailed,
                        format!("the image could not be read: {e}"),
                    )
                })?,
                Ok(None) => {
                    return Err(ToolFailure::new(
                        ToolFailureCode::NotFound,
                        format!(
                        "no image with id {id}: use the sha256 or fileId an earlier tool returned"
                    ),
                    ))
                }
                Err(e) => {
                    return Err(ToolFailure::new(
                        ToolFailureCode::StorageFailed,
                        e.to_string(),
                    ))
                }
            };
            let resized =
                tokio::task::spawn_blocking(move || -> Result<image::RgbaImage, ToolFailure> {
                    let source = images::decode_bounded(&bytes, "the attachment")
                        .map_err(|why| ToolFailure::new(ToolFailureCode::NotAnImage, why))?;
                    let filter = image::imageops::FilterType::Lanczos3;
                    Ok(if keep {
                        source.resize(width, height, filter).to_rgba8()
                    } else {
                        source.resize_exact(width, height, filter).to_rgba8()
                    })
                })
                .await
                .map_err(|e| ToolFailure::new(ToolFailureCode::ResizeFailed, e.to_string()))??;
            let size = resized.dimensions();
            let png = images::encode_png(&resized)?;
            let entry = images::attach(&store, &png, "image/png", size, "resized.png")?;
            Ok(
                json!({"width": size.0, "height": size.1, "fileId": entry["sha256"].clone(),
                      (images::IMAGES_KEY): [entry]}),
            )
        })
    }
}
