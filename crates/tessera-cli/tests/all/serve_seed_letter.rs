//! The seeds to the letter, through the real `tessera serve` with the scripted provider: points
//! where Tessera read a seed differently (issue 25), each checked as a client sees it.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::support;

use serde_json::json;
use support::api::{mcp_message, Api};
use support::serve_scripted;
use tessera_testkit::scripted::{openai_chunk, openai_usage, Reply, ScriptedProvider};

/// Seed 000 §3.2: `finishReason` is LENGTH when the token limit cut the answer.
#[tokio::test(flavor = "multi_thread")]
async fn an_answer_cut_by_the_token_limit_finishes_with_length() {
    let provider = ScriptedProvider::start().await.unwrap();
    let data = tempfile::tempdir().unwrap();
    let api = Api::start(serve_scripted(data.path(), &provider, false));
    provider.push(Reply::openai_chunks(&[
        openai_chunk(
            "m",
            json!({"role": "assistant", "content": "The answer is cut"}),
            None,
        ),
        openai_chunk("m", json!({}), Some("length")),
        openai_usage("m", 10, 4),
    ]));
    let cut = api
        .post(
            "/messages",
            &mcp_message("len", "USER_INPUT", json!({"text": "Go on"})),
        )
        .await;
    let body = cut.ok(200);
    assert_eq!(body["content"]["text"], "The answer is cut");
    assert_eq!(body["content"]["finishReason"], "LENGTH", "{body}");

    provider.push(Reply::openai_text("m", &["Whole."]));
    let whole = api
        .post(
            "/messages",
            &mcp_message("len", "USER_INPUT", json!({"text": "Again"})),
        )
        .await;
    assert_eq!(whole.ok(200)["content"]["finishReason"], "STOP");
}

/// Seed 002 §2: an SSE response carries `Connection: keep-alive` (HTTP/1.1).
#[tokio::test(flavor = "multi_thread")]
async fn an_event_stream_says_keep_alive() {
    let provider = ScriptedProvider::start().await.unwrap();
    let data = tempfile::tempdir().unwrap();
    let api = Api::start(serve_scripted(data.path(), &provider, false));
    provider.push(Reply::openai_text("m", &["Hi."]));
    let response = support::stream::http()
        .post(format!("{}/v1/messages", api.server.base))
        .bearer_auth(&api.server.token)
        .header("accept", "text/event-stream")
        .json(&mcp_message("sse", "USER_INPUT", json!({"text": "Hello"})))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status().as_u16(), 200);
    assert_eq!(response.version(), reqwest::Version::HTTP_11);
    let header = |name: &str| {
        response
            .headers()
            .get(name)
            .and_then(|v| v.to_str().ok())
            .map(str::to_owned)
    };
    assert_eq!(header("content-type").as_deref(), Some("text/event-stream"));
    assert_eq!(header("connection").as_deref(), Some("keep-alive"));
    let body = response.text().await.unwrap();
    assert!(body.contains("\"type\":\"done\""), "{body}");
}

/// Seed 002 §13 and §16 rule 3 (不允许删除已有字段): every run's `done` carries `latency_ms`,
/// `prompt_tokens` and `completion_tokens`, direct tool calls and instruction sets included
/// (no model was called there: 0 tokens).
#[tokio::test(flavor = "multi_thread")]
async fn a_direct_runs_done_says_how_long_it_took() {
    let provider = ScriptedProvider::start().await.unwrap();
    let data = tempfile::tempdir().unwrap();
    let api = Api::start(serve_scripted(data.path(), &provider, false));
    let calls = mcp_message(
        "lat1",
        "TOOL_CALL_REQUEST",
        json!({"calls": [{"callId": "c1", "name": "calculator", "parameters": {"expression": "1+1"}}]}),
    );
    let body = api.post("/messages", &calls).await.ok(200).clone();
    let run_id = body["metadata"]["runId"].as_str().unwrap();
    let events = api.run_events("lat1", 0, run_id).await;
    let instructions = mcp_message(
        "lat2",
        "INSTRUCTION",
        json!({"instructions": [{"instructionId": "i1", "action": "calculator",
                                 "parameters": {"expression": "2+2"}}]}),
    );
    let body = api.post("/messages", &instructions).await.ok(200).clone();
    let run_id = body["content"]["data"]["runId"].as_str().unwrap();
    let more = api.run_events("lat2", 0, run_id).await;
    for (kind, events) in [("TOOL_CALL_REQUEST", events), ("INSTRUCTION", more)] {
        let done = events.iter().find(|e| e["type"] == "done").unwrap();
        assert!(done["meta"]["latency_ms"].is_u64(), "{kind}: {done}");
        assert_eq!(done["meta"]["prompt_tokens"], 0, "{kind}: {done}");
        assert_eq!(done["meta"]["completion_tokens"], 0, "{kind}: {done}");
    }
}

