//! Edge cases of the context assembler, one behaviour per test.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use common::*;
use serde_json::json;
use tessera_engine::assembler::{
    assemble, AssembleError, AssembleRequest, DocumentResolver, DropReason, Encoding,
    EvidenceResolver, MustItem, PromptSource, RenderedFrom, ResolveError, SummaryStatus,
    TokenCache, Why,
};
use tessera_protocol::request::Role;

#[test]
fn everything_fits_in_prompt_order() {
    let doc = DocBuilder::new()
        .system("You are Tessera.")
        .user("first question")
        .assistant("first answer")
        .user("second question")
        .block("b-low", "low", "low note")
        .block("b-must", "must", "must note")
        .block("b-high", "high", "high note")
        .build();
    let request = request(10_000, 1_000);
    let out = run(&doc, &request).unwrap();
    let sources: Vec<_> = out.prompt.iter().map(|p| p.source.clone()).collect();
    let block = |id: &str| PromptSource::Block {
        block_id: id.into(),
    };
    assert_eq!(
        sources,
        vec![
            PromptSource::Message { index: 0 },
            block("b-low"),
            block("b-must"),
            block("b-high"),
            PromptSource::Message { index: 1 },
            PromptSource::Message { index: 2 },
            PromptSource::Message { index: 3 },
        ]
    );
    let e = &out.explanation;
    assert_eq!(e.budget.available, 9_000);
    assert_eq!(e.budget.used, recount(&out, &request));
    assert!(e.dropped_blocks.is_empty() && e.dropped_messages.is_empty());
    assert_eq!(e.summary.status, SummaryStatus::Absent);
    let whys: Vec<_> = e.messages.iter().map(|m| m.why).collect();
    assert_eq!(whys, [Why::System, Why::Recent, Why::Recent, Why::Latest]);
    assert_eq!(e.blocks[1].why, Why::Must);
    assert_eq!(e.blocks[0].why, Why::Priority);
    assert!(e.encoding_exact);
    assert_eq!(e.encoding, Encoding::O200kBase);
    assert_eq!(e.now, "2026-02-10T10:00:00.000Z");
}

#[test]
fn must_only_overflow_names_the_items() {
    let big = words(400);
    let doc = DocBuilder::new()
        .system("sys")
        .user("question")
        .block("m1", "must", &big)
        .block("m2", "must", &format!("{big} again"))
        .block("h1", "high", "fine")
        .build();
    let err = run(&doc, &request(600, 100)).unwrap_err();
    let AssembleError::MustExceedsBudget {
        needed,
        available,
        priming,
        items,
    } = &err
    else {
        panic!("unexpected {err:?}")
    };
    assert_eq!(*available, 500);
    assert!(*needed > *available);
    assert_eq!(
        *needed,
        *priming + items.iter().map(|i| i.tokens).sum::<u64>()
    );
    let ids: Vec<_> = items.iter().map(|i| i.item.clone()).collect();
    assert!(ids.contains(&MustItem::Block {
        block_id: "m1".into()
    }));
    assert!(ids.contains(&MustItem::Block {
        block_id: "m2".into()
    }));
    let m1 = items
        .iter()
        .find(|i| matches!(&i.item, MustItem::Block { block_id } if block_id == "m1"))
        .unwrap();
    assert_eq!(m1.tokens, item_tokens(Encoding::O200kBase, &big, 4));
    let text = err.to_string();
    assert!(text.contains("block m1") && text.contains("500"), "{text}");
}

#[test]
fn latest_message_too_big_is_a_must_error() {
    let doc = DocBuilder::new().user(&words(300)).build();
    let err = run(&doc, &request(200, 10)).unwrap_err();
    assert!(matches!(
        err,
        AssembleError::MustExceedsBudget { ref items, .. }
            if items[0].item == MustItem::Message { index: 0, role: "user".into() }
    ));
}

