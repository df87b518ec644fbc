//! Answering again: a second answer on a branch of its own, the first kept beside it.

use tessera_testkit::scripted::Reply;

use crate::support::{self, Setup, MODEL};

#[tokio::test(flavor = "multi_thread")]
async fn an_answer_again_is_a_branch_of_its_own_and_the_first_is_kept() {
    let setup = Setup::new().await;
    setup
        .provider
        .push(Reply::openai_text(MODEL, &["First joke."]));
    setup
        .provider
        .push(Reply::openai_text(MODEL, &["Second joke."]));
    let first = setup.say("c_joke", "q1", "Tell me a joke").await;
    let first_id = support::answered(&first);

    let (run, sub, question) = setup.app.regenerate("c_joke", None).await.unwrap();
    assert_eq!(question, "q1", "the last question is answered again");
    let second = support::wait(&setup.app, &run, sub).await;
    let second_id = support::answered(&second);

    assert_ne!(second.run_id, first.run_id);
    assert_ne!(second_id, first_id);
    assert_eq!(second.text, "Second joke.");
    // The model was asked the question again, without the first answer.
    let sent = support::sent_messages(&setup.provider.calls()[1].body);
    assert_eq!(
        sent.last().unwrap(),
        &("user".to_owned(), "Tell me a joke".to_owned())
    );
    assert!(
        !sent.iter().any(|(_, text)| text.contains("First joke")),
        "{sent:?}"
    );

    // Shown: the new answer; the first one beside it, off the branch shown.
    let detail = setup.app.conversation_detail("c_joke").unwrap();
    assert_eq!(
        support::said(&detail),
        support::turns(&[("Tell me a joke", "Second joke.")])
    );
    assert_eq!(
        detail.siblings.get(&second_id),
        Some(&vec![first_id.clone(), second_id.clone()])
    );
    assert_eq!(detail.off_branch, std::slice::from_ref(&first_id));

    // The first answer is still there to show.
    let back = setup.app.switch_branch("c_joke", &first_id).unwrap();
    assert_eq!(
        support::said(&back),
        support::turns(&[("Tell me a joke", "First joke.")])
    );
    assert_eq!(back.off_branch, [second_id]);
}