/// Hardening beyond the seeds (RFC 8259): a body that writes a key twice in one object is
/// refused, naming where, on the MCP-CP and the request routes alike; nothing is run.
#[tokio::test(flavor = "multi_thread")]
async fn a_key_written_twice_is_refused_with_its_path() {
    let provider = ScriptedProvider::start().await.unwrap();
    let data = tempfile::tempdir().unwrap();
    let api = Api::start(serve_scripted(data.path(), &provider, false));
    let message = r#"{"messageId": "m1", "contextId": "dup", "timestamp": "2026-11-27T10:00:00Z",
        "type": "USER_INPUT", "sender": {"id": "u", "type": "USER"},
        "content": {"text": "hello", "text": "something else"}}"#;
    let refused = api.raw(reqwest::Method::POST, "/messages", message).await;
    let said = refused.error(400, "DUPLICATE_KEY");
    assert!(said.contains("content.text"), "{said}");
    api.get("/conversations/dup").await.error(404, "NOT_FOUND");

    let request = r#"{"model": "m", "root_id": "r", "resources": [{"role": "user", "content": "hi"}],
        "config": {"temperature": 0.2, "temperature": 1.5}, "metadata": {"request_id": "req-9"}}"#;
    let refused = api.raw(reqwest::Method::POST, "/requests", request).await;
    assert_eq!(refused.status, 400, "{}", refused.text);
    assert_eq!(refused.body["status"], "error");
    assert_eq!(refused.body["outputs"], json!([]));
    assert_eq!(refused.body["trace_id"], "req-9");
    assert_eq!(refused.body["error"]["code"], "DUPLICATE_KEY");
    assert!(provider.calls().is_empty());
}

/// Seed 002 §9: a spending limit's refusal is `business/error` SPENDING_LIMIT_REACHED, sent as
/// an ordinary `message` event, then the run's failed status, then `done`; a client waiting for
/// the MODEL_RESPONSE gets 402 with that code.
#[tokio::test(flavor = "multi_thread")]
async fn a_spending_limit_is_a_business_error_then_failed_then_done() {
    let provider = ScriptedProvider::start().await.unwrap();
    let data = tempfile::tempdir().unwrap();
    support::save_scripted_provider(data.path(), &provider);
    {
        let store = tessera_store::Store::open(data.path()).unwrap();
        store
            .set_provider_settings(
                "local",
                json!({"name": "local", "kind": "openai", "base_url": provider.openai_base(),
                    "requires_key": false, "default_model": "m", "proxy": "none",
                    "models": {"m": {"price": {"input_per_mtok": 1000.0, "output_per_mtok": 1000.0}}}}),
            )
            .unwrap();
        store
            .set_app_setting("spending_limits", json!({"per_conversation_usd": 0.01}))
            .unwrap();
    }
    let api = Api::start(support::serve_local(data.path(), false));
    provider.push(Reply::openai_text("m", &["paid ", "answer"]));
    let mut first = support::stream::Stream::post(&api.server, "spend", "first").await;
    first.read_to_done().await;

    let mut second = support::stream::Stream::post(&api.server, "spend", "second").await;
    second.read_to_done().await;
    tessera_testkit::event_order::check_run(&second.data()).unwrap();
    let kinds: Vec<String> = second
        .events
        .iter()
        .map(|(_, name, e)| {
            format!(
                "{name} {}/{} {}",
                e["domain"], e["type"], e["payload"]["state"]
            )
        })
        .map(|k| k.replace('"', ""))
        .collect();
    let refusal = kinds
        .iter()
        .position(|k| k.starts_with("message business/error"))
        .unwrap_or_else(|| panic!("no business/error in {kinds:?}"));
    assert_eq!(
        &kinds[refusal + 1..],
        ["message system/status failed", "done system/done null"],
        "{kinds:?}"
    );
    assert!(!kinds.iter().any(|k| k.starts_with("error ")), "{kinds:?}");
    let payload = &second.events[refusal].2["payload"];
    assert_eq!(payload["code"], "SPENDING_LIMIT_REACHED");
    assert!(
        payload["message"].as_str().unwrap().contains("0.01"),
        "{payload}"
    );

    let waited = api
        .post(
            "/messages",
            &mcp_message("spend", "USER_INPUT", json!({"text": "third"})),
        )
        .await;
    waited.error(402, "SPENDING_LIMIT_REACHED");
    assert_eq!(provider.calls().len(), 1, "no refused call was sent");
}