#[test]
fn invalid_budget_and_policy() {
    let doc = DocBuilder::new().user("q").build();
    assert_eq!(
        run(&doc, &request(100, 100)).unwrap_err(),
        AssembleError::InvalidBudget {
            window: 100,
            reserved: 100
        }
    );
    let mut bad = request(100, 10);
    bad.policy.history_share = -0.1;
    assert!(matches!(
        run(&doc, &bad),
        Err(AssembleError::InvalidPolicy { .. })
    ));
}

#[test]
fn priority_levels_before_recency() {
    // Room for exactly one of the two 50-word blocks after the must items.
    let text = words(50);
    let cost = item_tokens(Encoding::O200kBase, &text, 4);
    let doc = DocBuilder::new()
        .user("q")
        .block("medium", "medium", &format!("{text} m"))
        .block("low", "low", &format!("{text} l"))
        .build();
    let q = item_tokens(Encoding::O200kBase, "q", 4);
    let request = request(3 + q + cost + 2 + 1_000, 1_000);
    let out = run(&doc, &request).unwrap();
    let e = &out.explanation;
    assert_eq!(included_block_ids(e), ["medium".to_owned()].into());
    assert_eq!(dropped_block(e, "low").unwrap().reason, DropReason::Budget);
    assert!(e.budget.used <= e.budget.available);
}

#[test]
fn a_smaller_lower_block_may_take_what_a_bigger_one_could_not() {
    let doc = DocBuilder::new()
        .user("q")
        .block("big-medium", "medium", &words(200))
        .block("small-low", "low", "tiny")
        .build();
    let out = run(&doc, &request(1_100, 1_000)).unwrap();
    let e = &out.explanation;
    assert_eq!(included_block_ids(e), ["small-low".to_owned()].into());
    let dropped = dropped_block(e, "big-medium").unwrap();
    assert_eq!(dropped.reason, DropReason::Budget);
    assert!(dropped.tokens.unwrap() > e.budget.available - e.budget.used);
}

#[test]
fn most_recent_first_within_a_level() {
    let text = words(50);
    let cost = item_tokens(Encoding::O200kBase, &format!("{text} a"), 4);
    let doc = DocBuilder::new()
        .user("q")
        .block("older", "high", &format!("{text} a"))
        .block("newer", "high", &format!("{text} b"))
        .build();
    let q = item_tokens(Encoding::O200kBase, "q", 4);
    let out = run(&doc, &request(3 + q + cost + 1 + 100, 100)).unwrap();
    assert_eq!(
        included_block_ids(&out.explanation),
        ["newer".to_owned()].into()
    );
}

#[test]
fn expired_blocks_are_dropped_even_must() {
    let doc = DocBuilder::new()
        .user("q")
        .block_json(
            json!({"block_id": "gone", "block_type": "state", "priority": "must",
                           "content": "old state", "expires_at": PAST}),
        )
        .block_json(
            json!({"block_id": "now", "block_type": "state", "priority": "high",
                           "content": "expires this instant", "expires_at": NOW}),
        )
        .block_json(
            json!({"block_id": "fresh", "block_type": "state", "priority": "high",
                           "content": "new state", "expires_at": FUTURE}),
        )
        .block_json(
            json!({"block_id": "odd", "block_type": "state", "priority": "low",
                           "content": "bad date", "expires_at": "tomorrow"}),
        )
        .block_json(
            json!({"block_id": "zoned", "block_type": "state", "priority": "low",
                           "content": "zoned", "expires_at": "2026-02-10T17:59:00+08:00"}),
        )
        .build();
    let out = run(&doc, &request(10_000, 0)).unwrap();
    let e = &out.explanation;
    for id in ["gone", "now", "zoned"] {
        let d = dropped_block(e, id).unwrap();
        assert_eq!(d.reason, DropReason::Expired, "{id}");
        assert!(d.expires_at.is_some());
    }
    assert_eq!(
        included_block_ids(e),
        ["fresh".to_owned(), "odd".to_owned()].into()
    );
}

