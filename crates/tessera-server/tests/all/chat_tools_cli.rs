//! `tessera chat --tools builtin`: the model may call the built-in tools; the call runs, its
//! result goes back to the model, and the events show the tool call and its result.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use serde_json::Value;
use tessera_testkit::scripted::{Reply, ScriptedProvider};

#[tokio::test(flavor = "multi_thread")]
async fn a_chat_with_builtin_tools_runs_the_calculator() {
    let provider = ScriptedProvider::start().await.unwrap();
    provider.push(Reply::openai_tool_calls(
        "m",
        &[("call_1", "calculator", &["{\"expression\":\"2+3*4\"}"])],
    ));
    provider.push(Reply::openai_text("m", &["It is 14."]));
    let data = tempfile::tempdir().unwrap();
    let out = tokio::process::Command::new(env!("CARGO_BIN_EXE_tessera"))
        .arg("--data-dir")
        .arg(data.path())
        .args([
            "chat",
            "--kind",
            "openai",
            "--base-url",
            &provider.openai_base(),
        ])
        .args([
            "--model", "m", "--tools", "builtin", "--events", "ndjson", "2+3*4?",
        ])
        .env("OPENAI_API_KEY", "sk-test")
        .env_remove("HTTP_PROXY")
        .env_remove("http_proxy")
        .output()
        .await
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let events: Vec<Value> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let result = events
        .iter()
        .find(|e| e["type"] == "tool_result")
        .expect("the tool ran");
    assert_eq!(result["payload"]["status"], "success");
    assert_eq!(result["payload"]["result"]["result"], 14);
    let sent = &provider.calls()[0].body;
    let names: Vec<&str> = sent["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["function"]["name"].as_str().unwrap())
        .collect();
    assert!(names.contains(&"calculator") && names.contains(&"search_context"));
    let answer: String = events
        .iter()
        .filter(|e| e["type"] == "message")
        .filter_map(|e| e["payload"]["delta"].as_str())
        .collect();
    assert_eq!(answer, "It is 14.");

    // Without --tools no tool is offered.
    provider.push(Reply::openai_text("m", &["plain"]));
    let out = tokio::process::Command::new(env!("CARGO_BIN_EXE_tessera"))
        .arg("--data-dir")
        .arg(data.path())
        .args([
            "chat",
            "--kind",
            "openai",
            "--base-url",
            &provider.openai_base(),
        ])
        .args(["--model", "m", "hi"])
        .env("OPENAI_API_KEY", "sk-test")
        .output()
        .await
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    assert!(provider.calls()[2].body.get("tools").is_none());
}
