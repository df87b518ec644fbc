//! Deltas written together share a row of the log: clients still read them one at a time from
//! any seq, and a run folds the same whether the writer saw its deltas or reads them back.

use crate::common;
use crate::event_log::{message_delta, status, thinking};

use serde_json::json;
use tessera_protocol::easyflow::{Event, EventBody};
use tessera_store::layout::DataPaths;
use tessera_store::{SeqRange, Store, StoreError, StoredEvent};

fn write(store: &Store, c: &str, events: Vec<Event>) -> Vec<StoredEvent> {
    let c = c.to_owned();
    store.write(move |tx| tx.append_events(&c, events)).unwrap()
}

fn rows_in_log(dir: &std::path::Path, c: &str) -> i64 {
    let conn = rusqlite::Connection::open(DataPaths::new(dir).database).unwrap();
    conn.query_row(
        "SELECT count(*) FROM events WHERE conversation_id = ?1",
        [c],
        |r| r.get(0),
    )
    .unwrap()
}

/// What a person sees of a log: each event's seq, the seqs it replaces, its text and signature.
fn shown(log: &[StoredEvent]) -> Vec<(u64, Option<SeqRange>, String)> {
    log.iter()
        .map(|e| {
            let text = match &e.event.body {
                EventBody::LlmThinking(p) => {
                    format!("thinking {:?} {:?} {:?}", p.delta, p.content, p.signature)
                }
                EventBody::LlmMessage(p) => format!("message {:?} {:?}", p.delta, p.content),
                other => other.event_type().to_owned(),
            };
            (e.seq, e.replaces, text)
        })
        .collect()
}

#[test]
fn deltas_written_together_are_read_one_by_one_from_any_seq() {
    let (dir, store) = common::open();
    let c = common::conversation(&store, "rows");
    let mut events = vec![status(&c, "r1")];
    events.extend((0..4).map(|i| thinking(&c, "r1", &format!("t{i} "), None)));
    events.extend((0..5).map(|i| message_delta(&c, "r1", &format!("w{i} "))));
    events.push(status(&c, "r1"));
    events.extend((0..3).map(|i| message_delta(&c, "r1", &format!("x{i} "))));
    // Text that needs escaping, and a delta with a field the shared row does not hold.
    events[7] = message_delta(&c, "r1", "w2 \"引号\" \\ \n\u{1F600} ");
    events[8]
        .extra
        .insert("x-unknown".into(), json!({"kept": true}));
    let written = write(&store, &c, events);
    assert_eq!(
        written.iter().map(|e| e.seq).collect::<Vec<_>>(),
        (1..=14).collect::<Vec<_>>()
    );
    // status, 4+3 deltas, the odd delta, 1 delta, status, 3 deltas: six rows for fourteen.
    assert_eq!(rows_in_log(dir.path(), &c), 6);

    let all = store.events_after(&c, None, None).unwrap();
    assert_eq!(all, written);
    for (read, sent) in all.iter().zip(&written) {
        assert_eq!(read.json(), sent.json(), "the text as it was sent");
        assert_eq!(
            *read.json(),
            serde_json::to_string(&read.event).unwrap(),
            "each event is its own JSON"
        );
    }
    for after in 0..=14 {
        let missed = store.events_after(&c, Some(after), None).unwrap();
        assert_eq!(
            missed.iter().map(|e| e.seq).collect::<Vec<_>>(),
            (after + 1..=14).collect::<Vec<_>>(),
            "after {after}"
        );
        let page = store.events_after(&c, Some(after), Some(2)).unwrap();
        assert_eq!(
            page.iter().map(|e| e.seq).collect::<Vec<_>>(),
            (after + 1..=14).take(2).collect::<Vec<_>>(),
            "two after {after}"
        );
    }
    assert_eq!(store.run_events(&c, "r1").unwrap(), written);

    let ranges = store.fold_run(&c, "r1").unwrap();
    assert_eq!(
        ranges,
        [SeqRange { from: 2, to: 5 }, SeqRange { from: 6, to: 14 }]
    );
    let log = store.events_after(&c, None, None).unwrap();
    assert_eq!(
        shown(&log),
        [
            (1, None, "status".into()),
            (
                2,
                Some(SeqRange { from: 2, to: 5 }),
                r#"thinking None Some("t0 t1 t2 t3 ") None"#.into()
            ),
            (
                6,
                Some(SeqRange { from: 6, to: 14 }),
                r#"message None Some("w0 w1 w2 \"引号\" \\ \n😀 w3 w4 x0 x1 x2 ")"#.into()
            ),
            (11, None, "status".into()),
        ]
    );
    // Resuming inside a folded range still gives the folded event first.
    let resumed = store.events_after(&c, Some(8), None).unwrap();
    assert_eq!(resumed.iter().map(|e| e.seq).collect::<Vec<_>>(), [6, 11]);
}

