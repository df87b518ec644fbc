//! The rolling summary against a real store and the scripted provider over real HTTP: it is due
//! only past a threshold; it covers all but the newest messages of the active branch and records
//! which; the next one extends it; the assembler then shows it instead of those messages; a
//! failed or cut-off call leaves the old summary; an edited branch is summarised afresh.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use tessera_engine::assembler::{
    assemble, AssembleRequest, DocumentResolver, SummaryStatus, TokenCache,
};
use tessera_engine::summary::{
    needs_summary, write_rolling_summary, SummaryError, SummaryPolicy, COVERS_THROUGH,
};
use tessera_protocol::context_doc::{ModelUsageStatus, Summary, UsageStage};
use tessera_protocol::request::Role;
use tessera_providers::config::{ProviderConfig, WireKind};
use tessera_providers::keys::Secret;
use tessera_providers::ProviderClient;
use tessera_store::conversations::NewConversation;
use tessera_store::{text_message, NewMessage, Parent, Store, StoredMessage};
use tessera_testkit::scripted::{openai_chunk, Reply, ScriptedProvider};
use tokio_util::sync::CancellationToken;

struct Fixture {
    _dir: tempfile::TempDir,
    store: Store,
    conversation: String,
    provider: ScriptedProvider,
}

/// Summarise past 5 pending messages, keeping the newest 2 out.
fn policy() -> SummaryPolicy {
    SummaryPolicy {
        threshold_tokens: None,
        threshold_messages: Some(5),
        keep_recent: 2,
        ..SummaryPolicy::default()
    }
}

async fn fixture() -> Fixture {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(dir.path()).unwrap();
    let conversation = store
        .create_conversation(NewConversation {
            title: "summary".into(),
            ..NewConversation::default()
        })
        .unwrap()
        .id;
    let provider = ScriptedProvider::start().await.unwrap();
    Fixture {
        _dir: dir,
        store,
        conversation,
        provider,
    }
}

impl Fixture {
    fn say(&self, role: Role, text: &str) -> StoredMessage {
        self.store
            .append_message(
                &self.conversation,
                NewMessage::new(text_message(role, text)),
            )
            .unwrap()
    }

    /// `n` exchanges after the ones already there, numbered from `first`.
    fn exchanges(&self, first: usize, n: usize) {
        for i in first..first + n {
            self.say(Role::User, &format!("question {i}"));
            self.say(Role::Assistant, &format!("answer {i}"));
        }
    }

    async fn summarise(&self) -> Result<Summary, SummaryError> {
        let mut config =
            ProviderConfig::new("scripted", WireKind::Openai, self.provider.openai_base());
        config.proxy = Some("none".into());
        config.retry.max_retries = 0;
        let client = ProviderClient::new(config, Some(Secret::new("k"))).unwrap();
        write_rolling_summary(
            &self.store,
            &client,
            "summariser",
            &self.conversation,
            &policy(),
            CancellationToken::new(),
        )
        .await
    }

    fn needs(&self) -> bool {
        needs_summary(&self.store, &self.conversation, &policy()).unwrap()
    }

    fn stored(&self) -> Option<Summary> {
        self.store.summary(&self.conversation).unwrap()
    }

    fn last_prompt(&self) -> String {
        let calls = self.provider.calls();
        let messages = calls.last().unwrap().body["messages"]
            .as_array()
            .unwrap()
            .clone();
        messages.last().unwrap()["content"]
            .as_str()
            .unwrap()
            .to_owned()
    }

    fn usage(&self) -> Vec<(Option<UsageStage>, Option<ModelUsageStatus>)> {
        self.store
            .model_usage(&self.conversation)
            .unwrap()
            .iter()
            .map(|u| (u.stage, u.status))
            .collect()
    }
}

fn range(summary: &Summary) -> (Option<u64>, Option<u64>) {
    let r = summary.message_index_range.as_ref().unwrap();
    (r.from, r.to)
}

