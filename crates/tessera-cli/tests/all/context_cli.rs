//! `tessera context export|import|assemble` against a real data folder, as a script uses them.
#![allow(clippy::unwrap_used, clippy::expect_used)] // a test may panic on what it set up itself

use std::{
    path::{Path, PathBuf},
    process::{Command, Output},
};

use serde_json::Value;

fn vectors() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/vectors/valid/context")
}

fn tessera(data: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_tessera"))
        .arg("--data-dir")
        .arg(data)
        .args(args)
        .output()
        .unwrap()
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// Imports a seed vector and returns the new conversation's id.
fn import(data: &Path, file: &Path) -> String {
    let out = tessera(data, &["context", "import", file.to_str().unwrap()]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}{}",
        stdout(&out),
        stderr(&out)
    );
    let text = stdout(&out);
    let id = text
        .strip_prefix("imported conversation ")
        .and_then(|rest| rest.split(':').next())
        .unwrap_or_else(|| panic!("unexpected output: {text}"));
    id.to_string()
}

/// The seed-004 example with its placeholder selectors made real (the store refuses selectors
/// it cannot apply), written to `dir`.
fn seed_document(dir: &Path) -> PathBuf {
    let text = std::fs::read_to_string(vectors().join("004-2-context--answer.json")).unwrap();
    let mut doc: Value = serde_json::from_str(&text).unwrap();
    doc["context_blocks"][0]["refs"][0]["selector"] = Value::from("chars:0-5");
    doc["session"]["messages"][2]["refs"][0]["selector"] = Value::from("lines:1-1,chars:0-4");
    let file = dir.join("seed.json");
    std::fs::write(&file, serde_json::to_string_pretty(&doc).unwrap()).unwrap();
    file
}

