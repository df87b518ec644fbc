//! Long messages and evidences are indexed after the write that stores them: every search
//! still finds them, an idle writer indexes them by itself, and nothing listed is lost when
//! the process ends.

use std::time::{Duration, Instant};

use crate::common;

use common::{evidence, say};
use serde_json::json;
use tessera_protocol::context_doc::EvidenceType;
use tessera_protocol::request::Role;
use tessera_store::{HitKind, SearchOptions, Store};

/// An answer of ~180 KB: long enough to be indexed later.
fn long_answer(last_word: &str) -> String {
    let filler: String = (0..20_000).map(|i| format!("w{i} ")).collect();
    format!("alpha {filler} {last_word}")
}

/// Rows in `table`, read past the store.
fn rows(store: &Store, table: &str) -> i64 {
    let conn = rusqlite::Connection::open(&store.paths().database).unwrap();
    conn.query_row(&format!("SELECT count(*) FROM {table}"), [], |r| r.get(0))
        .unwrap()
}

fn listed(store: &Store) -> i64 {
    rows(store, "search_backlog")
}

/// What a read finds without first catching the index up.
fn found_by_a_plain_read(store: &Store, query: &str) -> usize {
    store
        .read(|r| r.search(query, &SearchOptions::default()))
        .unwrap()
        .len()
}

#[test]
fn a_long_answer_is_found_by_the_search_right_after_it_is_stored() {
    let (_dir, store) = common::open();
    let c = common::conversation(&store, "long");
    let answer = say(&store, &c, Role::Assistant, &long_answer("omega"));
    assert_eq!(listed(&store), 1, "listed for indexing, not indexed yet");
    assert_eq!(found_by_a_plain_read(&store, "omega"), 0);

    let hits = store
        .search("alpha omega", &SearchOptions::default())
        .unwrap();
    assert_eq!(hits.len(), 1, "{hits:?}");
    assert_eq!(hits[0].id, answer.id);
    assert_eq!(listed(&store), 0);
    // A conversation search finds it as well.
    let short = say(&store, &c, Role::User, "a short question about omega");
    assert_eq!(listed(&store), 0, "a short message is indexed at once");
    let found = store
        .search_conversations("w19999", &Default::default())
        .unwrap();
    assert_eq!(found.len(), 1);
    assert_eq!(found[0].message.as_ref().unwrap().message_id, answer.id);
    assert_eq!(found_by_a_plain_read(&store, "question"), 1, "{short:?}");
}

#[test]
fn an_idle_writer_indexes_listed_answers_by_itself() {
    let (_dir, store) = common::open();
    let c = common::conversation(&store, "idle");
    say(&store, &c, Role::Assistant, &long_answer("first"));
    say(&store, &c, Role::Assistant, &long_answer("second"));
    assert_eq!(listed(&store), 2);
    let deadline = Instant::now() + Duration::from_secs(20);
    while listed(&store) > 0 {
        assert!(Instant::now() < deadline, "still listed after 20 s idle");
        std::thread::sleep(Duration::from_millis(50));
    }
    assert_eq!(found_by_a_plain_read(&store, "first"), 1);
    assert_eq!(found_by_a_plain_read(&store, "second"), 1);
    assert_eq!(found_by_a_plain_read(&store, "alpha"), 2);
}

#[test]
fn answers_left_listed_by_a_process_that_ended_are_found_after_it() {
    let dir = tempfile::tempdir().unwrap();
    let answer = {
        let store = Store::open(dir.path()).unwrap();
        let c = common::conversation(&store, "ended");
        // Closed at once, as `tessera chat` is: the writer never idles.
        say(&store, &c, Role::Assistant, &long_answer("omega"))
    };
    let store = Store::open(dir.path()).unwrap();
    assert_eq!(listed(&store), 1, "still listed after the process ended");
    let hits = store.search("omega", &SearchOptions::default()).unwrap();
    assert_eq!(hits.len(), 1);
    assert_eq!(hits[0].id, answer.id);
    assert_eq!(listed(&store), 0);
}

#[test]
fn a_listed_answer_leaves_the_list_with_its_conversation() {
    let (_dir, store) = common::open();
    let c = common::conversation(&store, "gone");
    let other = common::conversation(&store, "kept");
    say(&store, &c, Role::Assistant, &long_answer("omega"));
    let kept = say(&store, &other, Role::Assistant, &long_answer("omega"));
    assert_eq!(listed(&store), 2);
    store.delete_conversation(&c).unwrap();
    assert_eq!(listed(&store), 1);
    let hits = store.search("omega", &SearchOptions::default()).unwrap();
    assert_eq!(hits.len(), 1);
    assert_eq!(hits[0].id, kept.id);
}

