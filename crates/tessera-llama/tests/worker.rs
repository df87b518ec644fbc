//! The worker as its parent uses it: started with a token in the environment, ready when its
//! JSON line comes, answering the OpenAI wire on 127.0.0.1. The model is the suite's own
//! (scripts/make-test-gguf.py: random weights, a ChatML template with tools), named by
//! TESSERA_TEST_GGUF; `make test-llama` makes it.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::io::BufRead;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use futures_util::StreamExt;
use serde_json::{json, Value};

const TOKEN: &str = "test-token-0123456789";

struct Worker {
    child: Child,
    base: String,
}

impl Drop for Worker {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn model() -> String {
    std::env::var("TESSERA_TEST_GGUF")
        .expect("TESSERA_TEST_GGUF names the test model (make test-llama makes it)")
}

/// The worker on the suite's model with `args`, its error output to `stderr`, once it has said
/// it is ready: the child and its ready line. `TESSERA_LOG` is left out, as the app leaves it.
fn spawn(args: &[&str], stderr: Stdio) -> (Child, Value) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_tessera-llama"))
        .arg(model())
        .args(args)
        .env("TESSERA_LLAMA_TOKEN", TOKEN)
        .env_remove("TESSERA_LOG")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(stderr)
        .spawn()
        .unwrap();
    let mut line = String::new();
    std::io::BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    let ready: Value =
        serde_json::from_str(&line).unwrap_or_else(|e| panic!("ready line {line:?}: {e}"));
    (child, ready)
}

fn start() -> Worker {
    let (child, ready) = spawn(&["--ctx", "2048", "--threads", "2"], Stdio::inherit());
    assert_eq!(ready["n_ctx"], 2048);
    Worker {
        base: format!("http://127.0.0.1:{}", ready["port"]),
        child,
    }
}

fn client() -> reqwest::Client {
    reqwest::Client::builder().no_proxy().build().unwrap()
}

fn weather_tool() -> Value {
    json!({"type": "function", "function": {
        "name": "get_weather",
        "description": "The weather in a city",
        "parameters": {"type": "object", "properties": {"city": {"type": "string", "enum": ["Paris", "Tokyo"]}}, "required": ["city"]}
    }})
}

#[tokio::test]
async fn every_route_wants_the_token() {
    let worker = start();
    for path in ["/health", "/v1/models"] {
        let answer = client()
            .get(format!("{}{path}", worker.base))
            .send()
            .await
            .unwrap();
        assert_eq!(answer.status(), 401, "{path}");
        let answer = client()
            .get(format!("{}{path}", worker.base))
            .bearer_auth("wrong")
            .send()
            .await
            .unwrap();
        assert_eq!(answer.status(), 401, "{path}");
        let answer = client()
            .get(format!("{}{path}", worker.base))
            .bearer_auth(TOKEN)
            .send()
            .await
            .unwrap();
        assert_eq!(answer.status(), 200, "{path}");
    }
}

#[tokio::test]
async fn it_answers_streams_and_reuses_the_conversation_prefix() {
    let worker = start();
    let url = format!("{}/v1/chat/completions", worker.base);
    let first = json!({"model": "m", "messages": [{"role": "user", "content": "Say hello"}], "max_tokens": 8, "temperature": 0});
    let answer: Value = client()
        .post(&url)
        .bearer_auth(TOKEN)
        .json(&first)
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(answer["object"], "chat.completion");
    assert_eq!(answer["usage"]["completion_tokens"], 8, "{answer}");
    assert_eq!(answer["choices"][0]["finish_reason"], "length");
    let said = answer["choices"][0]["message"]["content"]
        .as_str()
        .unwrap()
        .to_owned();

    // The follow-up starts with the whole first turn: only what is new is read.
    let follow = json!({"model": "m", "stream": true, "stream_options": {"include_usage": true}, "max_tokens": 5, "temperature": 0,
        "messages": [{"role": "user", "content": "Say hello"}, {"role": "assistant", "content": said}, {"role": "user", "content": "Again"}]});
    let response = client()
        .post(&url)
        .bearer_auth(TOKEN)
        .json(&follow)
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 200);
    assert!(response.headers()["content-type"]
        .to_str()
        .unwrap()
        .starts_with("text/event-stream"));
    let body = response.text().await.unwrap();
    let events: Vec<&str> = body
        .lines()
        .filter_map(|l| l.strip_prefix("data: "))
        .collect();
    assert_eq!(*events.last().unwrap(), "[DONE]");
    let chunks: Vec<Value> = events[..events.len() - 1]
        .iter()
        .map(|e| serde_json::from_str(e).unwrap())
        .collect();
    assert_eq!(chunks[0]["choices"][0]["delta"]["role"], "assistant");
    let usage = &chunks.last().unwrap()["usage"];
    assert_eq!(usage["completion_tokens"], 5);
    let cached = usage["prompt_tokens_details"]["cached_tokens"]
        .as_u64()
        .unwrap();
    assert!(cached > 5, "the first turn's tokens were kept: {usage}");
}

