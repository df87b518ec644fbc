//! Properties of the assembler over generated sessions: the budget is never exceeded, the prompt
//! is what the explanation says, priorities and contiguity hold, expired blocks never go in, the
//! summary replaces what it covers, and the cache never changes an answer.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use std::collections::BTreeSet;

use common::*;
use proptest::prelude::*;
use serde_json::{json, Value};
use tessera_engine::assembler::{
    assemble, AssembleError, AssembleRequest, Assembly, DocumentResolver, DropReason,
    SummaryStatus, TokenCache, Why,
};
use tessera_protocol::context_doc::{ContextDocument, Priority};
use tessera_protocol::request::Role;

const WORDS: &[&str] = &[
    "alpha",
    "beta",
    "订单",
    "续订接口",
    "hello",
    "world",
    "数据",
    "tool",
    "🙂",
    "\n",
    "价格",
    "renew",
    "{\"k\": 1}",
    "  ",
    "e.g.",
    "上下文",
    "context",
    "<|endoftext|>",
];

fn text(max_words: usize) -> impl Strategy<Value = String> {
    prop::collection::vec(prop::sample::select(WORDS), 0..max_words).prop_map(|w| w.join(" "))
}

#[derive(Clone, Debug)]
struct Gen {
    messages: Vec<(String, String)>,
    evidences: Vec<(bool, String)>,
    blocks: Vec<GenBlock>,
    summary: Option<(String, u64, u64)>,
    window: u64,
    reserved_share: f64,
    history_share: f64,
    max_messages: Option<usize>,
    model: &'static str,
}

