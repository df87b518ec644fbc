//! Checking the final answer of a turn whose profile asks for JSON, before the turn ends; the
//! problems, each at its JSON pointer, are what the model is told to correct.

use std::fmt;

use jsonschema::error::ValidationErrorKind;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use thiserror::Error;

/// More would drown the model in its own mistakes; the first ones are enough to fix.
const MAX_PROBLEMS: usize = 50;

/// One way the answer differs from the schema.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct JsonProblem {
    /// A JSON pointer into the answer (`/items/0/price`; empty for the whole document). For a
    /// missing required property it points at the property.
    pub path: String,
    pub message: String,
}

impl fmt::Display for JsonProblem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let path = if self.path.is_empty() {
            "/"
        } else {
            &self.path
        };
        write!(f, "{path}: {}", self.message)
    }
}

/// Why an answer is not the JSON its profile asks for.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum JsonResponseError {
    #[error("the answer is empty; a JSON document was expected")]
    Empty,
    #[error("the answer is not JSON: {message}")]
    NotJson {
        /// serde_json's message with line and column (in the JSON, after any fence).
        message: String,
    },
    #[error("the answer does not match the response schema: {}", join(.0))]
    Invalid(Vec<JsonProblem>),
    #[error("the response schema cannot be used: {0}")]
    Schema(String),
}

fn join(problems: &[JsonProblem]) -> String {
    let parts: Vec<String> = problems.iter().map(ToString::to_string).collect();
    parts.join("; ")
}

/// The JSON document in `text` (raw, or the only content of one ```json fence), when it is
/// valid against `schema` (formats checked too).
pub fn validate_json_response(text: &str, schema: &Value) -> Result<Value, JsonResponseError> {
    let body = unfence(text.trim());
    if body.is_empty() {
        return Err(JsonResponseError::Empty);
    }
    let value: Value = serde_json::from_str(body).map_err(|e| JsonResponseError::NotJson {
        message: e.to_string(),
    })?;
    let validator = jsonschema::options()
        .should_validate_formats(true)
        .build(schema)
        .map_err(|e| JsonResponseError::Schema(e.to_string()))?;
    let mut problems = Vec::new();
    let mut more = 0usize;
    for error in validator.iter_errors(&value) {
        if problems.len() == MAX_PROBLEMS {
            more += 1;
            continue;
        }
        let mut path = error.instance_path().as_str().to_owned();
        if let ValidationErrorKind::Required { property } = error.kind() {
            if let Some(name) = property.as_str() {
                path.push('/');
                path.push_str(&name.replace('~', "~0").replace('/', "~1"));
            }
        }
        problems.push(JsonProblem {
            path,
            message: error.to_string(),
        });
    }
    if more > 0 {
        problems.push(JsonProblem {
            path: String::new(),
            message: format!("and {more} more problems"),
        });
    }
    if problems.is_empty() {
        Ok(value)
    } else {
        Err(JsonResponseError::Invalid(problems))
    }
}

/// The content of a Markdown code fence that makes up the whole of `text` (models wrap JSON in
/// ```json … ``` even when told not to); `text` itself otherwise.
pub(crate) fn unfence(text: &str) -> &str {
    let Some(rest) = text.strip_prefix("```") else {
        return text;
    };
    let Some(inner) = rest.trim_end().strip_suffix("```") else {
        return text;
    };
    // The info string (`json`) runs to the end of the first line; one with spaces is no info
    // string but content on the fence's line, which a model would not write.
    match inner.split_once('\n') {
        Some((info, body)) if !info.trim().contains(char::is_whitespace) => body.trim(),
        _ => text,
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use super::*;

    #[test]
    fn fences_are_unwrapped_only_when_they_are_the_whole_text() {
        assert_eq!(unfence("```json\n{\"a\":1}\n```"), "{\"a\":1}");
        assert_eq!(unfence("```\n[1]\n```"), "[1]");
        assert_eq!(unfence("{\"a\":1}"), "{\"a\":1}");
        assert_eq!(unfence("```json {\"a\":1}```"), "```json {\"a\":1}```");
    }
}
