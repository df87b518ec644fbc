//! JSON Schemas generated from the Rust types (schemars), then tidied so they say exactly what
//! `docs/protocol-rules.md` says: an optional field is absent or of its type (never `null`),
//! integer widths are not formats, `date-time` is the only format.

use std::sync::OnceLock;

use schemars::generate::SchemaSettings;
use schemars::{JsonSchema, SchemaGenerator};
use serde_json::Value;

use super::kind::DocumentKind;
use crate::wire::JsonObject;

/// The JSON Schema for `kind` (draft 2020-12), as committed in `schemas/<kind>.schema.json`.
pub fn json_schema(kind: DocumentKind) -> Value {
    schema_ref(kind).clone()
}

/// The cached schema for `kind`.
pub(crate) fn schema_ref(kind: DocumentKind) -> &'static Value {
    static SCHEMAS: OnceLock<Vec<Value>> = OnceLock::new();
    let all = SCHEMAS.get_or_init(|| DocumentKind::ALL.iter().map(|k| generate(*k)).collect());
    // `ALL` lists every kind once, so the index is always in range.
    &all[index_of(kind)]
}

fn index_of(kind: DocumentKind) -> usize {
    DocumentKind::ALL
        .iter()
        .position(|k| *k == kind)
        .unwrap_or_default()
}

fn generate(kind: DocumentKind) -> Value {
    use crate::mcp_cp::{McpContext, Message, ToolDefinition};
    match kind {
        DocumentKind::Message => root::<Message>(kind),
        DocumentKind::ToolDefinition => root::<ToolDefinition>(kind),
        DocumentKind::McpContext => root::<McpContext>(kind),
        _ => root::<Message>(kind),
    }
}

fn root<T: JsonSchema>(kind: DocumentKind) -> Value {
    let generator = SchemaGenerator::new(SchemaSettings::draft2020_12());
    let mut value = generator.into_root_schema_for::<T>().to_value();
    tidy(&mut value);
    if let Value::Object(map) = &mut value {
        let mut ordered = JsonObject::new();
        if let Some(schema) = map.remove("$schema") {
            ordered.insert("$schema".into(), schema);
        }
        ordered.insert(
            "$id".into(),
            Value::from(format!(
                "https://tessera.invalid/schemas/{}.schema.json",
                kind.as_str()
            )),
        );
        ordered.append(map);
        *map = ordered;
    }
    value
}

/// Formats schemars adds for Rust number widths; only `date-time` carries meaning here.
const WIDTH_FORMATS: &[&str] = &[
    "int8", "int16", "int32", "int64", "int", "uint8", "uint16", "uint32", "uint64", "uint",
    "float", "double",
];

fn tidy(value: &mut Value) {
    match value {
        Value::Object(map) => {
            if map
                .get("format")
                .and_then(Value::as_str)
                .is_some_and(|f| WIDTH_FORMATS.contains(&f))
            {
                map.remove("format");
            }
            let required: Vec<String> = map
                .get("required")
                .and_then(Value::as_array)
                .map(|r| r.iter().filter_map(Value::as_str).map(str::to_owned).collect())
                .unwrap_or_default();
            if let Some(Value::Object(properties)) = map.get_mut("properties") {
                for (name, property) in properties.iter_mut() {
                    if !required.contains(name) {
                        strip_null(property);
                    }
                }
            }
            for child in map.values_mut() {
                tidy(child);
            }
        }
        Value::Array(items) => items.iter_mut().for_each(tidy),
        _ => {}
    }
}

/// Removes the `null` schemars allows for an `Option` field.
fn strip_null(property: &mut Value) {
    let Value::Object(map) = property else { return };
    match map.get_mut("type") {
        Some(Value::Array(types)) => {
            types.retain(|t| t != "null");
            if types.len() == 1 {
                let only = types.remove(0);
                map.insert("type".into(), only);
            }
        }
        Some(_) | None => {}
    }
    if let Some(Value::Array(values)) = map.get_mut("enum") {
        values.retain(|v| !v.is_null());
    }
    if let Some(Value::Array(any_of)) = map.get_mut("anyOf") {
        any_of.retain(|s| s.get("type").and_then(Value::as_str) != Some("null"));
        if any_of.len() == 1 {
            if let Some(Value::Object(only)) = any_of.pop() {
                map.remove("anyOf");
                for (key, value) in only {
                    map.entry(key).or_insert(value);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn print_message_schema() {
        println!(
            "{}",
            serde_json::to_string_pretty(&json_schema(DocumentKind::Message)).unwrap()
        );
    }
}
