//! `notification`: a desktop notification (freedesktop notifications over D-Bus). Where no
//! notification service answers, the tool says so instead of waiting.

use std::pin::Pin;
use std::time::Duration;

use serde_json::{json, Value};
use tessera_engine::tools::{RetryPolicy, ToolContext, ToolFailure, ToolKind, ToolSpec};
use tessera_protocol::mcp_cp::{PermissionLevel, Runtime};

pub const NAME: &str = "notification";
const ANSWER_WITHIN: Duration = Duration::from_secs(5);

type Fut = Pin<Box<dyn std::future::Future<Output = Result<Value, ToolFailure>> + Send>>;

pub fn spec() -> ToolSpec {
    ToolSpec::new(
        NAME,
        "Shows a desktop notification to the person (a title and a short text), e.g. when a \
         long task is done.",
    )
    .input_schema(json!({
        "type": "object",
        "properties": {
            "title": {"type": "string", "minLength": 1, "maxLength": 120},
            "body": {"type": "string", "maxLength": 1000}
        },
        "required": ["title"],
        "additionalProperties": false
    }))
    .kind(ToolKind::FrontEnd)
    .runtime(Runtime::Frontend)
    .permission(PermissionLevel::None)
    .writes(["notifications"])
    .safe(false)
    .timeout_ms(10_000)
    .estimated_ms(50)
    .retry(RetryPolicy::none())
}

pub fn handler() -> impl Fn(Value, ToolContext) -> Fut + Send + Sync {
    |args: Value, _ctx: ToolContext| {
        Box::pin(async move {
            let title = args
                .get("title")
                .and_then(Value::as_str)
                .unwrap_or("Tessera")
                .to_owned();
            let body = args
                .get("body")
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_owned();
            let shown = tokio::time::timeout(
                ANSWER_WITHIN,
                tokio::task::spawn_blocking(move || {
                    notify_rust::Notification::new()
                        .appname("Tessera")
                        .summary(&title)
                        .body(&body)
                        .show()
                        .map(|_| ())
                        .map_err(|e| e.to_string())
                }),
            )
            .await;
            match shown {
                Ok(Ok(Ok(()))) => Ok(json!({"shown": true})),
                Ok(Ok(Err(reason))) => Err(ToolFailure::new(
                    "UNAVAILABLE",
                    format!("no notification service answered: {reason}"),
                )),
                Ok(Err(e)) => Err(ToolFailure::new("NOTIFICATION_FAILED", e.to_string())),
                Err(_) => Err(ToolFailure::new(
                    "TIMEOUT",
                    "the notification service did not answer within 5 s",
                )),
            }
        }) as Fut
    }
}
