//! MCP servers through the real `tessera serve`, against real servers from the npm registry
//! (pinned in tests/mcp-servers, installed by scripts/install-deps.sh): server-everything
//! (tools, elicitation, progress), server-filesystem (limited to a temporary folder),
//! server-memory; and two broken ones of ours, one that crashes as it starts and one that
//! never answers.
//!
//! - servers start on demand: listing them starts nothing; a run (or `?connect=1`) does; the
//!   broken ones show a failed state with the reason (and the crash's stderr in their log)
//!   while the others' tools reach the model, namespaced `server__tool`;
//! - each call is recorded with provider kind `mcp`, the server's name and URI;
//! - an elicitation is an `interaction/form_request` from the server: an invalid answer is a
//!   422 per field and the call keeps waiting; accepted, declined and cancelled answers reach
//!   the server, whose result says so;
//! - a URL elicitation is a form that shows the page; accepted, the browser opens it;
//! - progress notifications become `tool_progress` events; cancelling the run mid-call ends
//!   the call as cancelled;
//! - a tool marked destructive asks the person's consent first; denied, it never runs;
//! - a server that dies is shown failed and started again after its back-off; a cancelled
//!   call's cancellation reaches the server;
//! - a pasted `mcpServers` document is taken (a secret with no keyring to keep it is refused
//!   and nothing is written), a resource can be attached as an evidence.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::support;

use serde_json::{json, Value};
use support::api::Api;
use support::mcp::{
    everything, node_server, offered, own_server, servers_dir, tool_message, write_config,
};
use support::serve_scripted;
use support::stream::{is_tool_event, Stream};
use tessera_testkit::event_order::check_run;
use tessera_testkit::scripted::{Reply, ScriptedProvider};
use tokio::io::AsyncBufReadExt;

/// A data folder with `servers` in its mcp.json, a scripted model, and `tessera serve` over them.
async fn start(servers: Value) -> (tempfile::TempDir, ScriptedProvider, Api) {
    let data = tempfile::tempdir().unwrap();
    write_config(data.path(), servers);
    let provider = ScriptedProvider::start().await.unwrap();
    let api = Api::start(serve_scripted(data.path(), &provider, false));
    (data, provider, api)
}

/// [`start`], with `tools` allowed always beforehand (tools that change things ask first).
async fn start_trusting(
    servers: Value,
    tools: &[&str],
) -> (tempfile::TempDir, ScriptedProvider, Api) {
    let data = tempfile::tempdir().unwrap();
    write_config(data.path(), servers);
    grant_always(data.path(), tools);
    let provider = ScriptedProvider::start().await.unwrap();
    let api = Api::start(serve_scripted(data.path(), &provider, false));
    (data, provider, api)
}

fn grant_always(data: &std::path::Path, tools: &[&str]) {
    let store = tessera_store::Store::open(data).unwrap();
    for tool in tools {
        store
            .grant_consent(tool, tessera_store::ConsentScope::Always, None)
            .unwrap();
    }
}

/// The first object in `value` (at any depth) for which `pred` holds.
fn find<'a>(value: &'a Value, pred: &dyn Fn(&Value) -> bool) -> Option<&'a Value> {
    if pred(value) {
        return Some(value);
    }
    match value {
        Value::Array(items) => items.iter().find_map(|v| find(v, pred)),
        Value::Object(map) => map.values().find_map(|v| find(v, pred)),
        _ => None,
    }
}

fn status<'a>(servers: &'a Value, name: &str) -> &'a Value {
    servers["servers"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["name"] == name)
        .map(|s| &s["status"])
        .unwrap_or_else(|| panic!("no server {name} in {servers}"))
}