/// Seed 000 §7.2 and seed 003 §2.2: the door's refusals are ERROR_RESPONSE messages on the
/// MCP-CP routes (a missing token is `AUTH_FAILED`) and whole response objects on
/// `/v1/requests` (no `trace_id`: the door reads no body); `recoverable` and `suggestedAction`
/// follow from what the error is; an invalid message lists its problems.
#[tokio::test(flavor = "multi_thread")]
async fn errors_say_what_a_client_can_do_in_the_routes_own_shape() {
    use tessera_testkit::http::request_with_body;
    let data = tempfile::tempdir().unwrap();
    // No provider: the engine has no model.
    let mut cmd = support::tessera_std(data.path());
    cmd.args(["serve", "--port", "0"]);
    let api = Api::start(cmd);
    let port = api.server.port;
    let message =
        serde_json::to_string(&mcp_message("door", "USER_INPUT", json!({"text": "hi"}))).unwrap();
    let parse = |body: &str| -> serde_json::Value { serde_json::from_str(body).unwrap() };

    let anonymous = request_with_body(
        port,
        "POST",
        "/v1/messages",
        &[("Content-Type", "application/json")],
        &message,
    )
    .unwrap();
    assert_eq!(anonymous.status, 401);
    let body = parse(&anonymous.body);
    assert_eq!(body["type"], "ERROR_RESPONSE", "{body}");
    assert_eq!(body["content"]["errorCode"], "AUTH_FAILED");
    assert_eq!(body["content"]["recoverable"], true);
    assert!(body["content"]["suggestedAction"]
        .as_str()
        .unwrap()
        .contains("bearer token"));
    assert_eq!(
        body["error"]["code"], "UNAUTHORIZED",
        "the door's own code stays"
    );

    let request = json!({"model": "m", "root_id": "door_req",
        "resources": [{"role": "user", "content": "hi"}],
        "metadata": {"request_id": "req_door"}})
    .to_string();
    let anonymous = request_with_body(
        port,
        "POST",
        "/v1/requests",
        &[("Content-Type", "application/json")],
        &request,
    )
    .unwrap();
    assert_eq!(anonymous.status, 401);
    let body = parse(&anonymous.body);
    assert_eq!(body["status"], "error", "{body}");
    assert_eq!(body["outputs"], json!([]));
    assert_eq!(body["error"]["code"], "UNAUTHORIZED");
    assert!(body.get("trace_id").is_none());

    let bearer = format!("Bearer {}", api.server.token);
    let rebinding = request_with_body(
        port,
        "POST",
        "/v1/requests",
        &[
            ("Host", "evil.example"),
            ("Authorization", &bearer),
            ("Content-Type", "application/json"),
        ],
        &request,
    )
    .unwrap();
    assert_eq!(rebinding.status, 421);
    let body = parse(&rebinding.body);
    assert_eq!(
        (&body["status"], &body["error"]["code"]),
        (&json!("error"), &json!("BAD_HOST"))
    );

    let foreign = request_with_body(
        port,
        "POST",
        "/v1/messages",
        &[
            ("Origin", "http://evil.example"),
            ("Authorization", &bearer),
            ("Content-Type", "application/json"),
        ],
        &message,
    )
    .unwrap();
    assert_eq!(foreign.status, 403);
    let body = parse(&foreign.body);
    assert_eq!(body["content"]["errorCode"], "BAD_ORIGIN");
    assert_eq!(body["content"]["recoverable"], false);

    // A 503 that setting up a model fixes is recoverable, whatever its status class.
    let no_model = api
        .post(
            "/messages",
            &mcp_message("door", "USER_INPUT", json!({"text": "hi"})),
        )
        .await;
    no_model.error(503, "NO_MODEL");
    let content = &no_model.ok(503)["content"];
    assert_eq!(content["recoverable"], true);
    assert!(content["suggestedAction"]
        .as_str()
        .unwrap()
        .contains("provider"));

    // An invalid message: every problem, path and message.
    let invalid = api
        .post(
            "/messages",
            &json!({"messageId": "m1", "contextId": "door", "timestamp": "yesterday",
                    "type": "USER_INPUT", "sender": {"id": "u", "type": "ROBOT"},
                    "content": {}}),
        )
        .await;
    invalid.error(400, "INVALID_MESSAGE");
    let problems = invalid.ok(400)["content"]["details"]["problems"].clone();
    let paths: Vec<&str> = problems
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["path"].as_str().unwrap())
        .collect();
    for path in ["timestamp", "sender.type", "content.text"] {
        assert!(
            paths.iter().any(|p| p.contains(path)),
            "{path} in {problems}"
        );
    }
    assert!(problems
        .as_array()
        .unwrap()
        .iter()
        .all(|p| p["message"].is_string()));
}