fn evidences_listed(store: &Store) -> i64 {
    rows(store, "search_backlog_evidences")
}

fn evidence_hits(store: &Store, query: &str) -> Vec<String> {
    store
        .search(query, &SearchOptions::default())
        .unwrap()
        .into_iter()
        .filter(|h| h.kind == HitKind::Evidence)
        .map(|h| h.id)
        .collect()
}

#[test]
fn a_tool_result_is_found_right_after_it_is_stored_and_as_it_was_changed_to() {
    let (_dir, store) = common::open();
    let c = common::conversation(&store, "tools");
    let result = |text: &str| {
        evidence(
            "ev_weather",
            EvidenceType::ToolResult,
            Some(json!({"text": text, "structuredContent": {"celsius": 21}})),
        )
    };
    store
        .put_evidence(&c, result("sunny over Lisbon"), vec![])
        .unwrap();
    assert_eq!(evidences_listed(&store), 1, "listed, not indexed yet");
    assert!(store
        .read(|r| r.search("lisbon", &SearchOptions::default()))
        .unwrap()
        .is_empty());
    assert_eq!(evidence_hits(&store, "lisbon"), ["ev_weather"]);
    assert_eq!(
        evidence_hits(&store, "21"),
        ["ev_weather"],
        "structured content"
    );
    assert_eq!(evidences_listed(&store), 0);

    // Changed: listed again; the search finds the new text only.
    store
        .put_evidence(&c, result("rain over Porto"), vec![])
        .unwrap();
    assert_eq!(evidences_listed(&store), 1);
    assert_eq!(evidence_hits(&store, "porto"), ["ev_weather"]);
    assert!(evidence_hits(&store, "lisbon").is_empty());
    // An evidence with nothing to index is never listed.
    store
        .put_evidence(&c, evidence("ev_empty", EvidenceType::Other, None), vec![])
        .unwrap();
    assert_eq!(evidences_listed(&store), 0);
}

#[test]
fn an_idle_writer_indexes_many_tool_results_by_itself_and_they_go_with_their_conversation() {
    let (_dir, store) = common::open();
    let c = common::conversation(&store, "many");
    let other = common::conversation(&store, "other");
    for i in 0..300 {
        let e = evidence(
            &format!("ev_{i}"),
            EvidenceType::ToolResult,
            Some(json!(format!("echo number{i} kiwi"))),
        );
        store.put_evidence(&c, e, vec![]).unwrap();
    }
    let kept = evidence(
        "ev_kept",
        EvidenceType::ToolResult,
        Some(json!("kiwi kept")),
    );
    store.put_evidence(&other, kept, vec![]).unwrap();
    assert_eq!(evidences_listed(&store), 301);
    // Several rounds of indexing while idle, not one text per wait.
    let deadline = Instant::now() + Duration::from_secs(20);
    while evidences_listed(&store) > 0 {
        assert!(Instant::now() < deadline, "still listed after 20 s idle");
        std::thread::sleep(Duration::from_millis(50));
    }
    let found = store
        .read(|r| r.search("number299", &SearchOptions::default()))
        .unwrap();
    assert_eq!(found.len(), 1);
    assert_eq!(found[0].id, "ev_299");

    let e = evidence(
        "ev_late",
        EvidenceType::ToolResult,
        Some(json!("late kiwi")),
    );
    store.put_evidence(&c, e, vec![]).unwrap();
    assert_eq!(evidences_listed(&store), 1);
    store.delete_conversation(&c).unwrap();
    assert_eq!(evidences_listed(&store), 0, "gone with its conversation");
    assert_eq!(evidence_hits(&store, "kiwi"), ["ev_kept"]);
}

#[test]
fn a_listed_evidence_whose_content_no_longer_parses_holds_up_no_other_text() {
    let (_dir, store) = common::open();
    let c = common::conversation(&store, "edited");
    let first = evidence(
        "ev_bad",
        EvidenceType::ToolResult,
        Some(json!("plum first")),
    );
    store.put_evidence(&c, first, vec![]).unwrap();
    let second = evidence(
        "ev_good",
        EvidenceType::ToolResult,
        Some(json!("plum second")),
    );
    store.put_evidence(&c, second, vec![]).unwrap();
    // The database edited by hand while the first was listed.
    let conn = rusqlite::Connection::open(&store.paths().database).unwrap();
    conn.execute(
        "UPDATE evidences SET content_json = '{not json' WHERE evidence_id = 'ev_bad'",
        [],
    )
    .unwrap();
    drop(conn);
    assert_eq!(evidence_hits(&store, "plum"), ["ev_good"]);
    assert_eq!(evidences_listed(&store), 0);
}
