//! Projects and their folders as knowledge, as a person uses them: `tessera project …`,
//! `tessera knowledge …` and `tessera chat --project` on the command line, and the `/v1`
//! routes of a running `tessera serve` that sees a file saved within seconds. Fixtures are made
//! here: Chinese and English notes, code, a `.env`, a private key, a symlink out of the folder.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::Path;
use std::process::Output;
use std::time::{Duration, Instant};

use serde_json::{json, Value};
use tessera_testkit::scripted::{Reply, ScriptedProvider};

use crate::support::api::Api;
use crate::support::{self, stderr, stdout};

const SECRET_KEY: &str = "sk-proj-zzSECRETzzSECRETzz12345";

/// A person's folder: notes in two languages, code, and what must never be indexed.
fn notes(root: &Path, outside: &Path) {
    std::fs::create_dir_all(root.join("notes")).unwrap();
    std::fs::create_dir_all(root.join("src")).unwrap();
    std::fs::write(
        root.join("notes/续订.md"),
        "# 续订流程\n\n包周期续订的接口是 RenewOrderV2，调用前先查询订单状态。\n\n# Billing\n\nInvoices for the heliotrope account go out on the 3rd.\n",
    )
    .unwrap();
    let mut code = String::new();
    for i in 0..30 {
        code.push_str(&format!("def helper_{i}():\n    return {i}\n\n"));
    }
    code.push_str("def compute_gravitas(x):\n    return x * 9.81\n");
    std::fs::write(root.join("src/physics.py"), code).unwrap();
    std::fs::write(root.join(".env"), format!("OPENAI_API_KEY={SECRET_KEY}\n")).unwrap();
    std::fs::write(
        root.join("server.txt"),
        "-----BEGIN EC PRIVATE KEY-----\nMHcCAQEEIPRIVATEPRIVATE\n-----END EC PRIVATE KEY-----\n",
    )
    .unwrap();
    std::fs::write(outside.join("outside.md"), "the escaped capybara note").unwrap();
    std::os::unix::fs::symlink(outside, root.join("link-out")).unwrap();
}

async fn tessera(data: &Path, args: &[&str]) -> Output {
    support::tessera(data).args(args).output().await.unwrap()
}

