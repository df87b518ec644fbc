//! request_form's schema rules and the validation of the person's answer.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use serde_json::{json, Value};
use tessera_engine::forms::{
    check_form_schema, describe_issues, validate_values, FieldError, FieldKind, FormSchema,
    SchemaIssue, TextFormat,
};

/// Every field kind of the subset, with titles, descriptions, defaults and UI hints.
fn everything() -> Value {
    json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "type": "object",
        "title": "Your details",
        "description": "So the booking can go ahead",
        "x-layout": "two-columns",
        "additionalProperties": false,
        "required": ["name", "email", "age"],
        "properties": {
            "name": {"type": "string", "title": "Name", "minLength": 1, "maxLength": 40},
            "email": {"type": "string", "title": "Email", "format": "email"},
            "homepage": {"type": "string", "format": "uri"},
            "birthday": {"type": "string", "format": "date"},
            "arrival": {"type": "string", "format": "date-time", "description": "When you land"},
            "age": {"type": "integer", "minimum": 18, "maximum": 120},
            "budget": {"type": "number", "minimum": 0.5, "default": 100.0},
            "newsletter": {"type": "boolean", "default": false, "x-widget": "switch"},
            "size": {"type": "string", "enum": ["s", "m", "l"], "default": "m"},
            "color": {"type": "string", "oneOf": [
                {"const": "r", "title": "Red"}, {"const": "g", "title": "Green"}
            ]},
            "legacy": {"type": "string", "enum": ["a", "b"], "enumNames": ["Alpha", "Beta"]},
            "toppings": {"type": "array", "minItems": 1, "maxItems": 2,
                "items": {"type": "string", "enum": ["cheese", "ham", "olives"]},
                "default": ["cheese"]},
            "days": {"type": "array", "uniqueItems": true,
                "items": {"anyOf": [{"const": "mon", "title": "Monday"},
                                    {"const": "tue", "title": "Tuesday"}]}}
        }
    })
}

fn form() -> FormSchema {
    check_form_schema(&everything()).expect("the full subset is accepted")
}

fn refused(schema: Value) -> Vec<SchemaIssue> {
    check_form_schema(&schema).expect_err("refused")
}

fn one_field(field: Value) -> Vec<SchemaIssue> {
    refused(json!({"type": "object", "properties": {"f": field}}))
}

fn has(issues: &[SchemaIssue], path: &str, words: &str) -> bool {
    issues
        .iter()
        .any(|i| i.path == path && i.message.contains(words))
}

#[track_caller]
fn assert_issue(issues: &[SchemaIssue], path: &str, words: &str) {
    assert!(
        has(issues, path, words),
        "expected `{path}: …{words}…` in {issues:#?}"
    );
}

fn valid() -> Value {
    json!({"name": "Ada", "email": "ada@example.com", "age": 36})
}

fn errors(values: Value) -> Vec<FieldError> {
    validate_values(&form(), &values).expect_err("invalid")
}

#[track_caller]
fn assert_error(values: Value, field: &str, message: &str) {
    let errors = errors(values);
    assert!(
        errors
            .iter()
            .any(|e| e.field == field && e.message == message),
        "expected `{field}: {message}` in {errors:#?}"
    );
}

fn with(key: &str, value: Value) -> Value {
    let mut v = valid();
    v[key] = value;
    v
}

// ---- the schema ----

