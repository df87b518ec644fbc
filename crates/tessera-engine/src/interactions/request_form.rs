//! `request_form`: the model asks the person for structured input. The schema is checked when
//! the model calls it; a refused schema goes back to the model as the call's error and the
//! person sees no form.

use serde_json::{json, Value};
use tessera_protocol::easyflow::{FormRequestPayload, FormRequester, FormUi, RequesterKind};
use tessera_protocol::wire::JsonObject;
use tessera_providers::request::ToolSpec as ModelTool;

use crate::forms::{check_form_schema, describe_issues, FormSchema};

/// The tool's name, as the model calls it.
pub const REQUEST_FORM: &str = "request_form";

/// What the model sees of the tool.
pub fn model_tool() -> ModelTool {
    ModelTool {
        name: REQUEST_FORM.to_owned(),
        description: "Ask the person to fill in a short form when you need structured facts \
                      from them (dates, amounts, choices) to go on. The conversation waits \
                      until they answer; the result is {\"action\": \"accept\", \"values\": {…}} \
                      or {\"action\": \"decline\" | \"cancel\"}. Never ask for passwords, \
                      tokens or keys."
            .to_owned(),
        input_schema: json!({
            "type": "object",
            "required": ["title", "schema"],
            "properties": {
                "title": {"type": "string", "description": "The form's title, in the person's language."},
                "description": {"type": "string", "description": "Why you ask, in one or two sentences."},
                "schema": {
                    "type": "object",
                    "description": "A flat JSON Schema: {\"type\": \"object\", \"properties\": {…}, \"required\": […]}. Fields: string (minLength, maxLength, format email|uri|date|date-time), number/integer (minimum, maximum), boolean, enum or oneOf [{const, title}], array of enum (minItems, maxItems); title, description and default on each field."
                },
                "submit_text": {"type": "string"},
                "cancel_text": {"type": "string"}
            }
        }),
    }
}

/// A form the model asked for, checked.
#[derive(Clone, Debug)]
pub struct RequestedForm {
    pub schema: FormSchema,
    pub payload: FormRequestPayload,
}

/// Why a model's `request_form` call shows no form; the words go back to the model.
#[derive(Debug, thiserror::Error)]
pub enum BadFormRequest {
    #[error("request_form needs a non-empty `title`")]
    NoTitle,
    #[error("request_form needs a `schema` (a JSON Schema object)")]
    NoSchema,
    /// Each problem of the schema, with its path.
    #[error("{}", describe_issues(.0))]
    Schema(Vec<crate::forms::SchemaIssue>),
    #[error("the form schema must be an object")]
    SchemaNotAnObject,
}

/// Reads the model's arguments into the form to show, or the error to give back to the model.
pub fn parse_request(
    form_id: &str,
    arguments: &Value,
    requester: FormRequester,
) -> Result<RequestedForm, BadFormRequest> {
    let text = |key: &str| {
        arguments
            .get(key)
            .and_then(Value::as_str)
            .map(str::to_owned)
    };
    let Some(title) = text("title").filter(|t| !t.trim().is_empty()) else {
        return Err(BadFormRequest::NoTitle);
    };
    let Some(schema_value) = arguments.get("schema") else {
        return Err(BadFormRequest::NoSchema);
    };
    let schema = check_form_schema(schema_value).map_err(BadFormRequest::Schema)?;
    let Value::Object(schema_object) = schema.source().clone() else {
        return Err(BadFormRequest::SchemaNotAnObject);
    };
    let (submit_text, cancel_text) = (text("submit_text"), text("cancel_text"));
    let ui = (submit_text.is_some() || cancel_text.is_some()).then(|| FormUi {
        submit_text,
        cancel_text,
        ..FormUi::default()
    });
    Ok(RequestedForm {
        payload: FormRequestPayload {
            form_id: form_id.to_owned(),
            title,
            schema: schema_object,
            description: text("description").or_else(|| schema.description.clone()),
            ui,
            requester: Some(requester),
            extra: JsonObject::new(),
        },
        schema,
    })
}

/// The coordinator as the one who asks.
pub fn agent_requester(name: &str) -> FormRequester {
    FormRequester {
        kind: Some(RequesterKind::Agent),
        name: Some(name.to_owned()),
        extra: JsonObject::new(),
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use super::*;

    #[test]
    fn a_good_form_becomes_a_form_request() {
        let form = parse_request(
            "f1",
            &json!({"title": "Trip", "schema": {"type": "object", "properties": {
                "email": {"type": "string", "format": "email"}}, "required": ["email"]}}),
            agent_requester("assistant"),
        )
        .unwrap();
        assert_eq!(form.payload.form_id, "f1");
        assert_eq!(form.payload.title, "Trip");
        assert!(form.payload.schema.contains_key("properties"));
    }

    #[test]
    fn a_secret_field_is_refused_with_its_path() {
        let err = parse_request(
            "f1",
            &json!({"title": "Login", "schema": {"type": "object", "properties": {
                "password": {"type": "string"}}}}),
            agent_requester("assistant"),
        )
        .unwrap_err();
        assert!(err.to_string().contains("properties.password"), "{err}");
    }

    #[test]
    fn a_missing_title_is_named() {
        let err = parse_request("f1", &json!({"schema": {}}), agent_requester("a")).unwrap_err();
        assert!(matches!(err, BadFormRequest::NoTitle), "{err}");
    }
}
