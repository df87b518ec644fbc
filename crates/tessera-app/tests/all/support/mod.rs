//! A data folder in a tempdir opened as a person's Tessera, with the scripted provider set up
//! the way the settings page sets one up (`App::save_provider`, then the `default_provider`
//! setting), and the few steps every test takes: say something, wait for the run, answer a form.
#![allow(dead_code, clippy::unwrap_used, clippy::expect_used)]

use std::path::Path;
use std::time::Duration;

use serde_json::{json, Value};
use tessera_app::messages::{ModelPick, NewMessage, Placement};
use tessera_app::providers::config::{ModelPrice, ModelSettings, ProviderConfig, WireKind};
use tessera_app::views::conversations::ConversationDetail;
use tessera_app::{
    Answer, Answered, App, CoreError, ModelOverrides, RunEnd, RunOutcome, StartNote, StartedRun,
    Subscription,
};
use tessera_protocol::request::Role;
use tessera_testkit::scripted::ScriptedProvider;

/// Longer than any run of this suite takes; a run still going then is a failure, not a hang.
pub const BUDGET: Duration = Duration::from_secs(20);

/// The name the scripted provider is saved under, and its model.
pub const PROVIDER: &str = "local";
pub const MODEL: &str = "m";

/// A tempdir data folder, the scripted provider, and the app opened over the folder.
pub struct Setup {
    pub data: tempfile::TempDir,
    pub provider: ScriptedProvider,
    pub app: App,
}

impl Setup {
    /// A fresh folder whose default provider is the scripted one (model `m`, free).
    pub async fn new() -> Self {
        Self::with_config(|_| {}).await
    }

    /// As [`Setup::new`], the provider's settings changed by `adjust` before they are saved.
    pub async fn with_config(adjust: impl FnOnce(&mut ProviderConfig)) -> Self {
        let provider = ScriptedProvider::start().await.unwrap();
        let data = tempfile::tempdir().unwrap();
        let app = open(data.path()).await;
        // A new folder has no model yet: opening says so rather than failing.
        assert!(
            app.start_notes()
                .iter()
                .any(|n| matches!(n, StartNote::NoModelYet(_))),
            "{:?}",
            app.start_notes()
        );
        let mut config = scripted_config(&provider);
        adjust(&mut config);
        app.save_provider(&mut config).await.unwrap();
        let settings = app
            .change_setting("default_provider", json!(PROVIDER))
            .await
            .unwrap();
        let model = settings.model.unwrap();
        assert!(model.ready, "{model:?}");
        assert_eq!(model.model.as_deref(), Some(MODEL));
        Self {
            data,
            provider,
            app,
        }
    }

    /// Quits and starts again over the same folder: the app is dropped, then opened anew.
    pub async fn restart(&mut self) {
        let fresh = open(self.data.path()).await;
        let old = std::mem::replace(&mut self.app, fresh);
        drop(old);
    }

    /// Says `text` in `conversation` as message `id` and waits for the run.
    pub async fn say(&self, conversation: &str, id: &str, text: &str) -> RunOutcome {
        let (run, sub) = self
            .app
            .send_message(message(conversation, id, text))
            .await
            .unwrap();
        wait(&self.app, &run, sub).await
    }

    /// The text of every message on the branch shown of `conversation`, with its role.
    pub fn shown(&self, conversation: &str) -> Vec<(Role, String)> {
        said(&self.app.conversation_detail(conversation).unwrap())
    }
}

/// Opens `data` as the desktop and `tessera serve` do: no override, no shell tool.
pub async fn open(data: &Path) -> App {
    App::open(data, ModelOverrides::default(), Vec::new())
        .await
        .unwrap()
}

/// The scripted provider's OpenAI wire as the provider `local`: no key, no proxy, model `m`,
/// no retry (a failure is the test's to see at once, not after a backoff).
pub fn scripted_config(provider: &ScriptedProvider) -> ProviderConfig {
    let mut config = ProviderConfig::new(PROVIDER, WireKind::Openai, provider.openai_base());
    config.requires_key = false;
    config.proxy = Some("none".into());
    config.default_model = Some(MODEL.into());
    config.retry.max_retries = 0;
    config
}