#[test]
fn every_field_kind_is_accepted() {
    let form = form();
    assert_eq!(form.title.as_deref(), Some("Your details"));
    assert_eq!(form.fields.len(), 13);
    let names: Vec<&str> = form.fields.iter().map(|f| f.name.as_str()).collect();
    assert_eq!(
        names[..3],
        ["name", "email", "homepage"],
        "schema order is kept"
    );
    assert!(matches!(
        form.field("email").unwrap().kind,
        FieldKind::Text {
            format: Some(TextFormat::Email),
            ..
        }
    ));
    assert!(form.field("age").unwrap().required);
    assert!(!form.field("budget").unwrap().required);
    assert!(matches!(
        form.field("age").unwrap().kind,
        FieldKind::Number { integer: true, .. }
    ));
    assert_eq!(form.field("newsletter").unwrap().kind, FieldKind::Boolean);
    let FieldKind::Choice { options } = &form.field("color").unwrap().kind else {
        panic!("color is a choice");
    };
    assert_eq!(options[0].label(), "Red");
    assert_eq!(options[0].value, "r");
    let FieldKind::Choice { options } = &form.field("legacy").unwrap().kind else {
        panic!("legacy is a choice");
    };
    assert_eq!(options[1].label(), "Beta");
    let FieldKind::MultiChoice {
        options,
        min_items,
        max_items,
    } = &form.field("toppings").unwrap().kind
    else {
        panic!("toppings is a multi-select");
    };
    assert_eq!(
        (options.len(), *min_items, *max_items),
        (3, Some(1), Some(2))
    );
    assert!(matches!(
        form.field("days").unwrap().kind,
        FieldKind::MultiChoice { .. }
    ));
    assert_eq!(form.source(), &everything());
}

#[test]
fn the_seed_002_form_is_accepted() {
    let schema = json!({
        "type": "object",
        "required": ["age", "email"],
        "properties": {
            "age": {"type": "number", "title": "年龄"},
            "email": {"type": "string", "title": "邮箱", "format": "email"}
        }
    });
    let form = check_form_schema(&schema).unwrap();
    let values = validate_values(&form, &json!({"age": 30, "email": "a@b.com"})).unwrap();
    assert_eq!(values["age"], 30);
}

#[test]
fn a_nested_object_is_refused() {
    let issues = one_field(json!({"type": "object", "properties": {"x": {"type": "string"}}}));
    assert_issue(
        &issues,
        "properties.f.type",
        "nested objects are not allowed",
    );
}

#[test]
fn ref_is_refused() {
    let issues = refused(json!({
        "type": "object",
        "$defs": {"s": {"type": "string"}},
        "properties": {"f": {"type": "string", "$ref": "#/$defs/s"}}
    }));
    assert_issue(&issues, "properties.f.$ref", "`$ref` is not allowed");
    assert_issue(&issues, "$defs", "`$defs` is not allowed");
}

#[test]
fn an_array_of_objects_is_refused() {
    let issues = one_field(json!({"type": "array", "items": {"type": "object"}}));
    assert_issue(
        &issues,
        "properties.f.items.type",
        "a list of objects is not allowed",
    );
}

#[test]
fn secret_field_names_are_refused() {
    for name in ["api_key", "password", "accessToken"] {
        let issues = refused(json!({"type": "object", "properties": {name: {"type": "string"}}}));
        assert_issue(&issues, &format!("properties.{name}"), "a secret");
    }
    // Not secrets.
    for name in ["max_tokens", "keyboard_layout", "monkey"] {
        let schema = json!({"type": "object", "properties": {name: {"type": "string"}}});
        assert!(check_form_schema(&schema).is_ok(), "{name} is not a secret");
    }
}

#[test]
fn a_password_format_or_write_only_field_is_refused() {
    let issues = one_field(json!({"type": "string", "format": "password"}));
    assert_issue(&issues, "properties.f.format", "a secret");
    let issues = one_field(json!({"type": "string", "writeOnly": true}));
    assert_issue(&issues, "properties.f.writeOnly", "a secret");
}

#[test]
fn required_must_name_existing_properties() {
    let issues = refused(json!({
        "type": "object",
        "required": ["name", "nickname", "name"],
        "properties": {"name": {"type": "string"}}
    }));
    assert_issue(
        &issues,
        "required[1]",
        "\"nickname\" is not one of the properties",
    );
    assert_issue(&issues, "required[2]", "listed twice");
}

