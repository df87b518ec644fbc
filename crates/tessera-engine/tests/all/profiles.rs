//! Agent profiles and routing against a real store and the scripted provider over real HTTP:
//! rules decide without a model call; otherwise the model names the profile (a `route` usage is
//! recorded); a garbage answer or a failing provider falls back to the default with the reason;
//! an invalid set is refused naming profile and field, and the saved one stays; JSON answers are
//! checked with a path for each problem.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use serde_json::{json, Value};
use tessera_engine::profiles::{
    route, validate_json_response, FallbackReason, JsonResponseError, Profiles, ProfilesError,
    RouteRequest, RouteRule, RoutedBy, SETTING_KEY,
};
use tessera_protocol::context_doc::{ModelUsageStatus, UsageStage};
use tessera_providers::config::{ProviderConfig, WireKind};
use tessera_providers::keys::Secret;
use tessera_providers::ProviderClient;
use tessera_store::conversations::NewConversation;
use tessera_store::Store;
use tessera_testkit::scripted::{Reply, ScriptedProvider};
use tokio_util::sync::CancellationToken;

fn client(provider: &ScriptedProvider) -> ProviderClient {
    let mut config = ProviderConfig::new("scripted", WireKind::Openai, provider.openai_base());
    config.proxy = Some("none".into());
    // A 500 is retried by default; the fallback test wants the first failure to count.
    config.retry.max_retries = 0;
    ProviderClient::new(config, Some(Secret::new("k"))).unwrap()
}

struct Fixture {
    _dir: tempfile::TempDir,
    store: Store,
    conversation: String,
    provider: ScriptedProvider,
}

