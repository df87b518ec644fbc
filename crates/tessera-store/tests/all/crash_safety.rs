//! Kill a writing process at random moments and check that everything it reported committed
//! is there, whole, and that the database is intact. The writer is this test binary itself,
//! started again with an environment variable that makes `child_process` do the work.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use std::collections::HashSet;
use std::io::{BufRead, BufReader, Read, Write};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use rand::{Rng, SeedableRng};
use serde_json::json;
use sha2::Digest;
use tessera_protocol::context_doc::{ContextToolStatus, EvidenceType, ToolCallRecord};
use tessera_protocol::easyflow::{Event, EventBody, LlmMessagePayload};
use tessera_protocol::request::Role;
use tessera_protocol::wire::JsonObject;
use tessera_store::{
    AttachmentRef, LockError, NewConversation, NewMessage, Store, StoreError, ToolCallRow,
};

const CHILD_DIR: &str = "TESSERA_STORE_TEST_CHILD_DIR";
const CHILD_MODE: &str = "TESSERA_STORE_TEST_CHILD_MODE";
const CONVERSATION: &str = "crash";

/// Does nothing in a normal run; in a child, writes until killed or holds the store open.
#[test]
fn child_process() {
    let Ok(dir) = std::env::var(CHILD_DIR) else {
        return;
    };
    if std::env::var(CHILD_MODE).as_deref() == Ok("race") {
        let outcome = Store::open(&dir);
        println!("{}", if outcome.is_ok() { "won" } else { "lost" });
        std::io::stdout().flush().unwrap();
        let _ = std::io::stdin().read(&mut [0u8; 1]);
        return;
    }
    let store = Store::open(&dir).unwrap();
    if std::env::var(CHILD_MODE).as_deref() == Ok("hold") {
        println!("ready {}", std::process::id());
        std::io::stdout().flush().unwrap();
        // Held until the parent closes our stdin.
        let _ = std::io::stdin().read(&mut [0u8; 1]);
        return;
    }
    if store.conversation(CONVERSATION).unwrap().is_none() {
        store
            .create_conversation(NewConversation {
                id: Some(CONVERSATION.into()),
                ..Default::default()
            })
            .unwrap();
    }
    let pid = std::process::id();
    let mut stdout = std::io::stdout();
    for i in 0u64.. {
        let tag = format!("{pid}-{i}");
        let attachment = if i % 5 == 0 {
            Some(
                store
                    .put_attachment(format!("screenshot {tag}").as_bytes(), Some("image/png"))
                    .unwrap(),
            )
        } else {
            None
        };
        let t = tag.clone();
        store
            .write(move |tx| {
                let input = common::evidence(
                    &format!("in-{t}"),
                    EvidenceType::UserInput,
                    Some(json!(format!("第 {t} 条消息\n第二行"))),
                );
                let refs: Vec<AttachmentRef> = attachment
                    .iter()
                    .map(|a| AttachmentRef::new(&a.sha256))
                    .collect();
                tx.put_evidence(CONVERSATION, &input, &refs)?;
                let result = common::evidence(
                    &format!("out-{t}"),
                    EvidenceType::ToolResult,
                    Some(json!({"ok": true, "tag": t})),
                );
                tx.put_evidence(CONVERSATION, &result, &[])?;
                let message = common::with_refs(
                    Role::User,
                    &format!("第 {t} 条消息"),
                    vec![common::reference(&format!("in-{t}"), Some("lines:1"))],
                );
                tx.append_message(
                    CONVERSATION,
                    NewMessage::new(message).with_id(format!("m-{t}")),
                )?;
                tx.put_tool_call(
                    CONVERSATION,
                    &ToolCallRow::from(ToolCallRecord {
                        tool_call_id: format!("c-{t}"),
                        task_id: None,
                        tool: Some("search".into()),
                        provider: None,
                        call_type: None,
                        called_at: None,
                        args_digest: Some(json!({"i": t})),
                        status: Some(ContextToolStatus::Success),
                        duration_ms: Some(1),
                        result_evidence_ids: Some(vec![format!("out-{t}")]),
                        extra: JsonObject::new(),
                    }),
                )?;
                tx.append_event(
                    CONVERSATION,
                    Event::new(
                        CONVERSATION,
                        EventBody::LlmMessage(LlmMessagePayload {
                            content: Some(t.clone()),
                            ..Default::default()
                        }),
                    ),
                )?;
                Ok(())
            })
            .unwrap();
        // Printed only after the commit returned.
        writeln!(stdout, "committed {tag}").unwrap();
        stdout.flush().unwrap();
    }
}

fn spawn(dir: &std::path::Path, mode: &str) -> Child {
    Command::new(std::env::current_exe().unwrap())
        .args([
            "--exact",
            "crash_safety::child_process",
            "--nocapture",
            "--test-threads=1",
        ])
        .env(CHILD_DIR, dir)
        .env(CHILD_MODE, mode)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap()
}

