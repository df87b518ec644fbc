//! Regenerate and edit-and-resend over `/v1` against a real `tessera serve` and the scripted
//! provider: the old branch stays in the tree, the new one is shown, each run's model request
//! holds the history of its own branch only, and a branch switch shows the other one again.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::support;

use serde_json::{json, Value};
use support::api::{mcp_message, sse_events, Api};
use tessera_store::Store;
use tessera_testkit::scripted::{Reply, ScriptedProvider};

/// `(role, text)` of each message a model request carried (system prompts left out).
fn history(call: &tessera_testkit::scripted::RecordedRequest) -> Vec<(String, String)> {
    call.body["messages"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m["role"] != "system")
        .map(|m| {
            let text = match &m["content"] {
                Value::String(s) => s.clone(),
                Value::Array(parts) => parts
                    .iter()
                    .filter_map(|p| p["text"].as_str())
                    .collect::<String>(),
                _ => String::new(),
            };
            (m["role"].as_str().unwrap().to_owned(), text)
        })
        .collect()
}

fn pairs(list: &[(&str, &str)]) -> Vec<(String, String)> {
    list.iter()
        .map(|(r, t)| ((*r).to_owned(), (*t).to_owned()))
        .collect()
}

/// The texts of the branch shown.
fn shown(detail: &Value) -> Vec<&str> {
    detail["messages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["message"]["content"].as_str().unwrap())
        .collect()
}

fn id_of<'a>(detail: &'a Value, text: &str) -> &'a str {
    detail["messages"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["message"]["content"] == text)
        .unwrap_or_else(|| panic!("no {text:?} in {detail:#}"))["id"]
        .as_str()
        .unwrap()
}

/// Says `text` in `conversation` and waits for the MODEL_RESPONSE; `parent` sets
/// `metadata.parentMessageId` when given.
async fn say(api: &Api, conversation: &str, text: &str, parent: Option<Value>) -> Value {
    let mut message = mcp_message(conversation, "USER_INPUT", json!({"text": text}));
    if let Some(parent) = parent {
        message["metadata"] = json!({"parentMessageId": parent});
    }
    let answer = api.post("/messages", &message).await;
    let body = answer.ok(200).clone();
    assert_eq!(body["type"], "MODEL_RESPONSE", "{body:#}");
    body
}

async fn serve(provider: &ScriptedProvider) -> (tempfile::TempDir, Api) {
    let data = tempfile::tempdir().unwrap();
    let api = Api::start(support::serve_scripted(data.path(), provider, false));
    (data, api)
}

