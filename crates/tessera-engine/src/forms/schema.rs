//! The schema rules: the flat subset MCP elicitation allows, no secrets, every problem with
//! its path.

use std::collections::HashSet;
use std::sync::Arc;

use serde_json::{Map, Number, Value};
use tessera_protocol::secrets::is_secret_name;

use super::values::{compile, field_schema, first_message, values_schema};
use super::{FieldKind, FormField, FormSchema, SchemaIssue, TextFormat};

const TOP_KEYS: &str = "type, properties, required, title, description";
const TYPES: &str = "string, number, integer, boolean or array";
/// More fields than a person fills in at once; a model asking for thousands is refused.
const MOST_FIELDS: usize = 64;
const SECRET: &str = "asks for a secret (a password, token or key); a form never asks for one";

/// Accepts `schema` when it is in the subset, else lists every problem found.
pub fn check_form_schema(schema: &Value) -> Result<FormSchema, Vec<SchemaIssue>> {
    let mut c = Checker::default();
    let Some(top) = schema.as_object() else {
        c.issue(
            "",
            "must be a JSON object with `type: \"object\"` and `properties`",
        );
        return Err(c.issues);
    };
    let mut title = None;
    let mut description = None;
    for (key, value) in top {
        match key.as_str() {
            "type" => {
                if value != "object" {
                    c.issue("type", "must be \"object\"");
                }
            }
            "properties" | "required" => {}
            "title" => title = c.string(key, value),
            "description" => description = c.string(key, value),
            "$schema" => {
                c.string(key, value);
            }
            "additionalProperties" => {
                if value != &Value::Bool(false) {
                    c.issue(
                        key,
                        "may only be false: a form has exactly the fields it lists",
                    );
                }
            }
            k if k.starts_with("x-") => {}
            k => c.unknown(key, k, TOP_KEYS),
        }
    }
    if !top.contains_key("type") {
        c.issue("type", "is required and must be \"object\"");
    }
    let required = c.required(top.get("required"), top.get("properties"));
    let mut fields = Vec::new();
    match top.get("properties") {
        None => c.issue("properties", "is required: one entry per field"),
        Some(Value::Object(props)) if props.is_empty() => {
            c.issue("properties", "must list at least one field");
        }
        Some(Value::Object(props)) if props.len() > MOST_FIELDS => {
            c.issue(
                "properties",
                format!(
                    "lists {} fields; a form has at most {MOST_FIELDS}: ask for fewer",
                    props.len()
                ),
            );
        }
        Some(Value::Object(props)) => {
            for (name, field) in props {
                if let Some(f) = c.field(name, field, required.contains(name)) {
                    fields.push(f);
                }
            }
        }
        Some(_) => c.issue("properties", "must be an object: field name → field schema"),
    }
    if !c.issues.is_empty() {
        return Err(c.issues);
    }
    let values_schema = values_schema(&fields);
    match compile(&values_schema) {
        Ok(validator) => Ok(FormSchema {
            title,
            description,
            fields,
            source: schema.clone(),
            validator: Arc::new(validator),
        }),
        Err(uncompilable) => Err(vec![SchemaIssue {
            path: String::new(),
            message: uncompilable.to_string(),
        }]),
    }
}

#[derive(Default)]
pub(super) struct Checker {
    pub(super) issues: Vec<SchemaIssue>,
}

impl Checker {
    pub(super) fn issue(&mut self, path: &str, message: impl Into<String>) {
        self.issues.push(SchemaIssue {
            path: path.to_owned(),
            message: message.into(),
        });
    }

    pub(super) fn unknown(&mut self, path: &str, key: &str, allowed: &str) {
        let message = match key {
            "$ref" | "$defs" | "definitions" => {
                format!("`{key}` is not allowed: write each field out in full")
            }
            "allOf" | "anyOf" | "oneOf" | "not" | "if" | "then" | "else" => {
                format!("`{key}` is not supported here (allowed: {allowed})")
            }
            _ => format!("`{key}` is not supported in a form (allowed: {allowed})"),
        };
        self.issue(path, message);
    }

    fn string(&mut self, path: &str, value: &Value) -> Option<String> {
        match value.as_str() {
            Some(s) => Some(s.to_owned()),
            None => {
                self.issue(path, "must be a string");
                None
            }
        }
    }

    pub(super) fn count(&mut self, path: &str, value: Option<&Value>) -> Option<u64> {
        let value = value?;
        let n = value.as_u64();
        if n.is_none() {
            self.issue(path, "must be a whole number, 0 or more");
        }
        n
    }

