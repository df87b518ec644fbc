#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use serde_json::json;
use tessera_protocol::easyflow::{
    Event, EventBody, EventMeta, LlmMessagePayload, LlmThinkingPayload, SystemStatusPayload,
};
use tessera_protocol::request::Role;
use tessera_protocol::{validate, DocumentKind};
use tessera_store::{text_message, NewMessage, SeqRange, StoreError};

fn with_run(mut event: Event, run: &str, message_id: &str) -> Event {
    event.message_id = Some(message_id.into());
    event.meta = Some(EventMeta {
        run_id: Some(run.into()),
        ..Default::default()
    });
    event
}

pub(crate) fn thinking(c: &str, run: &str, delta: &str, signature: Option<&str>) -> Event {
    with_run(
        Event::new(
            c,
            EventBody::LlmThinking(LlmThinkingPayload {
                delta: Some(delta.into()),
                signature: signature.map(str::to_owned),
                ..Default::default()
            }),
        ),
        run,
        "m1",
    )
}

pub(crate) fn message_delta(c: &str, run: &str, delta: &str) -> Event {
    with_run(
        Event::new(
            c,
            EventBody::LlmMessage(LlmMessagePayload {
                delta: Some(delta.into()),
                ..Default::default()
            }),
        ),
        run,
        "m1",
    )
}

pub(crate) fn status(c: &str, run: &str) -> Event {
    let payload: SystemStatusPayload = serde_json::from_value(json!({"state": "running"})).unwrap();
    with_run(Event::new(c, EventBody::SystemStatus(payload)), run, "m1")
}

fn text_of(event: &Event) -> (Option<String>, Option<String>) {
    match &event.body {
        EventBody::LlmThinking(p) => (p.delta.clone(), p.content.clone()),
        EventBody::LlmMessage(p) => (p.delta.clone(), p.content.clone()),
        _ => (None, None),
    }
}

#[test]
fn seqs_increase_per_conversation_and_reads_resume_after_a_seq() {
    let (_dir, store) = common::open();
    let a = common::conversation(&store, "a");
    let b = common::conversation(&store, "b");
    let mut last = 0;
    for i in 0..10 {
        let stored = store
            .append_event(&a, message_delta(&a, "r1", &format!("{i} ")))
            .unwrap();
        assert!(stored.seq > last, "strictly increasing");
        assert_eq!(stored.event.meta.as_ref().unwrap().seq, Some(stored.seq));
        assert!(stored.event.meta.as_ref().unwrap().ts.is_some());
        last = stored.seq;
    }
    assert_eq!(
        store.append_event(&b, status(&b, "r2")).unwrap().seq,
        1,
        "each conversation counts on its own"
    );
    let all = store.events_after(&a, None, None).unwrap();
    assert_eq!(
        all.iter().map(|e| e.seq).collect::<Vec<_>>(),
        (1..=10).collect::<Vec<_>>()
    );
    let missed = store.events_after(&a, Some(7), None).unwrap();
    assert_eq!(missed.iter().map(|e| e.seq).collect::<Vec<_>>(), [8, 9, 10]);
    assert_eq!(store.events_after(&a, Some(2), Some(2)).unwrap().len(), 2);
    for e in &all {
        let value = serde_json::to_value(&e.event).unwrap();
        assert!(validate(DocumentKind::Event, &value).is_empty(), "{value}");
    }
    let err = store.append_event(&a, status(&b, "r2")).unwrap_err();
    assert!(
        matches!(err, StoreError::EventConversationMismatch { .. }),
        "{err}"
    );
}

#[test]
fn an_event_commits_with_the_state_change_it_reports() {
    let (_dir, store) = common::open();
    let c = common::conversation(&store, "tx");
    let conversation = c.clone();
    let (message, event) = store
        .write(move |tx| {
            let message = tx.append_message(
                &conversation,
                NewMessage::new(text_message(Role::User, "你好")),
            )?;
            let mut event = Event::new(
                &conversation,
                EventBody::LlmMessage(LlmMessagePayload {
                    content: Some("你好".into()),
                    ..Default::default()
                }),
            );
            event.message_id = Some(message.id.clone());
            let event = tx.append_event(&conversation, event)?;
            Ok((message, event))
        })
        .unwrap();
    assert_eq!(event.event.message_id.as_deref(), Some(message.id.as_str()));
    assert_eq!(store.events_after(&c, None, None).unwrap().len(), 1);

    // A write that fails after both keeps neither.
    let conversation = c.clone();
    let err = store
        .write(move |tx| {
            tx.append_message(
                &conversation,
                NewMessage::new(text_message(Role::User, "lost")),
            )?;
            tx.append_event(&conversation, status(&conversation, "r"))?;
            tx.append_message(
                &conversation,
                NewMessage::new(text_message(Role::User, "x")).with_id(message.id.clone()),
            )
        })
        .unwrap_err();
    assert!(matches!(err, StoreError::AlreadyExists { .. }), "{err}");
    assert_eq!(store.active_branch(&c).unwrap().len(), 1);
    assert_eq!(store.events_after(&c, None, None).unwrap().len(), 1);
    assert_eq!(
        store.read(|r| r.last_event_seq(&c)).unwrap(),
        1,
        "the failed write gave out no seq"
    );
}

