//! The event-order checker (issue 6): run on the JSON of every easyflow-chat stream the suites
//! see — events collected in Rust, NDJSON from the CLI, SSE data — it checks that one run's
//! events arrive in an order a client can rely on:
//!
//! - one conversation;
//! - `meta.seq` strictly increasing without gaps; a folded whole message (`meta.replaces
//!   {from, to}`, docs/design.md "Persistence") covers `from..=to`; a stream resumed after a
//!   `Last-Event-ID` ([`check_resumed`]) starts right after it, or with the folded event whose
//!   range reaches past it;
//! - `meta.run_id` present and the same on every event;
//! - `system/status` states follow seed 002 section 15: `running` first (or `initializing` then
//!   `running`), `suspended` only from `running`/`resumed`, `resumed` only after `suspended`,
//!   `cancelled`/`failed`/`completed` terminal and exactly one of them (unless a fatal error cut
//!   the stream), nothing but `system/done` after it;
//! - `system/done` last and at most once (its `meta.state`, when given, is the terminal state);
//! - every `tool_call` has a later `tool_result` with its id (unless the run was cancelled or
//!   failed), no `tool_result` without its `tool_queued`/`tool_call` before it, `tool_started`
//!   (and `tool_progress`) between the call and its result;
//! - the streamed blocks of a message (`message_id`, type, and the payload's `block`, else
//!   `index`, of `llm/thinking` and `llm/message`) do not interleave: once another block of the
//!   message has started, an earlier one never receives more;
//! - a message's streamed pieces have growing `index`es (seed 002 §4.2, 流式输出序号);
//! - a fatal `system/error` (`retryable` not true) comes right before the terminal `failed`
//!   status, or ends the stream.
//!
//! Every problem is reported with the seq of the event it was found at.

use std::collections::HashMap;

use serde_json::Value;

/// Checks the events of one whole run, from its first event on.
pub fn check_run(events: &[Value]) -> Result<(), Vec<String>> {
    Checker::new(None).run(events)
}

/// Checks the events a client received after reconnecting with `Last-Event-ID: last_event_id`:
/// the same rules, but the stream starts inside the run (its first events, statuses and calls
/// may be behind the cut).
pub fn check_resumed(events: &[Value], last_event_id: u64) -> Result<(), Vec<String>> {
    Checker::new(Some(last_event_id)).run(events)
}

const TERMINAL: [&str; 3] = ["cancelled", "failed", "completed"];

fn is_terminal(state: &str) -> bool {
    TERMINAL.contains(&state)
}

/// A tool call's progress through the stream.
#[derive(Default)]
struct Call {
    queued: Option<String>,
    called: Option<String>,
    started: Option<String>,
    result: Option<String>,
}

/// The streamed blocks of one message.
#[derive(Default)]
struct Blocks {
    /// The block receiving deltas now and where it started.
    current: Option<(BlockKey, String)>,
    /// Blocks that ended (another block started, or their whole event came), and where.
    ended: HashMap<BlockKey, String>,
    /// The last delta's `index` and where it was: the next one is greater.
    last_index: Option<(u64, String)>,
}

type BlockKey = (String, Option<u64>);

struct Checker {
    resumed_after: Option<u64>,
    problems: Vec<String>,
    conversation: Option<String>,
    run_id: Option<String>,
    /// The last seq covered so far.
    covered: Option<u64>,
    state: Option<String>,
    terminal: Option<(String, String)>,
    done: Option<String>,
    fatal: Option<String>,
    calls: HashMap<String, Call>,
    call_order: Vec<String>,
    blocks: HashMap<String, Blocks>,
}

fn str_at<'a>(value: &'a Value, pointer: &str) -> Option<&'a str> {
    value.pointer(pointer).and_then(Value::as_str)
}