async fn fixture() -> Fixture {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(dir.path()).unwrap();
    let conversation = store
        .create_conversation(NewConversation {
            title: "routing".into(),
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

/// default (general), planner (`/plan`), translator (翻译 / translate), coder (a regex).
fn profiles_json() -> Value {
    json!([
        {"name": "default", "title": "Assistant", "description": "General questions and tasks",
         "default": true},
        {"name": "planner", "title": "Planner", "description": "Plans trips and projects",
         "rules": [{"kind": "prefix", "prefix": "/plan"}], "max_model_calls": 3},
        {"name": "translator", "title": "Translator", "description": "Translates text",
         "system_prompt": "Translate faithfully.", "tools": [],
         "rules": [{"kind": "keywords", "any": ["翻译", "translate"]}]},
        {"name": "coder", "title": "Coder", "description": "Writes and debugs code",
         "rules": [{"kind": "regex", "pattern": "(?i)\\brust\\b"}],
         "response_format": {"type": "json", "schema": {"type": "object"}}}
    ])
}

impl Fixture {
    async fn route(
        &self,
        profiles: &Profiles,
        text: &str,
    ) -> tessera_engine::profiles::RouteDecision {
        route(
            profiles,
            &self.store,
            &client(&self.provider),
            RouteRequest {
                conversation_id: &self.conversation,
                text,
                model: "router-model",
            },
            CancellationToken::new(),
        )
        .await
        .unwrap()
    }

    fn usage_stages(&self) -> Vec<(Option<UsageStage>, Option<ModelUsageStatus>)> {
        self.store
            .model_usage(&self.conversation)
            .unwrap()
            .iter()
            .map(|u| (u.stage, u.status))
            .collect()
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn rules_route_without_asking_the_model() {
    let f = fixture().await;
    let profiles = Profiles::from_value(&profiles_json()).unwrap();

    let d = f.route(&profiles, "  /Plan a week in Kyoto").await;
    assert_eq!(d.profile.name, "planner");
    assert_eq!(d.profile.max_model_calls, Some(3));
    let RoutedBy::Rule(m) = &d.by else {
        panic!("{:?}", d.by)
    };
    assert_eq!((m.profile.as_str(), m.rule_index), ("planner", 0));
    assert_eq!(m.matched, "/Plan");
    assert_eq!(d.strip_prefix("  /Plan a week in Kyoto"), "a week in Kyoto");

    let d = f.route(&profiles, "请帮我翻译这段话").await;
    assert_eq!(d.profile.name, "translator");
    assert_eq!(d.profile.tools, Some(vec![]));
    assert!(matches!(&d.by, RoutedBy::Rule(m) if m.matched == "翻译"));
    assert_eq!(d.strip_prefix("请帮我翻译这段话"), "请帮我翻译这段话");

    let d = f
        .route(&profiles, "Why does my Rust code not compile?")
        .await;
    assert_eq!(d.profile.name, "coder");

    assert!(f.provider.calls().is_empty(), "no model was asked");
    assert!(f.usage_stages().is_empty());
}

#[tokio::test(flavor = "multi_thread")]
async fn the_model_names_the_profile_when_no_rule_decides() {
    let f = fixture().await;
    let profiles = Profiles::from_value(&profiles_json()).unwrap();
    f.provider
        .push(Reply::openai_text("router-model", &["`Co", "der`"]));

    let d = f
        .route(&profiles, "my function panics on an empty list")
        .await;
    assert_eq!(d.profile.name, "coder");
    assert_eq!(
        d.by,
        RoutedBy::Model {
            answer: "`Coder`".into()
        }
    );

    // One call, to the routing model, showing every profile with its description.
    let calls = f.provider.calls();
    assert_eq!(calls.len(), 1);
    assert_eq!(calls[0].body["model"], "router-model");
    let messages = calls[0].body["messages"].as_array().unwrap();
    let system = messages[0]["content"].as_str().unwrap();
    for line in [
        "`planner`: Plans trips and projects",
        "`coder`: Writes and debugs code",
    ] {
        assert!(system.contains(line), "{system}");
    }
    assert_eq!(
        messages[1]["content"],
        "my function panics on an empty list"
    );
    assert_eq!(
        f.usage_stages(),
        vec![(Some(UsageStage::Route), Some(ModelUsageStatus::Success))]
    );
    let usage = &f.store.model_usage(&f.conversation).unwrap()[0];
    assert_eq!(usage.model.as_deref(), Some("router-model"));
    assert!(usage.total_tokens.is_some());
}

#[tokio::test(flavor = "multi_thread")]
async fn a_garbage_answer_falls_back_to_the_default_with_the_answer() {
    let f = fixture().await;
    let profiles = Profiles::from_value(&profiles_json()).unwrap();
    f.provider.push(Reply::openai_text(
        "router-model",
        &["Hard to say, ", "maybe a poem?"],
    ));

    let d = f.route(&profiles, "write me something nice").await;
    assert_eq!(d.profile.name, "default");
    assert_eq!(
        d.by,
        RoutedBy::Fallback {
            reason: FallbackReason::Unusable {
                answer: "Hard to say, maybe a poem?".into()
            }
        }
    );
    assert_eq!(
        f.usage_stages(),
        vec![(Some(UsageStage::Route), Some(ModelUsageStatus::Success))]
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn a_failing_provider_falls_back_to_the_default_with_the_error() {
    let f = fixture().await;
    let profiles = Profiles::from_value(&profiles_json()).unwrap();
    f.provider.push(Reply::openai_error(
        500,
        "server_error",
        "the model is down",
    ));

    let d = f.route(&profiles, "what should I cook tonight?").await;
    assert_eq!(d.profile.name, "default");
    let RoutedBy::Fallback {
        reason: FallbackReason::Provider { message, .. },
    } = &d.by
    else {
        panic!("{:?}", d.by)
    };
    assert!(message.contains("the model is down"), "{message}");
    assert_eq!(f.provider.calls().len(), 1);
    // The failed call is on record too, as an error.
    assert_eq!(
        f.usage_stages(),
        vec![(Some(UsageStage::Route), Some(ModelUsageStatus::Error))]
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn one_profile_needs_no_routing_and_unset_means_the_builtin_set() {
    let f = fixture().await;
    let profiles = Profiles::load(&f.store).unwrap();
    assert_eq!(profiles.all().len(), 1);
    assert_eq!(profiles.default_profile().name, "default");
    assert!(!profiles.default_profile().system_prompt.is_empty());

    let d = f.route(&profiles, "hello").await;
    assert_eq!(
        (d.profile.name.as_str(), d.by),
        ("default", RoutedBy::OnlyProfile)
    );
    assert!(f.provider.calls().is_empty());
}

#[tokio::test(flavor = "multi_thread")]
async fn a_saved_set_loads_back_and_reset_restores_the_builtin_one() {
    let f = fixture().await;
    let saved = Profiles::save_value(&f.store, &profiles_json()).unwrap();
    let loaded = Profiles::load(&f.store).unwrap();
    assert_eq!(loaded.all(), saved.all());
    assert_eq!(
        loaded.get("planner").unwrap().rules,
        vec![RouteRule::Prefix {
            prefix: "/plan".into()
        }]
    );
    Profiles::reset(&f.store).unwrap();
    assert_eq!(Profiles::load(&f.store).unwrap().all().len(), 1);
}

#[tokio::test(flavor = "multi_thread")]
async fn an_invalid_set_names_profile_and_field_and_is_not_written() {
    let f = fixture().await;
    Profiles::save_value(&f.store, &profiles_json()).unwrap();
    let before = f.store.app_setting(SETTING_KEY).unwrap();

    let mut bad = profiles_json();
    bad[1]["rules"][0] = json!({"kind": "regex", "pattern": "(unclosed"});
    bad[2]["name"] = json!("planner");
    bad[3]["response_format"]["schema"] = json!({"type": "no-such-type"});
    bad[3]["default"] = json!(true);
    bad[3]["max_model_calls"] = json!(0);
    let Err(ProfilesError::Invalid(problems)) = Profiles::save_value(&f.store, &bad) else {
        panic!("accepted")
    };
    let found: Vec<(Option<&str>, &str)> = problems
        .iter()
        .map(|p| (p.profile.as_deref(), p.field.as_str()))
        .collect();
    for expected in [
        (Some("planner"), "rules[0].pattern"),
        (Some("coder"), "response_format.schema"),
        (Some("coder"), "max_model_calls"),
        (Some("planner"), "name"),
        (Some("coder"), "default"),
    ] {
        assert!(found.contains(&expected), "{expected:?} in {problems:?}");
    }
    let text = ProfilesError::Invalid(problems).to_string();
    assert!(
        text.contains("profile `planner`, rules[0].pattern:"),
        "{text}"
    );
    assert_eq!(f.store.app_setting(SETTING_KEY).unwrap(), before);

    // An entry that does not even read as a profile is named by its field too.
    let mut typo = profiles_json();
    typo[1]["sytem_prompt"] = json!("x");
    typo[2]["max_model_calls"] = json!("three");
    let Err(ProfilesError::Invalid(problems)) = Profiles::save_value(&f.store, &typo) else {
        panic!("accepted")
    };
    let found: Vec<(Option<&str>, &str)> = problems
        .iter()
        .map(|p| (p.profile.as_deref(), p.field.as_str()))
        .collect();
    assert_eq!(
        found,
        vec![
            (Some("planner"), "sytem_prompt"),
            (Some("translator"), "max_model_calls")
        ]
    );
    assert_eq!(f.store.app_setting(SETTING_KEY).unwrap(), before);

    // No default at all, and a setting that is not a list.
    let mut none = profiles_json();
    none[0]["default"] = json!(false);
    let Err(ProfilesError::Invalid(problems)) = Profiles::from_value(&none) else {
        panic!("accepted")
    };
    assert_eq!(
        (problems[0].profile.as_deref(), problems[0].field.as_str()),
        (None, "default")
    );
    assert!(Profiles::from_value(&json!({"default": {}})).is_err());
}

#[tokio::test(flavor = "multi_thread")]
async fn a_stored_set_that_went_bad_is_reported_when_loaded() {
    let f = fixture().await;
    let mut bad = profiles_json();
    bad[0]["rules"] = json!([{"kind": "keywords", "any": []}]);
    f.store.set_app_setting(SETTING_KEY, bad).unwrap();
    let err = Profiles::load(&f.store).unwrap_err();
    let ProfilesError::Invalid(problems) = &err else {
        panic!("{err}")
    };
    assert_eq!(problems.len(), 1);
    assert_eq!(problems[0].profile.as_deref(), Some("default"));
    assert_eq!(problems[0].field, "rules[0].any");
}

#[test]
fn json_answers_are_checked_with_a_path_for_each_problem() {
    let schema = json!({
        "type": "object",
        "required": ["title", "items"],
        "properties": {
            "title": {"type": "string"},
            "contact": {"type": "string", "format": "email"},
            "items": {"type": "array", "items": {
                "type": "object", "required": ["price"],
                "properties": {"price": {"type": "number"}}}}
        }
    });
    let fenced = "```json\n{\"title\": \"Trip\", \"items\": [{\"price\": 3}]}\n```";
    assert_eq!(
        validate_json_response(fenced, &schema).unwrap()["items"][0]["price"],
        3
    );
    assert!(validate_json_response(" {\"title\": \"t\", \"items\": []} ", &schema).is_ok());

    let answer = r#"{"contact": "not-an-email", "items": [{"price": 1}, {"price": "2"}, {}]}"#;
    let Err(JsonResponseError::Invalid(problems)) = validate_json_response(answer, &schema) else {
        panic!("accepted")
    };
    let mut paths: Vec<&str> = problems.iter().map(|p| p.path.as_str()).collect();
    paths.sort_unstable();
    assert_eq!(
        paths,
        vec!["/contact", "/items/1/price", "/items/2/price", "/title"]
    );
    let contact = problems.iter().find(|p| p.path == "/contact").unwrap();
    assert!(contact.message.contains("email"), "{contact}");

    assert!(matches!(
        validate_json_response("Sure! Here it is: {", &schema),
        Err(JsonResponseError::NotJson { .. })
    ));
    assert_eq!(
        validate_json_response("  ", &schema),
        Err(JsonResponseError::Empty)
    );
}