#[tokio::test(flavor = "multi_thread")]
async fn the_cli_creates_a_project_indexes_a_folder_and_chats_with_its_files_cited() {
    let data = tempfile::tempdir().unwrap();
    let folder = tempfile::tempdir().unwrap();
    let outside = tempfile::tempdir().unwrap();
    notes(folder.path(), outside.path());
    let root = folder.path().to_str().unwrap();

    let out = tessera(
        data.path(),
        &[
            "project",
            "create",
            "Thesis",
            "--instructions",
            "Answer like a pirate.",
        ],
    )
    .await;
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let out = tessera(data.path(), &["project", "create", "thesis"]).await;
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("already exists"), "{}", stderr(&out));

    let out = tessera(
        data.path(),
        &["knowledge", "add", root, "--project", "Thesis"],
    )
    .await;
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(stdout(&out).contains("nothing pending"), "{}", stdout(&out));
    let out = tessera(
        data.path(),
        &["knowledge", "add", "relative/nope", "--project", "Thesis"],
    )
    .await;
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("relative/nope"), "{}", stderr(&out));

    let out = tessera(
        data.path(),
        &["knowledge", "status", "--project", "Thesis", "--json"],
    )
    .await;
    let status: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(status["indexed_files"], 2, "{status}");
    assert_eq!(status["idle"], true);
    let skipped: Vec<String> = status["skipped"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| {
            format!(
                "{} {}",
                s["path"].as_str().unwrap(),
                s["reason"].as_str().unwrap()
            )
        })
        .collect();
    for (name, reason) in [
        (".env", "secrets file"),
        ("server.txt", "private key"),
        ("link-out", "symbolic link"),
    ] {
        assert!(
            skipped
                .iter()
                .any(|s| s.contains(name) && s.contains(reason)),
            "{name}: {skipped:?}"
        );
    }

    let search = |query: &'static str| {
        let data = data.path().to_owned();
        async move {
            let out = tessera(
                &data,
                &[
                    "knowledge",
                    "search",
                    query,
                    "--project",
                    "Thesis",
                    "--json",
                ],
            )
            .await;
            assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
            serde_json::from_slice::<Value>(&out.stdout).unwrap()
        }
    };
    let found = search("续订").await;
    assert!(found["hits"][0]["path"]
        .as_str()
        .unwrap()
        .ends_with("notes/续订.md"));
    assert_eq!(found["hits"][0]["lines"], json!([1, 3]));
    let found = search("heliotrope invoices").await;
    assert_eq!(found["hits"][0]["lines"], json!([5, 7]));
    let found = search("compute_gravitas").await;
    let lines = &found["hits"][0]["lines"];
    let source = std::fs::read_to_string(folder.path().join("src/physics.py")).unwrap();
    let start = lines[0].as_u64().unwrap() as usize;
    let end = lines[1].as_u64().unwrap() as usize;
    let cited: Vec<&str> = source
        .lines()
        .skip(start - 1)
        .take(end - start + 1)
        .collect();
    assert!(cited.join("\n").contains("def compute_gravitas"), "{lines}");
    for never in ["capybara", "zzSECRETzz", "PRIVATEPRIVATE"] {
        assert_eq!(
            search(never).await["hits"],
            json!([]),
            "{never} was indexed"
        );
    }

    // A chat in the project: the instructions and the passage that answers are in the request.
    let provider = ScriptedProvider::start().await.unwrap();
    provider.push(Reply::openai_text(
        "m",
        &["RenewOrderV2 [", root, "/notes/续订.md:1-3]"],
    ));
    let out = support::chat_against(data.path(), &provider, "sk-test-key-000000")
        .args([
            "--model",
            "m",
            "--project",
            "Thesis",
            "包周期续订用哪个接口？",
        ])
        .env("NO_PROXY", "127.0.0.1")
        .output()
        .await
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let sent = provider.calls()[0].body.to_string();
    assert!(sent.contains("Answer like a pirate."), "{sent}");
    assert!(
        sent.contains("RenewOrderV2"),
        "the passage was not sent: {sent}"
    );
    assert!(
        sent.contains("续订.md:1-3"),
        "the citation was not sent: {sent}"
    );
    for never in [SECRET_KEY, "PRIVATEPRIVATE", "capybara"] {
        assert!(!sent.contains(never), "{never} reached the model");
    }
    let out = tessera(data.path(), &["project", "show", "Thesis", "--json"]).await;
    let shown: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(shown["project"]["conversations"], 1);

    let out = tessera(
        data.path(),
        &["knowledge", "rm", root, "--project", "Thesis"],
    )
    .await;
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(search("续订").await["hits"], json!([]));
    let out = tessera(data.path(), &["project", "rm", "Thesis"]).await;
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(
        stdout(&out).contains("1 conversation(s) are kept"),
        "{}",
        stdout(&out)
    );
}