#[tokio::test(flavor = "multi_thread")]
async fn a_summary_covers_all_but_the_newest_messages() {
    let f = fixture().await;
    f.say(Role::System, "You are terse.");
    f.exchanges(0, 2);
    assert!(!f.needs(), "4 pending messages are under the threshold");
    f.exchanges(2, 2); // depths 1..=8
    assert!(f.needs());

    f.provider.push(Reply::openai_text(
        "summariser",
        &["The person asked ", "questions 0 to 2."],
    ));
    let summary = f.summarise().await.unwrap();
    assert_eq!(
        summary.content.as_deref(),
        Some("The person asked questions 0 to 2.")
    );
    // Depth 0 is the system message; 1..=6 folded, 7 and 8 (the newest two) kept out.
    assert_eq!(range(&summary), (Some(0), Some(6)));
    let branch = f.store.active_branch(&f.conversation).unwrap();
    assert_eq!(summary.extra[COVERS_THROUGH], branch[6].id.as_str());
    assert!(summary.updated_at.as_ref().unwrap().is_valid());
    assert_eq!(f.stored(), Some(summary));

    let prompt = f.last_prompt();
    assert!(prompt.contains("[1] user: question 0"), "{prompt}");
    assert!(prompt.contains("[6] assistant: answer 2"), "{prompt}");
    assert!(!prompt.contains("question 3"), "{prompt}");
    assert!(
        !prompt.contains("You are terse"),
        "system messages are sent anyway"
    );
    assert!(!prompt.contains("Previous summary"), "{prompt}");
    assert_eq!(
        f.usage(),
        vec![(Some(UsageStage::Summary), Some(ModelUsageStatus::Success))]
    );
    assert!(!f.needs(), "only the two kept-out messages are pending");

    // The assembler shows the summary instead of the messages it covers.
    let doc = f.store.export_document(&f.conversation).unwrap();
    let mut request = AssembleRequest::new("gpt-4o", 128_000, 4_000, std::time::SystemTime::now());
    request.policy.max_history_messages = Some(3);
    let assembly = assemble(
        &doc,
        &request,
        &DocumentResolver::new(&doc),
        &TokenCache::new(),
    )
    .unwrap();
    let report = &assembly.explanation.summary;
    assert_eq!(report.status, SummaryStatus::Used);
    assert_eq!((report.from, report.to), (Some(0), Some(6)));
}

#[tokio::test(flavor = "multi_thread")]
async fn the_next_summary_extends_the_previous_one() {
    let f = fixture().await;
    f.exchanges(0, 4); // depths 0..=7
    f.provider
        .push(Reply::openai_text("summariser", &["first"]));
    f.summarise().await.unwrap(); // covers 0..=5
    f.exchanges(4, 3); // depths 8..=13

    f.provider
        .push(Reply::openai_text("summariser", &["second"]));
    let summary = f.summarise().await.unwrap();
    assert_eq!(range(&summary), (Some(0), Some(11)));
    assert_eq!(summary.content.as_deref(), Some("second"));
    let prompt = f.last_prompt();
    assert!(
        prompt.starts_with("Previous summary (messages 0 to 5):\nfirst\n"),
        "{prompt}"
    );
    assert!(prompt.contains("New messages (6 to 11):"), "{prompt}");
    assert!(
        !prompt.contains("[5]"),
        "covered messages are not sent again"
    );
    assert_eq!(f.usage().len(), 2);
}

