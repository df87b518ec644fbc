//! Runs that fail: the provider's error or a broken stream is MODEL_ERROR, a spending limit is
//! the person's own rule (SPENDING_LIMIT_REACHED, sent nowhere); the conversation goes on.

use serde_json::json;
use tessera_app::{RunEnd, RunFailure, RunOutcome};
use tessera_protocol::error_codes::ErrorCode;
use tessera_testkit::scripted::Reply;

use crate::support::{self, Setup, MODEL};

fn failure(outcome: &RunOutcome) -> &RunFailure {
    match &outcome.end {
        RunEnd::Failed(failure) => failure,
        other => panic!("the run did not fail: {other:?} ({outcome:?})"),
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn a_provider_error_fails_the_run_with_model_error() {
    let setup = Setup::new().await;
    setup.provider.push(Reply::openai_error(
        500,
        "server_error",
        "the model fell over",
    ));

    let outcome = setup.say("c_500", "q1", "Hello?").await;

    let failure = failure(&outcome);
    let problem = failure.problem();
    assert_eq!(problem.code, ErrorCode::ModelError, "{failure:?}");
    assert_eq!(problem.http_status(), 502);
    // The provider layer's own code, and the provider's words, reach the person.
    assert_eq!(failure.code, "provider_unavailable");
    assert!(
        problem.message.contains("HTTP 500") && problem.message.contains("the model fell over"),
        "{problem:?}"
    );
    assert_eq!(setup.provider.calls().len(), 1);
    // The question is kept; no answer was made up.
    assert_eq!(
        setup.shown("c_500"),
        [(tessera_protocol::request::Role::User, "Hello?".to_owned())]
    );

    // The conversation is not harmed: the next message is answered.
    setup
        .provider
        .push(Reply::openai_text(MODEL, &["Back again."]));
    let next = setup.say("c_500", "q2", "Hello again?").await;
    support::answered(&next);
    assert_eq!(next.text, "Back again.");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_stream_cut_short_fails_the_run_with_model_error() {
    let setup = Setup::new().await;
    let whole = Reply::openai_text(MODEL, &["The first half, ", "the second half."]);
    // Cut after the role chunk and the first text chunk: no finish, no [DONE].
    let cut_at: usize = whole.step_lengths()[..2].iter().sum();
    setup.provider.push(whole.reset_after_bytes(cut_at));

    let outcome = setup.say("c_cut", "q1", "Tell me both halves").await;

    let failure = failure(&outcome);
    assert_eq!(failure.code, "network_error", "{outcome:?}");
    let problem = failure.problem();
    assert_eq!(problem.code, ErrorCode::ModelError);
    assert_eq!(problem.http_status(), 502);
    // What came before the cut was shown; nothing after it was made up.
    assert_eq!(outcome.text, "The first half, ");
    assert_eq!(setup.provider.calls().len(), 1);
}

#[tokio::test(flavor = "multi_thread")]
async fn a_spending_limit_refuses_the_call_that_would_pass_it() {
    // 1000 USD per million tokens: the first answer (12 tokens in, 2 out) costs 0.014 USD.
    let setup = Setup::with_config(|config| support::priced(config, 1000.0)).await;
    let settings = setup
        .app
        .change_setting("spending_limit_per_conversation_usd", json!(0.01))
        .await
        .unwrap();
    assert_eq!(
        settings.settings.spending_limit_per_conversation_usd,
        Some(0.01)
    );
    setup
        .provider
        .push(Reply::openai_text(MODEL, &["paid ", "answer"]));
    setup
        .provider
        .push(Reply::openai_text(MODEL, &["never sent"]));

    let first = setup.say("c_spend", "q1", "first").await;
    support::answered(&first);
    let usage = serde_json::to_value(first.usage.as_ref().unwrap()).unwrap();
    assert_eq!(
        usage["usage"][MODEL]["estimated_cost_usd"], 0.014,
        "{usage}"
    );

    // The conversation has spent more than its limit: the next call is refused unsent.
    let second = setup.say("c_spend", "q2", "second").await;
    let failure = failure(&second);
    assert_eq!(failure.code, "SPENDING_LIMIT_REACHED", "{failure:?}");
    assert!(failure.message.contains("0.01"), "{failure:?}");
    let problem = failure.problem();
    assert_eq!(problem.code, ErrorCode::SpendingLimitReached);
    assert_eq!(problem.http_status(), 402);
    assert_eq!(
        setup.provider.calls().len(),
        1,
        "the refused call was never sent"
    );

    // Another conversation has its own limit.
    let elsewhere = setup.say("c_other", "q1", "elsewhere").await;
    assert_eq!(elsewhere.text, "never sent");
}
