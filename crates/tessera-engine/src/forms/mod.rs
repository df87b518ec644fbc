//! Forms the model asks the person to fill in (`request_form`): the schema rules and the
//! validation of submitted values. Pure: no store, no events.
//!
//! The schema language is the flat subset MCP elicitation allows (docs/design.md, "Wire decisions",
//! Forms): string fields (minLength, maxLength, format email/uri/date/date-time), number and
//! integer fields (minimum, maximum), booleans, single-select enums (`enum`, or `oneOf` of
//! `{const, title}`), multi-selects (`type: array` with `items.enum` or `items.anyOf` of
//! `{const, title}`, minItems/maxItems), `default`, `required`, and `title`/`description` on the
//! form and its fields. `x-…` keys are UI hints and are ignored. A form never asks for a secret.
//!
//! - [`check_form_schema`]: accepts a schema in the subset as a [`FormSchema`], or lists every
//!   problem with its path ([`SchemaIssue`]) so the model can correct it.
//! - [`validate_values`]: checks the person's answer (jsonschema, formats on), one
//!   [`FieldError`] per field, and fills in the defaults of absent optional fields.

mod choices;
mod schema;
mod values;

use std::sync::Arc;

use serde_json::{Number, Value};

pub use schema::check_form_schema;
pub use values::validate_values;

/// A problem with a requested form schema, at a path such as `properties.age.minimum`.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{path}: {message}")]
pub struct SchemaIssue {
    /// Where, dotted (`properties.tags.items.enum[2]`); empty for the schema as a whole.
    pub path: String,
    pub message: String,
}

/// Every issue of a refused schema, one a line, as the tool's error for the model.
pub fn describe_issues(issues: &[SchemaIssue]) -> String {
    let lines: Vec<String> = issues
        .iter()
        .map(|i| {
            if i.path.is_empty() {
                format!("- (schema): {}", i.message)
            } else {
                format!("- {i}")
            }
        })
        .collect();
    format!("The form schema was refused:\n{}", lines.join("\n"))
}

/// A submitted value the form does not accept, shown next to its field.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{field}: {message}")]
pub struct FieldError {
    /// The field's name (a property of the schema); empty when the answer as a whole is wrong.
    pub field: String,
    /// For a person, without the field's name: "must be a valid email address".
    pub message: String,
}

/// A checked form: its fields in the order the schema lists them.
#[derive(Clone, Debug)]
pub struct FormSchema {
    pub title: Option<String>,
    pub description: Option<String>,
    pub fields: Vec<FormField>,
    /// The schema as requested (with its titles and UI hints), for the form_request event.
    source: Value,
    /// The values' validator, built from the fields.
    validator: Arc<jsonschema::Validator>,
}

impl FormSchema {
    /// The schema as it was requested.
    pub fn source(&self) -> &Value {
        &self.source
    }

    /// One field by name.
    pub fn field(&self, name: &str) -> Option<&FormField> {
        self.fields.iter().find(|f| f.name == name)
    }

    pub(crate) fn validator(&self) -> &jsonschema::Validator {
        &self.validator
    }
}

/// One field of a form.
#[derive(Clone, Debug, PartialEq)]
pub struct FormField {
    /// The property name, the key of its value in the answer.
    pub name: String,
    pub title: Option<String>,
    pub description: Option<String>,
    pub required: bool,
    /// Checked against the field.
    pub default: Option<Value>,
    pub kind: FieldKind,
}

/// What a field holds.
#[derive(Clone, Debug, PartialEq)]
pub enum FieldKind {
    Text {
        min_length: Option<u64>,
        max_length: Option<u64>,
        format: Option<TextFormat>,
    },
    Number {
        /// `type: integer`: whole numbers only.
        integer: bool,
        minimum: Option<Number>,
        maximum: Option<Number>,
    },
    Boolean,
    /// One of the choices (`enum`, or `oneOf` of `{const, title}`).
    Choice {
        options: Vec<ChoiceOption>,
    },
    /// Some of the choices (`type: array`).
    MultiChoice {
        options: Vec<ChoiceOption>,
        min_items: Option<u64>,
        max_items: Option<u64>,
    },
}

/// One choice of a select.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ChoiceOption {
    /// The value the answer carries.
    pub value: String,
    /// What the person sees, when it differs from the value.
    pub title: Option<String>,
}

impl ChoiceOption {
    /// The title, else the value.
    pub fn label(&self) -> &str {
        self.title.as_deref().unwrap_or(&self.value)
    }
}

/// The string formats a form may ask for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TextFormat {
    Email,
    Uri,
    Date,
    DateTime,
}

impl TextFormat {
    /// The JSON Schema name.
    pub fn as_str(self) -> &'static str {
        match self {
            TextFormat::Email => "email",
            TextFormat::Uri => "uri",
            TextFormat::Date => "date",
            TextFormat::DateTime => "date-time",
        }
    }

    fn parse(name: &str) -> Option<Self> {
        match name {
            "email" => Some(TextFormat::Email),
            "uri" => Some(TextFormat::Uri),
            "date" => Some(TextFormat::Date),
            "date-time" => Some(TextFormat::DateTime),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats_round_trip() {
        for f in [
            TextFormat::Email,
            TextFormat::Uri,
            TextFormat::Date,
            TextFormat::DateTime,
        ] {
            assert_eq!(TextFormat::parse(f.as_str()), Some(f));
        }
        assert_eq!(TextFormat::parse("password"), None);
    }

    #[test]
    fn issues_are_listed_one_a_line() {
        let issues = [
            SchemaIssue {
                path: String::new(),
                message: "must be a JSON object".into(),
            },
            SchemaIssue {
                path: "type".into(),
                message: "must be \"object\"".into(),
            },
        ];
        assert_eq!(
            describe_issues(&issues),
            "The form schema was refused:\n- (schema): must be a JSON object\n- type: must be \"object\""
        );
    }
}