fn check(store: &Store, committed: &[String]) {
    assert_eq!(store.integrity_check().unwrap(), "ok");
    let tree = store
        .read(|r| r.message_tree(CONVERSATION))
        .unwrap_or_default();
    let evidences: HashSet<String> = store
        .evidences(CONVERSATION)
        .unwrap_or_default()
        .into_iter()
        .map(|e| e.evidence.evidence_id)
        .collect();
    let calls = store.tool_calls(CONVERSATION).unwrap_or_default();
    let messages: HashSet<&str> = tree.iter().map(|m| m.id.as_str()).collect();
    let call_ids: HashSet<&str> = calls
        .iter()
        .map(|c| c.record.tool_call_id.as_str())
        .collect();
    for tag in committed {
        assert!(
            messages.contains(format!("m-{tag}").as_str()),
            "message {tag} was reported committed"
        );
        assert!(
            call_ids.contains(format!("c-{tag}").as_str()),
            "tool call {tag} was reported committed"
        );
    }
    // Nothing half-written: every message has its evidences and tool call, and back.
    for m in &tree {
        let tag = m.id.trim_start_matches("m-");
        for r in m.message.refs.as_deref().unwrap_or_default() {
            assert!(
                evidences.contains(&r.evidence_id),
                "{} cites a missing evidence",
                m.id
            );
        }
        assert!(
            call_ids.contains(format!("c-{tag}").as_str()),
            "message {tag} without its tool call"
        );
        assert!(evidences.contains(&format!("out-{tag}")));
    }
    for c in &calls {
        assert!(
            messages
                .contains(format!("m-{}", c.record.tool_call_id.trim_start_matches("c-")).as_str()),
            "tool call {} without its message",
            c.record.tool_call_id
        );
        for e in c.record.result_evidence_ids.as_deref().unwrap_or_default() {
            assert!(evidences.contains(e));
        }
    }
    assert_eq!(evidences.len(), 2 * tree.len());
    let events = store
        .events_after(CONVERSATION, None, None)
        .unwrap_or_default();
    assert_eq!(events.len(), tree.len(), "one event per committed write");
    assert!(events.windows(2).all(|w| w[0].seq < w[1].seq));
    // Every referenced attachment file is there, whole.
    for e in store.evidences(CONVERSATION).unwrap_or_default() {
        for a in &e.attachments {
            let bytes = store.read_attachment(&a.sha256).unwrap();
            let digest: String = sha2::Sha256::digest(&bytes)
                .iter()
                .map(|b| format!("{b:02x}"))
                .collect();
            assert_eq!(digest, a.sha256);
        }
    }
}

#[test]
fn killed_writers_lose_nothing_they_reported() {
    let dir = tempfile::tempdir().unwrap();
    let mut rng = rand::rngs::StdRng::seed_from_u64(0x7e55e7a);
    let mut committed = Vec::new();
    let started = Instant::now();
    for _round in 0..50 {
        let mut child = spawn(dir.path(), "write");
        let mut stdout = child.stdout.take().unwrap();
        let reader = std::thread::spawn(move || {
            let mut out = String::new();
            let _ = stdout.read_to_string(&mut out);
            out
        });
        std::thread::sleep(Duration::from_millis(rng.random_range(0..=200)));
        child.kill().unwrap();
        child.wait().unwrap();
        let out = reader.join().unwrap();
        // A line cut by the kill has no newline and does not count. The harness prints
        // `test child_process ... ` before the first line, so look inside lines.
        let complete = out.rsplit_once('\n').map_or("", |(done, _)| done);
        committed.extend(
            complete
                .lines()
                .filter_map(|l| l.split_once("committed "))
                .map(|(_, tag)| tag.to_owned()),
        );
        let store = Store::open(dir.path()).unwrap();
        check(&store, &committed);
    }
    assert!(
        committed.len() > 50,
        "the writers got some work done: {}",
        committed.len()
    );
    eprintln!(
        "{} writes reported over 50 kills in {:?}",
        committed.len(),
        started.elapsed()
    );
}

#[test]
fn a_second_process_is_refused_with_the_owners_pid() {
    let dir = tempfile::tempdir().unwrap();
    let mut child = spawn(dir.path(), "hold");
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    let ready = lines
        .find_map(|l| {
            l.ok()
                .and_then(|l| l.split_once("ready ").map(|(_, pid)| pid.to_owned()))
        })
        .unwrap();
    let pid: u32 = ready.trim().parse().unwrap();
    let err = Store::open(dir.path()).unwrap_err();
    assert!(
        matches!(err, StoreError::Lock(LockError::Held { pid: owner, .. }) if owner == pid),
        "{err}"
    );
    assert!(err.to_string().contains(&format!("pid {pid}")), "{err}");
    drop(child.stdin.take());
    child.wait().unwrap();
    Store::open(dir.path()).unwrap();
}

#[test]
fn processes_starting_at_the_same_moment_have_one_winner() {
    let dir = tempfile::tempdir().unwrap();
    let mut children: Vec<Child> = (0..6).map(|_| spawn(dir.path(), "race")).collect();
    let said: Vec<String> = children
        .iter_mut()
        .map(|child| {
            let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
            // libtest may print the test's name on the same line first.
            lines
                .find_map(|l| {
                    let l = l.ok()?;
                    ["won", "lost"]
                        .into_iter()
                        .find(|w| l.ends_with(w))
                        .map(str::to_owned)
                })
                .unwrap()
        })
        .collect();
    for child in &mut children {
        drop(child.stdin.take());
        child.wait().unwrap();
    }
    assert_eq!(said.iter().filter(|s| *s == "won").count(), 1, "{said:?}");
    // The winner is gone: the lock went with it, nothing stale is left.
    Store::open(dir.path()).unwrap();
}