fn long_conversation(n: usize) -> common::DocBuilder {
    let mut b = DocBuilder::new().system("You are Tessera.");
    for i in 1..n {
        let role = if i % 2 == 1 { "user" } else { "assistant" };
        b = b.message(role, &format!("message {i}: {}", words(40)));
    }
    b
}

#[test]
fn summary_replaces_covered_messages_once_over_threshold() {
    let doc = long_conversation(41)
        .summary("Earlier: the user asked about renewals.", 1, 30)
        .build();
    let request = request(4_000, 500);
    let out = run(&doc, &request).unwrap();
    let e = &out.explanation;
    assert_eq!(e.summary.status, SummaryStatus::Used);
    assert_eq!((e.summary.from, e.summary.to), (Some(1), Some(30)));
    assert!(e.history.exceeded_by.is_some());
    for i in 1..=30 {
        assert_eq!(message_drop(e, i), Some(DropReason::Summarised), "{i}");
    }
    assert!(included_message_indexes(e).contains(&0));
    assert!(included_message_indexes(e).contains(&40));
    let summary_pos = out
        .prompt
        .iter()
        .position(|p| p.source == PromptSource::Summary)
        .unwrap();
    assert!(out.prompt[summary_pos]
        .content
        .contains("the user asked about renewals"));
    assert_eq!(out.prompt[summary_pos].role, Role::System);
    // The summary comes before every non-leading message.
    assert!(out.prompt[summary_pos + 1..]
        .iter()
        .all(|p| matches!(p.source, PromptSource::Message { index } if index > 30)));
    assert!(e.budget.history_used <= e.budget.history_cap);
    assert_eq!(e.budget.used, recount(&out, &request));
    assert_eq!(
        e.summary.content.as_deref(),
        Some(out.prompt[summary_pos].content.as_str())
    );
}

#[test]
fn summary_not_needed_while_history_fits() {
    let doc = long_conversation(5).summary("covered", 1, 2).build();
    let out = run(&doc, &request(100_000, 0)).unwrap();
    let e = &out.explanation;
    assert_eq!(e.summary.status, SummaryStatus::NotNeeded);
    assert_eq!(included_message_indexes(e), (0..5).collect());
    assert!(out.prompt.iter().all(|p| p.source != PromptSource::Summary));
}

#[test]
fn message_count_threshold_triggers_the_summary() {
    let doc = long_conversation(11).summary("covered", 1, 6).build();
    let mut request = request(100_000, 0);
    request.policy.max_history_messages = Some(5);
    let e = run(&doc, &request).unwrap().explanation;
    assert_eq!(e.summary.status, SummaryStatus::Used);
    assert_eq!(
        e.history.exceeded_by,
        Some(tessera_engine::assembler::HistoryTrigger::Messages)
    );
    assert_eq!(included_message_indexes(&e), [0, 7, 8, 9, 10].into());
}

#[test]
fn empty_or_rangeless_summary_is_not_used() {
    let doc = long_conversation(41).summary("", 0, 0).build();
    let e = run(&doc, &request(2_000, 0)).unwrap().explanation;
    assert_eq!(e.summary.status, SummaryStatus::Empty);
    assert!(e
        .dropped_messages
        .iter()
        .all(|r| r.reason == DropReason::Budget));
    let doc = long_conversation(41).summary("text", 50, 60).build();
    let e = run(&doc, &request(2_000, 0)).unwrap().explanation;
    assert_eq!(e.summary.status, SummaryStatus::NoRange);
}

