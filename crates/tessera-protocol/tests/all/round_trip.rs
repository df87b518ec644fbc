//! Typed parsing and serialization: every document survives deserialize → serialize unchanged,
//! unknown fields and unknown extensible values included.

use crate::common;

use serde_json::{json, Value};
use tessera_protocol::easyflow::{Domain, Event, EventBody, LlmMessagePayload};
use tessera_protocol::mcp_cp::{Message, MessageContent, MessageType};
use tessera_protocol::request::{Request, Role};
use tessera_protocol::{normalize, parse, validate, Document, DocumentKind, ProtocolError};

/// Parses `doc` as the root type of `kind` and serializes it back.
fn round_trip(kind: DocumentKind, doc: &Value) -> Value {
    normalize(kind, doc).unwrap_or_else(|e| panic!("{e}"))
}

/// Adds an unknown field to every object of `doc`, except the entries of dictionaries whose
/// values are typed (`evidences`).
fn with_unknown_fields(doc: &mut Value, path: &str) {
    match doc {
        Value::Object(map) => {
            let is_dictionary = path == "/evidences";
            for (key, value) in map.iter_mut() {
                with_unknown_fields(value, &format!("{path}/{key}"));
            }
            if !is_dictionary {
                map.insert("x_unknown".into(), json!({"kept": [1, null, "two"]}));
            }
        }
        Value::Array(items) => {
            for (i, item) in items.iter_mut().enumerate() {
                with_unknown_fields(item, &format!("{path}/{i}"));
            }
        }
        _ => {}
    }
}

#[test]
fn every_full_document_round_trips() {
    for (kind, label, doc) in common::all_documents() {
        assert_eq!(round_trip(kind, &doc), doc, "{label}");
    }
}

#[test]
fn unknown_fields_survive_everywhere() {
    for (kind, label, mut doc) in common::all_documents() {
        with_unknown_fields(&mut doc, "");
        if kind == DocumentKind::Request {
            // Seed 003 §1.3: the request object's own level is closed (extensions go into
            // `metadata` or `config`); every level below keeps them.
            let top = doc.as_object_mut().unwrap().remove("x_unknown");
            assert!(top.is_some());
            let mut open = doc.clone();
            open["x_unknown"] = json!(1);
            assert_eq!(
                validate(kind, &open)
                    .iter()
                    .map(|p| p.path.as_str())
                    .collect::<Vec<_>>(),
                ["x_unknown"]
            );
        }
        assert!(
            validate(kind, &doc).is_empty(),
            "{label}: {:?}",
            validate(kind, &doc)
        );
        assert_eq!(round_trip(kind, &doc), doc, "{label}");
    }
}

#[test]
fn serialization_keeps_document_order_for_known_fields() {
    let doc = common::document(DocumentKind::Message);
    let text = serde_json::to_string(&Message::from_value(&doc).unwrap()).unwrap();
    assert_eq!(text, serde_json::to_string(&doc).unwrap());
    let doc = common::document(DocumentKind::Event);
    let text = serde_json::to_string(&Event::from_value(&doc).unwrap()).unwrap();
    assert_eq!(text, serde_json::to_string(&doc).unwrap());
}

#[test]
fn unknown_extensible_values_are_kept() {
    let mut doc = common::document(DocumentKind::Message);
    doc["type"] = json!("CUSTOM_THING");
    doc["content"] = json!({"anything": [1, 2]});
    let message = Message::from_value(&doc).unwrap();
    assert_eq!(
        message.message_type(),
        MessageType::Other("CUSTOM_THING".into())
    );
    assert!(
        matches!(&message.content, MessageContent::Other { message_type, .. } if message_type == "CUSTOM_THING")
    );
    assert_eq!(serde_json::to_value(&message).unwrap(), doc);

    let mut doc = common::document(DocumentKind::Event);
    doc["domain"] = json!("billing");
    doc["type"] = json!("invoice");
    doc["payload"] = json!({"total": 3});
    let event = Event::from_value(&doc).unwrap();
    assert_eq!(event.body.domain(), Domain::Other("billing".into()));
    assert_eq!(event.body.event_type(), "invoice");
    assert_eq!(serde_json::to_value(&event).unwrap(), doc);

    let mut doc = common::request();
    doc["resources"][0]["role"] = json!("critic");
    let request = Request::from_value(&doc).unwrap();
    assert_eq!(request.resources[0].role, Role::Other("critic".into()));
    assert_eq!(request.resources[1].role, Role::User);
    assert_eq!(serde_json::to_value(&request).unwrap(), doc);
}

