//! Building blocks shared by every wire type: JSON objects, RFC 3339 timestamps, the
//! `extensible_enum!` macro (known values plus a catch-all that round-trips), and serde helpers.

use std::borrow::Cow;

use schemars::{json_schema, JsonSchema, Schema, SchemaGenerator};
use serde::{Deserialize, Deserializer, Serialize};
use serde_json::Value;
use ts_rs::TS;

/// A JSON object, keys in document order.
pub type JsonObject = serde_json::Map<String, Value>;

/// An RFC 3339 date-time with an offset (`2025-12-01T12:34:56.789Z`), kept exactly as written so
/// a document round-trips byte for byte. [`Timestamp::is_valid`] checks the format; validation of
/// a whole document reports a bad value as `not an RFC 3339 timestamp`.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize, TS)]
#[serde(transparent)]
pub struct Timestamp(pub String);

impl Timestamp {
    /// Wraps a string without checking it.
    pub fn new(value: impl Into<String>) -> Self {
        Self(value.into())
    }

    /// The text as written.
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// Whether the text is an RFC 3339 date-time with an offset.
    pub fn is_valid(&self) -> bool {
        is_rfc3339(&self.0)
    }
}

impl std::fmt::Display for Timestamp {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl From<&str> for Timestamp {
    fn from(value: &str) -> Self {
        Self(value.to_owned())
    }
}

impl From<String> for Timestamp {
    fn from(value: String) -> Self {
        Self(value)
    }
}

impl JsonSchema for Timestamp {
    fn inline_schema() -> bool {
        true
    }

    fn schema_name() -> Cow<'static, str> {
        "Timestamp".into()
    }

    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        json_schema!({ "type": "string", "format": "date-time" })
    }
}

/// RFC 3339 `date-time` (section 5.6): `YYYY-MM-DDTHH:MM:SS[.frac](Z|+HH:MM|-HH:MM)`, `T` and `Z`
/// in either case, calendar-checked (leap years, a leap second allowed as `:60`). The offset may
/// be left out, and the time is then UTC: seed 003 asks for a UTC timestamp and its own examples
/// write Python's `utcnow().isoformat()`, which has none. Tessera writes `Z` always.
pub fn is_rfc3339(text: &str) -> bool {
    rfc3339_offset(text).is_some()
}

/// `text` with `Z` added when it is a date-time without an offset (read as UTC), so any RFC 3339
/// parser reads it; as it is otherwise.
pub fn with_utc_offset(text: &str) -> Cow<'_, str> {
    match rfc3339_offset(text) {
        Some(false) => Cow::Owned(format!("{text}Z")),
        _ => Cow::Borrowed(text),
    }
}

/// Whether `text` has an offset (Some(true)) or none (Some(false)) when it is a date-time.
fn rfc3339_offset(text: &str) -> Option<bool> {
    let b = text.as_bytes();
    if b.len() < 19 {
        return None;
    }
    let digits = |range: std::ops::Range<usize>| -> Option<u32> {
        let mut n = 0u32;
        for &c in b.get(range)? {
            if !c.is_ascii_digit() {
                return None;
            }
            n = n * 10 + u32::from(c - b'0');
        }
        Some(n)
    };
    let (Some(year), Some(month), Some(day)) = (digits(0..4), digits(5..7), digits(8..10)) else {
        return None;
    };
    if b[4] != b'-' || b[7] != b'-' || !matches!(b[10], b'T' | b't') {
        return None;
    }
    let leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;
    let days_in_month = match month {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
        4 | 6 | 9 | 11 => 30,
        2 if leap => 29,
        2 => 28,
        _ => return None,
    };
    if day == 0 || day > days_in_month {
        return None;
    }
    let (Some(hour), Some(minute), Some(second)) = (digits(11..13), digits(14..16), digits(17..19))
    else {
        return None;
    };
    if b[13] != b':' || b[16] != b':' || hour > 23 || minute > 59 || second > 60 {
        return None;
    }
    let mut i = 19;
    if b.get(i) == Some(&b'.') {
        i += 1;
        let start = i;
        while b.get(i).is_some_and(u8::is_ascii_digit) {
            i += 1;
        }
        if i == start {
            return None;
        }
    }
    let with_offset = match b.get(i) {
        None => return Some(false),
        Some(b'Z' | b'z') => i + 1 == b.len(),
        Some(b'+' | b'-') => {
            let (Some(oh), Some(om)) = (digits(i + 1..i + 3), digits(i + 4..i + 6)) else {
                return None;
            };
            b.get(i + 3) == Some(&b':') && i + 6 == b.len() && oh <= 23 && om <= 59
        }
        _ => false,
    };
    with_offset.then_some(true)
}

