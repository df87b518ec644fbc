//! Following a conversation from a given seq: what the store already has, then live events,
//! without a gap or a repeat (a subscriber that falls behind re-reads from the store).

use std::collections::VecDeque;
use std::sync::Arc;

use tessera_store::{Store, StoreError, StoredEvent};
use tokio::sync::broadcast::{self, error::RecvError};

/// A conversation's events after a seq.
pub struct Subscription {
    store: Arc<Store>,
    conversation_id: String,
    live: broadcast::Receiver<Arc<StoredEvent>>,
    backlog: VecDeque<StoredEvent>,
    /// The last seq handed out (or the one the subscriber said it has).
    last: u64,
}

impl Subscription {
    pub(super) fn new(
        store: Arc<Store>,
        conversation_id: String,
        live: broadcast::Receiver<Arc<StoredEvent>>,
        after: Option<u64>,
    ) -> Result<Self, StoreError> {
        // Subscribed before reading the store: nothing written in between is missed.
        let backlog: VecDeque<StoredEvent> =
            store.events_after(&conversation_id, after, None)?.into();
        Ok(Self {
            store,
            conversation_id,
            live,
            backlog,
            last: after.unwrap_or(0),
        })
    }

    /// The next event; None when the engine shut down.
    pub async fn next(&mut self) -> Result<Option<StoredEvent>, StoreError> {
        loop {
            if let Some(event) = self.backlog.pop_front() {
                // A folded event stands for a range; hand it out if it reaches past what we had.
                let end = event.replaces.as_ref().map_or(event.seq, |r| r.to);
                if end > self.last || event.seq > self.last {
                    self.last = self.last.max(end).max(event.seq);
                    return Ok(Some(event));
                }
                continue;
            }
            match self.live.recv().await {
                // Two writers of one conversation (a run, an answer) may publish out of seq
                // order; everything up to this seq is committed, so the store fills the gap.
                Ok(event) if event.seq > self.last + 1 => {
                    self.backlog = self
                        .store
                        .events_after(&self.conversation_id, Some(self.last), None)?
                        .into();
                }
                Ok(event) if event.seq > self.last => {
                    self.last = event.seq;
                    return Ok(Some((*event).clone()));
                }
                Ok(_) => {} // already handed out from the store
                Err(RecvError::Lagged(_)) => {
                    self.backlog = self
                        .store
                        .events_after(&self.conversation_id, Some(self.last), None)?
                        .into();
                }
                Err(RecvError::Closed) => return Ok(None),
            }
        }
    }
}
