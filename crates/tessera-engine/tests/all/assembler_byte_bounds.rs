//! Counting by byte lengths (`Counting::BytesWhenTheyFit`, what `tessera chat` asks for): used
//! only when no count could change what is sent, and said in the explanation.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use common::*;
use tessera_engine::assembler::{AssembleRequest, Assembly, Counting, SummaryStatus};

fn both(
    doc: &tessera_protocol::context_doc::ContextDocument,
    request: &AssembleRequest,
) -> (Assembly, Assembly) {
    let exact = run(doc, request).unwrap();
    let mut bounded = request.clone();
    bounded.counting = Counting::BytesWhenTheyFit;
    (exact, run(doc, &bounded).unwrap())
}

fn sent(assembly: &Assembly) -> Vec<(String, String)> {
    assembly
        .prompt
        .iter()
        .map(|p| (format!("{:?}", p.source), p.content.clone()))
        .collect()
}

#[test]
fn a_conversation_that_fits_at_byte_lengths_is_sent_whole_and_says_its_figures_are_bounds() {
    let doc = DocBuilder::new()
        .system("You are Tessera.")
        .user("première question — 你好")
        .assistant("first answer")
        .user("second question")
        .block("b-high", "high", "high note")
        .build();
    let request = request(10_000, 1_000);
    let (exact, bounded) = both(&doc, &request);
    assert_eq!(sent(&bounded), sent(&exact));
    let (e, b) = (&exact.explanation, &bounded.explanation);
    assert!(!e.byte_bounds);
    assert!(b.byte_bounds);
    // Every figure is a byte length, so at least the exact count.
    let overhead = request.policy.per_item_overhead;
    assert_eq!(
        b.messages[1].tokens,
        "première question — 你好".len() as u64 + overhead
    );
    assert!(b.budget.used > e.budget.used);
    let json = serde_json::to_value(b).unwrap();
    assert_eq!(json["byte_bounds"], true);
    assert!(serde_json::to_value(e)
        .unwrap()
        .get("byte_bounds")
        .is_none());
}

#[test]
fn a_conversation_whose_counts_decide_is_counted_exactly() {
    // Over the history threshold at byte lengths: the summary and what is dropped depend on the
    // counts, so they are made exactly.
    let mut builder = DocBuilder::new().system("You are Tessera.");
    for i in 1..41 {
        let role = if i % 2 == 1 { "user" } else { "assistant" };
        builder = builder.message(role, &format!("message {i}: {}", words(40)));
    }
    let doc = builder
        .summary("Earlier: the user asked about renewals.", 1, 30)
        .build();
    let request = request(4_000, 500);
    let (exact, bounded) = both(&doc, &request);
    assert_eq!(exact.explanation.summary.status, SummaryStatus::Used);
    assert!(!bounded.explanation.byte_bounds);
    assert_eq!(bounded.explanation, exact.explanation);
    assert_eq!(sent(&bounded), sent(&exact));
}

#[test]
fn whatever_the_size_the_same_prompt_is_sent() {
    // From a few messages to far past the window: byte bounds never change what is sent.
    for n in [1usize, 3, 10, 30, 60, 120] {
        let mut builder = DocBuilder::new().system("You are Tessera.");
        for i in 1..=n {
            let role = if i % 2 == 1 { "user" } else { "assistant" };
            builder = builder.message(role, &format!("message {i}: {}", words(30)));
        }
        let doc = builder.block("memo", "medium", &words(50)).build();
        for window in [2_000u64, 8_000, 128_000] {
            let (exact, bounded) = both(&doc, &request(window, window / 8));
            assert_eq!(
                sent(&bounded),
                sent(&exact),
                "{n} messages, window {window}"
            );
        }
    }
}
