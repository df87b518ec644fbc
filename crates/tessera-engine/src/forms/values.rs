//! The person's answer: validated with jsonschema (formats on), one error per field, defaults
//! filled in.

use jsonschema::error::{ValidationError, ValidationErrorKind};
use serde_json::{json, Map, Value};

use super::{ChoiceOption, FieldError, FieldKind, FormField, FormSchema};

/// Checks `values` against `form`. On success, the values with the defaults of absent optional
/// fields filled in. A `null` counts as absent. Otherwise one error per field, in the form's
/// order, then one per field the form does not have.
pub fn validate_values(
    form: &FormSchema,
    values: &Value,
) -> Result<Map<String, Value>, Vec<FieldError>> {
    let Some(given) = values.as_object() else {
        return Err(vec![FieldError {
            field: String::new(),
            message: "the answer must be an object of field values".to_owned(),
        }]);
    };
    let mut known = Map::new();
    let mut unknown = Vec::new();
    for (name, value) in given {
        if form.field(name).is_none() {
            unknown.push(FieldError {
                field: name.clone(),
                message: "is not a field of this form".to_owned(),
            });
        } else if !value.is_null() {
            known.insert(name.clone(), value.clone());
        }
    }
    let mut per_field: Vec<Option<String>> = vec![None; form.fields.len()];
    let instance = Value::Object(known);
    for error in form.validator().iter_errors(&instance) {
        let name = match error.kind() {
            ValidationErrorKind::Required { property } => property.as_str().map(str::to_owned),
            _ => first_segment(&error),
        };
        let Some(index) = name.and_then(|n| form.fields.iter().position(|f| f.name == n)) else {
            continue;
        };
        if per_field[index].is_none() {
            per_field[index] = Some(message(&form.fields[index].kind, &error, 1));
        }
    }
    let mut errors: Vec<FieldError> = form
        .fields
        .iter()
        .zip(per_field)
        .filter_map(|(f, m)| {
            m.map(|message| FieldError {
                field: f.name.clone(),
                message,
            })
        })
        .collect();
    errors.extend(unknown);
    if !errors.is_empty() {
        return Err(errors);
    }
    let Value::Object(mut accepted) = instance else {
        return Ok(Map::new());
    };
    for field in &form.fields {
        if let Some(default) = &field.default {
            if !field.required && !accepted.contains_key(&field.name) {
                accepted.insert(field.name.clone(), default.clone());
            }
        }
    }
    Ok(accepted)
}

/// The message of the first error of `value` (one field's value) against `validator`.
pub(super) fn first_message(
    validator: &jsonschema::Validator,
    value: &Value,
    kind: &FieldKind,
) -> Option<String> {
    let error = validator.iter_errors(value).next()?;
    Some(message(kind, &error, 0))
}

/// The unescaped first segment of the error's instance path: the field.
fn first_segment(error: &ValidationError<'_>) -> Option<String> {
    let segments = segments(error);
    segments.into_iter().next()
}

fn segments(error: &ValidationError<'_>) -> Vec<String> {
    error
        .instance_path()
        .as_str()
        .split('/')
        .skip(1)
        .map(|s| s.replace("~1", "/").replace("~0", "~"))
        .collect()
}

/// A message for a person. `depth` is the number of path segments naming the field itself
/// (1 in an answer, 0 when the field's value is checked alone); deeper means a list item.
fn message(kind: &FieldKind, error: &ValidationError<'_>, depth: usize) -> String {
    let in_item = segments(error).len() > depth;
    if in_item {
        return format!("{} is not one of the choices", shown(error.instance()));
    }
    match error.kind() {
        ValidationErrorKind::Required { .. } => "is required".to_owned(),
        ValidationErrorKind::Type { .. } => type_message(kind).to_owned(),
        ValidationErrorKind::MinLength { limit: 1 } => "must not be empty".to_owned(),
        ValidationErrorKind::MinLength { limit } => {
            format!("must be at least {limit} characters long")
        }
        ValidationErrorKind::MaxLength { limit } => {
            format!("must be at most {limit} characters long")
        }
        ValidationErrorKind::Format { format } => match format.as_str() {
            "email" => "must be a valid email address".to_owned(),
            "uri" => "must be a valid URL (such as https://example.com)".to_owned(),
            "date" => "must be a date (YYYY-MM-DD)".to_owned(),
            "date-time" => "must be a date and time (such as 2025-01-31T14:30:00Z)".to_owned(),
            other => format!("must be a valid {other}"),
        },
        ValidationErrorKind::Minimum { limit } => format!("must be at least {limit}"),
        ValidationErrorKind::Maximum { limit } => format!("must be at most {limit}"),
        ValidationErrorKind::Enum { .. } => choice_message(kind),
        ValidationErrorKind::MinItems { limit: 1 } => "choose at least one".to_owned(),
        ValidationErrorKind::MinItems { limit } => format!("choose at least {limit}"),
        ValidationErrorKind::MaxItems { limit: 1 } => "choose at most one".to_owned(),
        ValidationErrorKind::MaxItems { limit } => format!("choose at most {limit}"),
        ValidationErrorKind::UniqueItems => "must not choose the same option twice".to_owned(),
        _ => "is not valid".to_owned(),
    }
}

fn type_message(kind: &FieldKind) -> &'static str {
    match kind {
        FieldKind::Text { .. } => "must be text",
        FieldKind::Number { integer: true, .. } => "must be a whole number",
        FieldKind::Number { .. } => "must be a number",
        FieldKind::Boolean => "must be true or false",
        FieldKind::Choice { .. } => "must be one of the choices",
        FieldKind::MultiChoice { .. } => "must be a list of choices",
    }
}