async fn wait_for(what: &str, mut check: impl AsyncFnMut() -> bool) {
    let deadline = Instant::now() + Duration::from_secs(20);
    while !check().await {
        assert!(Instant::now() < deadline, "timed out waiting for {what}");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn serve_sees_a_saved_file_within_seconds_and_keeps_conversations_of_a_removed_project() {
    let data = tempfile::tempdir().unwrap();
    let folder = tempfile::tempdir().unwrap();
    let outside = tempfile::tempdir().unwrap();
    notes(folder.path(), outside.path());
    {
        let store = tessera_store::Store::open(data.path()).unwrap();
        support::seed_conversation(&store, "conv-in-lab", "Lab talk", &["hello"]);
    }
    let mut cmd = support::tessera_std(data.path());
    cmd.args(["serve", "--port", "0"]);
    let api = Api::start(cmd);

    let made = api
        .post(
            "/projects",
            &json!({"name": "Lab", "instructions": "Be brief."}),
        )
        .await;
    let project = made.ok(201).clone();
    assert_eq!(project["name"], "Lab");
    let bad = api.post("/projects", &json!({"name": "  "})).await;
    bad.error(400, "INVALID_PROJECT");
    let bad = api
        .post("/projects", &json!({"name": "x", "colour": "red"}))
        .await;
    assert!(bad.error(400, "BAD_REQUEST").contains("colour"));
    let missing = api
        .post(
            "/projects/Lab/knowledge",
            &json!({"path": "/no/such/folder"}),
        )
        .await;
    missing.error(400, "INVALID_KNOWLEDGE_SOURCE");

    let added = api
        .post("/projects/Lab/knowledge", &json!({"path": folder.path()}))
        .await;
    assert_eq!(added.ok(202)["queued"], true);
    wait_for("the first scan", async || {
        api.get("/projects/Lab/knowledge").await.ok(200)["idle"] == true
    })
    .await;
    let found = api.get("/projects/Lab/knowledge/search?q=heliotrope").await;
    assert_eq!(found.ok(200)["hits"][0]["lines"], json!([5, 7]));

    // Saved while the server runs: found within seconds, the old words gone.
    let note = folder.path().join("notes/live.md");
    std::fs::write(&note, "The pangolin review is on Thursday.\n").unwrap();
    wait_for("a new file", async || {
        api.get("/projects/Lab/knowledge/search?q=pangolin")
            .await
            .ok(200)["hits"]
            .as_array()
            .is_some_and(|h| !h.is_empty())
    })
    .await;
    std::fs::write(&note, "The armadillo review is on Friday.\n").unwrap();
    wait_for("an edit", async || {
        let gone = api
            .get("/projects/Lab/knowledge/search?q=pangolin")
            .await
            .ok(200)["hits"]
            == json!([]);
        let there = api
            .get("/projects/Lab/knowledge/search?q=armadillo")
            .await
            .ok(200)["hits"]
            .as_array()
            .is_some_and(|h| !h.is_empty());
        gone && there
    })
    .await;

    // A conversation moved in, then the project removed: the conversation stays.
    let conversation = "conv-in-lab";
    let moved = api
        .put(
            &format!("/conversations/{conversation}/project"),
            &json!({"project": "Lab"}),
        )
        .await;
    assert_eq!(moved.ok(200)["project"], "Lab");
    let listed = api.get("/projects").await;
    assert_eq!(listed.ok(200)["projects"][0]["conversations"], 1);
    api.delete("/projects/Lab").await.ok(200);
    let still = api.get(&format!("/conversations/{conversation}")).await;
    assert_eq!(still.ok(200)["conversation"]["project_id"], Value::Null);
}

/// One turn of `message` read to its end; the body of the model call it made last.
async fn turn(api: &Api, provider: &ScriptedProvider, message: &Value) -> String {
    let mut stream = api.open_sse("/messages", Some(message)).await;
    to_done(&mut stream).await;
    provider.calls().last().unwrap().body.to_string()
}

/// Reads `stream` to the run's end (`done`).
async fn to_done(stream: &mut crate::support::api::SseReader) {
    stream.until(|e| e["type"] == "done").await;
}

#[tokio::test(flavor = "multi_thread")]
async fn a_memory_kept_everywhere_after_consent_is_in_the_next_conversation_until_forgotten() {
    use crate::support::api::user_input_message;
    let provider = ScriptedProvider::start().await.unwrap();
    let data = tempfile::tempdir().unwrap();
    let api = Api::start(support::serve_scripted(data.path(), &provider, false));

    // Kept for this conversation only: no question asked, and no other conversation sees it.
    provider.push(Reply::openai_tool_calls(
        "m",
        &[(
            "call_0",
            "save_memory",
            &[r#"{"content": "Today the person works on slides"}"#],
        )],
    ));
    provider.push(Reply::openai_text("m", &["Noted."]));
    let mut stream = api
        .open_sse(
            "/messages",
            Some(&user_input_message("ctx_here", "note it")),
        )
        .await;
    to_done(&mut stream).await;
    assert!(!stream.events.iter().any(|e| e["type"] == "consent_request"));

    // Everywhere: the person is asked first, with the scope in the arguments shown.
    provider.push(Reply::openai_tool_calls(
        "m",
        &[(
            "call_1",
            "save_memory",
            &[r#"{"content": "The person's cat is named Biscuit", "scope": "everywhere", "key": "cat"}"#],
        )],
    ));
    provider.push(Reply::openai_text("m", &["I will remember."]));
    let mut stream = api
        .open_sse(
            "/messages",
            Some(&user_input_message("ctx_a", "Remember my cat Biscuit")),
        )
        .await;
    let asked = stream
        .until(|e| e["type"] == "consent_request")
        .await
        .expect("saving everywhere asks the person");
    assert_eq!(asked["payload"]["tool"], "save_memory", "{asked}");
    assert_eq!(
        asked["payload"]["arguments"]["scope"], "everywhere",
        "{asked}"
    );
    let memories = api.get("/memories?scope=everywhere").await;
    assert_eq!(
        memories.ok(200)["memories"],
        json!([]),
        "nothing kept before consent"
    );
    let id = asked["payload"]["consent_id"].as_str().unwrap();
    api.post(
        &format!("/interactions/{id}"),
        &json!({"decision": "allow_once"}),
    )
    .await
    .ok(200);
    wait_for("the memory to be kept", async || {
        api.get("/memories?scope=everywhere").await.ok(200)["memories"]
            .as_array()
            .is_some_and(|m| m.len() == 1)
    })
    .await;
    let listed = api.get("/memories?scope=everywhere").await;
    let memory = listed.ok(200)["memories"][0].clone();
    assert_eq!(memory["source_conversation_id"], "ctx_a");
    assert!(memory["source_message_id"].is_string(), "{memory}");
    let all = api.get("/memories?q=slides").await;
    assert_eq!(all.ok(200)["memories"][0]["scope"], "conversation");

    // The next conversation's prompt carries it; the first conversation's own memory stays there.
    provider.push(Reply::openai_text("m", &["Biscuit."]));
    let sent = turn(
        &api,
        &provider,
        &user_input_message("ctx_b", "What is my cat called?"),
    )
    .await;
    assert!(sent.contains("The person's cat is named Biscuit"), "{sent}");
    assert!(
        !sent.contains("slides"),
        "a conversation's memory leaked: {sent}"
    );

    // Forgotten: gone from the next prompt.
    let id = memory["id"].as_str().unwrap();
    api.delete(&format!("/memories/{id}")).await.ok(200);
    api.delete(&format!("/memories/{id}"))
        .await
        .error(404, "NOT_FOUND");
    provider.push(Reply::openai_text("m", &["I do not know."]));
    let sent = turn(
        &api,
        &provider,
        &user_input_message("ctx_c", "What is my cat called?"),
    )
    .await;
    assert!(!sent.contains("Biscuit"), "{sent}");

    // On the command line, once the server has let the folder go.
    drop(api);
    let out = tessera(data.path(), &["memory", "list", "--json"]).await;
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let listed: Value = serde_json::from_slice(&out.stdout).unwrap();
    let memories = listed["memories"].as_array().unwrap();
    assert_eq!(memories.len(), 1, "{listed}");
    let id = memories[0]["id"].as_str().unwrap().to_owned();
    let out = tessera(data.path(), &["memory", "forget", &id]).await;
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(stdout(&out).contains("slides"));
    let out = tessera(data.path(), &["memory", "forget", &id]).await;
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    let out = tessera(data.path(), &["memory", "list"]).await;
    assert_eq!(stdout(&out).trim(), "no memory");
}

#[tokio::test(flavor = "multi_thread")]
async fn with_an_embedding_model_search_is_hybrid_and_the_vectors_come_from_its_wire() {
    let provider = ScriptedProvider::start().await.unwrap();
    let data = tempfile::tempdir().unwrap();
    let folder = tempfile::tempdir().unwrap();
    let outside = tempfile::tempdir().unwrap();
    notes(folder.path(), outside.path());
    let api = Api::start(support::serve_scripted(data.path(), &provider, false));

    let refused = api
        .put(
            "/settings/knowledge_embedding",
            &json!({"value": {"provider": "nobody-knows", "model": "e"}}),
        )
        .await;
    refused.error(400, "INVALID_VALUE");
    api.put(
        "/settings/knowledge_embedding",
        &json!({"value": {"provider": "local", "model": "embed-small"}}),
    )
    .await
    .ok(200);
    api.post("/projects", &json!({"name": "Vec"})).await.ok(201);
    api.post("/projects/Vec/knowledge", &json!({"path": folder.path()}))
        .await
        .ok(202);
    wait_for("scan and embedding", async || {
        let status = api.get("/projects/Vec/knowledge").await;
        let status = status.ok(200);
        status["idle"] == true && status["embedded_chunks"] == status["chunks"]
    })
    .await;
    let status = api.get("/projects/Vec/knowledge").await;
    let status = status.ok(200).clone();
    assert_eq!(status["retrieval"], "hybrid", "{status}");
    assert_eq!(status["embedding_model"], "local/embed-small");
    let embedded = provider
        .requests()
        .iter()
        .filter(|r| r.path.ends_with("/embeddings"))
        .count();
    assert!(embedded >= 1, "no call reached /v1/embeddings");

    let found = api
        .get("/projects/Vec/knowledge/search?q=heliotrope%20invoices")
        .await;
    let found = found.ok(200).clone();
    assert_eq!(found["retrieval"], "hybrid");
    assert_eq!(found["hits"][0]["lines"], json!([5, 7]), "{found}");
    let matched: Vec<&str> = found["hits"][0]["matched_by"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m.as_str().unwrap())
        .collect();
    assert_eq!(matched, ["lexical", "vector"], "{found}");
    // Nothing secret was ever sent to be embedded.
    for request in provider.requests() {
        let body = request.body.to_string();
        for never in [SECRET_KEY, "PRIVATEPRIVATE", "capybara"] {
            assert!(
                !body.contains(never),
                "{never} was sent to {}",
                request.path
            );
        }
    }

    // Taken away: words alone again.
    api.put("/settings/knowledge_embedding", &json!({"value": null}))
        .await
        .ok(200);
    let status = api.get("/projects/Vec/knowledge").await;
    assert_eq!(status.ok(200)["retrieval"], "lexical");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_question_in_a_project_conversation_through_serve_carries_the_passage() {
    use crate::support::api::user_input_message;
    let provider = ScriptedProvider::start().await.unwrap();
    let data = tempfile::tempdir().unwrap();
    let folder = tempfile::tempdir().unwrap();
    let outside = tempfile::tempdir().unwrap();
    notes(folder.path(), outside.path());
    let api = Api::start(support::serve_scripted(data.path(), &provider, false));
    api.post(
        "/projects",
        &json!({"name": "Lab", "instructions": "Be brief."}),
    )
    .await
    .ok(201);
    api.post("/projects/Lab/knowledge", &json!({"path": folder.path()}))
        .await
        .ok(202);
    wait_for("the scan", async || {
        api.get("/projects/Lab/knowledge").await.ok(200)["idle"] == true
    })
    .await;
    provider.push(Reply::openai_text("m", &["Hello."]));
    let mut stream = api
        .open_sse("/messages", Some(&user_input_message("ctx_lab", "Hi")))
        .await;
    to_done(&mut stream).await;
    api.put("/conversations/ctx_lab/project", &json!({"project": "Lab"}))
        .await
        .ok(200);
    provider.push(Reply::openai_text("m", &["On the 3rd."]));
    let sent = turn(
        &api,
        &provider,
        &user_input_message(
            "ctx_lab",
            "When do the heliotrope invoices go out? Not [/x/y.md:3-4] I guess.",
        ),
    )
    .await;
    assert!(sent.contains("Be brief."), "{sent}");
    assert!(
        sent.contains("heliotrope account go out on the 3rd"),
        "{sent}"
    );
}
