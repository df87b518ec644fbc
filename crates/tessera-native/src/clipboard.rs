//! `clipboard_read` and `clipboard_write`: text only. Reading what the person copied is private,
//! so it asks first; writing replaces what they copied, so it asks too.

use std::pin::Pin;

use serde_json::{json, Value};
use tessera_engine::tools::{RetryPolicy, ToolContext, ToolFailure, ToolKind, ToolSpec};
use tessera_protocol::mcp_cp::{PermissionLevel, Runtime};

pub const READ_NAME: &str = "clipboard_read";
pub const WRITE_NAME: &str = "clipboard_write";
const MAX_TEXT: usize = 1_000_000;

type Fut = Pin<Box<dyn std::future::Future<Output = Result<Value, ToolFailure>> + Send>>;

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
            ToolFailure::new("EMPTY", "the clipboard holds no text")
        }
        other => ToolFailure::new(
            "CLIPBOARD_FAILED",
            format!("the clipboard cannot be used: {other}"),
        ),
    }
}

async fn blocking<T: Send + 'static>(
    work: impl FnOnce() -> Result<T, ToolFailure> + Send + 'static,
) -> Result<T, ToolFailure> {
    tokio::task::spawn_blocking(work)
        .await
        .map_err(|e| ToolFailure::new("CLIPBOARD_FAILED", e.to_string()))?
}

pub fn read_handler() -> impl Fn(Value, ToolContext) -> Fut + Send + Sync {
    |_args: Value, _ctx: ToolContext| {
        Box::pin(async move {
            let text = blocking(|| {
                arboard::Clipboard::new()
                    .and_then(|mut c| c.get_text())
                    .map_err(failed)
            })
            .await?;
            let chars = text.chars().count();
            if chars > MAX_TEXT {
                return Err(ToolFailure::new(
                    "TOO_LARGE",
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
            blocking(move || {
                arboard::Clipboard::new()
                    .and_then(|mut c| c.set_text(text))
                    .map_err(failed)
            })
            .await?;
            Ok(json!({"written": true, "characters": chars}))
        }) as Fut
    }
}
