//! `validate` across all kinds: full documents, root problems, malformed JSON, ordering.

use crate::common;

use common::problems;
use serde_json::json;
use tessera_protocol::{validate, validate_str, DocumentKind, Problem};

#[test]
fn every_full_document_is_valid() {
    for (kind, label, doc) in common::all_documents() {
        assert_eq!(problems(kind, &doc), Vec::<String>::new(), "{label}");
    }
}

#[test]
fn whole_document_problems_are_at_the_root() {
    for kind in DocumentKind::ALL {
        assert_eq!(
            problems(kind, &json!([1])),
            ["$: expected object"],
            "{kind}"
        );
        assert_eq!(
            problems(kind, &json!("x")),
            ["$: expected object"],
            "{kind}"
        );
    }
}

#[test]
fn malformed_json_is_one_problem_at_the_root() {
    let found = validate_str(DocumentKind::Message, "{\n  \"messageId\": ,\n}");
    assert_eq!(found.len(), 1);
    assert_eq!(found[0].path, "$");
    assert_eq!(
        found[0].message,
        "malformed JSON at line 2, column 16: expected value"
    );
    let found = validate_str(DocumentKind::Event, "");
    assert_eq!(
        found[0].to_string(),
        "$: malformed JSON at line 1, column 0: EOF while parsing a value"
    );
    let text = serde_json::to_string(&common::request()).unwrap();
    assert!(validate_str(DocumentKind::Request, &text).is_empty());
}

#[test]
fn problems_are_sorted_and_deduplicated() {
    let doc = json!({"messageId": 1, "contextId": 2, "content": 3, "type": "USER_INPUT"});
    let found = validate(DocumentKind::Message, &doc);
    let mut sorted = found.clone();
    sorted.sort();
    sorted.dedup();
    assert_eq!(found, sorted);
    // `content` is wrong both for the envelope and for USER_INPUT: reported once.
    assert_eq!(
        found.iter().filter(|p| p.path == "content").count(),
        1,
        "{found:#?}"
    );
}

#[test]
fn problem_display() {
    let problem = Problem {
        path: "session.messages[0].role".into(),
        message: "required".into(),
    };
    assert_eq!(problem.to_string(), "session.messages[0].role: required");
}
