//! Seed-003 request objects answered whole (`App::answer_request`, what `POST /v1/requests`
//! calls): a success response traced to the request's id, and the refusal of a request with
//! nothing to answer.

use serde_json::{json, Value};
use tessera_app::requests::{RequestAnswer, RequestReply};
use tessera_protocol::request::Request;
use tessera_protocol::DocumentKind;
use tessera_testkit::scripted::Reply;

use crate::support::{self, Setup, MODEL};

fn request(root: &str, request_id: &str, resources: Value) -> Request {
    serde_json::from_value(json!({
        "model": MODEL, "root_id": root, "resources": resources,
        "config": {"temperature": 0.5},
        "metadata": {"request_id": request_id, "caller": "suite",
                     "timestamp": "2026-11-23T10:00:00Z"}
    }))
    .unwrap()
}

/// Answers `request` as the HTTP handler does (its trace id the request's own id), waiting.
async fn answer(setup: &Setup, request: &Request) -> (RequestReply, Value) {
    let trace_id = request.metadata.request_id.clone();
    let RequestAnswer::Reply(reply) = setup.app.answer_request(request, &trace_id, false).await
    else {
        panic!("a stream was not asked for");
    };
    let body = serde_json::to_value(&reply.response).unwrap();
    // Whatever the status, the response is a valid seed-003 response.
    let problems = tessera_protocol::validate(DocumentKind::Response, &body);
    assert!(problems.is_empty(), "{problems:?} in {body}");
    (*reply, body)
}

#[tokio::test(flavor = "multi_thread")]
async fn a_request_is_answered_with_a_success_response() {
    let setup = Setup::new().await;
    setup
        .provider
        .push(Reply::openai_text(MODEL, &["Match: ", "85%"]));
    let asked = request(
        "root_1",
        "req_1",
        json!([
            {"role": "system", "content": "You are a recruiter."},
            {"role": "user", "content": "Analyse the match"}
        ]),
    );

    let (reply, body) = answer(&setup, &asked).await;

    assert_eq!(reply.status, 200, "{body}");
    assert_eq!(body["status"], "success", "{body}");
    assert_eq!(body["trace_id"], "req_1");
    assert_eq!(body["outputs"][0]["role"], "assistant");
    assert_eq!(body["outputs"][0]["content"], "Match: 85%");
    assert_eq!(body["context_updates"][0]["type"], "append_prompt");
    assert_eq!(body["context_updates"][0]["content"], "Match: 85%");
    assert_eq!(body["metadata"]["conversation_id"], "root_1");
    assert_eq!(body["metadata"]["usage"]["prompt_tokens"], 12);

    // What the request set reached the model: its temperature and its system text.
    let sent = &setup.provider.calls()[0].body;
    assert_eq!(sent["temperature"], 0.5, "{sent}");
    assert!(sent.to_string().contains("You are a recruiter."), "{sent}");
    // root_id is the conversation, holding what was said.
    assert_eq!(
        setup.shown("root_1"),
        support::turns(&[("Analyse the match", "Match: 85%")])
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn a_request_without_a_user_resource_is_refused_with_no_user_input() {
    let setup = Setup::new().await;
    let asked = request(
        "root_2",
        "req_2",
        json!([{"role": "system", "content": "You are a recruiter."}]),
    );

    let (reply, body) = answer(&setup, &asked).await;

    assert_eq!(reply.status, 422, "{body}");
    assert_eq!(body["status"], "error");
    assert_eq!(body["trace_id"], "req_2");
    assert_eq!(body["error"]["code"], "NO_USER_INPUT");
    assert_eq!(body["outputs"], json!([]));
    // Nothing was sent, nothing was created.
    assert!(setup.provider.calls().is_empty());
    assert!(!setup.app.has_conversation("root_2").unwrap());
}