#[tokio::test(flavor = "multi_thread")]
async fn regenerate_answers_again_beside_the_old_answer() {
    let provider = ScriptedProvider::start().await.unwrap();
    provider.push(Reply::openai_text("m", &["Four."]));
    provider.push(Reply::openai_text("m", &["It is ", "4."]));
    provider.push(Reply::openai_text("m", &["2+2=4"]));
    let (data, api) = serve(&provider).await;

    say(&api, "c1", "What is 2+2?", None).await;
    let before = api.get("/conversations/c1").await.ok(200).clone();
    assert_eq!(shown(&before), ["What is 2+2?", "Four."]);
    assert_eq!(before["siblings"], json!({}));
    assert_eq!(before["off_branch"], json!([]));
    let question = id_of(&before, "What is 2+2?").to_owned();
    let first = id_of(&before, "Four.").to_owned();

    // Regenerate the last answer (no body): a MODEL_RESPONSE in reply to the question.
    let again = api.post("/conversations/c1/regenerate", &json!({})).await;
    let body = again.ok(200);
    assert_eq!(body["type"], "MODEL_RESPONSE");
    assert_eq!(body["content"]["text"], "It is 4.");
    assert_eq!(body["metadata"]["inReplyTo"], question.as_str());

    // The model saw the question alone, not the answer it replaces.
    let calls = provider.calls();
    assert_eq!(calls.len(), 2);
    assert_eq!(history(&calls[0]), pairs(&[("user", "What is 2+2?")]));
    assert_eq!(history(&calls[1]), pairs(&[("user", "What is 2+2?")]));

    let after = api.get("/conversations/c1").await.ok(200).clone();
    assert_eq!(shown(&after), ["What is 2+2?", "It is 4."]);
    let second = id_of(&after, "It is 4.").to_owned();
    assert_eq!(after["siblings"], json!({ &second: [&first, &second] }));
    assert_eq!(after["off_branch"], json!([&first]));
    assert_eq!(after["conversation"]["message_count"], 2);

    // Regenerate the first answer by its id, streaming: the run's events, then a third sibling.
    let response = support::stream::http()
        .post(format!(
            "{}/v1/conversations/c1/regenerate",
            api.server.base
        ))
        .bearer_auth(&api.server.token)
        .header("accept", "text/event-stream")
        .json(&json!({"message_id": first}))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 200);
    let run_id = response.headers()["x-tessera-run-id"]
        .to_str()
        .unwrap()
        .to_owned();
    let events = sse_events(&response.text().await.unwrap());
    assert_eq!(events.last().unwrap().1, "done");
    assert!(events
        .iter()
        .all(|e| e.2["meta"]["run_id"] == run_id.as_str()));
    let third = api.get("/conversations/c1").await.ok(200).clone();
    assert_eq!(shown(&third), ["What is 2+2?", "2+2=4"]);
    let newest = id_of(&third, "2+2=4").to_owned();
    assert_eq!(
        third["siblings"][&newest],
        json!([&first, &second, &newest])
    );

    // Back to the first answer: the branch through it is shown again.
    let switched = api
        .post("/conversations/c1/branch", &json!({"message_id": first}))
        .await;
    assert_eq!(shown(switched.ok(200)), ["What is 2+2?", "Four."]);
    assert_eq!(
        shown(api.get("/conversations/c1").await.ok(200)),
        ["What is 2+2?", "Four."]
    );

    // Mistakes: nothing runs.
    api.post(
        "/conversations/c1/regenerate",
        &json!({"message_id": "nope"}),
    )
    .await
    .error(404, "NOT_FOUND");
    api.post("/conversations/c1/regenerate", &json!({"message_id": 3}))
        .await
        .error(400, "BAD_REQUEST");
    api.post("/conversations/c1/regenerate", &json!({"text": "x"}))
        .await
        .error(400, "BAD_REQUEST");
    api.post("/conversations/nope/regenerate", &json!({}))
        .await
        .error(404, "NOT_FOUND");
    api.post("/conversations/c1/branch", &json!({}))
        .await
        .error(400, "BAD_REQUEST");
    api.post("/conversations/c1/branch", &json!({"message_id": "nope"}))
        .await
        .error(404, "NOT_FOUND");
    assert_eq!(provider.calls().len(), 3);

    // Every answer is kept in the store, each under the question.
    drop(api);
    let store = Store::open(data.path()).unwrap();
    let tree = store.read(|r| r.message_tree("c1")).unwrap();
    assert_eq!(tree.len(), 4);
    assert!(tree[1..]
        .iter()
        .all(|m| m.parent_id.as_deref() == Some(question.as_str())));
}

