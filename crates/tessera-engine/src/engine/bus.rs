//! Stored events fanned out to whoever follows a conversation. Each event reaches the bus only
//! after the store has it, so a subscriber can always fill a gap from the store.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use tessera_store::StoredEvent;
use tokio::sync::broadcast;

/// How many events a slow subscriber may fall behind before it re-reads from the store. A
/// subscriber that falls behind pays for it (reading pages back from the store while the run
/// goes on), so it should be rare: at 4,096 a client of a fast stream lagged every few thousand
/// deltas (serve bench, alternating runs: median 41.9k events/s against 50.2k). The channel holds
/// its last CAPACITY events (a delta's is ~0.6 KB, so ~10 MB at most) only while someone
/// follows the conversation: [`EventBus::release`] drops it with its last subscriber.
const CAPACITY: usize = 16_384;

/// One broadcast channel per conversation with subscribers.
#[derive(Debug, Default)]
pub(crate) struct EventBus {
    channels: Mutex<HashMap<String, broadcast::Sender<Arc<StoredEvent>>>>,
}

impl EventBus {
    pub fn new() -> Self {
        Self::default()
    }

    /// Sends a stored event to the conversation's subscribers (none is fine). Taken whole: the
    /// subscribers share it as it is, without a copy.
    pub fn publish(&self, conversation_id: &str, event: StoredEvent) {
        let mut channels = crate::sync::lock(&self.channels);
        if let Some(sender) = channels.get(conversation_id) {
            if sender.send(Arc::new(event)).is_err() {
                // Nobody listens any more.
                channels.remove(conversation_id);
            }
        }
    }

    /// Called as a subscriber of `conversation_id` leaves, before its receiver is dropped: the
    /// channel goes with its last subscriber, and the events it held with it (true then).
    pub fn release(&self, conversation_id: &str) -> bool {
        let mut channels = crate::sync::lock(&self.channels);
        if channels
            .get(conversation_id)
            .is_some_and(|sender| sender.receiver_count() <= 1)
        {
            channels.remove(conversation_id);
            return true;
        }
        false
    }

    /// How many conversations have a channel (for tests).
    #[cfg(test)]
    pub fn channels(&self) -> usize {
        crate::sync::lock(&self.channels).len()
    }

    /// Live events of a conversation from now on.
    pub fn subscribe(
        &self,
        conversation_id: &str,
    ) -> Option<broadcast::Receiver<Arc<StoredEvent>>> {
        let mut channels = crate::sync::lock(&self.channels);
        Some(
            channels
                .entry(conversation_id.to_owned())
                .or_insert_with(|| broadcast::channel(CAPACITY).0)
                .subscribe(),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_conversation_channel_goes_with_its_last_subscriber() {
        let bus = EventBus::new();
        let first = bus.subscribe("c1");
        let second = bus.subscribe("c1");
        let other = bus.subscribe("c2");
        assert_eq!(bus.channels(), 2);

        assert!(!bus.release("c1"));
        drop(first);
        assert_eq!(bus.channels(), 2, "one subscriber of c1 is left");
        assert!(bus.release("c1"));
        drop(second);
        assert_eq!(bus.channels(), 1, "c1 had no subscriber left");

        // A new subscriber gets a fresh channel.
        let again = bus.subscribe("c1");
        assert_eq!(bus.channels(), 2);
        drop((again, other));
    }
}
