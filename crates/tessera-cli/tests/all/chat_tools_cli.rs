//! `tessera chat --tools builtin`: the model may call the built-in tools; the call runs, its
//! result goes back to the model, and the events show the tool call and its result.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use serde_json::Value;
use tessera_testkit::scripted::{Reply, ScriptedProvider};

/// `tessera chat` on `data` against the scripted provider's OpenAI wire.
fn chat(data: &std::path::Path, provider: &ScriptedProvider) -> tokio::process::Command {
    crate::support::chat_against(data, provider, "sk-test")
}

#[tokio::test(flavor = "multi_thread")]
async fn a_chat_with_builtin_tools_runs_the_calculator() {
    let provider = ScriptedProvider::start().await.unwrap();
    provider.push(Reply::openai_tool_calls(
        "m",
        &[("call_1", "calculator", &["{\"expression\":\"2+3*4\"}"])],
    ));
    provider.push(Reply::openai_text("m", &["It is 14."]));
    let data = tempfile::tempdir().unwrap();
    let out = chat(data.path(), &provider)
        .args([
            "--model", "m", "--tools", "builtin", "--events", "ndjson", "2+3*4?",
        ])
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
    let out = chat(data.path(), &provider)
        .args(["--model", "m", "hi"])
        .output()
        .await
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    assert!(provider.calls()[2].body.get("tools").is_none());
}

/// `tessera chat --ask`: the model's form is asked on standard error field by field, a value
/// the form refuses is named and asked again, and the answer goes back to the model, which
/// finishes the turn in the same command.
#[tokio::test(flavor = "multi_thread")]
async fn a_chat_that_may_ask_asks_the_form_on_the_terminal() {
    use tokio::io::AsyncWriteExt;
    let provider = ScriptedProvider::start().await.unwrap();
    let form = r#"{"title":"Your trip","fields":[{"name":"email","label":"Email","kind":"email","required":true},{"name":"nights","label":"Nights","kind":"integer"},{"name":"room","label":"Room","kind":"choice","options":["single","double"]}]}"#;
    provider.push(Reply::openai_tool_calls(
        "m",
        &[("call_f", "request_form", &[form])],
    ));
    provider.push(Reply::openai_text("m", &["Booked."]));
    let data = tempfile::tempdir().unwrap();
    let mut child = chat(data.path(), &provider)
        .args(["--model", "m", "--ask", "Book a room"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    // An address the form refuses, then one it takes; two nights; the second room.
    let mut stdin = child.stdin.take().unwrap();
    stdin
        .write_all(b"a..b@example.com\n2\n2\nada@example.com\n")
        .await
        .unwrap();
    drop(stdin);
    let out = child.wait_with_output().await.unwrap();
    let asked = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{asked}");
    assert_eq!(
        String::from_utf8_lossy(&out.stdout).trim(),
        "Booked.",
        "{asked}"
    );
    for shown in [
        "The assistant asks you to fill in a form: Your trip",
        "  Email [email, required]",
        "  Nights [whole number]",
        "  Room [one choice: its number]",
        "    2. double",
        "Email: must be a valid email address",
    ] {
        assert!(asked.contains(shown), "{shown:?} in {asked}");
    }
    // The model read the person's answer as the call's result.
    let sent = &provider.calls()[1].body;
    let result = sent["messages"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["role"] == "tool")
        .unwrap();
    let result: Value = serde_json::from_str(result["content"].as_str().unwrap()).unwrap();
    assert_eq!(
        result,
        serde_json::json!({"action": "accept", "values": {
            "email": "ada@example.com", "nights": 2, "room": "double"}})
    );
}
