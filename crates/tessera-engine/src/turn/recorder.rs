//! The recorder: every event of a turn stored before anyone sees it, streamed ones in batches.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex};

use tessera_protocol::easyflow::Event;
use tessera_store::{NewInteraction, Store, StoreError, StoredEvent};
use tokio::sync::Notify;

use super::error::TurnError;
use super::stored::tool_bytes_of;
use crate::event_log::EventLog;
use crate::model_events::EventShaper;
use crate::specialist_report::SpecialistReport;
use crate::sync::{blocking, lock};

/// Writes of streamed events the store may have at once; events streamed meanwhile wait and
/// go together as the next write, so the writer thread gets bigger writes the further it is
/// behind.
const MAX_WRITES_IN_FLIGHT: u64 = 2;
/// Streamed events that may wait for a write at most (keeps memory bounded when the provider
/// outpaces the disk).
const MAX_WAITING: usize = 512;

/// Stores events, then hands them on, each only once it has committed and in the order they
/// were given. Streamed events ([`Recorder::stream`]) are queued without waiting for their
/// commit, so the call goes on while the writer thread commits them in batches; every other
/// write first waits for those ([`Recorder::flush`]), so it sees them in the store and comes
/// after them.
pub(crate) struct Recorder<'a> {
    pub(super) store: &'a Arc<Store>,
    pub(super) conversation_id: String,
    pub(super) shaper: EventShaper,
    /// Where every event of the run is written.
    log: EventLog,
    emit: &'a mut (dyn FnMut(StoredEvent) + Send),
    /// Where the writer thread leaves the answers to the writes of streamed events.
    landing: Arc<Landing>,
    /// Streamed events not given to the store yet: they go with the next write.
    waiting: Vec<crate::event_log::Prepared>,
    /// Tickets: writes given to the store so far, and the next one to hand on.
    written: u64,
    handed_on: u64,
    /// What specialists called in this stretch cost, from their results: the turn adds it to
    /// its own usage.
    specialist_usage: Vec<crate::specialist_report::SpecialistUsage>,
    /// What each specialist call cost, from its result: for the run's per-agent summary.
    specialist_costs: Vec<crate::specialist_report::SpecialistCost>,
    /// The assembler's explanation of the prompt, kept with the run's first model call as it
    /// is recorded (so it is there before the run's `done` is sent).
    pub(super) assembly: Option<serde_json::Value>,
    /// Bytes of tool arguments and results the run has stored ([`crate::executor::Limits::run_bytes`]).
    tool_bytes: usize,
}

/// The answers to a recorder's writes, by ticket, left by the writer thread.
#[derive(Default)]
struct Landing {
    state: Mutex<Landed>,
    /// Answers landed so far: the recorder looks at it for every streamed event, and takes
    /// the lock only once an answer it has not handed on is there.
    count: AtomicU64,
    /// For a synchronous wait.
    landed: Condvar,
    /// For an asynchronous one.
    notify: Notify,
}

#[derive(Default)]
struct Landed {
    answers: HashMap<u64, Result<Vec<StoredEvent>, StoreError>>,
    /// Whether someone waits on the condvar (waking it costs a system call).
    sync_waiter: bool,
}

impl Landing {
    fn land(&self, ticket: u64, answer: Result<Vec<StoredEvent>, StoreError>) {
        let mut state = lock(&self.state);
        state.answers.insert(ticket, answer);
        let sync_waiter = state.sync_waiter;
        self.count.fetch_add(1, Ordering::Release);
        drop(state);
        if sync_waiter {
            self.landed.notify_all();
        }
        self.notify.notify_one();
    }

    /// Blocks until write `ticket` has an answer.
    fn wait_for(&self, ticket: u64) {
        let mut state = lock(&self.state);
        state.sync_waiter = true;
        let mut state = self
            .landed
            .wait_while(state, |s| !s.answers.contains_key(&ticket))
            .unwrap_or_else(|e| e.into_inner());
        state.sync_waiter = false;
    }
}

impl<'a> Recorder<'a> {
    pub(crate) fn new(
        store: &'a Arc<Store>,
        shaper: EventShaper,
        conversation_id: &str,
        emit: &'a mut (dyn FnMut(StoredEvent) + Send),
    ) -> Self {
        Self {
            store,
            conversation_id: conversation_id.to_owned(),
            shaper,
            log: EventLog::new(Arc::clone(store), conversation_id.to_owned()),
            emit,
            landing: Arc::default(),
            waiting: Vec::new(),
            written: 0,
            handed_on: 0,
            specialist_usage: Vec::new(),
            specialist_costs: Vec::new(),
            assembly: None,
            tool_bytes: 0,
        }
    }

    /// Bytes of tool arguments and results this run has stored so far.
    pub(crate) fn tool_bytes(&self) -> usize {
        self.tool_bytes
    }

    /// Counts what the run stored before this stretch of it (a resumed run's earlier rounds).
    pub(crate) fn count_earlier_tool_bytes(&mut self, bytes: usize) {
        self.tool_bytes = self.tool_bytes.saturating_add(bytes);
    }

    /// The specialists' usage seen since the last call.
    pub(crate) fn take_specialist_usage(
        &mut self,
    ) -> Vec<crate::specialist_report::SpecialistUsage> {
        std::mem::take(&mut self.specialist_usage)
    }