#[tokio::test]
async fn a_required_tool_choice_gives_a_parsed_call() {
    let worker = start();
    let url = format!("{}/v1/chat/completions", worker.base);
    let request = json!({"model": "m", "messages": [{"role": "user", "content": "Weather in Paris?"}],
        "tools": [weather_tool()], "tool_choice": "required", "parallel_tool_calls": false, "max_tokens": 200, "temperature": 0});
    let answer: Value = client()
        .post(&url)
        .bearer_auth(TOKEN)
        .json(&request)
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let choice = &answer["choices"][0];
    assert_eq!(choice["finish_reason"], "tool_calls", "{answer}");
    let call = &choice["message"]["tool_calls"][0];
    assert_eq!(call["function"]["name"], "get_weather");
    let arguments: Value =
        serde_json::from_str(call["function"]["arguments"].as_str().unwrap()).unwrap();
    assert!(
        ["Paris", "Tokyo"].contains(&arguments["city"].as_str().unwrap()),
        "{arguments}"
    );
}

#[tokio::test]
async fn a_client_that_goes_away_frees_the_model_at_once() {
    let worker = start();
    let url = format!("{}/v1/chat/completions", worker.base);
    let long = json!({"model": "m", "stream": true, "max_tokens": 100000, "temperature": 0, "messages": [{"role": "user", "content": "Talk"}]});
    let response = client()
        .post(&url)
        .bearer_auth(TOKEN)
        .json(&long)
        .send()
        .await
        .unwrap();
    let mut body = response.bytes_stream();
    for _ in 0..3 {
        body.next().await.unwrap().unwrap();
    }
    drop(body);
    let began = Instant::now();
    let short =
        json!({"model": "m", "max_tokens": 2, "messages": [{"role": "user", "content": "Hi"}]});
    let answer: Value = client()
        .post(&url)
        .bearer_auth(TOKEN)
        .json(&short)
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(answer["usage"]["completion_tokens"], 2);
    assert!(
        began.elapsed() < Duration::from_secs(10),
        "the slot was freed: {:?}",
        began.elapsed()
    );
}

#[tokio::test]
async fn bad_requests_say_what_is_wrong() {
    let worker = start();
    let url = format!("{}/v1/chat/completions", worker.base);
    for (body, says) in [
        (json!({"messages": "no"}), "not a chat completion request"),
        (
            json!({"messages": [], "tools": [weather_tool()], "tool_choice": "sometimes"}),
            "tool_choice",
        ),
        (
            json!({"messages": [{"role": "user", "content": "x"}], "tools": [weather_tool()], "tool_choice": {"type": "function", "function": {"name": "nope"}}}),
            "nope",
        ),
    ] {
        let response = client()
            .post(&url)
            .bearer_auth(TOKEN)
            .json(&body)
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), 400, "{body}");
        let answer: Value = response.json().await.unwrap();
        assert!(
            answer["error"]["message"].as_str().unwrap().contains(says),
            "{answer}"
        );
    }
}