#[test]
fn a_seed_document_survives_import_and_export() {
    let data = tempfile::tempdir().unwrap();
    let file = seed_document(data.path());
    let id = import(&data.path().join("store"), &file);
    let data_path = data.path().join("store");
    let data = data_path.as_path();

    let out = tessera(data, &["context", "export", &id]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let exported: Value = serde_json::from_str(&stdout(&out)).unwrap();
    let original: Value = serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
    // The store gives each message an id of its own; everything else comes back as written.
    let mut messages = exported["session"]["messages"].clone();
    for m in messages.as_array_mut().unwrap() {
        assert!(m.as_object_mut().unwrap().remove("message_id").is_some());
    }
    assert_eq!(messages, original["session"]["messages"]);
    assert_eq!(exported["evidences"], original["evidences"]);
    assert_eq!(exported["context_blocks"], original["context_blocks"]);

    // The export is itself a valid document.
    let check = Command::new(env!("CARGO_BIN_EXE_tessera"))
        .args(["validate", "context", "-"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    {
        use std::io::Write;
        let mut stdin = check.stdin.as_ref().unwrap();
        stdin.write_all(stdout(&out).as_bytes()).unwrap();
    }
    let verdict = check.wait_with_output().unwrap();
    assert_eq!(String::from_utf8_lossy(&verdict.stdout), "ok\n");

    let out = tessera(data, &["context", "export", &id, "--format", "messages"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let messages: Value = serde_json::from_str(&stdout(&out)).unwrap();
    let list = messages.as_array().unwrap();
    assert_eq!(
        list.len(),
        original["session"]["messages"].as_array().unwrap().len()
    );
    assert!(list.iter().all(|m| m["contextId"].is_string()));
}

#[test]
fn an_invalid_document_lists_every_problem_and_writes_nothing() {
    let data = tempfile::tempdir().unwrap();
    let mut doc: Value =
        serde_json::from_str(&std::fs::read_to_string(vectors().join("004-4.1-mvp.json")).unwrap())
            .unwrap();
    doc["session"].as_object_mut().unwrap().remove("session_id");
    doc["context_blocks"] =
        serde_json::json!([{ "block_id": "b1", "block_type": "poem", "priority": "must" }]);
    let file = data.path().join("bad.json");
    std::fs::write(&file, serde_json::to_string(&doc).unwrap()).unwrap();
    let store_dir = data.path().join("store");

    let out = tessera(&store_dir, &["context", "import", file.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    let text = stdout(&out);
    assert!(text.contains("session.session_id: required"), "{text}");
    assert!(text.contains("context_blocks[0].block_type: "), "{text}");

    // Nothing was written: the original id is unknown to the store.
    let out = tessera(&store_dir, &["context", "export", "uuid"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).contains("no conversation with id uuid"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn assemble_explains_what_it_used_within_the_budget() {
    let data = tempfile::tempdir().unwrap();
    let file = seed_document(data.path());
    let id = import(data.path(), &file);

    let out = tessera(
        data.path(),
        &["context", "assemble", &id, "--budget", "4000", "--explain"],
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let result: Value = serde_json::from_str(&stdout(&out)).unwrap();
    let prompt = result["prompt"].as_array().unwrap();
    assert!(!prompt.is_empty());
    let budget = &result["explanation"]["budget"];
    assert_eq!(budget["window"], 4000);
    assert!(budget["used"].as_u64().unwrap() <= 4000);

    let plain = tessera(
        data.path(),
        &["context", "assemble", &id, "--budget", "4000"],
    );
    let plain: Value = serde_json::from_str(&stdout(&plain)).unwrap();
    assert!(plain.get("explanation").is_none());

    // A budget too small for what must be sent is a clear error, not a truncated prompt.
    let out = tessera(data.path(), &["context", "assemble", &id, "--budget", "5"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr(&out).contains("cannot assemble"), "{}", stderr(&out));
}

/// Seed 004 §1/§3 (冲突决策): two versions of one source are a conflict; the explanation says
/// which evidence was kept and why (the field that carries the version), and the block built
/// on the older one is not sent.
#[test]
fn assemble_records_the_conflict_decisions_it_made() {
    let data = tempfile::tempdir().unwrap();
    let doc = serde_json::json!({
        "schema_version": "1.0",
        "session": {"session_id": "conflicts", "messages": [
            {"role": "user", "content": "Which endpoint renews a plan?"}],
            "task_state": {"todo_list": {"tasks": []}}},
        "evidences": {
            "ev_old": {"evidence_id": "ev_old", "type": "rag_doc",
                "source": {"kind": "rag", "name": "wiki", "uri": "https://wiki.example/renew"},
                "content": "Renew with POST /renew", "metadata": {"version": "2.1"}},
            "ev_new": {"evidence_id": "ev_new", "type": "rag_doc",
                "source": {"kind": "rag", "name": "wiki", "uri": "https://wiki.example/renew"},
                "content": "Renew with POST /v2/renew", "metadata": {"version": "2.10"}}
        },
        "context_blocks": [
            {"block_id": "b_old", "block_type": "evidence", "priority": "high",
             "refs": [{"evidence_id": "ev_old"}]},
            {"block_id": "b_new", "block_type": "evidence", "priority": "high",
             "refs": [{"evidence_id": "ev_new"}]}
        ]
    });
    let file = data.path().join("conflicts.json");
    std::fs::write(&file, doc.to_string()).unwrap();
    let id = import(data.path(), &file);
    let out = tessera(
        data.path(),
        &["context", "assemble", &id, "--budget", "4000", "--explain"],
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let result: Value = serde_json::from_str(&stdout(&out)).unwrap();
    let explanation = &result["explanation"];
    let conflicts = explanation["conflicts"].as_array().unwrap();
    assert_eq!(conflicts.len(), 1, "{explanation}");
    assert_eq!(conflicts[0]["kept"], "ev_new");
    assert_eq!(conflicts[0]["superseded"], "ev_old");
    assert_eq!(conflicts[0]["rule"], "older_version");
    assert_eq!(conflicts[0]["version_field"], "metadata.version");
    let prompt = result["prompt"].to_string();
    assert!(
        prompt.contains("/v2/renew") && !prompt.contains("POST /renew"),
        "{prompt}"
    );
    let dropped = explanation["dropped_blocks"].as_array().unwrap();
    assert_eq!(dropped[0]["block_id"], "b_old");
    assert_eq!(dropped[0]["errors"][0]["error"]["kind"], "superseded");
}

/// Seed 004 §4's minimal example writes `"summary": {"content": "", "updated_at": "", …}`: a
/// summary not written yet, valid as printed, imported and assembled; a summary with content
/// must still say when it was written.
#[test]
fn an_empty_summary_may_have_an_empty_time() {
    let data = tempfile::tempdir().unwrap();
    let mut doc: Value =
        serde_json::from_str(&std::fs::read_to_string(vectors().join("004-4.1-mvp.json")).unwrap())
            .unwrap();
    doc["session"]["summary"] = serde_json::json!({"content": "", "updated_at": "", "message_index_range": {"from": 0, "to": 0}});
    let file = data.path().join("mvp.json");
    std::fs::write(&file, doc.to_string()).unwrap();

    let out = tessera(
        data.path(),
        &["validate", "context", file.to_str().unwrap()],
    );
    assert_eq!(stdout(&out), "ok\n", "{}", stderr(&out));
    let id = import(data.path(), &file);
    let out = tessera(data.path(), &["context", "export", &id]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let exported: Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert_eq!(exported["session"]["summary"]["updated_at"], "");
    let out = tessera(
        data.path(),
        &["context", "assemble", &id, "--budget", "4000"],
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(
        stdout(&out).contains("包周期续订的接口是？"),
        "{}",
        stdout(&out)
    );

    doc["session"]["summary"]["content"] = Value::from("Earlier: the person asked about plans.");
    std::fs::write(&file, doc.to_string()).unwrap();
    let out = tessera(
        data.path(),
        &["validate", "context", file.to_str().unwrap()],
    );
    assert_eq!(out.status.code(), Some(1));
    let text = stdout(&out);
    assert!(
        text.contains("session.summary.updated_at: empty, but the summary has content"),
        "{text}"
    );
}
