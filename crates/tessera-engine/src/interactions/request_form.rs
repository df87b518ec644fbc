//! `request_form`: the model asks the person for structured input. The schema is checked when
//! the model calls it; a refused schema goes back to the model as the call's error and the
//! person sees no form.

use serde_json::{json, Value};
use tessera_protocol::easyflow::{FormRequestPayload, FormRequester, FormUi, RequesterKind};
use tessera_protocol::wire::JsonObject;
use tessera_providers::request::ToolSpec as ModelTool;

use crate::forms::{check_form_schema, describe_issues};

/// The tool's name, as the model calls it.
pub const REQUEST_FORM: &str = "request_form";

/// What the model sees of the tool. The form is a list of `fields` rather than a JSON Schema:
/// every list the declaration allows is a form the engine accepts (no field names repeated
/// in a `required` list, no bounds that can contradict each other), so a grammar built from
/// it (a local model's) can only produce a valid request, and a small model has less to get
/// wrong. Calls that pass a JSON Schema as `schema` are still accepted.
pub(crate) fn model_tool() -> ModelTool {
    // Every branch lists its fields in full (no `$ref`): providers and llama.cpp's grammar
    // read it alike. Few words: the declaration is in every prompt of a run with tools.
    let branch = |kinds: Value, extra: Option<(&str, Value)>| {
        let mut properties = json!({
            "name": {"type": "string", "minLength": 1, "maxLength": 40},
            "label": {"type": "string", "minLength": 1, "maxLength": 60},
            "kind": kinds,
            "required": {"type": "boolean"},
            "help": {"type": "string", "maxLength": 120}
        });
        let mut required = json!(["name", "label", "kind"]);
        if let (Some((key, schema)), Some(map)) = (extra, properties.as_object_mut()) {
            map.insert(key.to_owned(), schema);
            if key == "options" {
                required = json!(["name", "label", "kind", "options"]);
            }
        }
        json!({"required": required, "properties": properties})
    };
    let text = branch(
        json!({"const": "text"}),
        Some((
            "max_length",
            json!({"type": "integer", "minimum": 1, "maximum": 1000}),
        )),
    );
    let choice = branch(
        json!({"enum": CHOICE_KINDS}),
        Some((
            "options",
            json!({"type": "array", "minItems": 1, "maxItems": 10,
                   "items": {"type": "string", "minLength": 1, "maxLength": 40}}),
        )),
    );
    let kinds: Vec<&str> = FORMATTED_KINDS
        .iter()
        .chain(&OTHER_KINDS)
        .copied()
        .collect();
    let other = branch(json!({ "enum": kinds }), None);
    ModelTool {
        name: REQUEST_FORM.to_owned(),
        description: "Ask the person to fill in a short form when you need structured facts \
                      from them (dates, amounts, choices) to go on. The conversation waits \
                      until they answer; the result is {\"action\": \"accept\", \"values\": \
                      {name: value, …}} or {\"action\": \"decline\" | \"cancel\"}. Never ask for \
                      passwords, tokens or keys."
            .to_owned(),
        input_schema: json!({
            "type": "object",
            "required": ["title", "fields"],
            "properties": {
                "title": {"type": "string", "minLength": 1, "maxLength": 80},
                "description": {"type": "string", "maxLength": 200},
                "fields": {
                    "type": "array", "minItems": 1, "maxItems": 8,
                    "description": "In order. name: the answer's key; label: what the person reads, in their language. choice takes one of options, choices several; date is YYYY-MM-DD.",
                    "items": {"anyOf": [text, choice, other]}
                },
                "submit_text": {"type": "string", "maxLength": 30},
                "cancel_text": {"type": "string", "maxLength": 30}
            }
        }),
    }
}

