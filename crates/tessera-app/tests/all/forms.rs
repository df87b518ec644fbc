//! A form the model asks the person to fill in: the run waits for it, across a restart, and
//! goes on to its answer once the form is answered.

use serde_json::{json, Value};
use tessera_app::{InteractionKind, InteractionState, Problem, RunEnd};
use tessera_protocol::easyflow::FormSubmission;
use tessera_protocol::error_codes::ErrorCode;
use tessera_testkit::scripted::Reply;

use crate::support::{self, Setup, MODEL};

/// A form as the model writes one: a list of fields.
const FORM: &str = r#"{"title": "Your trip", "fields": [{"name": "email", "label": "Email", "kind": "email", "required": true}, {"name": "nights", "label": "Nights", "kind": "integer", "required": true}]}"#;

#[tokio::test(flavor = "multi_thread")]
async fn a_form_waits_across_a_restart_and_its_answer_lets_the_run_answer() {
    let mut setup = Setup::new().await;
    setup.provider.push(Reply::openai_tool_calls(
        MODEL,
        &[("call_f", "request_form", &[FORM])],
    ));

    let outcome = setup.say("c_form", "q1", "Book a room").await;

    // The run waits for the person, naming the form.
    let RunEnd::Waiting(waiting) = &outcome.end else {
        panic!("the run does not wait: {outcome:?}");
    };
    assert_eq!(waiting.len(), 1, "{waiting:?}");
    let form = &waiting[0];
    assert_eq!(form.kind, InteractionKind::Form);
    assert_eq!(form.request["title"], "Your trip");
    let required = &form.request["schema"]["required"];
    assert_eq!(required, &json!(["email", "nights"]), "{}", form.request);
    assert_eq!(setup.provider.calls().len(), 1);
    let detail = setup.app.conversation_detail("c_form").unwrap();
    assert!(detail.conversation.waits_for_person);

    // Quit and start again: the form still waits.
    setup.restart().await;
    let listed =
        serde_json::to_value(setup.app.waiting_interactions(Some("c_form")).unwrap()).unwrap();
    let listed = listed["interactions"].as_array().unwrap();
    assert_eq!(listed.len(), 1, "{listed:?}");
    assert_eq!(listed[0]["interaction_id"], form.interaction_id.as_str());
    assert_eq!(listed[0]["kind"], "form");
    assert_eq!(listed[0]["state"], "pending");

    // Values the form refuses: one problem per field, 422, and the run keeps waiting.
    let refused = support::answer(
        &setup.app,
        &form.interaction_id,
        json!({"action": "accept", "values": {"email": "not an address", "nights": "two"}}),
    )
    .await
    .unwrap_err();
    let problem = Problem::from(refused);
    assert_eq!(problem.code, ErrorCode::InvalidValues);
    assert_eq!(problem.http_status(), 422);
    let fields: Vec<&str> = problem.details.as_ref().unwrap()["fields"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["field"].as_str().unwrap())
        .collect();
    assert_eq!(fields, ["email", "nights"]);
    let still = setup
        .app
        .interaction(&form.interaction_id)
        .unwrap()
        .unwrap();
    assert_eq!(still.state, InteractionState::Pending);
    assert_eq!(setup.provider.calls().len(), 1, "nothing was sent");

    // The seed 002 §12 submission, as `POST /v1/forms` takes it: the run goes on.
    setup
        .provider
        .push(Reply::openai_text(MODEL, &["Booked: ", "2 nights."]));
    let submission: FormSubmission = serde_json::from_value(json!({
        "conversation_id": "c_form", "form_id": form.interaction_id,
        "values": {"email": "ada@example.com", "nights": 2}
    }))
    .unwrap();
    let app = setup.app.clone();
    let handle = tokio::runtime::Handle::current();
    let answered = tokio::task::spawn_blocking(move || {
        let _guard = handle.enter();
        app.submit_form(&submission)
    })
    .await
    .unwrap()
    .unwrap();
    assert_eq!(answered.interaction.state, InteractionState::Answered);
    // The run's events from the form's result on (read back from the store, then live).
    let result_seq = answered.event.as_ref().unwrap().seq;
    let sub = setup.app.subscribe("c_form", Some(result_seq)).unwrap();
    let run = tessera_app::StartedRun {
        conversation_id: "c_form".into(),
        run_id: outcome.run_id.clone(),
    };
    let resumed = support::wait(&setup.app, &run, sub).await;
    support::answered(&resumed);
    assert_eq!(resumed.text, "Booked: 2 nights.");

    // The model read the person's answer as the call's result.
    let calls = setup.provider.calls();
    assert_eq!(calls.len(), 2);
    let result = calls[1].body["messages"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["role"] == "tool")
        .unwrap();
    assert_eq!(result["tool_call_id"], "call_f");
    let result: Value = serde_json::from_str(result["content"].as_str().unwrap()).unwrap();
    assert_eq!(
        result,
        json!({"action": "accept", "values": {"email": "ada@example.com", "nights": 2}})
    );
    assert!(setup
        .app
        .waiting_interactions(Some("c_form"))
        .unwrap()
        .interactions
        .is_empty());
    let detail = setup.app.conversation_detail("c_form").unwrap();
    assert!(!detail.conversation.waits_for_person);
    assert_eq!(
        support::said(&detail),
        support::turns(&[("Book a room", "Booked: 2 nights.")])
    );
}