    fn number(&mut self, path: &str, value: Option<&Value>) -> Option<Number> {
        match value? {
            Value::Number(n) => Some(n.clone()),
            _ => {
                self.issue(path, "must be a number");
                None
            }
        }
    }

    /// `low` ≤ `high`, reported at `low_path`.
    pub(super) fn ordered(
        &mut self,
        low_path: &str,
        low: Option<f64>,
        high_key: &str,
        high: Option<f64>,
    ) {
        if let (Some(l), Some(h)) = (low, high) {
            if l > h {
                self.issue(low_path, format!("must not be more than {high_key} ({h})"));
            }
        }
    }

    fn required(&mut self, required: Option<&Value>, props: Option<&Value>) -> HashSet<String> {
        let mut names = HashSet::new();
        let Some(required) = required else {
            return names;
        };
        let Some(list) = required.as_array() else {
            self.issue("required", "must be a list of field names");
            return names;
        };
        let props = props.and_then(Value::as_object);
        for (i, name) in list.iter().enumerate() {
            let path = format!("required[{i}]");
            let Some(name) = name.as_str() else {
                self.issue(&path, "must be a field name (a string)");
                continue;
            };
            if props.is_some_and(|p| !p.contains_key(name)) {
                self.issue(&path, format!("\"{name}\" is not one of the properties"));
            } else if !names.insert(name.to_owned()) {
                self.issue(&path, format!("\"{name}\" is listed twice"));
            }
        }
        names
    }

    fn field(&mut self, name: &str, schema: &Value, required: bool) -> Option<FormField> {
        let path = format!("properties.{name}");
        let at = |key: &str| format!("{path}.{key}");
        if is_secret_name(name) {
            self.issue(&path, SECRET);
        }
        let Some(obj) = schema.as_object() else {
            self.issue(&path, "must be an object describing the field");
            return None;
        };
        let kind_name = match obj.get("type") {
            None => {
                self.issue(&at("type"), format!("is required: {TYPES}"));
                return None;
            }
            Some(Value::String(t)) if t == "object" => {
                let m = "nested objects are not allowed: a form is flat, one field per value";
                self.issue(&at("type"), m);
                return None;
            }
            Some(Value::String(t))
                if ["string", "number", "integer", "boolean", "array"].contains(&t.as_str()) =>
            {
                t.as_str()
            }
            Some(_) => {
                self.issue(
                    &at("type"),
                    format!("must be one of {TYPES} (a single type)"),
                );
                return None;
            }
        };
        let allowed: &[&str] = match kind_name {
            "string" => &[
                "minLength",
                "maxLength",
                "format",
                "enum",
                "enumNames",
                "oneOf",
            ],
            "number" | "integer" => &["minimum", "maximum"],
            "array" => &["items", "minItems", "maxItems", "uniqueItems"],
            _ => &[],
        };
        let mut title = None;
        let mut description = None;
        for (key, value) in obj {
            match key.as_str() {
                "type" | "default" => {}
                "title" => title = self.string(&at(key), value),
                "description" => description = self.string(&at(key), value),
                "writeOnly" if value == &Value::Bool(true) => self.issue(&at(key), SECRET),
                "writeOnly" if value == &Value::Bool(false) => {}
                "uniqueItems" if value != &Value::Bool(true) => {
                    self.issue(&at(key), "may only be true: each choice is picked once");
                }
                k if k.starts_with("x-") || allowed.contains(&k) => {}
                k => {
                    let mut list = vec!["title", "description", "default"];
                    list.extend_from_slice(allowed);
                    self.unknown(&at(key), k, &list.join(", "));
                }
            }
        }
        let kind = match kind_name {
            "string" => self.text(&path, obj)?,
            "number" | "integer" => {
                let minimum = self.number(&at("minimum"), obj.get("minimum"));
                let maximum = self.number(&at("maximum"), obj.get("maximum"));
                let (lo, hi) = (minimum.as_ref(), maximum.as_ref());
                let (lo, hi) = (lo.and_then(Number::as_f64), hi.and_then(Number::as_f64));
                self.ordered(&at("minimum"), lo, "maximum", hi);
                FieldKind::Number {
                    integer: kind_name == "integer",
                    minimum,
                    maximum,
                }
            }
            "boolean" => FieldKind::Boolean,
            _ => self.multi(&path, obj)?,
        };
        let default = obj.get("default").cloned();
        if let Some(d) = &default {
            let checked = compile(&field_schema(&kind));
            match checked {
                Ok(v) => {
                    if let Some(m) = first_message(&v, d, &kind) {
                        self.issue(&at("default"), m);
                    }
                }
                Err(uncompilable) => self.issue(&path, uncompilable.to_string()),
            }
        }
        Some(FormField {
            name: name.to_owned(),
            title,
            description,
            required,
            default,
            kind,
        })
    }