#[test]
fn history_is_contiguous_and_backfilled() {
    let doc = DocBuilder::new()
        .user("old small")
        .assistant(&words(300))
        .user("recent")
        .assistant("recent answer")
        .user("now")
        .build();
    let request = request(250, 0);
    let e = run(&doc, &request).unwrap().explanation;
    // The 300-word message does not fit: the small one before it is not sent either.
    assert_eq!(included_message_indexes(&e), [2, 3, 4].into());
    assert_eq!(message_drop(&e, 0), Some(DropReason::Budget));
    assert_eq!(message_drop(&e, 1), Some(DropReason::Budget));

    // A tiny history share: the cap stops the history, the backfill extends it.
    let doc = long_conversation(9).build();
    let mut request = common::request(100_000, 0);
    request.policy.history_share = 0.0;
    let e = run(&doc, &request).unwrap().explanation;
    assert_eq!(included_message_indexes(&e), (0..9).collect());
    assert!(e.messages.iter().any(|m| m.why == Why::Backfill));
    assert!(e.messages.iter().all(|m| m.why != Why::Recent));
}

#[test]
fn chinese_text_is_counted_by_tokens_not_characters() {
    let text = "包周期续订的接口是什么？请给出调用示例，并说明需要哪些权限。";
    let chars = text.chars().count() as u64;
    let o200k = Encoding::O200kBase.count(text).unwrap();
    let cl100k = Encoding::Cl100kBase.count(text).unwrap();
    // Far more than the 4-characters-per-token rule of thumb for English.
    assert!(o200k * 4 > chars && cl100k * 4 > chars, "{o200k} {cl100k}");
    assert!(
        cl100k >= o200k,
        "o200k is the denser vocabulary for Chinese"
    );
    let doc = DocBuilder::new().user(text).build();
    let e = run(&doc, &request(1_000, 0)).unwrap().explanation;
    assert_eq!(e.messages[0].tokens, o200k + 4);
    let mut deepseek = request(1_000, 0);
    deepseek.model = "deepseek-chat".into();
    let e = run(&doc, &deepseek).unwrap().explanation;
    assert_eq!(e.messages[0].tokens, cl100k + 4);
    assert!(!e.encoding_exact);
}

#[test]
fn cached_and_cold_give_identical_results() {
    let doc = long_conversation(60)
        .summary("summary", 1, 20)
        .evidence("e1", json!("evidence one"))
        .block_refs("r1", "high", &[("e1", None)])
        .block("c1", "medium", &words(80))
        .block("c2", "low", &words(500))
        .build();
    let request = request(3_000, 300);
    let cache = TokenCache::new();
    let resolver = DocumentResolver::new(&doc);
    let first = assemble(&doc, &request, &resolver, &cache).unwrap();
    let misses = cache.stats().misses;
    let second = assemble(&doc, &request, &resolver, &cache).unwrap();
    assert_eq!(first, second);
    assert_eq!(cache.stats().misses, misses, "the warm run counted nothing");
    assert!(cache.stats().hits > 0);
    let cold = run(&doc, &request).unwrap();
    assert_eq!(first, cold);
    // A tiny cache that keeps evicting still gives the same answer.
    let tiny = TokenCache::with_capacity(2);
    assert_eq!(assemble(&doc, &request, &resolver, &tiny).unwrap(), first);
}

