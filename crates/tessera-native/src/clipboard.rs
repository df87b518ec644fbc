//! `clipboard_read` and `clipboard_write`: text only. Reading what the person copied is private,
//! so it asks first; writing replaces what they copied, so it asks too.

use std::pin::Pin;
use std::sync::{Mutex, PoisonError};

use serde_json::{json, Value};
use tessera_engine::tools::{
    RetryPolicy, ToolContext, ToolFailure, ToolFailureCode, ToolKind, ToolSpec,
};
use tessera_protocol::mcp_cp::{PermissionLevel, Runtime};

pub const READ_NAME: &str = "clipboard_read";
pub const WRITE_NAME: &str = "clipboard_write";
const MAX_TEXT: usize = 1_000_000;

type Fut = Pin<Box<dyn std::future::Future<Output = Result<Value, ToolFailure>> + Send>>;

/// The clipboard this process owns. On X11 what a program copies stays in that program until
/// another copies something: a `Clipboard` dropped right after `set_text` took the text with it
/// where no clipboard manager keeps it, and the person's paste found nothing. So one is kept for
/// the life of the process.
static HELD: Mutex<Option<arboard::Clipboard>> = Mutex::new(None);

fn with_held<T>(
    work: impl FnOnce(&mut arboard::Clipboard) -> Result<T, arboard::Error>,
) -> Result<T, arboard::Error> {
    let mut held = HELD.lock().unwrap_or_else(PoisonError::into_inner);
    let clipboard = match held.as_mut() {
        Some(clipboard) => clipboard,
        None => held.insert(arboard::Clipboard::new()?),
    };
    work(clipboard)
}

/// Puts `text` on the clipboard, where the person's next paste in any program finds it.
/// Blocking (an X round trip): call it off the async threads.
pub fn write_text(text: String) -> Result<(), ToolFailure> {
    with_held(|c| c.set_text(text)).map_err(failed)
}

/// The picture on the clipboard as PNG, or None when it holds none. Blocking.
pub fn read_image_png() -> Result<Option<Vec<u8>>, ToolFailure> {
    let image = match with_held(|c| c.get_image()) {
        Ok(image) => image,
        Err(arboard::Error::ContentNotAvailable) => return Ok(None),
        Err(other) => return Err(failed(other)),
    };
    let (width, height) = (
        u32::try_from(image.width).unwrap_or(u32::MAX),
        u32::try_from(image.height).unwrap_or(u32::MAX),
    );
    let rgba =
        image::RgbaImage::from_raw(width, height, image.bytes.into_owned()).ok_or_else(|| {
            ToolFailure::new(
                ToolFailureCode::ClipboardFailed,
                "the clipboard's picture has a wrong size",
            )
        })?;
    crate::images::encode_png(&rgba).map(Some)
}

/// Whether a clipboard is reachable (an X display or Wayland).
pub fn probe() -> Result<(), crate::NotHere> {
    arboard::Clipboard::new()
        .map(|_| ())
        .map_err(|e| crate::NotHere::NoClipboard(e.to_string()))
}

fn base(name: &str, description: &str) -> ToolSpec {
    ToolSpec::new(name, description)
        .kind(ToolKind::FrontEnd)
        .runtime(Runtime::Frontend)
        .permission(PermissionLevel::UserConsent)
        .timeout_ms(5_000)
        .estimated_ms(20)
        .retry(RetryPolicy::none())
}

pub fn read_spec() -> ToolSpec {
    base(
        READ_NAME,
        "Reads the text the person copied to the clipboard (with their consent).",
    )
    .input_schema(json!({"type": "object", "properties": {}, "additionalProperties": false}))
    .reads(["clipboard"])
    .safe(true)
}

pub fn write_spec() -> ToolSpec {
    base(
        WRITE_NAME,
        "Puts text on the clipboard for the person to paste (with their consent).",
    )
    .input_schema(json!({
        "type": "object",
        "properties": {"text": {"type": "string", "maxLength": MAX_TEXT}},
        "required": ["text"],
        "additionalProperties": false
    }))
    .writes(["clipboard"])
    .safe(false)
}

fn failed(error: arboard::Error) -> ToolFailure {
    match error {
        arboard::Error::ContentNotAvailable => {
            ToolFailure::new(ToolFailureCode::Empty, "the clipboard holds no text")
        }
        other => ToolFailure::new(
            ToolFailureCode::ClipboardFailed,
            format!("the clipboard cannot be used: {other}"),
        ),
    }
}

async fn blocking<T: Send + 'static>(
    work: impl FnOnce() -> Result<T, ToolFailure> + Send + 'static,
) -> Result<T, ToolFailure> {
    tokio::task::spawn_blocking(work)
        .await
        .map_err(|e| ToolFailure::new(ToolFailureCode::ClipboardFailed, e.to_string()))?
}

pub fn read_handler() -> impl Fn(Value, ToolContext) -> Fut + Send + Sync {
    |_args: Value, _ctx: ToolContext| {
        Box::pin(async move {
            let text = blocking(|| with_held(|c| c.get_text()).map_err(failed)).await?;
            let chars = text.chars().count();
            if chars > MAX_TEXT {
                return Err(ToolFailure::new(
                    ToolFailureCode::TooLarge,
                    format!("the clipboard holds {chars} characters, over the {MAX_TEXT} limit"),
                ));
            }
            Ok(json!({"text": text}))
        }) as Fut
    }
}

pub fn write_handler() -> impl Fn(Value, ToolContext) -> Fut + Send + Sync {
    |args: Value, _ctx: ToolContext| {
        Box::pin(async move {
            let text = args
                .get("text")
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_owned();
            let chars = text.chars().count();
            blocking(move || write_text(text)).await?;
            Ok(json!({"written": true, "characters": chars}))
        }) as Fut
    }
}