impl Checker {
    fn new(resumed_after: Option<u64>) -> Self {
        Self {
            resumed_after,
            problems: Vec::new(),
            conversation: None,
            run_id: None,
            covered: None,
            state: None,
            terminal: None,
            done: None,
            fatal: None,
            calls: HashMap::new(),
            call_order: Vec::new(),
            blocks: HashMap::new(),
        }
    }

    fn run(mut self, events: &[Value]) -> Result<(), Vec<String>> {
        let mut previous_was_fatal: Option<String> = None;
        for (position, event) in events.iter().enumerate() {
            let at = match event.pointer("/meta/seq").and_then(Value::as_u64) {
                Some(seq) => format!("seq {seq}"),
                None => format!("event #{position} (no seq)"),
            };
            let domain = str_at(event, "/domain").unwrap_or_default();
            let kind = str_at(event, "/type").unwrap_or_default();
            let name = format!("{domain}/{kind}");
            if let Some(fatal_at) = previous_was_fatal.take() {
                let state = str_at(event, "/payload/state").unwrap_or_default();
                if name != "system/status" || state != "failed" {
                    self.problem(format!(
                        "{at}: {name} after the fatal system/error at {fatal_at}; only the \
                         terminal `failed` status may follow it"
                    ));
                }
            }
            self.envelope(event, &at);
            if let Some(done_at) = &self.done {
                self.problems
                    .push(format!("{at}: {name} after system/done at {done_at}"));
            } else if let Some((terminal, terminal_at)) = &self.terminal {
                if name != "system/done" {
                    self.problems.push(format!(
                        "{at}: {name} after the terminal status `{terminal}` at {terminal_at}"
                    ));
                }
            }
            match (domain, kind) {
                ("system", "status") => self.status(event, &at),
                ("system", "done") => self.done(event, &at),
                // `retryable` not true: the run's fatal error.
                ("system", "error")
                    if event.pointer("/payload/retryable") != Some(&Value::Bool(true)) =>
                {
                    if let Some(first) = &self.fatal {
                        self.problems.push(format!(
                            "{at}: a second fatal system/error (the first at {first})"
                        ));
                    }
                    self.fatal.get_or_insert_with(|| at.clone());
                    previous_was_fatal = Some(at.clone());
                }
                (
                    "tool",
                    "tool_queued" | "tool_call" | "tool_started" | "tool_progress" | "tool_result",
                ) => self.tool(event, kind, &at),
                ("llm", "thinking" | "message") => self.block(event, kind, &at),
                _ => {}
            }
        }
        self.finish();
        if self.problems.is_empty() {
            Ok(())
        } else {
            Err(self.problems)
        }
    }

    fn problem(&mut self, text: String) {
        self.problems.push(text);
    }

    /// Conversation, run id and seq coverage.
    fn envelope(&mut self, event: &Value, at: &str) {
        match (str_at(event, "/conversation_id"), &self.conversation) {
            (None, _) => self.problem(format!("{at}: no conversation_id")),
            (Some(c), None) => self.conversation = Some(c.to_owned()),
            (Some(c), Some(first)) if c != first => self.problem(format!(
                "{at}: conversation `{c}` in a stream of conversation `{first}`"
            )),
            _ => {}
        }
        match (str_at(event, "/meta/run_id"), &self.run_id) {
            (None, _) => self.problem(format!("{at}: no meta.run_id")),
            (Some(r), None) => self.run_id = Some(r.to_owned()),
            (Some(r), Some(first)) if r != first => {
                self.problem(format!("{at}: run `{r}` in a stream of run `{first}`"))
            }
            _ => {}
        }
        let Some(seq) = event.pointer("/meta/seq").and_then(Value::as_u64) else {
            self.problem(format!("{at}: no meta.seq"));
            return;
        };
        let mut last = seq;
        if let Some(replaces) = event.pointer("/meta/replaces") {
            let from = replaces.get("from").and_then(Value::as_u64);
            let to = replaces.get("to").and_then(Value::as_u64);
            match (from, to) {
                (Some(from), Some(to)) if from == seq && to >= from => last = to,
                _ => self.problem(format!(
                    "{at}: meta.replaces {replaces} is not a range starting at the event's seq"
                )),
            }
        }
        match (self.covered, self.resumed_after) {
            (Some(covered), _) => {
                if seq != covered.saturating_add(1) {
                    self.problem(format!(
                        "{at}: expected seq {} next (seqs strictly increasing without gaps)",
                        covered.saturating_add(1)
                    ));
                }
            }
            (None, Some(after)) => {
                let next = after.saturating_add(1);
                if !(seq <= next && next <= last) {
                    self.problem(format!(
                        "{at}: the stream resumed after Last-Event-ID {after} must start with \
                         seq {next} (or a folded event covering it)"
                    ));
                }
            }
            (None, None) => {}
        }
        self.covered = Some(last.max(self.covered.unwrap_or(0)));
    }