#[derive(Clone, Debug)]
struct GenBlock {
    priority: &'static str,
    content: Option<String>,
    refs: Vec<(usize, Option<&'static str>)>,
    expiry: Option<&'static str>,
}

fn message() -> impl Strategy<Value = (String, String)> {
    (
        prop::sample::select(vec![
            "user",
            "assistant",
            "tool",
            "user",
            "assistant",
            "system",
        ]),
        text(60),
    )
        .prop_map(|(r, t)| (r.to_owned(), t))
}

fn block() -> impl Strategy<Value = GenBlock> {
    (
        prop::sample::select(vec![
            "must", "high", "medium", "low", "low", "medium", "high",
        ]),
        prop::option::weighted(0.5, text(80)),
        prop::collection::vec(
            (
                0usize..12,
                prop::sample::select(vec![None, None, None, Some("lines:1-2")]),
            ),
            0..3,
        ),
        prop::sample::select(vec![
            None,
            None,
            Some(PAST),
            Some(FUTURE),
            Some(NOW),
            Some("soon"),
        ]),
    )
        .prop_map(|(priority, content, refs, expiry)| GenBlock {
            priority,
            content,
            refs,
            expiry,
        })
}

fn session() -> impl Strategy<Value = Gen> {
    (
        prop::collection::vec(message(), 1..30),
        prop::collection::vec((any::<bool>(), text(40)), 0..10),
        prop::collection::vec(block(), 0..20),
        prop::option::of((text(30), 0u64..30, 0u64..35)),
        (60u64..3_000, 0.0f64..0.5, 0.0f64..=1.0),
        prop::option::weighted(0.2, 0usize..10),
        prop::sample::select(vec!["gpt-4o", "gpt-4", "qwen-max"]),
    )
        .prop_map(
            |(
                messages,
                evidences,
                blocks,
                summary,
                (window, reserved_share, history_share),
                max_messages,
                model,
            )| Gen {
                messages,
                evidences,
                blocks,
                summary,
                window,
                reserved_share,
                history_share,
                max_messages,
                model,
            },
        )
}

fn build(g: &Gen) -> (ContextDocument, AssembleRequest) {
    let mut b = DocBuilder::new();
    for (role, content) in &g.messages {
        b = b.message(role, content);
    }
    for (i, (structured, content)) in g.evidences.iter().enumerate() {
        let value = if *structured {
            json!({"text": content, "n": i})
        } else {
            Value::String(content.clone())
        };
        b = b.evidence(&format!("ev{i}"), value);
    }
    for (i, gb) in g.blocks.iter().enumerate() {
        let mut block = json!({"block_id": format!("b{i}"), "block_type": "memory",
                               "priority": gb.priority});
        if let Some(content) = &gb.content {
            block["content"] = json!(content);
        }
        if !gb.refs.is_empty() {
            // Ids past the generated evidences are missing on purpose.
            block["refs"] = gb
                .refs
                .iter()
                .map(|(e, s)| match s {
                    Some(s) => json!({"evidence_id": format!("ev{e}"), "selector": s}),
                    None => json!({"evidence_id": format!("ev{e}")}),
                })
                .collect();
        }
        if let Some(expiry) = gb.expiry {
            block["expires_at"] = json!(expiry);
        }
        b = b.block_json(block);
    }
    if let Some((content, from, to)) = &g.summary {
        b = b.summary(content, *from, *to);
    }
    let mut request = request(g.window, (g.window as f64 * g.reserved_share) as u64);
    request.model = g.model.to_owned();
    request.policy.history_share = g.history_share;
    request.policy.max_history_messages = g.max_messages;
    (b.build(), request)
}

fn level(p: Priority) -> u8 {
    match p {
        Priority::Must => 0,
        Priority::High => 1,
        Priority::Medium => 2,
        Priority::Low => 3,
    }
}

fn check(doc: &ContextDocument, request: &AssembleRequest, out: &Assembly) {
    let e = &out.explanation;
    let overhead = request.policy.per_item_overhead;
    // The budget holds and the prompt is exactly what the explanation accounts for.
    assert!(e.budget.used <= e.budget.available, "{:?}", e.budget);
    assert_eq!(e.budget.used, recount(out, request));
    assert_eq!(e.prompt_len(), out.prompt.len());

    // Every block and message is decided exactly once.
    let n_blocks = doc.context_blocks.len();
    let mut seen = vec![0; n_blocks];
    e.blocks.iter().for_each(|b| seen[b.position] += 1);
    e.dropped_blocks.iter().for_each(|b| seen[b.position] += 1);
    assert!(seen.iter().all(|&c| c == 1), "blocks {seen:?}");
    let n_msgs = doc.session.messages.len();
    let mut seen = vec![0; n_msgs];
    e.messages.iter().for_each(|m| seen[m.index] += 1);
    for run in &e.dropped_messages {
        (run.from..=run.to).for_each(|i| seen[i] += 1);
    }
    assert!(seen.iter().all(|&c| c == 1), "messages {seen:?}");

    // System messages and the newest message are always in.
    let included = included_message_indexes(e);
    for (i, m) in doc.session.messages.iter().enumerate() {
        if m.role == Role::System || i + 1 == n_msgs {
            assert!(included.contains(&i), "message {i} must be included");
        }
    }

    // Expired blocks never go in.
    for b in &e.blocks {
        let expiry = doc.context_blocks[b.position].expires_at.as_ref();
        assert!(!matches!(expiry.map(|t| t.as_str()), Some(PAST | NOW)));
    }

    // Priority: a block dropped for budget could not fit even in what the lower levels and
    // the leftover took.
    let leftover = e.budget.available - e.budget.used;
    for d in e
        .dropped_blocks
        .iter()
        .filter(|d| d.reason == DropReason::Budget)
    {
        let lower: u64 = e
            .blocks
            .iter()
            .filter(|b| level(b.priority) > level(d.priority))
            .map(|b| b.tokens)
            .sum();
        match d.tokens {
            Some(cost) => assert!(cost > leftover + lower, "{d:?} left {leftover} + {lower}"),
            None => assert!(leftover + lower <= overhead, "{d:?} uncounted"),
        }
    }

    // History: among non-system messages not summarised, the included ones are a suffix.
    let summarised: BTreeSet<usize> = e
        .dropped_messages
        .iter()
        .filter(|r| r.reason == DropReason::Summarised)
        .flat_map(|r| r.from..=r.to)
        .collect();
    let history: Vec<usize> = (0..n_msgs)
        .filter(|&i| doc.session.messages[i].role != Role::System && !summarised.contains(&i))
        .collect();
    let first_in = history.iter().position(|i| included.contains(i));
    if let Some(first_in) = first_in {
        assert!(history[first_in..].iter().all(|i| included.contains(i)));
    }

    // The summary stands in for exactly its range.
    let in_prompt = out
        .prompt
        .iter()
        .any(|p| p.source == tessera_engine::assembler::PromptSource::Summary);
    assert_eq!(in_prompt, e.summary.status == SummaryStatus::Used);
    if e.summary.status == SummaryStatus::Used {
        assert!(e.history.exceeded_by.is_some());
        let (from, to) = (
            e.summary.from.unwrap() as usize,
            e.summary.to.unwrap() as usize,
        );
        for i in from..=to {
            let m = &doc.session.messages[i];
            if m.role != Role::System && i + 1 != n_msgs {
                assert_eq!(message_drop(e, i), Some(DropReason::Summarised));
            }
        }
    } else {
        assert!(summarised.is_empty());
    }
    // The history cap binds everything but the newest message and the backfill.
    let tokens_of = |why: Why| -> u64 {
        e.messages
            .iter()
            .filter(|m| m.why == why)
            .map(|m| m.tokens)
            .sum()
    };
    let latest = tokens_of(Why::Latest);
    assert!(e.budget.history_used - tokens_of(Why::Backfill) <= e.budget.history_cap.max(latest));
}

trait PromptLen {
    fn prompt_len(&self) -> usize;
}

impl PromptLen for tessera_engine::assembler::Explanation {
    fn prompt_len(&self) -> usize {
        self.blocks.len()
            + self.messages.len()
            + usize::from(self.summary.status == SummaryStatus::Used)
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn generated_sessions_respect_the_budget(g in session()) {
        let (doc, request) = build(&g);
        let resolver = DocumentResolver::new(&doc);
        let cache = TokenCache::new();
        let cold = assemble(&doc, &request, &resolver, &cache);
        let warm = assemble(&doc, &request, &resolver, &cache);
        prop_assert_eq!(&cold, &warm);
        match cold {
            Ok(out) => check(&doc, &request, &out),
            Err(AssembleError::MustExceedsBudget { needed, available, priming, items }) => {
                prop_assert!(needed > available);
                prop_assert_eq!(needed, priming + items.iter().map(|i| i.tokens).sum::<u64>());
            }
            Err(other) => prop_assert!(false, "unexpected error {other}"),
        }
    }
}

/// The generator reaches every outcome the properties are about (so they are not vacuous).
#[test]
fn generated_sessions_cover_every_outcome() {
    use proptest::strategy::ValueTree;
    use proptest::test_runner::{Config, TestRng, TestRunner};
    let mut runner = TestRunner::new_with_rng(
        Config::default(),
        TestRng::deterministic_rng(proptest::test_runner::RngAlgorithm::ChaCha),
    );
    let mut seen = BTreeSet::new();
    for _ in 0..300 {
        let g = session().new_tree(&mut runner).unwrap().current();
        let (doc, request) = build(&g);
        match run(&doc, &request) {
            Ok(out) => {
                let e = &out.explanation;
                seen.insert("ok");
                if e.summary.status == SummaryStatus::Used {
                    seen.insert("summary_used");
                }
                for d in &e.dropped_blocks {
                    seen.insert(match d.reason {
                        DropReason::Expired => "expired",
                        DropReason::Budget => "block_budget",
                        DropReason::UnresolvableRef => "unresolvable",
                        DropReason::Empty => "empty",
                        DropReason::Duplicate => "duplicate",
                        DropReason::Summarised => "block_summarised?",
                    });
                }
                if e.dropped_messages
                    .iter()
                    .any(|r| r.reason == DropReason::Budget)
                {
                    seen.insert("message_budget");
                }
                if e.messages.iter().any(|m| m.why == Why::Backfill) {
                    seen.insert("backfill");
                }
                if e.blocks.iter().any(|b| b.priority == Priority::Low)
                    && e.dropped_blocks.iter().any(|d| {
                        d.reason == DropReason::Budget && level(d.priority) < level(Priority::Low)
                    })
                {
                    seen.insert("low_in_while_higher_dropped");
                }
            }
            Err(AssembleError::MustExceedsBudget { .. }) => {
                seen.insert("must_overflow");
            }
            Err(other) => panic!("unexpected {other}"),
        }
    }
    eprintln!("outcomes seen: {seen:?}");
    for wanted in [
        "ok",
        "summary_used",
        "expired",
        "block_budget",
        "unresolvable",
        "empty",
        "message_budget",
        "backfill",
        "must_overflow",
        "duplicate",
        "low_in_while_higher_dropped",
    ] {
        assert!(seen.contains(wanted), "never saw {wanted}: {seen:?}");
    }
}