#[tokio::test(flavor = "multi_thread")]
async fn edit_and_resend_starts_a_branch_and_keeps_the_old_one() {
    let provider = ScriptedProvider::start().await.unwrap();
    for text in [
        "Hello Ann.",
        "Your name is Ann.",
        "Hello Bob.",
        "You are Bob.",
    ] {
        provider.push(Reply::openai_text("m", &[text]));
    }
    let (_data, api) = serve(&provider).await;

    say(&api, "c2", "My name is Ann.", None).await;
    say(&api, "c2", "What is my name?", None).await;
    let old = api.get("/conversations/c2").await.ok(200).clone();
    let ann = id_of(&old, "My name is Ann.").to_owned();

    // Edit the first message: it has no parent, so the new text starts the conversation anew.
    say(&api, "c2", "My name is Bob.", Some(Value::Null)).await;
    let calls = provider.calls();
    assert_eq!(history(&calls[2]), pairs(&[("user", "My name is Bob.")]));
    let edited = api.get("/conversations/c2").await.ok(200).clone();
    assert_eq!(shown(&edited), ["My name is Bob.", "Hello Bob."]);
    let bob = id_of(&edited, "My name is Bob.").to_owned();
    assert_eq!(edited["siblings"], json!({ &bob: [&ann, &bob] }));
    assert_eq!(edited["off_branch"].as_array().unwrap().len(), 4);

    // Edit a later message (the branch goes on after "Hello Bob.").
    let hello = id_of(&edited, "Hello Bob.").to_owned();
    say(&api, "c2", "And my name?", Some(json!(hello))).await;
    assert_eq!(
        history(&provider.calls()[3]),
        pairs(&[
            ("user", "My name is Bob."),
            ("assistant", "Hello Bob."),
            ("user", "And my name?"),
        ])
    );
    assert_eq!(
        shown(api.get("/conversations/c2").await.ok(200)),
        [
            "My name is Bob.",
            "Hello Bob.",
            "And my name?",
            "You are Bob."
        ]
    );

    // The old branch is still there, whole.
    let back = api
        .post("/conversations/c2/branch", &json!({"message_id": ann}))
        .await;
    assert_eq!(
        shown(back.ok(200)),
        [
            "My name is Ann.",
            "Hello Ann.",
            "What is my name?",
            "Your name is Ann."
        ]
    );

    // A parent that is not a message id, or one the conversation lacks: refused, nothing runs.
    let mut bad = mcp_message("c2", "USER_INPUT", json!({"text": "x"}));
    bad["metadata"] = json!({"parentMessageId": 7});
    api.post("/messages", &bad).await.error(400, "BAD_REQUEST");
    bad["metadata"] = json!({"parentMessageId": "nope"});
    api.post("/messages", &bad).await.error(404, "NOT_FOUND");
    // A parent in a conversation that does not exist creates none.
    let mut stray = mcp_message("c9", "USER_INPUT", json!({"text": "x"}));
    stray["metadata"] = json!({"parentMessageId": ann});
    api.post("/messages", &stray).await.error(404, "NOT_FOUND");
    api.get("/conversations/c9").await.error(404, "NOT_FOUND");
    assert_eq!(provider.calls().len(), 4);
    assert_eq!(
        api.get("/conversations/c2").await.ok(200)["conversation"]["message_count"],
        4
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn branches_do_not_change_while_a_run_answers() {
    let provider = ScriptedProvider::start().await.unwrap();
    provider.push(Reply::openai_text("m", &["One."]));
    let gate = tessera_testkit::scripted::Gate::new();
    provider.push(
        Reply::openai_text("m", &["Two."])
            .insert_step(0, tessera_testkit::scripted::Step::Gate(gate.clone())),
    );
    let (_data, api) = serve(&provider).await;
    say(&api, "c3", "First", None).await;
    let detail = api.get("/conversations/c3").await.ok(200).clone();
    let first = id_of(&detail, "First").to_owned();

    let mut stream = support::stream::Stream::post(&api.server, "c3", "Second").await;
    stream
        .until(|e| support::stream::is_state(e, "running"))
        .await;
    api.post("/conversations/c3/regenerate", &json!({}))
        .await
        .error(409, "RUN_IN_PROGRESS");
    api.post("/conversations/c3/branch", &json!({"message_id": first}))
        .await
        .error(409, "RUN_IN_PROGRESS");
    gate.open();
    stream.read_to_done().await;
    assert_eq!(
        shown(api.get("/conversations/c3").await.ok(200)),
        ["First", "One.", "Second", "Two."]
    );
}