#[test]
fn content_and_payload_are_typed_by_discriminator() {
    for (label, doc) in common::messages() {
        let message = Message::from_value(&doc).unwrap();
        assert_eq!(message.message_type().as_str(), label);
        assert!(
            !matches!(message.content, MessageContent::Other { .. }),
            "{label}"
        );
    }
    for (label, doc) in common::events() {
        let event = Event::from_value(&doc).unwrap();
        assert_eq!(
            format!("{}/{}", event.body.domain(), event.body.event_type()),
            label
        );
        assert!(!matches!(event.body, EventBody::Other { .. }), "{label}");
    }
}

#[test]
fn explicit_nulls_in_any_json_fields_survive() {
    let messages: std::collections::HashMap<_, _> = common::messages().into_iter().collect();
    for label in ["TOOL_CALL_RESPONSE", "CONTEXT_UPDATE"] {
        let doc = &messages[label];
        assert_eq!(round_trip(DocumentKind::Message, doc), *doc, "{label}");
    }
    let mut doc = common::request();
    doc["config"]["function_call"] = Value::Null;
    assert_eq!(round_trip(DocumentKind::Request, &doc), doc);
}

#[test]
fn numbers_keep_their_written_form() {
    let mut doc = common::request();
    doc["config"]["temperature"] = json!(1);
    doc["config"]["top_p"] = json!(0.95);
    assert_eq!(round_trip(DocumentKind::Request, &doc), doc);
    assert_eq!(
        serde_json::to_string(&Request::from_value(&doc).unwrap().config.temperature).unwrap(),
        "1"
    );
}

#[test]
fn events_built_in_code_serialize_as_the_protocol_says() {
    let event = Event::new(
        "conv_1",
        EventBody::LlmMessage(LlmMessagePayload {
            delta: Some("Hel".into()),
            ..Default::default()
        }),
    );
    let value = serde_json::to_value(&event).unwrap();
    assert_eq!(
        value,
        json!({
            "protocol": "easyflow-chat",
            "version": "1.1",
            "domain": "llm",
            "type": "message",
            "conversation_id": "conv_1",
            "payload": {"delta": "Hel"}
        })
    );
    assert!(validate(DocumentKind::Event, &value).is_empty());
}

#[test]
fn invalid_documents_do_not_parse() {
    let mut doc = common::document(DocumentKind::Message);
    doc["sender"]["type"] = json!("ROBOT");
    let error = Message::from_value(&doc).unwrap_err();
    assert!(matches!(
        error,
        ProtocolError::Invalid {
            kind: DocumentKind::Message,
            ..
        }
    ));
    assert_eq!(error.problems().len(), 1);
    assert_eq!(
        error.to_string(),
        "invalid message: sender.type: must be one of USER, MODEL, SYSTEM, TOOL"
    );
    let error = parse::<Message>(DocumentKind::Message, &json!({})).unwrap_err();
    assert_eq!(error.problems().len(), 6);
    let error = Message::from_json_str("{").unwrap_err();
    assert_eq!(error.problems()[0].path, "$");
    // A valid document of another kind does not fit.
    let error = parse::<Request>(DocumentKind::FormSubmission, &common::form_submission());
    assert!(matches!(error, Err(ProtocolError::Mismatch { .. })));
}