#[test]
fn folding_replaces_deltas_and_resuming_inside_a_range_gets_the_folded_event() {
    let (_dir, store) = common::open();
    let c = common::conversation(&store, "fold");
    store.append_event(&c, status(&c, "r1")).unwrap(); // 1
    store
        .append_event(&c, thinking(&c, "r1", "让我", None))
        .unwrap(); // 2
    store
        .append_event(&c, thinking(&c, "r1", "想想", Some("sig==")))
        .unwrap(); // 3
    store
        .append_event(&c, message_delta(&c, "r1", "续订"))
        .unwrap(); // 4
    store.append_event(&c, status(&c, "r1")).unwrap(); // 5: between deltas, kept
    store
        .append_event(&c, message_delta(&c, "r1", "接口"))
        .unwrap(); // 6
    store
        .append_event(&c, message_delta(&c, "r1", "是 renew"))
        .unwrap(); // 7
    store
        .append_event(&c, message_delta(&c, "other-run", "untouched"))
        .unwrap(); // 8

    let ranges = store.fold_run(&c, "r1").unwrap();
    assert_eq!(
        ranges,
        [SeqRange { from: 2, to: 3 }, SeqRange { from: 4, to: 7 }]
    );
    let log = store.events_after(&c, None, None).unwrap();
    assert_eq!(
        log.iter().map(|e| e.seq).collect::<Vec<_>>(),
        [1, 2, 4, 5, 8]
    );
    assert_eq!(text_of(&log[1].event), (None, Some("让我想想".into())));
    match &log[1].event.body {
        EventBody::LlmThinking(p) => assert_eq!(p.signature.as_deref(), Some("sig==")),
        other => panic!("{other:?}"),
    }
    assert_eq!(
        text_of(&log[2].event),
        (None, Some("续订接口是 renew".into()))
    );
    let meta = log[2].event.meta.as_ref().unwrap();
    assert_eq!(meta.seq, Some(4));
    assert_eq!(meta.extra["replaces"], json!({"from": 4, "to": 7}));
    assert_eq!(log[2].replaces, Some(SeqRange { from: 4, to: 7 }));
    // The folded message says when its stretch began (its `ts` is when it ended).
    let started = meta.extra["started_ts"].as_str().unwrap();
    assert!(started <= meta.ts.as_ref().unwrap().as_str(), "{started}");
    assert_eq!(text_of(&log[4].event), (Some("untouched".into()), None));
    for e in &log {
        assert!(validate(
            DocumentKind::Event,
            &serde_json::to_value(&e.event).unwrap()
        )
        .is_empty());
    }

    // A client that saw up to 5 (inside 4..=7) gets the folded message first, then what follows.
    let resumed = store.events_after(&c, Some(5), None).unwrap();
    assert_eq!(resumed.iter().map(|e| e.seq).collect::<Vec<_>>(), [4, 8]);
    let resumed = store.events_after(&c, Some(2), None).unwrap();
    assert_eq!(
        resumed.iter().map(|e| e.seq).collect::<Vec<_>>(),
        [2, 4, 5, 8]
    );
    // Past the range, nothing is repeated.
    assert_eq!(
        store
            .events_after(&c, Some(7), None)
            .unwrap()
            .iter()
            .map(|e| e.seq)
            .collect::<Vec<_>>(),
        [8]
    );

    // New events keep counting after the deleted seqs; folding again changes nothing.
    assert_eq!(store.append_event(&c, status(&c, "r2")).unwrap().seq, 9);
    assert!(store.fold_run(&c, "r1").unwrap().is_empty());
}

#[test]
fn queued_events_commit_in_order_with_consecutive_seqs_before_they_are_answered() {
    let (_dir, store) = common::open();
    let c = common::conversation(&store, "queued");
    let (tx, rx) = std::sync::mpsc::channel();
    for n in 0..50 {
        let events = (0..n % 4 + 1)
            .map(|i| message_delta(&c, "r1", &format!("{n}.{i} ")))
            .collect();
        let (tx, reader, c2) = (tx.clone(), store.clone(), c.clone());
        store.append_events_then(&c, events, move |answer| {
            let stored = answer.unwrap();
            // Answered after the commit: a reader already sees the events.
            let last = stored.last().unwrap().seq;
            let seen = reader.events_after(&c2, Some(last - 1), Some(1)).unwrap();
            assert_eq!(seen[0].seq, last);
            tx.send(stored).unwrap();
        });
    }
    drop(tx);
    let answers: Vec<Vec<_>> = rx.iter().collect();
    assert_eq!(answers.len(), 50);
    let seqs: Vec<u64> = answers.iter().flatten().map(|e| e.seq).collect();
    assert_eq!(seqs, (1..=seqs.len() as u64).collect::<Vec<_>>());
    let texts: Vec<String> = answers
        .iter()
        .flatten()
        .map(|e| text_of(&e.event).0.unwrap())
        .collect();
    let expected: Vec<String> = (0..50)
        .flat_map(|n| (0..n % 4 + 1).map(move |i| format!("{n}.{i} ")))
        .collect();
    assert_eq!(texts, expected);
    let log = store.events_after(&c, None, None).unwrap();
    assert_eq!(log.iter().map(|e| e.seq).collect::<Vec<_>>(), seqs);
}