fn choice_message(kind: &FieldKind) -> String {
    let options = match kind {
        FieldKind::Choice { options } | FieldKind::MultiChoice { options, .. } => options,
        _ => return "is not one of the choices".to_owned(),
    };
    if options.len() > 8 {
        return "must be one of the choices".to_owned();
    }
    let labels: Vec<&str> = options.iter().map(|o| o.label()).collect();
    format!("must be one of: {}", labels.join(", "))
}

fn shown(value: &Value) -> String {
    match value {
        Value::String(s) => format!("\"{s}\""),
        other => other.to_string(),
    }
}

/// The JSON Schema the values are validated with: the fields without titles and hints, no
/// other property allowed.
pub(super) fn values_schema(fields: &[FormField]) -> Value {
    let properties: Map<String, Value> = fields
        .iter()
        .map(|f| (f.name.clone(), field_schema(&f.kind)))
        .collect();
    let required: Vec<&str> = fields
        .iter()
        .filter(|f| f.required)
        .map(|f| f.name.as_str())
        .collect();
    json!({
        "type": "object",
        "properties": properties,
        "required": required,
        "additionalProperties": false,
    })
}

/// One field's schema for validation.
pub(super) fn field_schema(kind: &FieldKind) -> Value {
    let mut s = Map::new();
    let mut put = |k: &str, v: Value| {
        s.insert(k.to_owned(), v);
    };
    let values = |options: &[ChoiceOption]| -> Value {
        options
            .iter()
            .map(|o| Value::from(o.value.as_str()))
            .collect()
    };
    match kind {
        FieldKind::Text {
            min_length,
            max_length,
            format,
        } => {
            put("type", json!("string"));
            if let Some(n) = min_length {
                put("minLength", json!(n));
            }
            if let Some(n) = max_length {
                put("maxLength", json!(n));
            }
            if let Some(f) = format {
                put("format", json!(f.as_str()));
            }
        }
        FieldKind::Number {
            integer,
            minimum,
            maximum,
        } => {
            put("type", json!(if *integer { "integer" } else { "number" }));
            if let Some(n) = minimum {
                put("minimum", Value::Number(n.clone()));
            }
            if let Some(n) = maximum {
                put("maximum", Value::Number(n.clone()));
            }
        }
        FieldKind::Boolean => put("type", json!("boolean")),
        FieldKind::Choice { options } => {
            put("type", json!("string"));
            put("enum", values(options));
        }
        FieldKind::MultiChoice {
            options,
            min_items,
            max_items,
        } => {
            put("type", json!("array"));
            put("items", json!({"type": "string", "enum": values(options)}));
            put("uniqueItems", json!(true));
            if let Some(n) = min_items {
                put("minItems", json!(n));
            }
            if let Some(n) = max_items {
                put("maxItems", json!(n));
            }
        }
    }
    Value::Object(s)
}

/// Why a schema the form builds could not be compiled into a validator.
#[derive(Debug, thiserror::Error)]
#[error("could not be compiled: {0}")]
pub(super) struct Uncompilable(String);

pub(super) fn compile(schema: &Value) -> Result<jsonschema::Validator, Uncompilable> {
    jsonschema::options()
        .should_validate_formats(true)
        .build(schema)
        .map_err(|e| Uncompilable(e.to_string()))
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use super::*;
    use crate::forms::check_form_schema;

    fn form(field: Value) -> FormSchema {
        check_form_schema(&json!({"type": "object", "properties": {"f": field}})).unwrap()
    }

    fn message_of(field: Value, value: Value) -> String {
        let errors = validate_values(&form(field), &json!({ "f": value })).unwrap_err();
        assert_eq!(errors.len(), 1);
        assert_eq!(errors[0].field, "f");
        errors[0].message.clone()
    }

    #[test]
    fn messages_read_well() {
        let text = json!({"type": "string", "minLength": 3});
        assert_eq!(
            message_of(text.clone(), json!("ab")),
            "must be at least 3 characters long"
        );
        assert_eq!(message_of(text, json!(12)), "must be text");
        let n = json!({"type": "number", "maximum": 2.5});
        assert_eq!(message_of(n, json!(3)), "must be at most 2.5");
        let many = json!({"type": "array", "minItems": 2, "items": {"enum": ["a", "b", "c"]}});
        assert_eq!(message_of(many.clone(), json!(["a"])), "choose at least 2");
        assert_eq!(
            message_of(many, json!([1, "a"])),
            "1 is not one of the choices"
        );
    }

    #[test]
    fn long_choice_lists_are_not_spelled_out() {
        let options: Vec<String> = (0..12).map(|i| format!("o{i}")).collect();
        let field = json!({"type": "string", "enum": options});
        assert_eq!(message_of(field, json!("x")), "must be one of the choices");
    }

    #[test]
    fn a_required_field_gets_no_default() {
        let form = check_form_schema(&json!({"type": "object", "required": ["f"],
            "properties": {"f": {"type": "boolean", "default": true}}}))
        .unwrap();
        let errors = validate_values(&form, &json!({})).unwrap_err();
        assert_eq!(errors[0].to_string(), "f: is required");
    }

    #[test]
    fn a_multi_select_schema_refuses_repeats() {
        let kind = FieldKind::MultiChoice {
            options: vec![ChoiceOption {
                value: "a".into(),
                title: None,
            }],
            min_items: None,
            max_items: Some(1),
        };
        let schema = field_schema(&kind);
        assert_eq!(schema["uniqueItems"], true);
        assert_eq!(schema["items"], json!({"type": "string", "enum": ["a"]}));
    }
}