#[test]
fn a_default_must_fit_its_field() {
    let issues = refused(json!({
        "type": "object",
        "properties": {
            "age": {"type": "integer", "minimum": 18, "default": "old"},
            "adult": {"type": "boolean", "default": "yes"},
            "size": {"type": "string", "enum": ["s", "m"], "default": "xl"},
            "mail": {"type": "string", "format": "email", "default": "nope"},
            "min": {"type": "integer", "minimum": 18, "default": 3},
            "tags": {"type": "array", "items": {"enum": ["a", "b"]}, "default": ["c"]}
        }
    }));
    assert_issue(&issues, "properties.age.default", "must be a whole number");
    assert_issue(&issues, "properties.adult.default", "must be true or false");
    assert_issue(&issues, "properties.size.default", "must be one of: s, m");
    assert_issue(&issues, "properties.mail.default", "valid email address");
    assert_issue(&issues, "properties.min.default", "must be at least 18");
    assert_issue(
        &issues,
        "properties.tags.default",
        "\"c\" is not one of the choices",
    );
}

#[test]
fn wrong_keyword_values_are_reported_with_their_paths() {
    let issues = refused(json!({
        "type": "object",
        "properties": {
            "age": {"type": "number", "minimum": "eighteen", "maximum": 10},
            "name": {"type": "string", "minLength": -1, "maxLength": 3, "pattern": "^a"},
            "when": {"type": "string", "format": "time"},
            "pick": {"type": "string", "enum": []},
            "dup": {"type": "string", "enum": ["a", "a"]},
            "color": {"type": "string", "oneOf": [{"const": "r"}, {"value": "g"}]},
            "many": {"type": "array", "items": {"type": "string"}},
            "few": {"type": "array", "minItems": 3, "items": {"enum": ["a", "b"]}},
            "either": {"type": ["string", "null"]},
            "untyped": {"title": "?"}
        }
    }));
    assert_issue(&issues, "properties.age.minimum", "must be a number");
    assert_issue(&issues, "properties.name.minLength", "whole number");
    assert_issue(
        &issues,
        "properties.name.pattern",
        "`pattern` is not supported",
    );
    assert_issue(
        &issues,
        "properties.when.format",
        "email, uri, date, date-time",
    );
    assert_issue(&issues, "properties.pick.enum", "non-empty");
    assert_issue(&issues, "properties.dup.enum[1]", "repeats");
    assert_issue(&issues, "properties.color.oneOf[1]", "const");
    assert_issue(&issues, "properties.many.items", "`enum` or `anyOf`");
    assert_issue(
        &issues,
        "properties.few.minItems",
        "more choices than the 2",
    );
    assert_issue(&issues, "properties.either.type", "a single type");
    assert_issue(&issues, "properties.untyped.type", "is required");
    // Every problem, not just the first.
    assert!(issues.len() >= 11, "{issues:#?}");
}

#[test]
fn the_top_level_is_checked() {
    assert_issue(&refused(json!("form")), "", "JSON object");
    let issues = refused(json!({"type": "array", "properties": {}, "allOf": []}));
    assert_issue(&issues, "type", "must be \"object\"");
    assert_issue(&issues, "properties", "at least one field");
    assert_issue(&issues, "allOf", "not supported");
    assert_issue(
        &refused(json!({"type": "object"})),
        "properties",
        "is required",
    );
    let issues = refused(json!({"type": "object", "additionalProperties": true,
        "properties": {"a": {"type": "string"}}}));
    assert_issue(&issues, "additionalProperties", "may only be false");
}

#[test]
fn issues_read_as_one_error_for_the_model() {
    let issues = one_field(json!({"type": "number", "minimum": "x"}));
    assert_eq!(
        issues[0].to_string(),
        "properties.f.minimum: must be a number"
    );
    let text = describe_issues(&issues);
    assert!(
        text.contains("- properties.f.minimum: must be a number"),
        "{text}"
    );
}

// ---- the values ----

#[test]
fn valid_values_are_accepted_and_defaults_filled_in() {
    let values = validate_values(&form(), &valid()).unwrap();
    assert_eq!(values["name"], "Ada");
    assert_eq!(values["budget"], 100.0);
    assert_eq!(values["newsletter"], false);
    assert_eq!(values["size"], "m");
    assert_eq!(values["toppings"], json!(["cheese"]));
    assert!(
        !values.contains_key("homepage"),
        "no default, nothing filled in"
    );

    let mut all = valid();
    for (k, v) in [
        ("homepage", json!("https://example.com/me")),
        ("birthday", json!("1990-02-28")),
        ("arrival", json!("2025-01-31T14:30:00Z")),
        ("budget", json!(0.5)),
        ("newsletter", json!(true)),
        ("size", json!("l")),
        ("color", json!("g")),
        ("toppings", json!(["ham", "olives"])),
        ("days", json!([])),
    ] {
        all[k] = v;
    }
    let values = validate_values(&form(), &all).unwrap();
    assert_eq!(values["size"], "l", "a given value wins over the default");
    assert_eq!(values["toppings"], json!(["ham", "olives"]));
}