#[test]
fn a_queued_write_that_fails_keeps_nothing_and_is_answered_once_with_the_error() {
    let (_dir, store) = common::open();
    let c = common::conversation(&store, "failing");
    let (tx, rx) = std::sync::mpsc::channel();
    let events = vec![
        message_delta(&c, "r1", "kept? "),
        message_delta("another-conversation", "r1", "no"),
    ];
    let tx2 = tx.clone();
    store.append_events_then(&c, events, move |answer| {
        tx2.send(answer.map(|s| s.len())).unwrap();
    });
    let tx3 = tx.clone();
    store.append_events_then(&c, vec![message_delta(&c, "r1", "next")], move |answer| {
        tx3.send(answer.map(|s| s.len())).unwrap();
    });
    drop(tx);
    let answers: Vec<_> = rx.iter().collect();
    assert_eq!(answers.len(), 2, "each write answered exactly once");
    assert!(matches!(
        answers[0],
        Err(StoreError::EventConversationMismatch { .. })
    ));
    assert_eq!(answers[1].as_ref().ok(), Some(&1));
    // The failed write gave out no seq and left no event.
    let log = store.events_after(&c, None, None).unwrap();
    assert_eq!(log.len(), 1);
    assert_eq!(log[0].seq, 1);
    assert_eq!(text_of(&log[0].event), (Some("next".into()), None));
}

#[test]
fn folding_a_long_stream_ends_each_stream_at_its_whole_message() {
    let (_dir, store) = common::open();
    let c = common::conversation(&store, "long fold");
    let mut deltas: Vec<_> = (0..3000)
        .map(|i| message_delta(&c, "r1", &format!("{i} ")))
        .collect();
    // A whole message between deltas of the same stream ends the first stream.
    let mut whole = message_delta(&c, "r1", "");
    whole.body = EventBody::LlmMessage(LlmMessagePayload {
        content: Some("whole".into()),
        ..Default::default()
    });
    deltas.insert(1000, whole);
    let c2 = c.clone();
    store
        .write(move |tx| tx.append_events(&c2, deltas))
        .unwrap();
    let ranges = store.fold_run(&c, "r1").unwrap();
    assert_eq!(
        ranges,
        [
            SeqRange { from: 1, to: 1000 },
            SeqRange {
                from: 1002,
                to: 3001
            }
        ]
    );
    let log = store.events_after(&c, None, None).unwrap();
    assert_eq!(
        log.iter().map(|e| e.seq).collect::<Vec<_>>(),
        [1, 1001, 1002]
    );
    let first: String = (0..1000).map(|i| format!("{i} ")).collect();
    let second: String = (1000..3000).map(|i| format!("{i} ")).collect();
    assert_eq!(text_of(&log[0].event), (None, Some(first)));
    assert_eq!(text_of(&log[1].event), (None, Some("whole".into())));
    assert_eq!(text_of(&log[2].event), (None, Some(second)));
}

#[test]
fn a_write_alone_keeps_its_place_in_the_queue_and_keeps_nothing_when_it_fails() {
    let (_dir, store) = common::open();
    let c = common::conversation(&store, "alone");
    let (tx, rx) = std::sync::mpsc::channel();
    let first = tx.clone();
    store.append_events_then(&c, vec![message_delta(&c, "r1", "a")], move |answer| {
        first.send(("queued", answer.unwrap()[0].seq)).unwrap();
    });
    let c2 = c.clone();
    let seq = store
        .write_alone(move |tx| tx.append_event(&c2, message_delta(&c2, "r1", "b")))
        .unwrap()
        .seq;
    tx.send(("alone", seq)).unwrap();
    let c3 = c.clone();
    let failed = store.write_alone(move |tx| {
        tx.append_event(&c3, message_delta(&c3, "r1", "lost"))?;
        tx.append_event(&c3, message_delta("elsewhere", "r1", "no"))
    });
    assert!(matches!(
        failed,
        Err(StoreError::EventConversationMismatch { .. })
    ));
    let last = tx.clone();
    store.append_events_then(&c, vec![message_delta(&c, "r1", "c")], move |answer| {
        last.send(("queued", answer.unwrap()[0].seq)).unwrap();
    });
    drop(tx);
    let order: Vec<_> = rx.iter().collect();
    assert_eq!(order, [("queued", 1), ("alone", 2), ("queued", 3)]);
    let texts: Vec<String> = store
        .events_after(&c, None, None)
        .unwrap()
        .iter()
        .map(|e| text_of(&e.event).0.unwrap())
        .collect();
    assert_eq!(texts, ["a", "b", "c"]);
}