#[test]
fn unresolvable_refs_are_reported_not_panicking() {
    let doc = DocBuilder::new()
        .user("q")
        .evidence("ok", json!("fine text"))
        .evidence("structured", json!({"rows": [1, 2]}))
        .block_refs("missing", "must", &[("ok", None), ("nope", None)])
        .block_refs("selector", "high", &[("ok", Some("lines:1-2"))])
        .block_refs("good", "low", &[("ok", None), ("structured", None)])
        .block_json(json!({"block_id": "blank", "block_type": "plan", "priority": "high"}))
        .build();
    let out = run(&doc, &request(10_000, 0)).unwrap();
    let e = &out.explanation;
    let missing = dropped_block(e, "missing").unwrap();
    assert_eq!(missing.reason, DropReason::UnresolvableRef);
    assert_eq!(
        missing.errors[0].error,
        ResolveError::NotFound {
            evidence_id: "nope".into()
        }
    );
    let selector = dropped_block(e, "selector").unwrap();
    assert!(matches!(
        selector.errors[0].error,
        ResolveError::UnsupportedSelector { .. }
    ));
    assert_eq!(selector.errors[0].selector.as_deref(), Some("lines:1-2"));
    assert_eq!(dropped_block(e, "blank").unwrap().reason, DropReason::Empty);
    assert_eq!(included_block_ids(e), ["good".to_owned()].into());
    assert_eq!(e.blocks[0].rendered_from, RenderedFrom::Refs);
    let good = out
        .prompt
        .iter()
        .find(|p| matches!(&p.source, PromptSource::Block { block_id } if block_id == "good"))
        .unwrap();
    assert!(good.content.contains("fine text") && good.content.contains(r#"{"rows":[1,2]}"#));
    let used: Vec<_> = e.evidences.iter().map(|u| u.evidence_id.as_str()).collect();
    assert_eq!(used, ["ok", "structured"]);
    assert!(e
        .evidences
        .iter()
        .all(|u| u.rendered && u.tokens.unwrap() > 0));
    let json = serde_json::to_value(e).unwrap();
    assert_eq!(
        json["dropped_blocks"][0]["errors"][0]["error"]["kind"],
        "not_found"
    );
}

#[test]
fn a_plugged_in_resolver_applies_selectors() {
    let doc = DocBuilder::new()
        .user("q")
        .block_refs("b", "high", &[("ev", Some("lines:2-2"))])
        .build();
    let resolver = |id: &str, selector: Option<&str>| -> Result<String, ResolveError> {
        match selector {
            Some("lines:2-2") => Ok(format!("line two of {id}")),
            other => Err(ResolveError::InvalidSelector {
                evidence_id: id.into(),
                selector: other.unwrap_or_default().into(),
                reason: "unexpected".into(),
            }),
        }
    };
    let resolver: &dyn EvidenceResolver = &resolver;
    let out = assemble(&doc, &request(1_000, 0), resolver, &TokenCache::new()).unwrap();
    assert!(out.prompt[0].content.contains("line two of ev"));
    assert_eq!(
        out.explanation.evidences[0].selector.as_deref(),
        Some("lines:2-2")
    );
}

#[test]
fn duplicates_and_content_blocks_with_refs() {
    let doc = DocBuilder::new()
        .user("q")
        .evidence("e", json!("source"))
        .block_json(
            json!({"block_id": "derived", "block_type": "memory", "priority": "high",
                           "content": "same text", "refs": [{"evidence_id": "e"}],
                           "token_estimate": 3}),
        )
        .block("twin", "low", "same text")
        .build();
    let e = run(&doc, &request(1_000, 0)).unwrap().explanation;
    let twin = dropped_block(&e, "twin").unwrap();
    assert_eq!(twin.reason, DropReason::Duplicate);
    assert_eq!(twin.duplicate_of.as_deref(), Some("derived"));
    assert_eq!(e.evidences.len(), 1);
    assert!(!e.evidences[0].rendered && e.evidences[0].tokens.is_none());
    assert_eq!(e.blocks[0].token_estimate, Some(3));
    assert_eq!(e.blocks[0].rendered_from, RenderedFrom::Content);
}

#[test]
fn explanation_round_trips_with_stable_names() {
    let doc = long_conversation(30)
        .message_json(
            json!({"role": "user", "content": "last", "message_id": "m-30",
                             "refs": [{"evidence_id": "e", "selector": "chars:1-2"}]}),
        )
        .summary("summary", 1, 10)
        .block("b", "low", &words(5_000))
        .build();
    let out = run(&doc, &request(1_500, 100)).unwrap();
    let json = serde_json::to_value(&out.explanation).unwrap();
    let keys: Vec<_> = json.as_object().unwrap().keys().cloned().collect();
    assert_eq!(
        keys,
        [
            "version",
            "session_id",
            "model",
            "encoding",
            "encoding_exact",
            "now",
            "budget",
            "history",
            "summary",
            "blocks",
            "messages",
            "evidences",
            "dropped_blocks",
            "dropped_messages"
        ]
    );
    assert_eq!(json["encoding"], "o200k_base");
    assert_eq!(json["budget"]["available"], 1_400);
    let last = json["messages"].as_array().unwrap().last().unwrap().clone();
    assert_eq!(last["message_id"], "m-30");
    assert_eq!(last["why"], "latest");
    assert_eq!(last["refs"][0]["evidence_id"], "e");
    assert_eq!(json["dropped_blocks"][0]["reason"], "budget");
    let back: tessera_engine::assembler::Explanation = serde_json::from_value(json).unwrap();
    assert_eq!(back, out.explanation);
    let prompt = serde_json::to_value(&out.prompt[0]).unwrap();
    assert_eq!(
        prompt,
        json!({"role": "system", "content": "You are Tessera.",
               "source": {"kind": "message", "index": 0}})
    );
}

#[test]
fn request_builder_defaults() {
    let r = AssembleRequest::new("gpt-5", 400_000, 128_000, now());
    assert_eq!(r.policy.per_item_overhead, 4);
    assert!(r.policy.keep_latest_message);
}

#[test]
fn the_system_prompt_and_the_tool_declarations_take_their_tokens_first() {
    let system_prompt = "You are Tessera, a helpful assistant on the person's computer. Answer in \
        the language the person writes in. Be accurate and concise; say so when you are unsure. \
        Use the available tools when they give a better answer than guessing, and never invent a \
        tool's result.";
    let tools = serde_json::to_string(&json!([{
        "name": "get_weather",
        "description": "The weather at a place, now and for the next days.",
        "input_schema": {"type": "object", "properties": {"place": {"type": "string"}},
                         "required": ["place"]}
    }]))
    .unwrap();
    let doc = DocBuilder::new()
        .user(&words(60))
        .assistant("an answer")
        .user("the question")
        .build();
    let roomy = run(&doc, &request(10_000, 100)).unwrap();
    // A window the document alone just fits in.
    let window = roomy.explanation.budget.used + 100 + 10;
    let without = run(&doc, &request(window, 100)).unwrap();
    assert!(without.explanation.dropped_messages.is_empty());
    assert_eq!(without.explanation.budget.system_prompt, 0);
    assert_eq!(without.explanation.budget.tools, 0);

    let mut sent = request(window, 100);
    sent.system_prompt = Some(system_prompt.into());
    sent.tool_declarations = Some(tools.clone());
    let out = run(&doc, &sent).unwrap();
    let e = &out.explanation;
    let encoding = e.encoding;
    // Counted as the prompt really is (about 55 tokens), not as an empty message.
    let prompt_tokens = item_tokens(encoding, system_prompt, 4);
    assert!(prompt_tokens > 40, "{prompt_tokens}");
    assert_eq!(e.budget.system_prompt, prompt_tokens);
    let tool_tokens = encoding.count(&tools).unwrap();
    assert!(tool_tokens > 30, "{tool_tokens}");
    assert_eq!(e.budget.tools, tool_tokens);
    // Both are spent before anything else: what is left free is what really is.
    assert_eq!(
        e.budget.used,
        recount(&out, &sent) + prompt_tokens + tool_tokens
    );
    assert!(e.budget.must >= prompt_tokens + tool_tokens);
    assert!(e.budget.used <= e.budget.available);
    // The oldest message that fit without them no longer does.
    assert_eq!(message_drop(e, 0), Some(DropReason::Budget));

    // Too big to send at all: named.
    let mut tight = request(prompt_tokens + tool_tokens + 10, 10);
    tight.system_prompt = Some(system_prompt.into());
    tight.tool_declarations = Some(tools);
    let Err(AssembleError::MustExceedsBudget { items, .. }) = run(&doc, &tight) else {
        panic!("the must items should not fit");
    };
    assert!(items.iter().any(|i| i.item == MustItem::SystemPrompt));
    assert!(items.iter().any(|i| i.item == MustItem::ToolDeclarations));
}