    fn status(&mut self, event: &Value, at: &str) {
        let Some(state) = str_at(event, "/payload/state") else {
            self.problem(format!("{at}: system/status without payload.state"));
            return;
        };
        let allowed = match self.state.as_deref() {
            // A stream resumed inside a run may start in any state.
            None if self.resumed_after.is_some() => true,
            None => matches!(state, "initializing" | "running"),
            Some("initializing") => matches!(state, "running" | "cancelled" | "failed"),
            Some("running") => state == "suspended" || is_terminal(state),
            Some("suspended") => matches!(state, "resumed" | "cancelled" | "failed"),
            Some("resumed") => matches!(state, "running" | "suspended") || is_terminal(state),
            Some(_) => false,
        };
        if !allowed {
            let from = self.state.as_deref().unwrap_or("the start");
            self.problem(format!(
                "{at}: system/status `{state}` cannot follow `{from}` (seed 002 section 15)"
            ));
        }
        if is_terminal(state) && self.terminal.is_none() {
            self.terminal = Some((state.to_owned(), at.to_owned()));
        }
        self.state = Some(state.to_owned());
    }

    fn done(&mut self, event: &Value, at: &str) {
        if let Some(first) = &self.done {
            let text = format!("{at}: a second system/done (the first at {first})");
            self.problem(text);
            return;
        }
        self.done = Some(at.to_owned());
        match &self.terminal {
            None if self.resumed_after.is_none() => {
                self.problem(format!("{at}: system/done before any terminal status"))
            }
            Some((terminal, _)) => {
                if let Some(state) = str_at(event, "/meta/state") {
                    if state != terminal {
                        let text = format!(
                            "{at}: system/done says `{state}`, the terminal status was `{terminal}`"
                        );
                        self.problem(text);
                    }
                }
            }
            None => {}
        }
    }