#[test]
fn it_stops_when_its_parent_closes_its_input() {
    let mut worker = start();
    drop(worker.child.stdin.take());
    let began = Instant::now();
    loop {
        if let Some(status) = worker.child.try_wait().unwrap() {
            assert!(status.success(), "{status}");
            break;
        }
        assert!(began.elapsed() < Duration::from_secs(20), "still running");
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// `tessera local serve` (the `tessera` binary named by TESSERA_BIN) runs this worker and
/// prints what an OpenAI client needs; a client with that URL and key gets answers.
#[tokio::test]
async fn tessera_local_serve_prints_a_working_url_and_key() {
    let Some(tessera) = std::env::var_os("TESSERA_BIN") else {
        panic!("TESSERA_BIN names the tessera binary (make test-llama sets it)");
    };
    let data = std::env::temp_dir().join(format!("tessera-local-serve-{}", std::process::id()));
    let mut child = Command::new(tessera)
        .arg("--data-dir")
        .arg(&data)
        .args(["local", "serve"])
        .arg(model())
        .args(["--ctx", "1024", "--token", TOKEN])
        .env("TESSERA_LLAMA_BIN", env!("CARGO_BIN_EXE_tessera-llama"))
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut out = std::io::BufReader::new(child.stdout.take().unwrap());
    let (mut url, mut key) = (None, None);
    for _ in 0..8 {
        let mut line = String::new();
        out.read_line(&mut line).unwrap();
        if let Some(rest) = line.trim().strip_prefix("base URL") {
            url = Some(rest.trim().to_owned());
        }
        if let Some(rest) = line.trim().strip_prefix("API key") {
            key = Some(rest.trim().to_owned());
        }
        if line.starts_with("Ctrl-C") {
            break;
        }
    }
    let (url, key) = (url.unwrap(), key.unwrap());
    assert_eq!(key, TOKEN);
    let answer: Value = client()
        .post(format!("{url}/chat/completions"))
        .bearer_auth(&key)
        .json(&json!({"model": "x", "messages": [{"role": "user", "content": "你好"}], "max_tokens": 3}))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(answer["usage"]["completion_tokens"], 3, "{answer}");
    // Its worker goes with it.
    let _ = child.kill();
    let _ = child.wait();
    let began = Instant::now();
    let mut gone = false;
    while began.elapsed() < Duration::from_secs(20) {
        let alive = client()
            .get(format!("{url}/models"))
            .bearer_auth(&key)
            .send()
            .await
            .is_ok();
        if !alive {
            gone = true;
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert!(gone, "the worker outlived `tessera local serve`");
    let _ = std::fs::remove_dir_all(data);
}

/// `tessera chat … --events ndjson` with `args`, in a network namespace whose only interface is
/// loopback (`unshare -n`), the suite's model in the data folder as `tiny.gguf`: its events.
fn offline_chat(name: &str, args: &str) -> Vec<Value> {
    let Some(tessera) = std::env::var_os("TESSERA_BIN") else {
        panic!("TESSERA_BIN names the tessera binary (make test-llama sets it)");
    };
    let data = std::env::temp_dir().join(format!("tessera-{name}-{}", std::process::id()));
    std::fs::create_dir_all(data.join("models")).unwrap();
    std::fs::copy(model(), data.join("models/tiny.gguf")).unwrap();
    // No route out, checked before the command runs.
    let script = format!(
        r#"ip link set lo up && ! ip route get 1.1.1.1 >/dev/null 2>&1 && exec "$0" --data-dir "$1" chat --provider on-device --model tiny.gguf --events ndjson {args}"#
    );
    let out = Command::new("unshare")
        .args(["-n", "sh", "-c", &script])
        .arg(&tessera)
        .arg(&data)
        .env("TESSERA_LLAMA_BIN", env!("CARGO_BIN_EXE_tessera-llama"))
        .output()
        .unwrap();
    let _ = std::fs::remove_dir_all(&data);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    stdout
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

/// `tessera chat --provider on-device` answers from a model in the data folder with the
/// network cut off for the whole process tree.
#[test]
fn tessera_chat_answers_from_a_local_model_with_no_network() {
    let events = offline_chat("local-chat", "--max-tokens 6 你好");
    let all = serde_json::to_string(&events).unwrap();
    let deltas = events
        .iter()
        .filter(|e| e["domain"] == "llm" && e["payload"]["delta"].is_string())
        .count();
    assert!(deltas > 1, "the answer streamed: {all}");
    assert!(
        events
            .iter()
            .any(|e| e["type"] == "status" && e["payload"]["state"] == "completed"),
        "the turn completed: {all}"
    );
    let done = events.iter().find(|e| e["type"] == "done").unwrap();
    assert_eq!(done["meta"]["completion_tokens"], 6, "{done}");
}

/// With no network, `tessera chat` makes a tool call through the on-device model: the first
/// call's choice is forced (`--tool-choice`, a random model would not choose one), the engine
/// runs the tool and the model is called again with its result.
#[test]
fn tessera_chat_calls_a_tool_through_a_local_model_with_no_network() {
    let events = offline_chat(
        "local-tool",
        r#"--max-tokens 120 --tools builtin --tool-choice get_current_datetime "what time is it""#,
    );
    let all = serde_json::to_string(&events).unwrap();
    let call = events
        .iter()
        .find(|e| e["domain"] == "tool" && e["type"] == "tool_call")
        .unwrap_or_else(|| panic!("no tool call: {all}"));
    assert_eq!(call["payload"]["name"], "get_current_datetime", "{call}");
    assert!(
        events
            .iter()
            .any(|e| e["domain"] == "tool" && e["type"] == "tool_result"),
        "the tool ran and its result was stored: {all}"
    );
    let done = events.iter().find(|e| e["type"] == "done").unwrap();
    assert!(
        done["meta"]["completion_tokens"].as_u64().unwrap() > 0,
        "{done}"
    );
}

/// What a person types for a field whose line names `kind` (as `tessera chat --ask` shows it).
fn answer_for(kind: &str) -> Option<&'static str> {
    Some(match kind {
        "text" => "x",
        "email" => "ada@example.com",
        "url" => "https://example.com",
        "date YYYY-MM-DD" => "2026-11-27",
        "date-time YYYY-MM-DDThh:mm:ssZ" => "2026-11-27T10:30:00Z",
        "whole number" | "number" => "2",
        "yes/no" => "y",
        "one choice: its number" | "choices: numbers, comma-separated" => "1",
        _ => return None,
    })
}

/// With no network, `tessera chat --ask` asks for a form through the on-device model (the call
/// forced, as a random model would not choose it): the form is asked on the terminal field by
/// field, the answers go back to the model and the turn completes.
#[test]
fn tessera_chat_asks_for_a_form_through_a_local_model_with_no_network() {
    use std::io::Write;
    let Some(tessera) = std::env::var_os("TESSERA_BIN") else {
        panic!("TESSERA_BIN names the tessera binary (make test-llama sets it)");
    };
    let data = std::env::temp_dir().join(format!("tessera-local-form-{}", std::process::id()));
    std::fs::create_dir_all(data.join("models")).unwrap();
    std::fs::copy(model(), data.join("models/tiny.gguf")).unwrap();
    let script = r#"ip link set lo up && ! ip route get 1.1.1.1 >/dev/null 2>&1 && exec "$0" --data-dir "$1" chat --provider on-device --model tiny.gguf --events ndjson --max-tokens 1500 --tools builtin --ask --tool-choice request_form "Book a room for me""#;
    let mut child = Command::new("unshare")
        .args(["-n", "sh", "-c", script])
        .arg(&tessera)
        .arg(&data)
        .env("TESSERA_LLAMA_BIN", env!("CARGO_BIN_EXE_tessera-llama"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let pid = child.id();
    let watchdog = std::thread::spawn(move || {
        std::thread::sleep(Duration::from_secs(300));
        let _ = Command::new("kill").args(["-9", &pid.to_string()]).status();
    });
    let mut stdin = child.stdin.take().unwrap();
    let stderr = child.stderr.take().unwrap();
    // Each field's line ends with its kind in brackets; the answer is written as it is read.
    let asker = std::thread::spawn(move || {
        let mut shown = Vec::new();
        let mut answered = 0;
        for line in std::io::BufReader::new(stderr).lines() {
            let line = line.unwrap();
            let kind = line
                .strip_suffix(']')
                .and_then(|l| l.rfind(" [").map(|at| &l[at + 2..]))
                .map(|k| k.trim_end_matches(", required"));
            if let Some(answer) = kind.and_then(answer_for) {
                writeln!(stdin, "{answer}").unwrap();
                answered += 1;
            }
            shown.push(line);
        }
        (answered, shown.join("\n"))
    });
    let out = child.wait_with_output().unwrap();
    let (answered, shown) = asker.join().unwrap();
    drop(watchdog);
    let _ = std::fs::remove_dir_all(&data);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{stdout}\n{shown}");
    assert!(
        shown.contains("The assistant asks you to fill in a form: "),
        "{shown}"
    );
    assert!(answered > 0, "a field was asked: {shown}");
    let events: Vec<Value> = stdout
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let all = serde_json::to_string(&events).unwrap();
    let result = events
        .iter()
        .find(|e| e["domain"] == "tool" && e["type"] == "tool_result")
        .unwrap_or_else(|| panic!("no result of the form's call: {all}"));
    assert_eq!(result["payload"]["result"]["action"], "accept", "{result}");
    assert!(
        events
            .iter()
            .any(|e| e["type"] == "status" && e["payload"]["state"] == "completed"),
        "the turn went on and completed: {all}"
    );
}

/// The worker started with `args` as the app starts it, then told to stop: its ready line and
/// what it wrote on its error output.
fn start_and_stop(args: &[&str]) -> (Value, String) {
    let (mut child, ready) = spawn(args, Stdio::piped());
    drop(child.stdin.take());
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success(), "{}", out.status);
    (ready, String::from_utf8_lossy(&out.stderr).into_owned())
}

/// With no `--ctx` the context is the model's own on a machine with room for it; and what the
/// worker writes on its error output is only what went wrong (the app shows a person its last
/// lines when it stops), not llama.cpp's notes, such as the one on a context smaller than the
/// model's.
#[test]
fn it_takes_the_models_context_by_default_and_writes_nothing_when_all_is_well() {
    let (ready, said) = start_and_stop(&["--threads", "2"]);
    // The suite's model is made with a 16,384-token context, which any test machine holds.
    assert_eq!(ready["n_ctx"], 16_384, "{ready}");
    assert!(said.trim().is_empty(), "the worker wrote:\n{said}");
    let (ready, said) = start_and_stop(&["--threads", "2", "--ctx", "2048"]);
    assert_eq!(ready["n_ctx"], 2048, "{ready}");
    assert!(said.trim().is_empty(), "the worker wrote:\n{said}");
}

async fn embed(worker: &Worker, body: Value) -> (u16, Value) {
    let response = client()
        .post(format!("{}/v1/embeddings", worker.base))
        .bearer_auth(TOKEN)
        .json(&body)
        .send()
        .await
        .unwrap();
    let status = response.status().as_u16();
    (status, response.json().await.unwrap())
}

fn vectors(answer: &Value) -> Vec<Vec<f64>> {
    answer["data"]
        .as_array()
        .unwrap()
        .iter()
        .enumerate()
        .map(|(i, item)| {
            assert_eq!(item["index"], i, "{item}");
            assert_eq!(item["object"], "embedding");
            item["embedding"]
                .as_array()
                .unwrap()
                .iter()
                .map(|x| x.as_f64().unwrap())
                .collect()
        })
        .collect()
}

/// The suite's model: d 64 (scripts/make-test-gguf.py, tiny).
const N_EMBD: usize = 64;

#[tokio::test]
async fn embeddings_give_one_vector_per_input_the_same_for_the_same_text() {
    let worker = start();
    let texts = [
        "The cat sat on the mat.",
        "Rust is a systems programming language.",
        "The cat sat on the mat.",
        "你好，世界",
    ];
    let (status, answer) = embed(
        &worker,
        json!({"model": "m", "input": texts, "encoding_format": "float"}),
    )
    .await;
    assert_eq!(status, 200, "{answer}");
    assert_eq!(answer["object"], "list");
    let got = vectors(&answer);
    assert_eq!(got.len(), texts.len());
    for v in &got {
        assert_eq!(v.len(), N_EMBD);
        assert!(v.iter().all(|x| x.is_finite()) && v.iter().any(|x| *x != 0.0));
    }
    assert_eq!(got[0], got[2], "the same text, the same vector");
    assert_ne!(got[0], got[1]);
    assert_ne!(got[1], got[3]);
    let tokens = answer["usage"]["prompt_tokens"].as_u64().unwrap();
    assert!(tokens >= texts.len() as u64, "{answer}");
    assert_eq!(answer["usage"]["total_tokens"], tokens);

    // Alone, a string gives what it gave among others (each input is a sequence of its own).
    let (status, alone) = embed(&worker, json!({"input": texts[1]})).await;
    assert_eq!(status, 200, "{alone}");
    let alone = vectors(&alone);
    assert_eq!(alone.len(), 1);
    for (a, b) in alone[0].iter().zip(&got[1]) {
        assert!((a - b).abs() < 1e-4, "{a} vs {b}");
    }

    // More inputs than one decode takes (64 sequences) come back whole and in order.
    let many: Vec<String> = (0..150).map(|i| format!("note number {i}")).collect();
    let (status, answer) = embed(&worker, json!({"input": many})).await;
    assert_eq!(status, 200, "{answer}");
    let got = vectors(&answer);
    assert_eq!(got.len(), 150);
    assert!(got.iter().all(|v| v.len() == N_EMBD));
    let (_, last) = embed(&worker, json!({"input": many[149]})).await;
    for (a, b) in vectors(&last)[0].iter().zip(&got[149]) {
        assert!((a - b).abs() < 1e-4, "{a} vs {b}");
    }
}

#[tokio::test]
async fn embeddings_want_the_token_and_refuse_what_they_cannot_take() {
    let worker = start();
    let url = format!("{}/v1/embeddings", worker.base);
    let answer = client()
        .post(&url)
        .json(&json!({"input": ["x"]}))
        .send()
        .await
        .unwrap();
    assert_eq!(answer.status(), 401);
    let answer = client()
        .post(&url)
        .bearer_auth("wrong")
        .json(&json!({"input": ["x"]}))
        .send()
        .await
        .unwrap();
    assert_eq!(answer.status(), 401);

    let models: Value = client()
        .get(format!("{}/v1/models", worker.base))
        .bearer_auth(TOKEN)
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    // The worker's context (--ctx 2048) bounds it: the test model's 4 heads allow more.
    assert_eq!(models["data"][0]["meta"]["n_ctx_embed"], 2048);

    let too_many: Vec<String> = (0..257).map(|i| format!("text {i}")).collect();
    let too_long = "lorem ipsum dolor sit amet ".repeat(1000);
    for (body, says) in [
        (json!({"input": []}), "empty list"),
        (json!({"input": too_many}), "256"),
        (json!({"input": ["a", ""]}), "input 1 is an empty string"),
        (json!({"input": [1, 2, 3]}), "not a string"),
        (json!({"input": 7}), "a string or a list of strings"),
        (json!({"nothing": true}), "not an embeddings request"),
        (json!({"input": "x", "encoding_format": "base64"}), "base64"),
        (json!({"input": ["short", too_long]}), "2048 tokens"),
    ] {
        let (status, answer) = embed(&worker, body.clone()).await;
        assert_eq!(status, 400, "{body:.200}: {answer}");
        assert_eq!(answer["error"]["type"], "invalid_request_error");
        let message = answer["error"]["message"].as_str().unwrap();
        assert!(message.contains(says), "{says:?} not in {message:?}");
    }

    // 256 inputs are taken.
    let most: Vec<String> = (0..256).map(|i| format!("text {i}")).collect();
    let (status, answer) = embed(&worker, json!({"input": most})).await;
    assert_eq!(status, 200, "{answer}");
    assert_eq!(answer["data"].as_array().unwrap().len(), 256);
}

/// A chat goes on while embeddings are computed: they have a thread and a context of their own.
#[tokio::test]
async fn a_chat_and_embeddings_run_side_by_side() {
    let worker = start();
    let texts: Vec<String> = (0..256).map(|i| format!("{i} ").repeat(200)).collect();
    let embedding = {
        let url = format!("{}/v1/embeddings", worker.base);
        tokio::spawn(async move {
            client()
                .post(url)
                .bearer_auth(TOKEN)
                .json(&json!({"input": texts}))
                .send()
                .await
                .unwrap()
                .status()
        })
    };
    let answer: Value = client()
        .post(format!("{}/v1/chat/completions", worker.base))
        .bearer_auth(TOKEN)
        .json(&json!({"messages": [{"role": "user", "content": "Say hello"}], "max_tokens": 4, "temperature": 0}))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(answer["usage"]["completion_tokens"], 4, "{answer}");
    assert_eq!(embedding.await.unwrap(), 200);
}
