//! The prompt of a turn comes from the assembler: a memory saved in one turn is in the system
//! text of the next, and the explanation of what was used is kept with the run's first model
//! call.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::sync::Arc;

use tessera_engine::builtin_tools::register_builtin_tools;
use tessera_engine::tools::ToolRegistry;
use tessera_engine::turn::{run_turn, TurnInput, TurnOptions};
use tessera_providers::config::{ProviderConfig, WireKind};
use tessera_providers::keys::Secret;
use tessera_providers::ProviderClient;
use tessera_store::Store;
use tessera_testkit::scripted::{Reply, ScriptedProvider};
use tokio_util::sync::CancellationToken;

#[tokio::test(flavor = "multi_thread")]
async fn a_saved_memory_reaches_the_next_turn_and_the_assembly_is_kept() {
    let provider = ScriptedProvider::start().await.unwrap();
    provider.push(Reply::openai_tool_calls(
        "m",
        &[(
            "call_1",
            "save_memory",
            &[r#"{"content": "The person prefers window seats.", "key": "seat"}"#],
        )],
    ));
    provider.push(Reply::openai_text("m", &["Noted."]));
    provider.push(Reply::openai_text("m", &["A window seat, then."]));
    let dir = tempfile::tempdir().unwrap();
    let store = Arc::new(Store::open(dir.path()).unwrap());
    let mut registry = ToolRegistry::new();
    register_builtin_tools(&mut registry, store.clone()).unwrap();
    let options = TurnOptions {
        tools: Some(Arc::new(registry)),
        ..TurnOptions::default()
    };
    let mut config = ProviderConfig::new("scripted", WireKind::Openai, provider.openai_base());
    config.proxy = Some("none".into());
    let client = ProviderClient::new(config, Some(Secret::new("k"))).unwrap();
    let first = run_turn(
        &store,
        &client,
        TurnInput {
            attachments: &[],
            message_id: None,
            conversation: None,
            text: "I like window seats",
            said: Default::default(),
            model: "m",
            options: &options,
            run_id: None,
        },
        CancellationToken::new(),
        |_| {},
    )
    .await
    .unwrap();
    run_turn(
        &store,
        &client,
        TurnInput {
            attachments: &[],
            message_id: None,
            conversation: Some(&first.conversation_id),
            text: "Book my flight",
            said: Default::default(),
            model: "m",
            options: &options,
            run_id: None,
        },
        CancellationToken::new(),
        |_| {},
    )
    .await
    .unwrap();
    let third = &provider.calls()[2].body["messages"];
    let system = third[0].clone();
    assert_eq!(system["role"], "system");
    assert!(
        system["content"].as_str().unwrap().contains("window seats"),
        "{system}"
    );
    // Earlier messages are there too, the newest last.
    let last = third.as_array().unwrap().last().unwrap();
    assert_eq!(last["content"], "Book my flight");
    let turns = store.model_turns(&first.conversation_id, None).unwrap();
    let explanation = store
        .turn_assembly(&first.conversation_id, &turns[2].turn_id)
        .unwrap()
        .expect("the assembly is kept");
    assert!(
        explanation.to_string().contains("memory") || explanation.to_string().contains("block"),
        "{explanation}"
    );
}
