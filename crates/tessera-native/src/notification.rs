//! `notification`: a desktop notification (freedesktop notifications over D-Bus). Where no
//! notification service answers, the tool says so instead of waiting.

use std::pin::Pin;
use std::time::Duration;

use serde_json::{json, Value};
use tessera_engine::tools::{
    RetryPolicy, ToolContext, ToolFailure, ToolFailureCode, ToolKind, ToolSpec,
};
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

/// The text without control characters (but line breaks and tabs), which some daemons act on.
fn plain_text(text: &str) -> String {
    text.chars()
        .filter(|c| !c.is_control() || *c == '\n' || *c == '\t')
        .collect()
}

/// The text as a daemon that reads the body as markup (`body-markup`: `<b>`, `<a href>`,
/// `<img src>`) shows it literally: nothing a model writes becomes a link or fetches an image.
fn markup_escaped(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

pub fn handler() -> impl Fn(Value, ToolContext) -> Fut + Send + Sync {
    |args: Value, _ctx: ToolContext| {
        Box::pin(async move {
            let title = args
                .get("title")
                .and_then(Value::as_str)
                .unwrap_or("Tessera")
                .to_owned();
            let title = plain_text(&title);
            let body = markup_escaped(&plain_text(
                args.get("body").and_then(Value::as_str).unwrap_or_default(),
            ));
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
                    ToolFailureCode::Unavailable,
                    format!("no notification service answered: {reason}"),
                )),
                Ok(Err(e)) => Err(ToolFailure::new(
                    ToolFailureCode::NotificationFailed,
                    e.to_string(),
                )),
                Err(_) => Err(ToolFailure::new(
                    ToolFailureCode::Timeout,
                    "the notification service did not answer within 5 s",
                )),
            }
        }) as Fut
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_body_is_shown_as_text_never_as_markup() {
        let hostile =
            "<a href=\"https://evil\">click</a> <img src=\"file:///etc/passwd\"/> & \u{1b}[31m";
        let shown = markup_escaped(&plain_text(hostile));
        assert_eq!(
            shown,
            "&lt;a href=&quot;https://evil&quot;&gt;click&lt;/a&gt; \
             &lt;img src=&quot;file:///etc/passwd&quot;/&gt; &amp; [31m"
        );
        assert_eq!(plain_text("two\nlines\u{7}"), "two\nlines");
    }
}