/// Seed 000 §3.1: `messageId` identifies the message (消息唯一标识, 用于跟踪和引用): it is the
/// stored message's id, a later `parentMessageId` names it, the same message sent again is
/// answered as the first time (the model is not called twice), and another message under it is
/// refused.
#[tokio::test(flavor = "multi_thread")]
async fn a_message_id_names_the_message_and_a_resend_is_answered_once() {
    let provider = ScriptedProvider::start().await.unwrap();
    let data = tempfile::tempdir().unwrap();
    let api = Api::start(serve_scripted(data.path(), &provider, false));
    let mut first = mcp_message("ids", "USER_INPUT", json!({"text": "Hello"}));
    first["messageId"] = json!("msg_001");
    provider.push(Reply::openai_text("m", &["Hi ", "there."]));
    let answered = api.post("/messages", &first).await;
    assert_eq!(answered.ok(200)["content"]["text"], "Hi there.");

    let shown = api.get("/conversations/ids").await;
    assert_eq!(shown.ok(200)["messages"][0]["id"], "msg_001");

    // Sent again (the answer was lost on the way): the same answer, the model not called again.
    let again = api.post("/messages", &first).await;
    assert_eq!(again.ok(200)["content"]["text"], "Hi there.");
    let mut stream = api.open_sse("/messages", Some(&first)).await;
    let done = stream.until(|e| e["type"] == "done").await;
    assert!(done.is_some());
    assert_eq!(provider.calls().len(), 1);
    let shown = api.get("/conversations/ids").await;
    assert_eq!(shown.ok(200)["messages"].as_array().unwrap().len(), 2);

    // Another text under the same id: refused, nothing stored.
    let mut other = first.clone();
    other["content"]["text"] = json!("Something else");
    api.post("/messages", &other)
        .await
        .error(409, "MESSAGE_ID_IN_USE");

    // A later message names it as the message it follows.
    let mut follow = mcp_message("ids", "USER_INPUT", json!({"text": "Again, differently"}));
    follow["messageId"] = json!("msg_002");
    follow["metadata"] = json!({"parentMessageId": "msg_001"});
    provider.push(Reply::openai_text("m", &["Second."]));
    api.post("/messages", &follow).await.ok(200);
    let shown = api.get("/conversations/ids").await;
    let ids: Vec<&str> = shown.ok(200)["messages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["id"].as_str().unwrap())
        .collect();
    assert_eq!(&ids[..2], ["msg_001", "msg_002"]);

    // An id that cannot name a message in a path is refused.
    let mut bad = mcp_message("ids", "USER_INPUT", json!({"text": "x"}));
    bad["messageId"] = json!("a/b c");
    api.post("/messages", &bad)
        .await
        .error(400, "INVALID_MESSAGE_ID");
}

/// Seed 004 §2/§3: an answer is kept as an `llm_output` evidence linked to its `model_usage`
/// record, and a tool call made for an instruction carries its `task_id`; the exported
/// document passes `tessera validate context` (its references resolve).
#[tokio::test(flavor = "multi_thread")]
async fn answers_are_llm_output_evidences_and_instruction_calls_name_their_task() {
    let provider = ScriptedProvider::start().await.unwrap();
    let data = tempfile::tempdir().unwrap();
    let api = Api::start(serve_scripted(data.path(), &provider, false));
    provider.push(Reply::openai_text("m", &["Forty-two."]));
    api.post(
        "/messages",
        &mcp_message("ev", "USER_INPUT", json!({"text": "The answer?"})),
    )
    .await
    .ok(200);
    let set = mcp_message(
        "ev",
        "INSTRUCTION",
        json!({"instructions": [
            {"instructionId": "i_sum", "action": "calculator", "parameters": {"expression": "40+2"}}
        ]}),
    );
    api.post("/messages", &set).await.ok(200);

    let export = api.get("/conversations/ev/export?format=context").await;
    let doc = export.ok(200).clone();
    assert_eq!(
        tessera_protocol::validate(tessera_protocol::DocumentKind::Context, &doc),
        []
    );
    let answer = doc["evidences"]
        .as_object()
        .unwrap()
        .values()
        .find(|e| e["type"] == "llm_output")
        .unwrap_or_else(|| panic!("no llm_output evidence in {doc}"));
    assert_eq!(answer["content"], "Forty-two.");
    assert_eq!(answer["source"]["kind"], "llm");
    let usage_id = answer["links"]["model_usage_id"].as_str().unwrap();
    assert!(doc["session"]["model_usage"]
        .as_array()
        .unwrap()
        .iter()
        .any(|u| u["model_usage_id"] == usage_id));
    let call = doc["session"]["tool_state"]["tool_calls"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["tool"] == "calculator")
        .unwrap_or_else(|| panic!("no calculator call in {doc}"));
    let task_id = call["task_id"].as_str().unwrap();
    assert!(doc["session"]["task_state"]["todo_list"]["tasks"]
        .as_array()
        .unwrap()
        .iter()
        .any(|t| t["task_id"] == task_id));
}

/// Seed 002 §5: `debug/log` events only when the client asks (`metadata.debug: true`), and then
/// figures only: no prompt text, no secret.
#[tokio::test(flavor = "multi_thread")]
async fn debug_logs_come_only_when_asked_and_hold_no_prompt() {
    let provider = ScriptedProvider::start().await.unwrap();
    let data = tempfile::tempdir().unwrap();
    let api = Api::start(serve_scripted(data.path(), &provider, false));
    let is_debug = |e: &serde_json::Value| e["domain"] == "debug";

    provider.push(Reply::openai_text("m", &["Plain."]));
    let plain = mcp_message("dbg", "USER_INPUT", json!({"text": "secret plan zebra"}));
    let mut stream = api.open_sse("/messages", Some(&plain)).await;
    stream.until(|e| e["type"] == "done").await.unwrap();
    assert!(!stream.events.iter().any(is_debug));

    provider.push(Reply::openai_text("m", &["Logged."]));
    let mut asked = mcp_message("dbg", "USER_INPUT", json!({"text": "secret plan zebra"}));
    asked["metadata"] = json!({"debug": true});
    let mut stream = api.open_sse("/messages", Some(&asked)).await;
    stream.until(|e| e["type"] == "done").await.unwrap();
    tessera_testkit::event_order::check_run(&stream.events).unwrap();
    let logs: Vec<&serde_json::Value> = stream.events.iter().filter(|e| is_debug(e)).collect();
    let messages: Vec<&str> = logs
        .iter()
        .map(|e| e["payload"]["message"].as_str().unwrap())
        .collect();
    assert_eq!(
        messages,
        [
            "context assembled",
            "calling the model",
            "the model answered"
        ]
    );
    assert_eq!(logs[1]["payload"]["model"], "m");
    assert!(logs[2]["payload"]["completion_tokens"].is_u64());
    for log in &logs {
        assert_eq!(log["payload"]["level"], "debug");
        assert!(!log.to_string().contains("zebra"), "{log}");
        assert_eq!(
            tessera_protocol::validate(tessera_protocol::DocumentKind::Event, log),
            []
        );
    }

    let mut bad = mcp_message("dbg", "USER_INPUT", json!({"text": "x"}));
    bad["metadata"] = json!({"debug": "yes"});
    api.post("/messages", &bad).await.error(400, "BAD_REQUEST");
}

/// Seed 003 §1.2: `POST /v1/requests` honours the whole request: `model` picks any configured
/// provider's model (by name, whatever the case; an unknown one is an error response naming
/// it), `config` reaches the provider as sent, `system` resources join the system prompt and the
/// earlier resources are the history of a new conversation.
#[tokio::test(flavor = "multi_thread")]
async fn a_request_object_picks_its_model_config_and_resources() {
    let default = ScriptedProvider::start().await.unwrap();
    let other = ScriptedProvider::start().await.unwrap();
    let data = tempfile::tempdir().unwrap();
    let api = Api::start(serve_scripted(data.path(), &default, false));
    let config = json!({"name": "other", "kind": "openai", "base_url": other.openai_base(),
                        "requires_key": false, "default_model": "Resume-Analyst", "proxy": "none"});
    api.post("/providers", &config).await.ok(201);

    other.push(Reply::openai_text("Resume-Analyst", &["85% match."]));
    let request = json!({
        "model": "resume-analyst",
        "root_id": "req_model",
        "resources": [
            {"role": "system", "content": "你是一个招聘助理"},
            {"role": "user", "content": "Here is the CV of Ada."},
            {"role": "assistant", "content": "Noted the CV."},
            {"role": "user", "content": "请根据简历生成岗位匹配度分析"}
        ],
        "config": {"temperature": 0.2, "top_p": 0.9, "max_tokens": 77, "function_call": "none"},
        "metadata": {"request_id": "req_1"}
    });
    let answer = api.post("/requests", &request).await;
    let body = answer.ok(200);
    assert_eq!(body["status"], "success", "{body}");
    assert_eq!(body["outputs"][0]["content"], "85% match.");
    assert!(
        default.calls().is_empty(),
        "the default provider was not asked"
    );
    let sent = &other.calls()[0].body;
    assert_eq!(sent["model"], "Resume-Analyst");
    // As sent: 0.2, not the 0.20000000298023224 a narrower float would make of it.
    assert_eq!(sent["temperature"], json!(0.2), "{sent}");
    assert_eq!(sent["top_p"], json!(0.9), "{sent}");
    assert_eq!(sent["max_tokens"], 77);
    assert!(
        sent.get("tools").is_none(),
        "function_call none offers no tool: {sent}"
    );
    let messages = sent["messages"].to_string();
    assert!(messages.contains("你是一个招聘助理"), "{messages}");
    let cv = messages.find("Here is the CV of Ada.").unwrap();
    let noted = messages.find("Noted the CV.").unwrap();
    let asked = messages.find("请根据简历生成岗位匹配度分析").unwrap();
    assert!(cv < noted && noted < asked, "{messages}");

    // A model no configured provider has: a whole error response naming it.
    let mut unknown = request.clone();
    unknown["model"] = json!("DeepSeek-chat");
    unknown["root_id"] = json!("req_unknown");
    let refused = api.post("/requests", &unknown).await;
    assert_eq!(refused.status, 400);
    assert_eq!(refused.body["status"], "error");
    assert_eq!(refused.body["outputs"], json!([]));
    assert_eq!(refused.body["trace_id"], "req_1");
    assert_eq!(refused.body["error"]["code"], "MODEL_UNAVAILABLE");
    assert!(refused.body["error"]["message"]
        .as_str()
        .unwrap()
        .contains("DeepSeek-chat"));
}
