//! Reading a built-in tool's arguments.

use serde_json::Value;
use tessera_protocol::wire::JsonObject;

use super::error::BuiltinError;

/// The registry validated the arguments against the schema before the handler runs; these
/// checks only guard against a caller that skipped it.
pub(crate) fn string_arg<'a>(
    arguments: &'a Value,
    field: &'static str,
) -> Result<&'a str, BuiltinError> {
    arguments
        .get(field)
        .and_then(Value::as_str)
        .ok_or_else(|| BuiltinError::invalid(field, "required, a string"))
}

pub(crate) fn optional_string_arg<'a>(
    arguments: &'a Value,
    field: &'static str,
) -> Result<Option<&'a str>, BuiltinError> {
    match arguments.get(field) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(Some(s)),
        Some(_) => Err(BuiltinError::invalid(field, "must be a string")),
    }
}

/// `{…}` as a map (for `metadata` and `extra` fields).
pub(crate) fn object(value: Value) -> JsonObject {
    match value {
        Value::Object(map) => map,
        _ => JsonObject::new(),
    }
}
