//! A message and its answer: the run's outcome, what the model was sent, what is stored.

use tessera_app::RunEnd;
use tessera_protocol::mcp_cp::FinishReason;
use tessera_protocol::request::Role;
use tessera_testkit::scripted::Reply;

use crate::support::{self, Setup, MODEL};

#[tokio::test(flavor = "multi_thread")]
async fn a_message_is_answered_and_both_are_kept_in_the_conversation() {
    let setup = Setup::new().await;
    setup.provider.push(Reply::openai_text(
        MODEL,
        &["Tessera is ", "a desktop ", "agent."],
    ));

    let outcome = setup.say("c_hello", "q1", "What is Tessera?").await;

    assert_eq!(outcome.text, "Tessera is a desktop agent.");
    assert_eq!(outcome.conversation_id, "c_hello");
    let answer_id = support::answered(&outcome);
    assert_eq!(
        outcome.end,
        RunEnd::Answered {
            message_id: Some(answer_id.clone()),
            finish_reason: FinishReason::Stop,
        }
    );
    // The done event's usage is the provider's.
    let usage = outcome.usage.clone().unwrap();
    assert_eq!(usage.prompt_tokens, Some(12), "{usage:?}");

    // The model was asked once, with the person's words last.
    let calls = setup.provider.calls();
    assert_eq!(calls.len(), 1);
    assert_eq!(calls[0].body["model"], MODEL);
    let sent = support::sent_messages(&calls[0].body);
    assert_eq!(
        sent.last().unwrap(),
        &("user".to_owned(), "What is Tessera?".to_owned())
    );

    // The conversation shows the question (under the client's id) and the answer.
    let detail = setup.app.conversation_detail("c_hello").unwrap();
    assert_eq!(
        support::said(&detail),
        support::turns(&[("What is Tessera?", "Tessera is a desktop agent.")])
    );
    assert_eq!(detail.messages[0].id, "q1");
    assert_eq!(detail.messages[1].id, answer_id);
    assert_eq!(detail.messages[1].parent_id.as_deref(), Some("q1"));
    assert_eq!(detail.conversation.message_count, 2);
    // Titled by the first message, and listed.
    assert_eq!(detail.conversation.conversation.title, "What is Tessera?");
    let listed = setup.app.conversations(&Default::default(), None).unwrap();
    assert_eq!(listed.len(), 1);
    assert_eq!(listed[0].conversation.id, "c_hello");
}

#[tokio::test(flavor = "multi_thread")]
async fn the_same_message_sent_again_gets_the_same_answer_without_a_second_call() {
    let setup = Setup::new().await;
    setup.provider.push(Reply::openai_text(MODEL, &["Once."]));
    let first = setup.say("c_retry", "q1", "Say it once").await;
    let first_id = support::answered(&first);

    // A client retrying after a lost answer: the same id and text.
    let again = setup.say("c_retry", "q1", "Say it once").await;

    assert_eq!(again.run_id, first.run_id);
    assert_eq!(again.text, "Once.");
    assert_eq!(support::answered(&again), first_id);
    assert_eq!(setup.provider.calls().len(), 1, "the model was asked once");
    let shown = setup.shown("c_retry");
    assert_eq!(shown.len(), 2, "{shown:?}");
    assert_eq!(shown[1], (Role::Assistant, "Once.".to_owned()));
}

#[tokio::test(flavor = "multi_thread")]
async fn a_second_message_is_answered_with_the_first_exchange_as_history() {
    let setup = Setup::new().await;
    setup
        .provider
        .push(Reply::openai_text(MODEL, &["Hello, Ada."]));
    setup
        .provider
        .push(Reply::openai_text(MODEL, &["You are Ada."]));
    setup.say("c_two", "q1", "I am Ada").await;
    let second = setup.say("c_two", "q2", "Who am I?").await;

    assert_eq!(second.text, "You are Ada.");
    let sent = support::sent_messages(&setup.provider.calls()[1].body);
    let dialogue: Vec<_> = sent.iter().filter(|(role, _)| role != "system").collect();
    assert_eq!(
        dialogue,
        [
            &("user".to_owned(), "I am Ada".to_owned()),
            &("assistant".to_owned(), "Hello, Ada.".to_owned()),
            &("user".to_owned(), "Who am I?".to_owned()),
        ]
    );
    assert_eq!(
        setup.shown("c_two"),
        support::turns(&[("I am Ada", "Hello, Ada."), ("Who am I?", "You are Ada.")])
    );
}