/// Kinds of field whose text has a form of its own (so no `max_length`: a date cannot be cut).
const FORMATTED_KINDS: [&str; 4] = ["email", "url", "date", "date_time"];
/// Kinds of field that pick from `options`.
const CHOICE_KINDS: [&str; 2] = ["choice", "choices"];
/// The other kinds: numbers and yes/no.
const OTHER_KINDS: [&str; 3] = ["number", "integer", "yes_no"];

/// The JSON Schema a list of `fields` stands for, or what is wrong with the list.
fn schema_of_fields(fields: &Value) -> Result<Value, BadFormRequest> {
    let bad = |at: String, message: &str| BadFormRequest::Fields(format!("{at}: {message}"));
    let Some(list) = fields.as_array().filter(|l| !l.is_empty()) else {
        return Err(bad("fields".into(), "must be a non-empty list of fields"));
    };
    let mut properties = serde_json::Map::new();
    let mut required = Vec::new();
    for (i, field) in list.iter().enumerate() {
        let at = |key: &str| format!("fields[{i}].{key}");
        let Some(field) = field.as_object() else {
            return Err(bad(format!("fields[{i}]"), "must be an object"));
        };
        let text = |key: &str| -> Result<Option<String>, BadFormRequest> {
            match field.get(key) {
                None => Ok(None),
                Some(Value::String(s)) if !s.trim().is_empty() => Ok(Some(s.clone())),
                Some(_) => Err(bad(at(key), "must be a non-empty string")),
            }
        };
        let name = text("name")?.ok_or_else(|| bad(at("name"), "is required"))?;
        let label = text("label")?.ok_or_else(|| bad(at("label"), "is required"))?;
        let kind = text("kind")?.ok_or_else(|| bad(at("kind"), "is required"))?;
        let mut schema = match kind.as_str() {
            "text" => json!({"type": "string"}),
            "email" => json!({"type": "string", "format": "email"}),
            "url" => json!({"type": "string", "format": "uri"}),
            "date" => json!({"type": "string", "format": "date"}),
            "date_time" => json!({"type": "string", "format": "date-time"}),
            "number" => json!({"type": "number"}),
            "integer" => json!({"type": "integer"}),
            "yes_no" => json!({"type": "boolean"}),
            "choice" | "choices" => {
                let options = field
                    .get("options")
                    .and_then(Value::as_array)
                    .filter(|o| !o.is_empty())
                    .ok_or_else(|| {
                        bad(at("options"), "is required: a non-empty list of strings")
                    })?;
                let options = Value::Array(options.clone());
                if kind == "choice" {
                    json!({"type": "string", "enum": options})
                } else {
                    json!({"type": "array", "uniqueItems": true,
                           "items": {"type": "string", "enum": options}})
                }
            }
            other => {
                let kinds: Vec<&str> = ["text"]
                    .iter()
                    .chain(&FORMATTED_KINDS)
                    .chain(&CHOICE_KINDS)
                    .chain(&OTHER_KINDS)
                    .copied()
                    .collect();
                return Err(bad(
                    at("kind"),
                    &format!(
                        "`{other}` is not a kind of field (kinds: {})",
                        kinds.join(", ")
                    ),
                ));
            }
        };
        for (key, value) in field {
            match key.as_str() {
                "name" | "label" | "kind" => {}
                "required" => match value {
                    Value::Bool(true) => required.push(Value::String(name.clone())),
                    Value::Bool(false) => {}
                    _ => return Err(bad(at(key), "must be true or false")),
                },
                "help" => {
                    if let Some(help) = text("help")? {
                        schema["description"] = Value::String(help);
                    }
                }
                "options" if CHOICE_KINDS.contains(&kind.as_str()) => {}
                "max_length" if kind == "text" => match value.as_u64() {
                    Some(n) if n > 0 => schema["maxLength"] = Value::from(n),
                    _ => return Err(bad(at(key), "must be a positive whole number")),
                },
                other => {
                    return Err(bad(
                        at(other),
                        &format!("is not something a `{kind}` field has"),
                    ))
                }
            }
        }
        schema["title"] = Value::String(label);
        if properties.insert(name.clone(), schema).is_some() {
            return Err(bad(at("name"), &format!("\"{name}\" names two fields")));
        }
    }
    let mut schema = json!({"type": "object", "properties": properties});
    if !required.is_empty() {
        schema["required"] = Value::Array(required);
    }
    Ok(schema)
}