#[tokio::test(flavor = "multi_thread")]
async fn servers_start_on_demand_and_a_broken_one_hides_no_other_tools() {
    let data = tempfile::tempdir().unwrap();
    let files = tempfile::tempdir().unwrap();
    std::fs::write(files.path().join("notes.txt"), "the MCP notes").unwrap();
    write_config(
        data.path(),
        json!({
            "everything": everything(),
            "files": node_server("server-filesystem", "dist/index.js", &[files.path().to_str().unwrap()]),
            "memory": node_server("server-memory", "dist/index.js", &[]),
            "crash": own_server("crash.mjs"),
            // Given 3 s to start, so that the suite does not wait the default 10 s.
            "hang": {"command": "node", "args": [servers_dir().join("hang.mjs")], "startupTimeout": 3},
        }),
    );
    let provider = ScriptedProvider::start().await.unwrap();
    // Creating entities changes the memory server's graph: allowed beforehand.
    grant_always(data.path(), &["memory__create_entities"]);
    let api = Api::start(serve_scripted(data.path(), &provider, false));

    // Looking starts nothing.
    let listed = api.get("/mcp/servers").await;
    assert_eq!(status(listed.ok(200), "everything")["state"], "idle");

    provider.push(Reply::openai_tool_calls(
        "m",
        &[
            ("c_list", "files__list_directory", &[&json!({"path": files.path()}).to_string()]),
            ("c_echo", "everything__echo", &[r#"{"message": "hello over MCP"}"#]),
            ("c_mem", "memory__create_entities", &[r#"{"entities": [{"name": "Ada", "entityType": "person", "observations": ["wrote the first program"]}]}"#]),
        ],
    ));
    provider.push(Reply::openai_text("m", &["Done."]));
    let mut stream = Stream::post(&api.server, "ctx_mcp", "use the servers").await;
    stream.read_to_done().await;
    check_run(&stream.data()).unwrap();

    let tools = offered(&provider, 0);
    for name in [
        "everything__echo",
        "files__list_directory",
        "memory__create_entities",
    ] {
        assert!(tools.contains(&name.to_owned()), "{name} in {tools:?}");
    }
    assert!(!tools
        .iter()
        .any(|t| t.starts_with("crash__") || t.starts_with("hang__")));
    assert!(tool_message(&provider, 1, "c_list").contains("notes.txt"));
    assert!(tool_message(&provider, 1, "c_echo").contains("hello over MCP"));
    assert_eq!(stream.tool_result("c_mem")["status"], "success");
    let call = stream
        .events
        .iter()
        .find(|e| is_tool_event(&e.2, "tool_call", "c_echo"))
        .unwrap();
    assert_eq!(call.2["payload"]["provider"], "everything");

    // The context database records the call as an MCP server's.
    let export = api.get("/conversations/ctx_mcp/export").await;
    let echo = find(export.ok(200), &|v| {
        v["tool_call_id"] == "c_echo" && v.get("provider").is_some()
    })
    .unwrap_or_else(|| panic!("no record of c_echo in {}", export.text));
    assert_eq!(echo["provider"]["kind"], "mcp");
    assert_eq!(echo["provider"]["name"], "everything");
    assert!(echo["provider"]["uri"]
        .as_str()
        .unwrap()
        .starts_with("stdio:node "));

    // The broken servers show why; their stderr is in their log.
    let servers = api.get("/mcp/servers").await;
    let servers = servers.ok(200);
    assert_eq!(status(servers, "everything")["state"], "ready");
    assert_eq!(status(servers, "crash")["state"], "failed");
    assert_eq!(status(servers, "hang")["state"], "failed");
    assert!(
        status(servers, "hang")["reason"]
            .as_str()
            .unwrap()
            .contains("within 3 s"),
        "{servers}"
    );
    let log = api.get("/mcp/servers/crash/log").await;
    assert!(
        log.ok(200)["lines"]
            .to_string()
            .contains("cannot find the configuration"),
        "{}",
        log.text
    );
    let log = api.get("/mcp/servers/nobody/log").await;
    log.error(404, "NOT_FOUND");
}

/// Runs `everything__trigger-elicitation-request` and answers its form with `answer`; the
/// text of the call's result as the model got it.
async fn elicit(api: &Api, provider: &ScriptedProvider, context: &str, answer: Value) -> String {
    let before = provider.calls().len();
    provider.push(Reply::openai_tool_calls(
        "m",
        &[("c_ask", "everything__trigger-elicitation-request", &["{}"])],
    ));
    provider.push(Reply::openai_text("m", &["Thanks."]));
    let mut stream = Stream::post(&api.server, context, "ask me").await;
    stream.until(|e| e["type"] == "form_request").await;
    let form = stream.data().last().unwrap()["payload"].clone();
    assert_eq!(form["requester"]["kind"], "mcp_server");
    assert_eq!(form["requester"]["name"], "everything");
    assert!(form["schema"]["properties"]["email"].is_object());
    let form_id = form["form_id"].as_str().unwrap().to_owned();
    if answer["action"] == "accept" {
        // A wrong answer first: one error per field, and the call still waits.
        let wrong = api
            .post(
                &format!("/interactions/{form_id}"),
                &json!({"action": "accept", "values": {"email": "not an address", "integer": 500}}),
            )
            .await;
        assert_eq!(wrong.status, 422, "{}", wrong.text);
        let fields = wrong.text.clone();
        for field in ["name", "email", "integer"] {
            assert!(fields.contains(field), "{field} in {fields}");
        }
    }
    let answered = api.post(&format!("/interactions/{form_id}"), &answer).await;
    answered.ok(200);
    stream.read_to_done().await;
    check_run(&stream.data()).unwrap();
    assert_eq!(stream.tool_result("c_ask")["status"], "success");
    tool_message(provider, before + 1, "c_ask")
}

#[tokio::test(flavor = "multi_thread")]
async fn an_elicitation_is_a_form_whose_answer_reaches_the_server() {
    let (_data, provider, api) = start_trusting(
        json!({ "everything": everything() }),
        &["everything__trigger-elicitation-request"],
    )
    .await;
    // Started first, so that its tools that need the elicitation capability are listed.
    let started = api.get("/mcp/servers?connect=1").await;
    assert_eq!(status(started.ok(200), "everything")["state"], "ready");

    let accepted = elicit(
        &api,
        &provider,
        "ctx_accept",
        json!({"action": "accept", "values": {"name": "Ada Lovelace", "email": "ada@example.com"}}),
    )
    .await;
    assert!(
        accepted.contains("User provided the requested information"),
        "{accepted}"
    );
    assert!(accepted.contains("Name: Ada Lovelace"), "{accepted}");

    let declined = elicit(&api, &provider, "ctx_decline", json!({"action": "decline"})).await;
    assert!(declined.contains("declined"), "{declined}");

    let cancelled = elicit(&api, &provider, "ctx_cancel", json!({"action": "cancel"})).await;
    assert!(cancelled.contains("cancelled"), "{cancelled}");

    // The run cancelled while the form waits: the form is withdrawn, nothing is left pending.
    provider.push(Reply::openai_tool_calls(
        "m",
        &[("c_gone", "everything__trigger-elicitation-request", &["{}"])],
    ));
    let mut stream = Stream::post(&api.server, "ctx_gone", "ask me").await;
    stream.until(|e| e["type"] == "form_request").await;
    let form_id = stream.data().last().unwrap()["payload"]["form_id"].clone();
    let run_id = stream.run_id.clone().unwrap();
    api.post(&format!("/runs/{run_id}/cancel"), &json!({}))
        .await
        .ok(200);
    stream.read_to_done().await;
    check_run(&stream.data()).unwrap();
    assert_eq!(stream.tool_result("c_gone")["status"], "cancelled");
    let withdrawn =
        stream.position(|e| e["type"] == "form_cancel" && e["payload"]["form_id"] == form_id);
    let pending = api.get("/interactions?conversation_id=ctx_gone").await;
    assert!(
        withdrawn.is_some(),
        "the form was withdrawn: {:?} pending: {}",
        stream
            .data()
            .iter()
            .map(|e| e["type"].clone())
            .collect::<Vec<_>>(),
        pending.text
    );
    let pending = api.get("/interactions?conversation_id=ctx_gone").await;
    assert!(
        !pending.text.contains(form_id.as_str().unwrap()),
        "{}",
        pending.text
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn progress_is_shown_and_a_cancelled_run_cancels_the_call() {
    let (_data, provider, api) = start(json!({ "everything": everything() })).await;

    provider.push(Reply::openai_tool_calls(
        "m",
        &[(
            "c_long",
            "everything__trigger-long-running-operation",
            &[r#"{"duration": 1, "steps": 2}"#],
        )],
    ));
    provider.push(Reply::openai_text("m", &["Finished."]));
    let mut stream = Stream::post(&api.server, "ctx_progress", "go").await;
    stream.read_to_done().await;
    check_run(&stream.data()).unwrap();
    let progress: Vec<Value> = stream
        .data()
        .into_iter()
        .filter(|e| is_tool_event(e, "tool_progress", "c_long"))
        .map(|e| e["payload"].clone())
        .collect();
    // The last step's notification may cross the result (the result then says it all).
    assert!(!progress.is_empty(), "no progress shown");
    assert_eq!(progress[0]["progress"].as_f64(), Some(1.0));
    assert!(
        progress.iter().all(|p| p["total"].as_f64() == Some(2.0)),
        "{progress:?}"
    );

    // A long call, cancelled after its first step.
    provider.push(Reply::openai_tool_calls(
        "m",
        &[(
            "c_slow",
            "everything__trigger-long-running-operation",
            &[r#"{"duration": 600, "steps": 600}"#],
        )],
    ));
    let mut stream = Stream::post(&api.server, "ctx_cancel_call", "go slowly").await;
    stream
        .until(|e| is_tool_event(e, "tool_progress", "c_slow"))
        .await;
    let run_id = stream.run_id.clone().unwrap();
    api.post(&format!("/runs/{run_id}/cancel"), &json!({}))
        .await
        .ok(200);
    stream.read_to_done().await;
    check_run(&stream.data()).unwrap();
    assert_eq!(stream.tool_result("c_slow")["status"], "cancelled");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_pasted_config_is_taken_and_a_resource_becomes_an_evidence() {
    let data = tempfile::tempdir().unwrap();
    let provider = ScriptedProvider::start().await.unwrap();
    let api = Api::start(serve_scripted(data.path(), &provider, false));

    let refused = api
        .post(
            "/mcp/import",
            &json!({"mcpServers": {"bad name": {"command": "x"}}}),
        )
        .await;
    assert!(refused
        .error(422, "INVALID_MCP_CONFIG")
        .contains("bad name"));

    let taken = api
        .post(
            "/mcp/import",
            &json!({"mcpServers": {"everything": everything()}}),
        )
        .await;
    assert_eq!(taken.ok(200)["added"], json!(["everything"]));
    let file = std::fs::read_to_string(data.path().join("mcp.json")).unwrap();
    assert!(file.contains("server-everything"), "{file}");

    let resources = api.get("/mcp/servers/everything/resources").await;
    let resources = resources.ok(200)["resources"].as_array().unwrap().clone();
    let uri = resources
        .iter()
        .filter_map(|r| r["uri"].as_str())
        .find(|u| u.ends_with(".md"))
        .unwrap_or_else(|| panic!("a Markdown resource in {resources:?}"))
        .to_owned();
    let prompts = api.get("/mcp/servers/everything/prompts").await;
    assert!(!prompts.ok(200)["prompts"].as_array().unwrap().is_empty());

    provider.push(Reply::openai_text("m", &["Hello."]));
    Stream::post(&api.server, "ctx_res", "hello")
        .await
        .read_to_done()
        .await;
    let attached = api
        .post(
            "/conversations/ctx_res/mcp-resources",
            &json!({"server": "everything", "uri": uri}),
        )
        .await;
    let evidence = attached.ok(201).clone();
    assert_eq!(evidence["source"]["name"], "everything");
    assert_eq!(evidence["source"]["uri"], uri);
    let export = api.get("/conversations/ctx_res/export").await;
    assert!(export.ok(200)["evidences"].to_string().contains(&uri));
}

/// Polls the server list until `pred` holds for server `name`'s entry.
async fn wait_for_server(api: &Api, name: &str, pred: impl Fn(&Value) -> bool) -> Value {
    let mut last = Value::Null;
    for _ in 0..200 {
        let listed = api.get("/mcp/servers").await;
        let entry = listed.ok(200)["servers"]
            .as_array()
            .unwrap()
            .iter()
            .find(|s| s["name"] == name)
            .cloned()
            .unwrap();
        if pred(&entry) {
            return entry;
        }
        last = entry;
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    panic!("server {name} never reached the awaited state: {last}");
}

/// Polls server `name`'s log until a line contains `text`.
async fn wait_for_log(api: &Api, name: &str, text: &str) {
    for _ in 0..200 {
        let log = api.get(&format!("/mcp/servers/{name}/log")).await;
        if log.ok(200)["lines"].to_string().contains(text) {
            return;
        }
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    panic!("`{text}` never reached the log of {name}");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_server_that_dies_starts_again_and_a_cancel_reaches_the_server() {
    let (_data, provider, api) = start_trusting(
        json!({ "flaky": own_server("flaky.mjs") }),
        &["flaky__exit_now"],
    )
    .await;

    provider.push(Reply::openai_tool_calls(
        "m",
        &[("c_exit", "flaky__exit_now", &["{}"])],
    ));
    provider.push(Reply::openai_text("m", &["It stopped."]));
    let mut stream = Stream::post(&api.server, "ctx_flaky", "stop it").await;
    stream.read_to_done().await;
    assert_eq!(stream.tool_result("c_exit")["status"], "success");

    let failed = wait_for_server(&api, "flaky", |s| s["status"]["state"] == "failed").await;
    assert!(
        failed["status"]["reason"]
            .as_str()
            .unwrap()
            .contains("stopped"),
        "{failed}"
    );
    wait_for_log(&api, "flaky", "failed: the server stopped").await;
    // Once its back-off has passed, the next run starts it again.
    wait_for_server(&api, "flaky", |s| s["status"]["retry_in_ms"] == 0).await;

    provider.push(Reply::openai_tool_calls(
        "m",
        &[("c_wait", "flaky__wait", &["{}"])],
    ));
    let mut stream = Stream::post(&api.server, "ctx_flaky", "wait").await;
    stream
        .until(|e| is_tool_event(e, "tool_started", "c_wait"))
        .await;
    wait_for_log(&api, "flaky", "wait: started").await;
    let run_id = stream.run_id.clone().unwrap();
    api.post(&format!("/runs/{run_id}/cancel"), &json!({}))
        .await
        .ok(200);
    stream.read_to_done().await;
    check_run(&stream.data()).unwrap();
    let waited = stream.tool_result("c_wait");
    assert_eq!(waited["status"], "cancelled", "{waited}");
    wait_for_log(&api, "flaky", "wait: cancelled by the client").await;
}

#[tokio::test(flavor = "multi_thread")]
async fn a_destructive_tool_asks_consent_and_a_denial_keeps_it_from_running() {
    let (_data, provider, api) = start(json!({ "flaky": own_server("flaky.mjs") })).await;

    let (consent, resumed) = call_and_deny(
        &api,
        &provider,
        "ctx_consent",
        "c_forget",
        "flaky__forget_all",
    )
    .await;
    assert_eq!(consent["tool"], "flaky__forget_all");
    assert_eq!(resumed.tool_result("c_forget")["status"], "denied");
    let log = api.get("/mcp/servers/flaky/log").await;
    assert!(
        !log.ok(200)["lines"].to_string().contains("forget_all: ran"),
        "{}",
        log.text
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn a_tool_that_changes_things_without_destroying_asks_first_too() {
    let (_data, provider, api) = start(json!({ "flaky": own_server("flaky.mjs") })).await;
    let listed = api.get("/mcp/servers?connect=1").await;
    let servers = listed.ok(200)["servers"].clone();
    let exit = find(&servers, &|t| t["name"] == "flaky__exit_now").unwrap();
    assert_eq!(exit["safety"], "side_effecting", "{servers}");

    // `destructiveHint: false` still changes something (here: ends the server); the person is
    // asked, and denied, it never runs.
    let (consent, resumed) =
        call_and_deny(&api, &provider, "ctx_side", "c_exit", "flaky__exit_now").await;
    assert_eq!(consent["tool"], "flaky__exit_now");
    assert_eq!(resumed.tool_result("c_exit")["status"], "denied");
    let still = api.get("/mcp/servers").await;
    let entry = status(still.ok(200), "flaky").clone();
    assert_eq!(entry["state"], "ready", "{entry}");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_whole_command_line_typed_as_the_command_is_split_and_starts() {
    let (_data, _provider, api) = start(json!({})).await;
    let script = servers_dir().join("flaky.mjs");
    let typed = format!("  node \"{}\" ", script.display());
    let put = api
        .put(
            "/mcp/servers/typed",
            &json!({"command": typed, "args": ["--from-args"]}),
        )
        .await;
    let view = put.ok(200);
    assert_eq!(view["config"]["command"], "node", "{view}");
    assert_eq!(
        view["config"]["args"],
        json!([script.to_string_lossy(), "--from-args"]),
        "{view}"
    );
    let listed = api.get("/mcp/servers?connect=1").await;
    let entry = status(listed.ok(200), "typed").clone();
    assert_eq!(entry["state"], "ready", "{entry}");

    // A quote left open cannot be split: said, and where the arguments go.
    let refused = api
        .put(
            "/mcp/servers/open",
            &json!({"command": "npx -y \"@scope/server"}),
        )
        .await;
    assert_eq!(refused.status, 422, "{}", refused.text);
    assert!(
        refused.text.contains("mcpServers.open.command"),
        "{}",
        refused.text
    );
    assert!(
        refused.text.contains("each argument on its own line"),
        "{}",
        refused.text
    );
}

/// The model calls `tool`; the person denies the consent request; the run goes to its end.
/// Returns the request and the resumed stream.
async fn call_and_deny(
    api: &Api,
    provider: &ScriptedProvider,
    conversation: &str,
    call_id: &str,
    tool: &str,
) -> (Value, Stream) {
    provider.push(Reply::openai_tool_calls("m", &[(call_id, tool, &["{}"])]));
    provider.push(Reply::openai_text("m", &["Left alone."]));
    let mut stream = Stream::post(&api.server, conversation, "do it").await;
    stream.until(|e| e["type"] == "consent_request").await;
    let consent = stream.data().last().unwrap()["payload"].clone();
    let consent_id = consent["consent_id"].as_str().unwrap().to_owned();
    api.post(
        &format!("/interactions/{consent_id}"),
        &json!({"decision": "deny"}),
    )
    .await
    .ok(200);
    let mut resumed =
        Stream::follow(&api.server, conversation, stream.events.last().unwrap().0).await;
    resumed.read_to_done().await;
    (consent, resumed)
}

#[tokio::test(flavor = "multi_thread")]
async fn a_tool_claiming_nothing_and_every_tool_of_a_doubted_server_ask_first() {
    let mut doubted = own_server("flaky.mjs");
    doubted["alwaysAsk"] = json!(true);
    let (_data, provider, api) = start(json!({
        "flaky": own_server("flaky.mjs"),
        "doubted": doubted,
    }))
    .await;
    let listed = api.get("/mcp/servers?connect=1").await;
    let servers = listed.ok(200)["servers"].clone();
    let flaky = servers
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["name"] == "flaky")
        .unwrap();
    let unclaimed = find(&flaky["tools"], &|t| t["name"] == "flaky__unclaimed").unwrap();
    // Treated as the MCP spec's default (destructive), shown as claiming nothing.
    assert_eq!(unclaimed["safety"], "unannotated", "{flaky}");
    assert_eq!(flaky["always_ask"], false);
    let doubted = servers
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["name"] == "doubted")
        .unwrap();
    assert_eq!(doubted["always_ask"], true, "{doubted}");

    // No annotations: the person is asked; denied, it never runs.
    let (consent, _) = call_and_deny(
        &api,
        &provider,
        "ctx_claims",
        "c_unclaimed",
        "flaky__unclaimed",
    )
    .await;
    assert_eq!(consent["tool"], "flaky__unclaimed");
    let log = api.get("/mcp/servers/flaky/log").await;
    assert!(
        !log.ok(200)["lines"].to_string().contains("unclaimed: ran"),
        "{}",
        log.text
    );

    // A doubted server's tool claiming to be harmless (destructiveHint false) asks too.
    let (consent, _) =
        call_and_deny(&api, &provider, "ctx_claims", "c_exit", "doubted__exit_now").await;
    assert_eq!(consent["tool"], "doubted__exit_now");
    let still = api.get("/mcp/servers").await;
    let entry = status(still.ok(200), "doubted").clone();
    assert_eq!(entry["state"], "ready", "{entry}");
}

/// The tools with an active grant, as the permissions page lists them.
async fn granted_tools(api: &Api) -> Vec<String> {
    let listed = api.get("/grants").await;
    listed.ok(200)["grants"]
        .as_array()
        .unwrap()
        .iter()
        .map(|g| g["tool"].as_str().unwrap().to_owned())
        .collect()
}

#[tokio::test(flavor = "multi_thread")]
async fn grants_go_with_what_was_granted_and_an_import_asks_before_replacing() {
    let data = tempfile::tempdir().unwrap();
    write_config(
        data.path(),
        json!({ "flaky": own_server("flaky.mjs"), "other": own_server("flaky.mjs") }),
    );
    {
        let store = tessera_store::Store::open(data.path()).unwrap();
        for tool in ["flaky__forget_all", "other__tool"] {
            store
                .grant_consent(tool, tessera_store::ConsentScope::Always, None)
                .unwrap();
        }
    }
    let provider = ScriptedProvider::start().await.unwrap();
    let api = Api::start(serve_scripted(data.path(), &provider, false));
    assert_eq!(granted_tools(&api).await.len(), 2);

    // Settings changed, same program: the grant stays.
    let mut same = own_server("flaky.mjs");
    same["timeout"] = json!(45);
    api.put("/mcp/servers/flaky", &same).await.ok(200);
    assert_eq!(granted_tools(&api).await.len(), 2);

    // Pasted over a server of the same name: refused until confirmed, nothing changed.
    let hostile = json!({"mcpServers": {"flaky": {"command": "node", "args": ["-e", "0"]}}});
    let refused = api.post("/mcp/import", &hostile).await;
    let says = refused.error(409, "MCP_SERVERS_EXIST");
    assert!(says.contains("`flaky`"), "{says}");
    assert_eq!(
        refused.body["content"]["details"]["servers"],
        json!(["flaky"])
    );
    let kept = api.get("/mcp/servers/flaky").await;
    assert!(
        kept.ok(200)["uri"].as_str().unwrap().contains("flaky.mjs"),
        "{}",
        kept.text
    );
    assert_eq!(granted_tools(&api).await.len(), 2);

    // Confirmed: another program under the same name loses the grants of its tools only.
    api.post("/mcp/import?replace=1", &hostile).await.ok(200);
    assert_eq!(granted_tools(&api).await, ["other__tool"]);
    // A removed server's grants go with it: what is added under its name later is new.
    assert_eq!(api.delete("/mcp/servers/other").await.status, 204);
    assert!(granted_tools(&api).await.is_empty());
}

#[tokio::test(flavor = "multi_thread")]
async fn a_removed_server_leaves_no_process_of_its_own_behind() {
    let data = tempfile::tempdir().unwrap();
    let pid_file = data.path().join("helper.pid");
    let mut entry = own_server("flaky.mjs");
    entry["env"] = json!({"HELPER_PID_FILE": pid_file});
    write_config(data.path(), json!({ "flaky": entry }));
    let provider = ScriptedProvider::start().await.unwrap();
    let api = Api::start(serve_scripted(data.path(), &provider, false));
    api.get("/mcp/servers?connect=1").await.ok(200);
    let helper: u32 = std::fs::read_to_string(&pid_file)
        .unwrap()
        .trim()
        .parse()
        .unwrap();
    let alive = |pid: u32| {
        std::fs::read_to_string(format!("/proc/{pid}/stat")).is_ok_and(|s| {
            !s.rsplit(')')
                .next()
                .unwrap_or("")
                .trim_start()
                .starts_with('Z')
        })
    };
    assert!(alive(helper));
    api.delete("/mcp/servers/flaky").await;
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(15);
    while alive(helper) && std::time::Instant::now() < deadline {
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    assert!(!alive(helper), "the server's helper {helper} outlived it");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_url_elicitation_opens_the_page_once_the_person_agrees() {
    let data = tempfile::tempdir().unwrap();
    write_config(data.path(), json!({ "everything": everything() }));
    grant_always(data.path(), &["everything__trigger-url-elicitation"]);
    // The "browser": a script that writes down the page it was asked to open.
    let opened = data.path().join("opened.txt");
    let opener = data.path().join("open-url.sh");
    std::fs::write(
        &opener,
        format!("#!/bin/sh\necho \"$1\" > '{}'\n", opened.display()),
    )
    .unwrap();
    std::fs::set_permissions(&opener, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    let provider = ScriptedProvider::start().await.unwrap();
    let mut cmd = serve_scripted(data.path(), &provider, false);
    cmd.env("TESSERA_OPEN_URL", &opener);
    let api = Api::start(cmd);
    api.get("/mcp/servers?connect=1").await.ok(200);

    let page = "https://example.com/authorize?flow=42";
    provider.push(Reply::openai_tool_calls(
        "m",
        &[(
            "c_url",
            "everything__trigger-url-elicitation",
            &[&json!({"url": page}).to_string()],
        )],
    ));
    provider.push(Reply::openai_text("m", &["Opened."]));
    let mut stream = Stream::post(&api.server, "ctx_url", "sign me in").await;
    stream.until(|e| e["type"] == "form_request").await;
    let form = stream.data().last().unwrap()["payload"].clone();
    assert_eq!(form["url"], page);
    assert_eq!(form["schema"]["properties"]["open"]["type"], "boolean");
    assert!(form["description"].as_str().unwrap().contains(page));
    assert!(!opened.exists(), "nothing opens before the person agrees");
    let form_id = form["form_id"].as_str().unwrap().to_owned();
    api.post(
        &format!("/interactions/{form_id}"),
        &json!({"action": "accept", "values": {}}),
    )
    .await
    .ok(200);
    stream.read_to_done().await;
    assert_eq!(stream.tool_result("c_url")["status"], "success");
    for _ in 0..100 {
        if opened.exists() {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    assert_eq!(std::fs::read_to_string(&opened).unwrap().trim(), page);
}

#[tokio::test(flavor = "multi_thread")]
async fn a_server_over_streamable_http_is_used() {
    let port = support::free_port();
    let script =
        servers_dir().join("node_modules/@modelcontextprotocol/server-everything/dist/index.js");
    let mut server = tokio::process::Command::new("node")
        .arg(script)
        .arg("streamableHttp")
        .env("PORT", port.to_string())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .unwrap();
    // Ready once it says it listens.
    let mut lines = tokio::io::BufReader::new(server.stderr.take().unwrap()).lines();
    while let Some(line) = lines.next_line().await.unwrap() {
        if line.contains("listening on port") {
            break;
        }
    }
    let url = format!("http://127.0.0.1:{port}/mcp");
    let (_data, provider, api) = start(json!({
        "remote": {"type": "http", "url": url, "headers": {"X-Client": "tessera-test"}}
    }))
    .await;

    provider.push(Reply::openai_tool_calls(
        "m",
        &[("c_echo", "remote__echo", &[r#"{"message": "over HTTP"}"#])],
    ));
    provider.push(Reply::openai_text("m", &["Heard."]));
    let mut stream = Stream::post(&api.server, "ctx_http", "echo over http").await;
    stream.read_to_done().await;
    check_run(&stream.data()).unwrap();
    assert!(tool_message(&provider, 1, "c_echo").contains("over HTTP"));
    let listed = api.get("/mcp/servers/remote").await;
    let view = listed.ok(200);
    assert_eq!(view["status"]["state"], "ready");
    assert_eq!(view["uri"], url);
    // Held to here: the server writes to its stderr while it serves.
    drop(lines);
}
