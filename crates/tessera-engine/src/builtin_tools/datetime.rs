//! `get_current_datetime`: the model has no clock; this is it.

use jiff::tz::TimeZone;
use jiff::Zoned;
use serde_json::{json, Value};

use super::args::optional_string_arg;
use super::error::BuiltinError;
use crate::tools::{RetryPolicy, ToolContext, ToolFailure, ToolSpec};

pub const NAME: &str = "get_current_datetime";

/// The declaration: safe (reads the clock only), 1 s timeout.
pub fn spec() -> ToolSpec {
    ToolSpec::new(
        NAME,
        "Returns the current date and time as RFC 3339 with the UTC offset, the IANA time zone \
         name when known, the weekday and the Unix time in milliseconds. Without arguments it \
         uses the computer's local time zone; pass `timezone` (an IANA name such as \
         `Asia/Shanghai` or `America/New_York`) for the time somewhere else. Call it whenever \
         the answer depends on today's date or the current time.",
    )
    .input_schema(json!({
        "type": "object",
        "properties": {
            "timezone": {
                "type": "string",
                "minLength": 1,
                "maxLength": 64,
                "description": "An IANA time zone name, e.g. `Europe/Paris` or `UTC`. \
                                Default: the local time zone."
            }
        },
        "additionalProperties": false
    }))
    .result_schema(json!({
        "type": "object",
        "properties": {
            "datetime": {"type": "string", "description": "RFC 3339 with the UTC offset"},
            "utc_offset": {"type": "string"},
            "timezone": {"type": ["string", "null"], "description": "IANA name, null if unknown"},
            "date": {"type": "string"},
            "time": {"type": "string"},
            "weekday": {"type": "string"},
            "unix_ms": {"type": "integer"}
        },
        "required": ["datetime", "utc_offset", "timezone", "date", "time", "weekday", "unix_ms"]
    }))
    .safe(true)
    .timeout_ms(1_000)
    .estimated_ms(1)
    .retry(RetryPolicy::none())
}

/// The tool's answer for the instant `now` in its time zone.
pub fn describe(now: &Zoned) -> Value {
    json!({
        "datetime": now.strftime("%Y-%m-%dT%H:%M:%S%:z").to_string(),
        "utc_offset": now.strftime("%:z").to_string(),
        "timezone": now.time_zone().iana_name(),
        "date": now.strftime("%Y-%m-%d").to_string(),
        "time": now.strftime("%H:%M:%S").to_string(),
        "weekday": now.strftime("%A").to_string(),
        "unix_ms": now.timestamp().as_millisecond(),
    })
}

/// The handler.
pub async fn run(arguments: Value, _ctx: ToolContext) -> Result<Value, ToolFailure> {
    now(&arguments)
        .map(|now| describe(&now))
        .map_err(ToolFailure::from)
}

fn now(arguments: &Value) -> Result<Zoned, BuiltinError> {
    let Some(name) = optional_string_arg(arguments, "timezone")? else {
        return Ok(Zoned::now());
    };
    let tz = TimeZone::get(name).map_err(|e| {
        tracing::debug!(timezone = name, error = %e, "unknown time zone");
        BuiltinError::UnknownTimeZone(name.to_owned())
    })?;
    Ok(Zoned::now().with_time_zone(tz))
}