    fn tool(&mut self, event: &Value, kind: &str, at: &str) {
        let Some(id) = str_at(event, "/payload/tool_call_id") else {
            self.problem(format!("{at}: tool/{kind} without payload.tool_call_id"));
            return;
        };
        let resumed = self.resumed_after.is_some();
        if !self.calls.contains_key(id) {
            self.call_order.push(id.to_owned());
        }
        let call = self.calls.entry(id.to_owned()).or_default();
        // Seen before this stream started (a resumed stream only).
        let unseen = call.queued.is_none() && call.called.is_none();
        let mut problems = Vec::new();
        match kind {
            "tool_queued" => {
                if let Some(before) = call.queued.as_ref().or(call.called.as_ref()) {
                    problems.push(format!(
                        "{at}: tool_queued `{id}` again (first at {before})"
                    ));
                }
                call.queued.get_or_insert_with(|| at.to_owned());
            }
            "tool_call" => {
                if let Some(before) = &call.called {
                    problems.push(format!("{at}: tool_call `{id}` again (first at {before})"));
                } else if let Some(result) = &call.result {
                    problems.push(format!(
                        "{at}: tool_call `{id}` after its tool_result at {result}"
                    ));
                }
                call.called.get_or_insert_with(|| at.to_owned());
            }
            "tool_started" | "tool_progress" => {
                if kind == "tool_started" {
                    if let Some(before) = &call.started {
                        problems.push(format!(
                            "{at}: tool_started `{id}` again (first at {before})"
                        ));
                    }
                    call.started.get_or_insert_with(|| at.to_owned());
                }
                if call.called.is_none() && !(resumed && unseen) {
                    problems.push(format!("{at}: {kind} `{id}` before its tool_call"));
                }
                if let Some(result) = &call.result {
                    problems.push(format!(
                        "{at}: {kind} `{id}` after its tool_result at {result}"
                    ));
                }
            }
            _ => {
                if let Some(before) = &call.result {
                    problems.push(format!(
                        "{at}: tool_result `{id}` again (first at {before})"
                    ));
                } else if unseen && !resumed {
                    problems.push(format!(
                        "{at}: tool_result `{id}` without its tool_queued or tool_call before it"
                    ));
                }
                call.result.get_or_insert_with(|| at.to_owned());
            }
        }
        self.problems.extend(problems);
    }

    fn block(&mut self, event: &Value, kind: &str, at: &str) {
        let Some(message) = str_at(event, "/message_id") else {
            self.problem(format!("{at}: llm/{kind} without message_id"));
            return;
        };
        let index = event.get("index").and_then(Value::as_u64);
        // The block is the payload's (Tessera's extension); a stream without it has blocks by
        // `index` alone.
        let block = event
            .pointer("/payload/block")
            .and_then(Value::as_u64)
            .or(index);
        let key: BlockKey = (kind.to_owned(), block);
        let whole = event.pointer("/payload/delta").is_none();
        let blocks = self.blocks.entry(message.to_owned()).or_default();
        if let (Some(index), false) = (index, whole) {
            // Seed 002 §4.2: `index` numbers a message's streamed pieces in order.
            if let Some((last, last_at)) = &blocks.last_index {
                if index <= *last {
                    self.problems.push(format!(
                        "{at}: index {index} of message `{message}` does not follow index {last} at {last_at}"
                    ));
                }
            }
            blocks.last_index = Some((index, at.to_owned()));
        }
        let describe = |key: &BlockKey| match key.1 {
            Some(index) => format!("llm/{} block {index} of message `{message}`", key.0),
            None => format!("llm/{} block (no index) of message `{message}`", key.0),
        };
        let mut problem = None;
        if let Some(ended_at) = blocks.ended.get(&key) {
            problem = Some(format!(
                "{at}: {} resumes after it ended at {ended_at} (blocks do not interleave)",
                describe(&key)
            ));
        } else if blocks.current.as_ref().map(|(k, _)| k) != Some(&key) {
            if let Some((previous, _)) = blocks.current.take() {
                blocks.ended.insert(previous, at.to_owned());
            }
            blocks.current = Some((key.clone(), at.to_owned()));
        }
        if whole {
            // A whole (or folded) message is the block from its start to its end.
            blocks.current = None;
            blocks.ended.entry(key).or_insert_with(|| at.to_owned());
        }
        if let Some(problem) = problem {
            self.problem(problem);
        }
    }