#[tokio::test(flavor = "multi_thread")]
async fn a_failed_call_keeps_the_old_summary() {
    let f = fixture().await;
    f.exchanges(0, 4);
    f.provider.push(Reply::openai_text("summariser", &["kept"]));
    let old = f.summarise().await.unwrap();
    f.exchanges(4, 3);

    f.provider
        .push(Reply::openai_error(500, "server_error", "overloaded today"));
    let err = f.summarise().await.unwrap_err();
    assert!(matches!(err, SummaryError::Provider(_)), "{err}");
    assert!(err.to_string().contains("overloaded today"), "{err}");
    assert_eq!(f.stored(), Some(old.clone()));

    // Cut off at the length limit: not stored either.
    f.provider.push(Reply::openai_chunks(&[
        openai_chunk(
            "summariser",
            serde_json::json!({"content": "half a sum"}),
            None,
        ),
        openai_chunk("summariser", serde_json::json!({}), Some("length")),
    ]));
    let err = f.summarise().await.unwrap_err();
    assert!(matches!(err, SummaryError::Truncated { .. }), "{err}");
    assert_eq!(f.stored(), Some(old));

    // Every call is on record, the failed one as an error.
    assert_eq!(
        f.usage(),
        vec![
            (Some(UsageStage::Summary), Some(ModelUsageStatus::Success)),
            (Some(UsageStage::Summary), Some(ModelUsageStatus::Error)),
            (Some(UsageStage::Summary), Some(ModelUsageStatus::Success)),
        ]
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn nothing_new_means_no_call() {
    let f = fixture().await;
    f.exchanges(0, 1); // two messages, both among the newest two
    let err = f.summarise().await.unwrap_err();
    assert!(
        matches!(err, SummaryError::NothingToSummarise { keep_recent: 2 }),
        "{err}"
    );
    assert!(f.provider.calls().is_empty());
    assert_eq!(f.stored(), None);
}

#[tokio::test(flavor = "multi_thread")]
async fn an_edited_branch_is_summarised_afresh() {
    let f = fixture().await;
    f.exchanges(0, 4);
    f.provider
        .push(Reply::openai_text("summariser", &["old branch"]));
    f.summarise().await.unwrap(); // covers 0..=5

    // Edit-and-resend question 1 (depth 2): the branch shown now ends there, and the summary's
    // messages are no longer the ones shown.
    let branch = f.store.active_branch(&f.conversation).unwrap();
    f.store
        .append_message(
            &f.conversation,
            NewMessage::new(text_message(Role::User, "question 1, edited"))
                .with_parent(Parent::SiblingOf(branch[2].id.clone())),
        )
        .unwrap();
    for i in 0..4 {
        f.say(Role::Assistant, &format!("new answer {i}"));
    }
    assert!(
        f.needs(),
        "7 messages pending: the old summary no longer counts"
    );

    f.provider
        .push(Reply::openai_text("summariser", &["new branch"]));
    let summary = f.summarise().await.unwrap();
    assert_eq!(range(&summary), (Some(0), Some(4)));
    let prompt = f.last_prompt();
    assert!(!prompt.contains("Previous summary"), "{prompt}");
    assert!(prompt.contains("[2] user: question 1, edited"), "{prompt}");
}

#[tokio::test(flavor = "multi_thread")]
async fn an_unknown_conversation_is_an_error() {
    let f = fixture().await;
    let err = needs_summary(&f.store, "nope", &policy()).unwrap_err();
    assert!(matches!(err, SummaryError::NoConversation(_)), "{err}");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_long_backlog_is_summarised_in_steps_within_the_input_budget() {
    let f = fixture().await;
    f.exchanges(0, 4); // depths 0..=7
    let tiny = SummaryPolicy {
        max_input_tokens: 1,
        ..policy()
    };
    let mut config = ProviderConfig::new("scripted", WireKind::Openai, f.provider.openai_base());
    config.proxy = Some("none".into());
    let client = ProviderClient::new(config, Some(Secret::new("k"))).unwrap();
    for (step, to) in [(0u64, 0u64), (1, 1)] {
        f.provider
            .push(Reply::openai_text("summariser", &[&format!("step {step}")]));
        let summary = write_rolling_summary(
            &f.store,
            &client,
            "summariser",
            &f.conversation,
            &tiny,
            CancellationToken::new(),
        )
        .await
        .unwrap();
        // Each message is over the budget alone, so each call folds in exactly one.
        assert_eq!(range(&summary), (Some(0), Some(to)));
    }
    assert!(needs_summary(&f.store, &f.conversation, &tiny).unwrap());
}