    fn text(&mut self, path: &str, obj: &Map<String, Value>) -> Option<FieldKind> {
        let at = |key: &str| format!("{path}.{key}");
        let min_length = self.count(&at("minLength"), obj.get("minLength"));
        let max_length = self.count(&at("maxLength"), obj.get("maxLength"));
        let (lo, hi) = (min_length.map(|n| n as f64), max_length.map(|n| n as f64));
        self.ordered(&at("minLength"), lo, "maxLength", hi);
        let format = match obj.get("format") {
            None => None,
            Some(Value::String(f)) if f == "password" => {
                self.issue(&at("format"), SECRET);
                None
            }
            Some(Value::String(f)) => {
                let parsed = TextFormat::parse(f);
                if parsed.is_none() {
                    self.issue(&at("format"), "must be one of email, uri, date, date-time");
                }
                parsed
            }
            Some(_) => {
                self.issue(
                    &at("format"),
                    "must be a string: email, uri, date or date-time",
                );
                None
            }
        };
        let options = match (obj.get("enum"), obj.get("oneOf")) {
            (None, None) => {
                if obj.contains_key("enumNames") {
                    self.issue(&at("enumNames"), "needs `enum` beside it");
                }
                return Some(FieldKind::Text {
                    min_length,
                    max_length,
                    format,
                });
            }
            (Some(_), Some(_)) => {
                self.issue(path, "use either `enum` or `oneOf`, not both");
                return None;
            }
            (Some(e), None) => self.plain_choices(path, e, obj.get("enumNames"))?,
            (None, Some(o)) => self.titled_choices(&at("oneOf"), o)?,
        };
        for key in ["minLength", "maxLength", "format"] {
            if obj.contains_key(key) {
                self.issue(&at(key), "does not apply to a field with choices");
            }
        }
        Some(FieldKind::Choice { options })
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use serde_json::json;

    use super::*;

    fn paths(schema: Value) -> Vec<String> {
        check_form_schema(&schema)
            .expect_err("refused")
            .into_iter()
            .map(|i| i.to_string())
            .collect()
    }

    #[test]
    fn lower_bounds_may_not_pass_upper_bounds() {
        let issues = paths(json!({"type": "object", "properties": {
            "n": {"type": "number", "minimum": 5, "maximum": 1},
            "s": {"type": "string", "minLength": 5, "maxLength": 2},
            "a": {"type": "array", "minItems": 2, "maxItems": 1,
                  "items": {"enum": ["x", "y"]}}
        }}));
        assert!(issues.contains(&"properties.n.minimum: must not be more than maximum (1)".into()));
        assert!(
            issues.contains(&"properties.s.minLength: must not be more than maxLength (2)".into())
        );
        assert!(
            issues.contains(&"properties.a.minItems: must not be more than maxItems (1)".into())
        );
    }

    #[test]
    fn text_rules_do_not_apply_to_choices() {
        let issues = paths(json!({"type": "object", "properties": {
            "c": {"type": "string", "enum": ["a"], "format": "email"},
            "d": {"type": "string", "enum": ["a"], "oneOf": [{"const": "a"}]}
        }}));
        assert!(
            issues.contains(&"properties.c.format: does not apply to a field with choices".into())
        );
        assert!(issues.contains(&"properties.d: use either `enum` or `oneOf`, not both".into()));
    }

    #[test]
    fn keywords_of_another_type_are_refused() {
        let issues = paths(json!({"type": "object", "properties": {
            "b": {"type": "boolean", "minimum": 1},
            "n": {"type": "integer", "format": "email"}
        }}));
        assert!(issues[0].starts_with("properties.b.minimum: `minimum` is not supported"));
        assert!(issues[1].contains("(allowed: title, description, default, minimum, maximum)"));
    }

    #[test]
    fn the_values_schema_allows_only_the_fields() {
        let form = check_form_schema(&json!({"type": "object", "required": ["a"],
            "properties": {"a": {"type": "string", "title": "A", "x-hint": 1}}}))
        .unwrap();
        let schema = values_schema(&form.fields);
        assert_eq!(
            schema,
            json!({"type": "object", "properties": {"a": {"type": "string"}},
                   "required": ["a"], "additionalProperties": false})
        );
        assert!(!form.validator().is_valid(&json!({"a": "x", "b": 1})));
    }
}
