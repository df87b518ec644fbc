//! Small conversions between Rust values and SQLite columns, shared by the table modules.

use serde::de::DeserializeOwned;
use serde::Serialize;

use crate::error::{Result, StoreError};

/// A `u64` as SQLite's signed integer.
pub fn to_i64(what: &'static str, value: u64) -> Result<i64> {
    i64::try_from(value).map_err(|_| StoreError::OutOfRange { what, value })
}

/// An optional `u64` as SQLite's signed integer.
pub fn opt_i64(what: &'static str, value: Option<u64>) -> Result<Option<i64>> {
    value.map(|v| to_i64(what, v)).transpose()
}

/// A stored integer back as `u64`.
pub fn to_u64(what: &'static str, value: i64) -> Result<u64> {
    u64::try_from(value).map_err(|_| StoreError::Corrupt {
        what,
        message: format!("negative value {value}"),
    })
}

/// An optional stored integer back as `u64`.
pub fn opt_u64(what: &'static str, value: Option<i64>) -> Result<Option<u64>> {
    value.map(|v| to_u64(what, v)).transpose()
}

/// Any serializable value as JSON text.
pub fn json<T: Serialize + ?Sized>(what: &'static str, value: &T) -> Result<String> {
    serde_json::to_string(value).map_err(|source| StoreError::Encode { what, source })
}

/// An optional value as JSON text (`NULL` when absent).
pub fn opt_json<T: Serialize>(what: &'static str, value: Option<&T>) -> Result<Option<String>> {
    value.map(|v| json(what, v)).transpose()
}

/// A JSON object as text, `NULL` when it is empty (the usual case for unknown fields).
pub fn extra_json(extra: &serde_json::Map<String, serde_json::Value>) -> Result<Option<String>> {
    if extra.is_empty() {
        Ok(None)
    } else {
        json("unknown fields", extra).map(Some)
    }
}

/// JSON text back into a value.
pub fn parse<T: DeserializeOwned>(what: &'static str, text: &str) -> Result<T> {
    serde_json::from_str(text).map_err(|e| StoreError::Corrupt {
        what,
        message: e.to_string(),
    })
}

/// JSON text back into a value that borrows from it.
pub fn parse_borrowed<'a, T: serde::Deserialize<'a>>(
    what: &'static str,
    text: &'a str,
) -> Result<T> {
    serde_json::from_str(text).map_err(|e| StoreError::Corrupt {
        what,
        message: e.to_string(),
    })
}

/// Optional JSON text back into a value.
pub fn opt_parse<T: DeserializeOwned>(
    what: &'static str,
    text: Option<String>,
) -> Result<Option<T>> {
    text.map(|t| parse(what, &t)).transpose()
}

/// Stored unknown fields back into an object (empty when `NULL`).
pub fn parse_extra(text: Option<String>) -> Result<serde_json::Map<String, serde_json::Value>> {
    Ok(opt_parse("unknown fields", text)?.unwrap_or_default())
}

/// A serde enum as its wire string, for a column that is queried by value.
pub fn enum_text<T: Serialize>(what: &'static str, value: &T) -> Result<String> {
    match serde_json::to_value(value).map_err(|source| StoreError::Encode { what, source })? {
        serde_json::Value::String(text) => Ok(text),
        other => Ok(other.to_string()),
    }
}

/// A wire string back into a serde enum.
pub fn parse_enum<T: DeserializeOwned>(what: &'static str, text: &str) -> Result<T> {
    serde_json::from_value(serde_json::Value::String(text.to_owned())).map_err(|e| {
        StoreError::Corrupt {
            what,
            message: e.to_string(),
        }
    })
}

/// An optional wire string back into a serde enum.
pub fn opt_enum<T: DeserializeOwned>(
    what: &'static str,
    text: Option<String>,
) -> Result<Option<T>> {
    text.map(|t| parse_enum(what, &t)).transpose()
}
