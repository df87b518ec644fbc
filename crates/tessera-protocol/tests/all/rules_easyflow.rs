//! `validate` for the easyflow kinds (event, form-submission): paths and messages.

use crate::common;

use common::{problems, remove, set};
use serde_json::{json, Value};
use tessera_protocol::{validate, DocumentKind};

#[test]
fn event_envelope_and_payload_rules() {
    let mut doc = common::document(DocumentKind::Event);
    set(&mut doc, "/protocol", json!("easyflow"));
    set(&mut doc, "/version", json!("2.0"));
    set(&mut doc, "/index", json!(-1));
    set(&mut doc, "/meta/seq", json!(-1));
    set(&mut doc, "/meta/ts", json!("now"));
    remove(&mut doc, "/conversation_id");
    assert_eq!(
        problems(DocumentKind::Event, &doc),
        [
            "conversation_id: required",
            "index: must be >= 0",
            "meta.seq: must be >= 0",
            "meta.ts: not an RFC 3339 timestamp",
            "protocol: must be \"easyflow-chat\"",
            "version: must look like \"1.<n>\"",
        ]
    );
    let mut doc = common::document(DocumentKind::Event);
    remove(&mut doc, "/payload");
    assert_eq!(problems(DocumentKind::Event, &doc), ["payload: required"]);
    let mut doc = common::document(DocumentKind::Event);
    set(&mut doc, "/version", json!("1.12"));
    assert!(validate(DocumentKind::Event, &doc).is_empty());

    let events: std::collections::HashMap<_, _> = common::events().into_iter().collect();
    let cases = [
        (
            "tool/tool_call",
            "/payload/arguments",
            "payload.arguments: required",
        ),
        (
            "tool/tool_result",
            "/payload/status",
            "payload.status: required",
        ),
        (
            "tool/tool_queued",
            "/payload/position",
            "payload.position: required",
        ),
        (
            "tool/tool_started",
            "/payload/tool_call_id",
            "payload.tool_call_id: required",
        ),
        (
            "tool/tool_progress",
            "/payload/progress",
            "payload.progress: required",
        ),
        ("system/error", "/payload/code", "payload.code: required"),
        ("system/status", "/payload/state", "payload.state: required"),
        (
            "business/error",
            "/payload/message",
            "payload.message: required",
        ),
        (
            "workflow/status",
            "/payload/node_id",
            "payload.node_id: required",
        ),
        (
            "workflow/graph",
            "/payload/edges",
            "payload.edges: required",
        ),
        (
            "interaction/form_request",
            "/payload/schema",
            "payload.schema: required",
        ),
        (
            "interaction/form_cancel",
            "/payload/form_id",
            "payload.form_id: required",
        ),
        (
            "interaction/form_result",
            "/payload/action",
            "payload.action: required",
        ),
        (
            "interaction/consent_request",
            "/payload/touches",
            "payload.touches: required",
        ),
        (
            "interaction/consent_result",
            "/payload/decision",
            "payload.decision: required",
        ),
        ("debug/log", "/payload/level", "payload.level: required"),
    ];
    for (label, pointer, expected) in cases {
        let mut doc = events[label].clone();
        remove(&mut doc, pointer);
        assert_eq!(problems(DocumentKind::Event, &doc), [expected], "{label}");
    }
    // `arguments` may be any JSON, null included.
    let mut doc = events["tool/tool_call"].clone();
    set(&mut doc, "/payload/arguments", Value::Null);
    assert!(validate(DocumentKind::Event, &doc).is_empty());
}

#[test]
fn llm_payloads_carry_exactly_one_of_delta_and_content() {
    for ty in ["thinking", "message"] {
        let both = common::event("llm", ty, json!({"delta": "a", "content": "b"}));
        assert_eq!(
            problems(DocumentKind::Event, &both),
            ["payload: exactly one of delta, content must be present, not both"]
        );
        let neither = common::event("llm", ty, json!({"signature": "s"}));
        assert_eq!(
            problems(DocumentKind::Event, &neither),
            ["payload: exactly one of delta, content must be present"]
        );
        let wrong = common::event("llm", ty, json!({"delta": 3}));
        assert_eq!(
            problems(DocumentKind::Event, &wrong),
            ["payload.delta: expected string"]
        );
    }
    // Other llm types are not constrained.
    let other = common::event("llm", "usage", json!({}));
    assert!(validate(DocumentKind::Event, &other).is_empty());
}

#[test]
fn form_submission_rules() {
    let mut doc = common::form_submission();
    remove(&mut doc, "/values");
    assert_eq!(
        problems(DocumentKind::FormSubmission, &doc),
        ["values: required"]
    );
    remove(&mut doc, "/action");
    assert_eq!(
        problems(DocumentKind::FormSubmission, &doc),
        ["values: required"]
    );
    for action in ["decline", "cancel"] {
        set_or_insert(&mut doc, "action", json!(action));
        assert!(validate(DocumentKind::FormSubmission, &doc).is_empty());
    }
    let doc = json!({"values": {}});
    assert_eq!(
        problems(DocumentKind::FormSubmission, &doc),
        ["conversation_id: required", "form_id: required"]
    );
}

fn set_or_insert(doc: &mut Value, key: &str, value: Value) {
    let Some(map) = doc.as_object_mut() else {
        panic!("not an object: {doc}")
    };
    map.insert(key.into(), value);
}
