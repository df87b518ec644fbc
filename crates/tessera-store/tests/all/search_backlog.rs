//! Long messages are indexed after the write that stores them: every search still finds them,
//! an idle writer indexes them by itself, and nothing listed is lost when the process ends.

use std::time::{Duration, Instant};

use crate::common;

use common::say;
use tessera_protocol::request::Role;
use tessera_store::{SearchOptions, Store};

/// An answer of ~180 KB: long enough to be indexed later.
fn long_answer(last_word: &str) -> String {
    let filler: String = (0..20_000).map(|i| format!("w{i} ")).collect();
    format!("alpha {filler} {last_word}")
}

fn listed(store: &Store) -> i64 {
    let conn = rusqlite::Connection::open(&store.paths().database).unwrap();
    conn.query_row("SELECT count(*) FROM search_backlog", [], |r| r.get(0))
        .unwrap()
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