/// The same run, written in writes of every size, folded by the writer that saw it and by a
/// store opened afresh (which reads the run back): a person sees the same log.
#[test]
fn a_run_folds_the_same_whether_the_writer_saw_it_or_reads_it_back() {
    let (dir, store) = common::open();
    let seen = common::conversation(&store, "seen");
    let read = common::conversation(&store, "read back");
    for c in [&seen, &read] {
        let mut n = 0;
        for size in [1, 3, 1, 7, 2, 40, 1] {
            let events: Vec<Event> = (0..size)
                .map(|_| {
                    n += 1;
                    match n % 9 {
                        0 => status(c, "r1"),
                        1..=3 => thinking(c, "r1", &format!("{n}."), (n == 3).then_some("sig")),
                        _ => message_delta(c, "r1", &format!("{n} ")),
                    }
                })
                .collect();
            write(&store, c, events);
            if size == 2 {
                // Another run between: left alone.
                write(
                    &store,
                    c,
                    vec![
                        message_delta(c, "r2", "other "),
                        message_delta(c, "r2", "run"),
                    ],
                );
            }
        }
    }
    let folded_by_writer = store.fold_run(&seen, "r1").unwrap();
    drop(store);
    let store = Store::open(dir.path()).unwrap();
    let folded_from_log = store.fold_run(&read, "r1").unwrap();
    assert_eq!(folded_by_writer, folded_from_log);
    assert_eq!(
        folded_by_writer.len(),
        2,
        "a thinking and a message: {folded_by_writer:?}"
    );
    let seen_log = store.events_after(&seen, None, None).unwrap();
    let read_log = store.events_after(&read, None, None).unwrap();
    assert_eq!(shown(&seen_log), shown(&read_log));
    assert!(
        shown(&seen_log)
            .iter()
            .any(|(_, _, text)| text == r#"message Some("other ") None"#),
        "the other run is not folded"
    );
    // Every delta of r1 is gone; r2's two stay.
    let deltas = seen_log
        .iter()
        .filter(|e| match &e.event.body {
            EventBody::LlmThinking(p) => p.delta.is_some(),
            EventBody::LlmMessage(p) => p.delta.is_some(),
            _ => false,
        })
        .count();
    assert_eq!(deltas, 2);
}

#[test]
fn deltas_of_a_write_rolled_back_are_not_in_the_folded_answer() {
    let (_dir, store) = common::open();
    let c = common::conversation(&store, "rolled back");
    write(
        &store,
        &c,
        vec![
            message_delta(&c, "r1", "kept "),
            message_delta(&c, "r1", "too "),
        ],
    );
    let conversation = c.clone();
    let failed: Result<(), StoreError> = store.write(move |tx| {
        tx.append_events(
            &conversation,
            vec![
                message_delta(&conversation, "r1", "LOST "),
                message_delta(&conversation, "r1", "LOST "),
            ],
        )?;
        Err(StoreError::Corrupt {
            what: "test",
            message: "fails after appending".into(),
        })
    });
    assert!(failed.is_err());
    write(
        &store,
        &c,
        vec![
            message_delta(&c, "r1", "and "),
            message_delta(&c, "r1", "this"),
        ],
    );
    store.fold_run(&c, "r1").unwrap();
    let log = store.events_after(&c, None, None).unwrap();
    assert_eq!(
        shown(&log),
        [(
            1,
            Some(SeqRange { from: 1, to: 4 }),
            r#"message None Some("kept too and this")"#.into()
        )]
    );
}