/// `m` priced at `usd_per_mtok` for input and output tokens alike.
pub fn priced(config: &mut ProviderConfig, usd_per_mtok: f64) {
    config.models.insert(
        MODEL.into(),
        ModelSettings {
            price: Some(ModelPrice {
                input_per_mtok: usd_per_mtok,
                output_per_mtok: usd_per_mtok,
                cached_input_per_mtok: None,
            }),
            ..ModelSettings::default()
        },
    );
}

/// A person's message after the branch shown, answered by the conversation's model.
pub fn message(conversation: &str, id: &str, text: &str) -> NewMessage {
    NewMessage {
        conversation: conversation.into(),
        id: id.into(),
        text: text.into(),
        attachments: Vec::new(),
        debug: false,
        placement: Placement::Next,
        pick: ModelPick::Kept,
        project: None,
    }
}

/// Waits for `run` as the HTTP API does, within [`BUDGET`]; a run still going is a failure.
pub async fn wait(app: &App, run: &StartedRun, sub: Subscription) -> RunOutcome {
    let outcome = app.wait(run, sub, Some(BUDGET)).await.unwrap();
    assert_ne!(outcome.end, RunEnd::StillRunning, "{outcome:?}");
    outcome
}

/// The answer's id of a run that answered (and failing, how it ended otherwise).
pub fn answered(outcome: &RunOutcome) -> String {
    match &outcome.end {
        RunEnd::Answered {
            message_id: Some(id),
            ..
        } => id.clone(),
        other => panic!("the run did not answer: {other:?} ({outcome:?})"),
    }
}

/// Answers interaction `id` off the async workers, as the HTTP handler does (the store is
/// written on this thread, and the resumed run is spawned on the runtime).
pub async fn answer(app: &App, id: &str, answer: Value) -> Result<Answered, CoreError> {
    let answer = Answer::from_json(&answer).unwrap();
    let (app, id) = (app.clone(), id.to_owned());
    let handle = tokio::runtime::Handle::current();
    tokio::task::spawn_blocking(move || {
        let _guard = handle.enter();
        app.answer_interaction(&id, &answer)
    })
    .await
    .unwrap()
}

/// The role and text of each message shown.
pub fn said(detail: &ConversationDetail) -> Vec<(Role, String)> {
    detail
        .messages
        .iter()
        .map(|m| (m.message.role.clone(), m.message.content.clone()))
        .collect()
}

/// `(Role::User, q)`, `(Role::Assistant, a)`, … for comparing with [`said`].
pub fn turns(texts: &[(&str, &str)]) -> Vec<(Role, String)> {
    texts
        .iter()
        .flat_map(|(q, a)| {
            [
                (Role::User, (*q).to_owned()),
                (Role::Assistant, (*a).to_owned()),
            ]
        })
        .collect()
}

/// The messages a model request sent, as `(role, content)` (content as text, or its JSON).
pub fn sent_messages(body: &Value) -> Vec<(String, String)> {
    body["messages"]
        .as_array()
        .unwrap_or_else(|| panic!("no messages in {body}"))
        .iter()
        .map(|m| {
            let content = match &m["content"] {
                Value::String(text) => text.clone(),
                Value::Null => String::new(),
                other => other.to_string(),
            };
            (m["role"].as_str().unwrap_or_default().to_owned(), content)
        })
        .collect()
}

/// The names of the tools a model request offered.
pub fn offered_tools(body: &Value) -> Vec<String> {
    body["tools"]
        .as_array()
        .map(|tools| {
            tools
                .iter()
                .filter_map(|t| t["function"]["name"].as_str().map(str::to_owned))
                .collect()
        })
        .unwrap_or_default()
}
