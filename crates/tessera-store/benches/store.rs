//! Store figures: `cargo bench -p tessera-store --bench store`. Prints, asserts nothing.
//! Targets: append p99 < 2 ms, newest 50 of 100k < 5 ms, one search over 100k < 20 ms.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::time::{Duration, Instant};

use tessera_protocol::request::Role;
use tessera_store::{text_message, NewConversation, NewMessage, SearchOptions, Store};

const MESSAGES: usize = 100_000;

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    let at = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted[at]
}

fn ms(d: Duration) -> String {
    format!("{:.3} ms", d.as_secs_f64() * 1000.0)
}

fn report(name: &str, mut samples: Vec<Duration>) {
    samples.sort();
    println!(
        "{name:<44} n={:<7} p50 {:>10}  p99 {:>10}  max {:>10}",
        samples.len(),
        ms(percentile(&samples, 0.5)),
        ms(percentile(&samples, 0.99)),
        ms(*samples.last().unwrap())
    );
}

fn text(i: usize) -> String {
    match i % 100 {
        0 => format!("包周期续订的接口是？第 {i} 次问"),
        1 => format!("Renew the subscription through the renewal API, attempt {i}"),
        _ => format!(
            "消息 {i}：今天天气怎么样 weather forecast for the afternoon and the lunch plans"
        ),
    }
}

fn main() {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(dir.path()).unwrap();
    let c = store
        .create_conversation(NewConversation {
            title: "bench".into(),
            ..Default::default()
        })
        .unwrap()
        .id;
    let started = Instant::now();
    let mut appends = Vec::with_capacity(MESSAGES);
    for i in 0..MESSAGES {
        let role = if i % 2 == 0 {
            Role::User
        } else {
            Role::Assistant
        };
        let t = Instant::now();
        store
            .append_message(&c, NewMessage::new(text_message(role, text(i))))
            .unwrap();
        appends.push(t.elapsed());
    }
    println!(
        "appended {MESSAGES} messages one by one in {:.1} s",
        started.elapsed().as_secs_f64()
    );
    report("append one message (write + commit)", appends);

    let mut tails = Vec::new();
    for _ in 0..200 {
        let t = Instant::now();
        let tail = store.active_branch_tail(&c, 50).unwrap();
        tails.push(t.elapsed());
        assert_eq!(tail.len(), 50);
    }
    report("newest 50 of a 100k-message conversation", tails);

    for (query, hits) in [
        ("续订", "1% of messages"),
        ("renewal API", "1%"),
        ("续", "1%"),
        ("forecast", "98%"),
    ] {
        let mut searches = Vec::new();
        let mut found = 0;
        for _ in 0..20 {
            let t = Instant::now();
            found = store
                .search(query, &SearchOptions::default())
                .unwrap()
                .len();
            searches.push(t.elapsed());
        }
        report(
            &format!("search {query:?} (matches {hits}, top {found})"),
            searches,
        );
    }
    let size = std::fs::metadata(&store.paths().database).unwrap().len();
    println!("database: {:.1} MB (+ WAL)", size as f64 / 1e6);
}