/// A form the model asked for, checked.
#[derive(Clone, Debug)]
pub(crate) struct RequestedForm {
    pub payload: FormRequestPayload,
}

/// Why a model's `request_form` call shows no form; the words go back to the model.
#[derive(Debug, thiserror::Error)]
pub(crate) enum BadFormRequest {
    #[error("request_form needs a non-empty `title`")]
    NoTitle,
    #[error("request_form needs its `fields`: a non-empty list")]
    NoFields,
    #[error("request_form takes `fields` or a JSON Schema as `schema`, not both")]
    FieldsAndSchema,
    /// What is wrong with one of the `fields`, with where.
    #[error("request_form's fields were refused: {0}")]
    Fields(String),
    /// Each problem of the schema, with its path.
    #[error("{}", describe_issues(.0))]
    Schema(Vec<crate::forms::SchemaIssue>),
    #[error("the form schema must be an object")]
    SchemaNotAnObject,
}

/// Reads the model's arguments into the form to show, or the error to give back to the model.
pub(crate) fn parse_request(
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
    let schema_value = match (arguments.get("fields"), arguments.get("schema")) {
        (Some(fields), None) => schema_of_fields(fields)?,
        (None, Some(schema)) => schema.clone(),
        (Some(_), Some(_)) => return Err(BadFormRequest::FieldsAndSchema),
        (None, None) => return Err(BadFormRequest::NoFields),
    };
    let schema = check_form_schema(&schema_value).map_err(BadFormRequest::Schema)?;
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
    })
}