#[test]
fn a_null_counts_as_absent() {
    let values = validate_values(&form(), &with("size", Value::Null)).unwrap();
    assert_eq!(values["size"], "m");
    assert_error(with("name", Value::Null), "name", "is required");
}

#[test]
fn each_format_is_checked() {
    assert_error(
        with("email", json!("ada-at-example")),
        "email",
        "must be a valid email address",
    );
    let e = errors(with("homepage", json!("not a url")));
    assert_eq!(e[0].field, "homepage");
    assert!(e[0].message.starts_with("must be a valid URL"), "{e:?}");
    let e = errors(with("birthday", json!("28/02/1990")));
    assert_eq!(e[0].message, "must be a date (YYYY-MM-DD)");
    let e = errors(with("birthday", json!("1990-02-30")));
    assert_eq!(e[0].field, "birthday", "no 30 February");
    let e = errors(with("arrival", json!("2025-01-31 afternoon")));
    assert_eq!(e[0].field, "arrival");
    assert!(e[0].message.starts_with("must be a date and time"), "{e:?}");
}

#[test]
fn bounds_are_checked() {
    assert_error(with("age", json!(17)), "age", "must be at least 18");
    assert_error(with("age", json!(121)), "age", "must be at most 120");
    assert_error(with("age", json!(30.5)), "age", "must be a whole number");
    assert_error(with("age", json!("30")), "age", "must be a whole number");
    assert_error(with("budget", json!(0.1)), "budget", "must be at least 0.5");
    assert_error(with("name", json!("")), "name", "must not be empty");
    assert_error(
        with("name", json!("x".repeat(41))),
        "name",
        "must be at most 40 characters long",
    );
    assert_error(
        with("newsletter", json!("yes")),
        "newsletter",
        "must be true or false",
    );
}

#[test]
fn choices_are_checked() {
    assert_error(with("size", json!("xl")), "size", "must be one of: s, m, l");
    assert_error(
        with("color", json!("b")),
        "color",
        "must be one of: Red, Green",
    );
    assert_error(
        with("toppings", json!([])),
        "toppings",
        "choose at least one",
    );
    assert_error(
        with("toppings", json!(["cheese", "ham", "olives"])),
        "toppings",
        "choose at most 2",
    );
    assert_error(
        with("toppings", json!(["cheese", "pineapple"])),
        "toppings",
        "\"pineapple\" is not one of the choices",
    );
    assert_error(
        with("toppings", json!("cheese")),
        "toppings",
        "must be a list of choices",
    );
    assert_error(
        with("days", json!(["mon", "mon"])),
        "days",
        "must not choose the same option twice",
    );
}

#[test]
fn missing_required_and_unknown_fields_are_field_errors() {
    let e = validate_values(&form(), &json!({"name": "Ada", "nickname": "A"})).unwrap_err();
    assert_eq!(
        e,
        vec![
            FieldError {
                field: "email".into(),
                message: "is required".into()
            },
            FieldError {
                field: "age".into(),
                message: "is required".into()
            },
            FieldError {
                field: "nickname".into(),
                message: "is not a field of this form".into()
            },
        ]
    );
}

#[test]
fn one_error_per_field() {
    let e = errors(json!({"name": "", "email": 5, "age": -1, "toppings": ["x", "y", "z"]}));
    let fields: Vec<&str> = e.iter().map(|e| e.field.as_str()).collect();
    assert_eq!(fields, ["name", "email", "age", "toppings"]);
}

#[test]
fn an_answer_that_is_not_an_object_is_refused() {
    let e = validate_values(&form(), &json!(["Ada"])).unwrap_err();
    assert_eq!(e.len(), 1);
    assert_eq!(e[0].field, "");
}