    pub(crate) fn take_specialist_costs(
        &mut self,
    ) -> Vec<crate::specialist_report::SpecialistCost> {
        std::mem::take(&mut self.specialist_costs)
    }

    /// An event stored and handed on before this returns (after every streamed one).
    pub(super) fn put(&mut self, event: Event) -> Result<(), TurnError> {
        self.flush()?;
        let log = &self.log;
        let stored = blocking(|| log.append(event))?;
        (self.emit)(stored);
        Ok(())
    }

    /// A streamed event: queued for the store; handed on once committed, by this call or a
    /// later one ([`Recorder::next_committed`], [`Recorder::drain`], [`Recorder::flush`]).
    pub(super) async fn stream(&mut self, event: Event) -> Result<(), TurnError> {
        // Events wait only while writes are in flight, and each landing write takes them.
        while self.waiting.len() >= MAX_WAITING {
            self.next_committed().await?;
        }
        self.waiting.push(self.log.prepare(event));
        if self.written - self.handed_on < MAX_WRITES_IN_FLIGHT {
            self.write_waiting();
        }
        while self.hand_on_landed()? {}
        Ok(())
    }

    /// Gives the waiting events to the store as one write.
    fn write_waiting(&mut self) {
        let ticket = self.written;
        self.written += 1;
        let landing = Arc::clone(&self.landing);
        self.log
            .append_prepared_then(std::mem::take(&mut self.waiting), move |answer| {
                landing.land(ticket, answer)
            });
    }

    /// Whether streamed events wait for their commit (or to be written).
    pub(super) fn pending(&self) -> bool {
        self.written > self.handed_on
    }

    /// Hands on the events of the oldest write if it committed (then the waiting events
    /// follow as the next write); false when its answer has not come yet.
    fn hand_on_landed(&mut self) -> Result<bool, TurnError> {
        // Every write before `handed_on` has landed and been handed on: until more have
        // landed, the oldest one's answer cannot be there.
        if !self.pending() || self.landing.count.load(Ordering::Acquire) <= self.handed_on {
            return Ok(false);
        }
        let Some(answer) = lock(&self.landing.state).answers.remove(&self.handed_on) else {
            return Ok(false);
        };
        self.handed_on += 1;
        for stored in answer? {
            (self.emit)(stored);
        }
        if !self.waiting.is_empty() {
            self.write_waiting();
        }
        Ok(true)
    }

    /// Waits until the oldest write of streamed events has committed, and hands its events
    /// on (with those of any later write that has too). Cancel-safe: nothing is lost when the
    /// wait is dropped.
    pub(super) async fn next_committed(&mut self) -> Result<(), TurnError> {
        if !self.pending() {
            return Ok(());
        }
        loop {
            if self.hand_on_landed()? {
                while self.hand_on_landed()? {}
                return Ok(());
            }
            // A commit landing between the check and here leaves a permit: no wake-up is lost.
            self.landing.notify.notified().await;
        }
    }

    /// Waits for every streamed event to commit, handing each on.
    pub(super) async fn drain(&mut self) -> Result<(), TurnError> {
        while self.pending() {
            self.next_committed().await?;
        }
        Ok(())
    }

    /// [`Recorder::drain`] for a caller that is not async.
    pub(super) fn flush(&mut self) -> Result<(), TurnError> {
        while self.pending() {
            if !self.hand_on_landed()? {
                let (landing, ticket) = (&self.landing, self.handed_on);
                blocking(|| landing.wait_for(ticket));
            }
        }
        Ok(())
    }

    /// A tool event: stored with the call record it updates, before this returns.
    pub(super) fn put_tool_event(&mut self, event: Event) -> Result<(), TurnError> {
        self.flush()?;
        self.count_tool_event(&event);
        let log = &self.log;
        let stored = blocking(|| log.append(event))?;
        (self.emit)(stored);
        Ok(())
    }

    /// A tool event of calls that run meanwhile: queued as streamed events are, so the
    /// events of concurrent calls share commits; handed on, in order, once committed.
    pub(super) async fn stream_tool_event(&mut self, event: Event) -> Result<(), TurnError> {
        self.count_tool_event(&event);
        self.stream(event).await
    }

    /// What a tool event adds to the run's figures: the bytes it holds, a specialist's cost.
    fn count_tool_event(&mut self, event: &Event) {
        self.tool_bytes = self.tool_bytes.saturating_add(tool_bytes_of(&event.body));
        if let tessera_protocol::easyflow::EventBody::ToolResult(p) = &event.body {
            if let Some(result) = &p.result {
                let from_specialist = self.log.provider_of(&p.tool_call_id).as_deref()
                    == Some(crate::specialist_report::SPECIALIST_PROVIDER);
                if let Some(report) = from_specialist
                    .then(|| SpecialistReport::of(result))
                    .flatten()
                {
                    self.specialist_costs.push(report.cost());
                    self.specialist_usage.extend(report.usage);
                }
            }
        }
    }

    /// An interaction and the event that shows it, in one transaction.
    pub(super) fn put_interaction(
        &mut self,
        new: NewInteraction,
        event: Event,
    ) -> Result<(), TurnError> {
        self.flush()?;
        let (log, conversation_id) = (&self.log, self.conversation_id.clone());
        let stored = blocking(|| {
            log.append_with(event, move |tx| {
                tx.create_interaction(&conversation_id, new).map(drop)
            })
        })?;
        (self.emit)(stored);
        Ok(())
    }
}
