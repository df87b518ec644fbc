//! Following a conversation from a given seq: what the store already has, then live events,
//! without a gap or a repeat (a subscriber that falls behind re-reads from the store).

use std::collections::VecDeque;
use std::sync::Arc;

use tessera_store::{Store, StoreError, StoredEvent};
use tokio::sync::broadcast::{self, error::RecvError};

use super::bus::EventBus;
use super::error::EngineError;
use super::handle::Engine;

/// Events read from the store at a time while catching up, so a subscriber far behind (a long
/// answer, a slow client) never holds the whole log in memory.
const PAGE: usize = 1024;

/// A conversation's events after a seq.
pub struct Subscription {
    store: Arc<Store>,
    bus: Arc<EventBus>,
    conversation_id: String,
    live: broadcast::Receiver<Arc<StoredEvent>>,
    backlog: VecDeque<StoredEvent>,
    /// The last seq handed out (or the one the subscriber said it has).
    last: u64,
    /// Whether the store may hold events after `last` that the live channel will not bring.
    catching_up: bool,
}

impl Subscription {
    pub(super) fn new(
        store: Arc<Store>,
        bus: Arc<EventBus>,
        conversation_id: String,
        live: broadcast::Receiver<Arc<StoredEvent>>,
        after: Option<u64>,
    ) -> Result<Self, StoreError> {
        // Subscribed before reading the store: nothing written in between is missed.
        let backlog: VecDeque<StoredEvent> = store
            .events_after(&conversation_id, after, Some(PAGE))?
            .into();
        let catching_up = backlog.len() == PAGE;
        Ok(Self {
            store,
            bus,
            conversation_id,
            live,
            backlog,
            last: after.unwrap_or(0),
            catching_up,
        })
    }

    /// The next event; None when the engine shut down.
    pub async fn next(&mut self) -> Result<Option<StoredEvent>, StoreError> {
        Ok(self.next_shared().await?.map(Arc::unwrap_or_clone))
    }

    /// [`Subscription::next`] without a copy: a live event is the very one every subscriber
    /// of the conversation receives (with its JSON text, see [`StoredEvent::json`]), so a
    /// stream to many clients never copies nor serialises it once per client.
    pub async fn next_shared(&mut self) -> Result<Option<Arc<StoredEvent>>, StoreError> {
        loop {
            if let Some(event) = self.backlog.pop_front() {
                // A folded event stands for a range; hand it out if it reaches past what we had.
                let end = event.replaces.as_ref().map_or(event.seq, |r| r.to);
                if end > self.last || event.seq > self.last {
                    self.last = self.last.max(end).max(event.seq);
                    return Ok(Some(Arc::new(event)));
                }
                continue;
            }
            if self.catching_up {
                let page =
                    self.store
                        .events_after(&self.conversation_id, Some(self.last), Some(PAGE))?;
                self.catching_up = page.len() == PAGE;
                if !page.is_empty() {
                    self.backlog = page.into();
                    continue;
                }
            }
            match self.live.recv().await {
                // Two writers of one conversation (a run, an answer) may publish out of seq
                // order; everything up to this seq is committed, so the store fills the gap.
                Ok(event) if event.seq > self.last + 1 => self.catching_up = true,
                Ok(event) if event.seq > self.last => {
                    self.last = event.seq;
                    return Ok(Some(event));
                }
                Ok(_) => {} // already handed out from the store
                Err(RecvError::Lagged(_)) => self.catching_up = true,
                Err(RecvError::Closed) => return Ok(None),
            }
        }
    }
}

impl Drop for Subscription {
    fn drop(&mut self) {
        if self.bus.release(&self.conversation_id) {
            // The events the channel held, and what the stream read from the store, are free.
            crate::heap::release_freed_memory_soon(super::handle::cached_pages_of(&self.store));
        }
    }
}

impl Engine {
    /// A conversation's events after `after` (all of them when None): the stored ones, then
    /// live ones as they are stored.
    pub fn subscribe(
        &self,
        conversation_id: &str,
        after: Option<u64>,
    ) -> Result<Subscription, EngineError> {
        if self.store.conversation(conversation_id)?.is_none() {
            return Err(EngineError::NoConversation(conversation_id.to_owned()));
        }
        let live = self
            .bus
            .subscribe(conversation_id)
            .ok_or(EngineError::ShuttingDown)?;
        Ok(Subscription::new(
            self.store.clone(),
            Arc::clone(&self.bus),
            conversation_id.to_owned(),
            live,
            after,
        )?)
    }
}