/// Adds to `schema` one `if`/`then` rule per arm: when every discriminator property equals its
/// value, property `target` must match the arm's schema. Errors then point inside `target`
/// instead of a `oneOf` that matched nothing.
pub(crate) fn add_dispatch(
    schema: &mut Schema,
    target: &str,
    arms: Vec<(Vec<(&str, String)>, Schema)>,
) {
    let mut rules = Vec::with_capacity(arms.len());
    for (conditions, then) in arms {
        let mut properties = JsonObject::new();
        let mut required = Vec::new();
        for (name, value) in conditions {
            properties.insert(name.to_owned(), serde_json::json!({ "const": value }));
            required.push(Value::from(name));
        }
        let mut then_properties = JsonObject::new();
        then_properties.insert(target.to_owned(), then.to_value());
        rules.push(serde_json::json!({
            "if": { "properties": properties, "required": required },
            "then": { "properties": then_properties }
        }));
    }
    match schema.get_mut("allOf").and_then(Value::as_array_mut) {
        Some(all_of) => all_of.extend(rules),
        None => {
            schema.insert("allOf".into(), Value::Array(rules));
        }
    }
}

/// `deserialize_with` for an optional "any JSON" field: a present `null` stays `Some(Null)` so it
/// survives a round trip (plain `Option<Value>` would turn it into an absent field).
pub(crate) fn present<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Value>, D::Error> {
    Value::deserialize(d).map(Some)
}

/// Declares an extensible enum: the known wire values as unit variants plus `Other(String)`,
/// which keeps any other string and writes it back unchanged. Serialized as a plain string; its
/// JSON Schema is `{"type": "string"}` with the known values listed in `description` and
/// `examples`; its TypeScript type is the union of the known literals and `string`.
macro_rules! extensible_enum {
    (
        $(#[doc = $doc:literal])*
        pub enum $name:ident { $( $(#[doc = $vdoc:literal])* $variant:ident => $wire:literal ),+ $(,)? }
    ) => {
        $(#[doc = $doc])*
        ///
        /// Extensible: any other string parses into `Other` and is written back unchanged.
        #[derive(Clone, Debug, PartialEq, Eq, Hash)]
        pub enum $name {
            $( $(#[doc = $vdoc])* #[doc = concat!("`", $wire, "`")] $variant, )+
            /// A value this version does not know, kept as written.
            Other(String),
        }

        impl $name {
            /// The known wire values, in declaration order.
            pub const KNOWN: &'static [&'static str] = &[$($wire),+];

            /// The wire string.
            pub fn as_str(&self) -> &str {
                match self {
                    $( Self::$variant => $wire, )+
                    Self::Other(other) => other.as_str(),
                }
            }

            /// Parses a wire string; unknown values become `Other`.
            pub fn from_wire(value: &str) -> Self {
                match value {
                    $( $wire => Self::$variant, )+
                    other => Self::Other(other.to_owned()),
                }
            }

            /// Whether this is one of the known values.
            pub fn is_known(&self) -> bool {
                !matches!(self, Self::Other(_))
            }
        }

        impl std::fmt::Display for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(self.as_str())
            }
        }

        impl From<&str> for $name {
            fn from(value: &str) -> Self {
                Self::from_wire(value)
            }
        }

        impl serde::Serialize for $name {
            fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                s.serialize_str(self.as_str())
            }
        }

        impl<'de> serde::Deserialize<'de> for $name {
            fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                let text = <std::borrow::Cow<'de, str> as serde::Deserialize>::deserialize(d)?;
                Ok(Self::from_wire(&text))
            }
        }

        impl schemars::JsonSchema for $name {
            fn schema_name() -> std::borrow::Cow<'static, str> {
                stringify!($name).into()
            }

            fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
                let doc = [$($doc),*].iter().map(|line| line.trim()).collect::<Vec<_>>().join(" ");
                schemars::json_schema!({
                    "type": "string",
                    "description": format!(
                        "{} Extensible: known values {}; any other string is accepted.",
                        doc,
                        Self::KNOWN.join(", ")
                    ).trim().to_owned(),
                    "examples": Self::KNOWN,
                })
            }
        }

        impl ts_rs::TS for $name {
            type WithoutGenerics = Self;
            type OptionInnerType = Self;

            fn docs() -> Option<String> {
                Some(ts_rs::format_docs(&[
                    $($doc,)*
                    " Extensible: any other string is accepted.",
                ]))
            }

            fn name(_: &ts_rs::Config) -> String {
                stringify!($name).to_owned()
            }

            fn inline(_: &ts_rs::Config) -> String {
                let mut out = String::new();
                for known in Self::KNOWN {
                    out.push_str(&format!("\"{known}\" | "));
                }
                out.push_str("(string & {})");
                out
            }

            fn decl(cfg: &ts_rs::Config) -> String {
                format!("type {} = {};", stringify!($name), <Self as ts_rs::TS>::inline(cfg))
            }

            fn decl_concrete(cfg: &ts_rs::Config) -> String {
                <Self as ts_rs::TS>::decl(cfg)
            }

            fn output_path() -> Option<std::path::PathBuf> {
                Some(std::path::PathBuf::from(concat!(stringify!($name), ".ts")))
            }
        }
    };
}