/// The coordinator as the one who asks.
pub(crate) fn agent_requester(name: &str) -> FormRequester {
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

    fn fields_form(fields: Value) -> Result<RequestedForm, BadFormRequest> {
        parse_request(
            "f1",
            &json!({"title": "Trip", "fields": fields}),
            agent_requester("a"),
        )
    }

    #[test]
    fn fields_become_the_json_schema_the_person_fills_in() {
        let form = fields_form(json!([
            {"name": "email", "label": "Email", "kind": "email", "required": true},
            {"name": "nights", "label": "Nights", "kind": "integer", "help": "How many"},
            {"name": "room", "label": "Room", "kind": "choice", "options": ["single", "double"]},
            {"name": "extras", "label": "Extras", "kind": "choices", "options": ["breakfast"]},
            {"name": "note", "label": "Note", "kind": "text", "max_length": 50, "required": false},
            {"name": "pets", "label": "Pets", "kind": "yes_no"},
            {"name": "on", "label": "On", "kind": "date_time"}
        ]))
        .unwrap();
        let checked = check_form_schema(&Value::Object(form.payload.schema.clone())).unwrap();
        assert_eq!(
            Value::Object(form.payload.schema),
            json!({"type": "object", "required": ["email"], "properties": {
                "email": {"type": "string", "format": "email", "title": "Email"},
                "nights": {"type": "integer", "title": "Nights", "description": "How many"},
                "room": {"type": "string", "enum": ["single", "double"], "title": "Room"},
                "extras": {"type": "array", "uniqueItems": true,
                           "items": {"type": "string", "enum": ["breakfast"]}, "title": "Extras"},
                "note": {"type": "string", "maxLength": 50, "title": "Note"},
                "pets": {"type": "boolean", "title": "Pets"},
                "on": {"type": "string", "format": "date-time", "title": "On"}
            }})
        );
        let names: Vec<&str> = checked.fields.iter().map(|f| f.name.as_str()).collect();
        assert_eq!(
            names,
            ["email", "nights", "room", "extras", "note", "pets", "on"]
        );
    }

    #[test]
    fn wrong_fields_are_named_where_they_are() {
        let cases = [
            (json!([]), "fields: must be a non-empty list"),
            (
                json!([{"name": "a", "label": "A", "kind": "choice"}]),
                "fields[0].options: is required",
            ),
            (
                json!([{"name": "a", "label": "A", "kind": "number", "options": ["x"]}]),
                "fields[0].options: is not something a `number` field has",
            ),
            (
                json!([{"name": "a", "label": "A", "kind": "colour"}]),
                "fields[0].kind: `colour` is not a kind of field",
            ),
            (
                json!([{"name": "a", "label": "A", "kind": "text"},
                       {"name": "a", "label": "B", "kind": "text"}]),
                "fields[1].name: \"a\" names two fields",
            ),
            (
                json!([{"name": "a", "label": "", "kind": "text"}]),
                "fields[0].label: must be a non-empty string",
            ),
            (
                json!([{"name": "a", "label": "A", "kind": "text", "max_length": 0}]),
                "fields[0].max_length: must be a positive whole number",
            ),
        ];
        for (fields, wanted) in cases {
            let err = fields_form(fields).unwrap_err().to_string();
            assert!(err.contains(wanted), "{err} does not say {wanted}");
        }
        let many: Vec<Value> = (0..65)
            .map(|i| json!({"name": format!("f{i}"), "label": "F", "kind": "yes_no"}))
            .collect();
        let err = fields_form(Value::Array(many)).unwrap_err().to_string();
        assert!(
            err.contains("lists 65 fields; a form has at most 64"),
            "{err}"
        );
        let secret = fields_form(json!([{"name": "password", "label": "P", "kind": "text"}]));
        assert!(secret.unwrap_err().to_string().contains("secret"));
        let both = parse_request(
            "f1",
            &json!({"title": "T", "fields": [], "schema": {}}),
            agent_requester("a"),
        );
        assert!(matches!(both, Err(BadFormRequest::FieldsAndSchema)));
        let neither = parse_request("f1", &json!({"title": "T"}), agent_requester("a"));
        assert!(matches!(neither, Err(BadFormRequest::NoFields)));
    }

    /// Every field the declaration allows, at the edges of each limit, is a form the engine
    /// accepts: a grammar built from the declaration cannot produce a refused request.
    #[test]
    fn what_the_declaration_allows_the_engine_accepts() {
        let tool = model_tool();
        let branches = tool.input_schema["properties"]["fields"]["items"]["anyOf"]
            .as_array()
            .unwrap()
            .clone();
        let mut fields = Vec::new();
        for (b, branch) in branches.iter().enumerate() {
            let props = branch["properties"].as_object().unwrap();
            let kinds = match props["kind"].get("const") {
                Some(kind) => vec![kind.clone()],
                None => props["kind"]["enum"].as_array().unwrap().clone(),
            };
            for kind in &kinds {
                for optional in [false, true] {
                    let mut field = json!({
                        "name": format!("f{}", fields.len()),
                        "label": "x".repeat(60),
                        "kind": kind,
                    });
                    if optional
                        || branch["required"]
                            .as_array()
                            .unwrap()
                            .contains(&json!("options"))
                    {
                        for (key, schema) in props {
                            let value = match key.as_str() {
                                "required" => json!(optional),
                                "help" => json!("h".repeat(120)),
                                "max_length" => json!(1),
                                "options" => json!(["o".repeat(40), "p"]),
                                _ => continue,
                            };
                            assert!(schema.is_object(), "{b} {key}");
                            field[key] = value;
                        }
                    }
                    fields.push(field);
                }
            }
        }
        assert_eq!(fields.len(), 20, "every kind, bare and with every option");
        for chunk in fields.chunks(8) {
            fields_form(Value::Array(chunk.to_vec())).unwrap();
        }
    }
}