    fn finish(&mut self) {
        let cut_by_fatal = self.fatal.is_some() && self.terminal.is_none();
        let fresh = self.resumed_after.is_none();
        if fresh && self.state.is_some() && self.terminal.is_none() && !cut_by_fatal {
            let state = self.state.clone().unwrap_or_default();
            self.problem(format!(
                "the run ends in `{state}` without a terminal status (cancelled, failed or \
                 completed)"
            ));
        }
        let abandoned = cut_by_fatal
            || matches!(
                self.terminal.as_ref().map(|t| t.0.as_str()),
                Some("cancelled" | "failed")
            );
        if abandoned {
            return;
        }
        for id in &self.call_order {
            if let Some(call) = self.calls.get(id) {
                if let (Some(called), None) = (&call.called, &call.result) {
                    self.problems.push(format!(
                        "{called}: tool_call `{id}` never gets its tool_result"
                    ));
                }
            }
        }
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::*;
    use serde_json::json;

    /// Builds a run's events with seqs 1, 2, … in order.
    struct Run(Vec<Value>);

    impl Run {
        fn new() -> Self {
            Run(Vec::new())
        }
        fn push(mut self, domain: &str, kind: &str, payload: Value) -> Self {
            let seq = self.0.len() as u64 + 1;
            self.0.push(json!({
                "protocol": "easyflow-chat", "version": "1.1", "domain": domain, "type": kind,
                "conversation_id": "c1", "message_id": "m1", "payload": payload,
                "meta": {"run_id": "r1", "seq": seq}
            }));
            self
        }
        fn status(self, state: &str) -> Self {
            self.push("system", "status", json!({"state": state}))
        }
        /// A streamed piece of `block`; its `index` grows with the stream.
        fn delta(self, kind: &str, block: u64, text: &str) -> Self {
            let mut run = self.push("llm", kind, json!({"delta": text, "block": block}));
            let last = run.0.len() - 1;
            run.0[last]["index"] = json!(last);
            run
        }
        fn tool(self, kind: &str, id: &str) -> Self {
            self.push("tool", kind, json!({"tool_call_id": id}))
        }
        fn done(self) -> Self {
            self.push("system", "done", json!({}))
        }
        fn fatal(self) -> Self {
            self.push(
                "system",
                "error",
                json!({"code": "auth_failed", "message": "no", "retryable": false}),
            )
        }
        fn edit(mut self, at: usize, pointer: &str, value: Value) -> Self {
            *self.0[at].pointer_mut(pointer).unwrap() = value;
            self
        }
    }

    fn good() -> Run {
        Run::new()
            .status("running")
            .delta("thinking", 0, "hm")
            .delta("thinking", 0, "m")
            .delta("message", 1, "An")
            .delta("message", 1, "swer")
            .tool("tool_queued", "t1")
            .tool("tool_call", "t1")
            .tool("tool_started", "t1")
            .tool("tool_progress", "t1")
            .tool("tool_result", "t1")
            .push("tool", "queue_drained", json!({}))
            .delta("message", 2, "Done.")
            .status("completed")
            .done()
    }

    fn fails(run: &Run, needle: &str) {
        let problems = check_run(&run.0).expect_err("a broken stream");
        assert!(
            problems.iter().any(|p| p.contains(needle)),
            "{needle:?} not in {problems:#?}"
        );
    }

    #[test]
    fn a_good_run_passes() {
        check_run(&good().0).unwrap();
        let suspended = Run::new()
            .status("initializing")
            .status("running")
            .push("interaction", "form_request", json!({"form_id": "f"}))
            .status("suspended")
            .push("interaction", "form_result", json!({"form_id": "f"}))
            .status("resumed")
            .status("running")
            .status("completed")
            .done();
        check_run(&suspended.0).unwrap();
    }

    #[test]
    fn one_conversation() {
        fails(
            &good().edit(3, "/conversation_id", json!("c2")),
            "seq 4: conversation `c2`",
        );
    }

    #[test]
    fn seqs_increase_without_gaps() {
        fails(
            &good().edit(4, "/meta/seq", json!(6)),
            "seq 6: expected seq 5 next",
        );
        fails(
            &good().edit(4, "/meta/seq", json!(4)),
            "seq 4: expected seq 5 next",
        );
        let mut missing = good();
        missing.0[2]["meta"].as_object_mut().unwrap().remove("seq");
        fails(&missing, "event #2 (no seq): no meta.seq");
    }

    #[test]
    fn a_folded_event_covers_its_range() {
        // Seqs 2..=3 folded into one thinking event, 4..=5 into one message.
        let mut run = good();
        run.0.remove(4);
        run.0.remove(2);
        run.0[1]["payload"] = json!({"content": "hmm"});
        run.0[1]["meta"]["replaces"] = json!({"from": 2, "to": 3});
        run.0[2]["payload"] = json!({"content": "Answer"});
        run.0[2]["meta"]["replaces"] = json!({"from": 4, "to": 5});
        check_run(&run.0).unwrap();
        let wrong = run.edit(1, "/meta/replaces/to", json!(2));
        fails(&wrong, "seq 4: expected seq 3 next");
    }

    #[test]
    fn a_resumed_stream_starts_right_after_the_last_event_id() {
        let all = good().0;
        check_resumed(&all[5..], 5).unwrap();
        let problems = check_resumed(&all[6..], 5).unwrap_err();
        assert!(problems[0].contains("seq 7: the stream resumed after Last-Event-ID 5"));
        // Resuming inside a folded range: the folded event comes first.
        let mut folded = all[3..].to_vec();
        folded.remove(1);
        folded[0]["payload"] = json!({"content": "Answer"});
        folded[0]["meta"]["replaces"] = json!({"from": 4, "to": 5});
        check_resumed(&folded, 4).unwrap();
    }

    #[test]
    fn one_run_id() {
        fails(
            &good().edit(7, "/meta/run_id", json!("r2")),
            "seq 8: run `r2`",
        );
        let mut missing = good();
        missing.0[0]["meta"]
            .as_object_mut()
            .unwrap()
            .remove("run_id");
        fails(&missing, "seq 1: no meta.run_id");
    }

    #[test]
    fn states_follow_the_state_machine() {
        fails(
            &good().edit(0, "/payload/state", json!("resumed")),
            "seq 1: system/status `resumed` cannot follow `the start`",
        );
        let resumed_unsuspended = Run::new()
            .status("running")
            .status("resumed")
            .status("completed")
            .done();
        fails(
            &resumed_unsuspended,
            "seq 2: system/status `resumed` cannot follow `running`",
        );
        let suspended_at_start = Run::new().status("suspended");
        fails(
            &suspended_at_start,
            "seq 1: system/status `suspended` cannot follow",
        );
        let two_terminals = Run::new()
            .status("running")
            .status("completed")
            .status("failed")
            .done();
        fails(
            &two_terminals,
            "seq 3: system/status `failed` cannot follow `completed`",
        );
        let no_terminal = Run::new().status("running").delta("message", 0, "x");
        fails(&no_terminal, "without a terminal status");
        let after_terminal = Run::new()
            .status("running")
            .status("completed")
            .delta("message", 0, "late")
            .done();
        fails(
            &after_terminal,
            "seq 3: llm/message after the terminal status",
        );
    }

    #[test]
    fn done_is_last_and_once() {
        let twice = good().done();
        fails(&twice, "seq 15: a second system/done");
        let mut early = good();
        early.0.swap(12, 13);
        early.0[12]["meta"]["seq"] = json!(13);
        early.0[13]["meta"]["seq"] = json!(14);
        fails(&early, "seq 13: system/done before any terminal status");
        fails(&early, "seq 14: system/status after system/done");
        let mut wrong_state = good();
        wrong_state.0[13]["meta"]["state"] = json!("failed");
        fails(&wrong_state, "seq 14: system/done says `failed`");
    }

    #[test]
    fn every_call_gets_its_result() {
        let mut missing = good();
        missing.0[9] = json!({"protocol": "easyflow-chat", "version": "1.1", "domain": "debug",
            "type": "log", "conversation_id": "c1", "payload": {"level": "info", "message": "x"},
            "meta": {"run_id": "r1", "seq": 10}});
        fails(&missing, "seq 7: tool_call `t1` never gets its tool_result");
        // A cancelled run may leave it without.
        let cancelled = missing.edit(12, "/payload/state", json!("cancelled"));
        check_run(&cancelled.0).unwrap();
    }

    #[test]
    fn no_result_without_its_call() {
        let orphan = Run::new()
            .status("running")
            .tool("tool_result", "t9")
            .status("completed")
            .done();
        fails(
            &orphan,
            "seq 2: tool_result `t9` without its tool_queued or tool_call",
        );
        let queued_only = Run::new()
            .status("running")
            .tool("tool_queued", "ghost")
            .tool("tool_result", "ghost")
            .status("completed")
            .done();
        check_run(&queued_only.0).unwrap();
    }

    #[test]
    fn started_is_between_call_and_result() {
        let mut early = good();
        early.0.swap(6, 7);
        early.0[6]["meta"]["seq"] = json!(7);
        early.0[7]["meta"]["seq"] = json!(8);
        fails(&early, "seq 7: tool_started `t1` before its tool_call");
        let late = Run::new()
            .status("running")
            .tool("tool_call", "t1")
            .tool("tool_result", "t1")
            .tool("tool_started", "t1")
            .status("completed")
            .done();
        fails(
            &late,
            "seq 4: tool_started `t1` after its tool_result at seq 3",
        );
    }

    #[test]
    fn blocks_do_not_interleave() {
        let interleaved = Run::new()
            .status("running")
            .delta("thinking", 0, "a")
            .delta("message", 1, "b")
            .delta("thinking", 0, "c")
            .status("completed")
            .done();
        fails(
            &interleaved,
            "seq 4: llm/thinking block 0 of message `m1` resumes after it ended at seq 3",
        );
        // Another message's blocks and tool events in between are fine.
        let other_message = Run::new()
            .status("running")
            .delta("message", 0, "a")
            .tool("tool_queued", "t")
            .delta("message", 0, "b")
            .delta("thinking", 0, "other")
            .edit(4, "/message_id", json!("m2"))
            .delta("message", 0, "c")
            .tool("tool_result", "t")
            .status("completed")
            .done();
        check_run(&other_message.0).unwrap();
    }

    #[test]
    fn index_numbers_a_messages_pieces_in_order() {
        let backwards = Run::new()
            .status("running")
            .delta("thinking", 0, "a")
            .delta("message", 1, "b")
            .edit(2, "/index", json!(0))
            .status("completed")
            .done();
        fails(
            &backwards,
            "seq 3: index 0 of message `m1` does not follow index 1 at seq 2",
        );
        // Without blocks in the payload, `index` alone tells the blocks apart (another server).
        let plain = Run::new()
            .status("running")
            .delta("message", 0, "a")
            .edit(1, "/payload", json!({"delta": "a"}))
            .status("completed")
            .done();
        check_run(&plain.0).unwrap();
    }

    #[test]
    fn a_fatal_error_comes_right_before_failed() {
        let good_failure = Run::new().status("running").fatal().status("failed").done();
        check_run(&good_failure.0).unwrap();
        // Cut by the fatal error (SSE `event: error` ends the stream): no terminal needed.
        check_run(&Run::new().status("running").fatal().0).unwrap();
        let then_more = Run::new()
            .status("running")
            .fatal()
            .delta("message", 0, "x")
            .status("failed")
            .done();
        fails(
            &then_more,
            "seq 3: llm/message after the fatal system/error at seq 2",
        );
        let then_completed = Run::new()
            .status("running")
            .fatal()
            .status("completed")
            .done();
        fails(
            &then_completed,
            "seq 3: system/status after the fatal system/error",
        );
        // A recoverable error is only an event.
        let recoverable = Run::new()
            .status("running")
            .push(
                "system",
                "error",
                json!({"code": "x", "message": "m", "retryable": true}),
            )
            .delta("message", 0, "x")
            .status("completed")
            .done();
        check_run(&recoverable.0).unwrap();
    }
}