pub(crate) use extensible_enum;

/// What kind of JSON value `value` is, as a person reads it in an error ("a string, not a
/// number").
pub fn kind_of(value: &serde_json::Value) -> &'static str {
    use serde_json::Value;
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    extensible_enum! {
        /// A test enum.
        pub enum Colour { Red => "red", DarkBlue => "dark_blue" }
    }

    #[test]
    fn extensible_enum_round_trips_known_and_unknown_values() {
        let known: Colour = serde_json::from_str("\"dark_blue\"").unwrap();
        assert_eq!(known, Colour::DarkBlue);
        let other: Colour = serde_json::from_str("\"purple\"").unwrap();
        assert_eq!(other, Colour::Other("purple".into()));
        assert_eq!(serde_json::to_string(&other).unwrap(), "\"purple\"");
        assert_eq!(serde_json::to_string(&known).unwrap(), "\"dark_blue\"");
        assert!(known.is_known() && !other.is_known());
        assert!(serde_json::from_str::<Colour>("3").is_err());
    }

    #[test]
    fn rfc3339_accepts_offsets_and_rejects_the_rest() {
        for ok in [
            "2025-12-01T12:34:56.789Z",
            "2025-12-01T12:34:56Z",
            "2025-12-01t12:34:56z",
            "2024-02-29T00:00:00+08:00",
            "2025-06-30T23:59:60-05:30",
            // The offset left out, as Python's utcnow().isoformat() writes: read as UTC.
            "2025-12-01T12:34:56",
            "2025-12-01T12:34:56.789012",
        ] {
            assert!(is_rfc3339(ok), "{ok}");
        }
        assert_eq!(
            with_utc_offset("2025-12-01T12:34:56.789012"),
            "2025-12-01T12:34:56.789012Z"
        );
        assert_eq!(
            with_utc_offset("2025-12-01T12:34:56+08:00"),
            "2025-12-01T12:34:56+08:00"
        );
        assert_eq!(with_utc_offset("yesterday"), "yesterday");
        for bad in [
            "",
            "…",
            "2025-12-01",
            "2025-12-01T12:34",
            "2025-12-01 12:34:56Z",
            "2025-02-29T00:00:00Z",
            "2025-13-01T00:00:00Z",
            "2025-12-01T24:00:00Z",
            "2025-12-01T12:34:56.Z",
            "2025-12-01T12:34:56+0800",
            "2025-12-01T12:34:56Zjunk",
            "2025-12-01T12:34:56.",
            "2025-12-01T12:34:56 ",
        ] {
            assert!(!is_rfc3339(bad), "{bad}");
        }
    }

    #[test]
    fn timestamp_keeps_text() {
        let t: Timestamp = serde_json::from_str("\"2025-12-01T12:34:56.7890Z\"").unwrap();
        assert_eq!(t.as_str(), "2025-12-01T12:34:56.7890Z");
        assert!(t.is_valid());
        assert_eq!(
            serde_json::to_string(&t).unwrap(),
            "\"2025-12-01T12:34:56.7890Z\""
        );
    }
}
