//! Stored events fanned out to whoever follows a conversation. Each event reaches the bus only
//! after the store has it, so a subscriber can always fill a gap from the store.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use tessera_store::StoredEvent;
use tokio::sync::broadcast;

/// How many events a slow subscriber may fall behind before it re-reads from the store.
const CAPACITY: usize = 4096;

/// One broadcast channel per conversation with subscribers.
#[derive(Debug, Default)]
pub struct EventBus {
    channels: Mutex<HashMap<String, broadcast::Sender<Arc<StoredEvent>>>>,
}

impl EventBus {
    pub fn new() -> Self {
        Self::default()
    }

    /// Sends a stored event to the conversation's subscribers (none is fine).
    pub fn publish(&self, conversation_id: &str, event: &StoredEvent) {
        let Ok(mut channels) = self.channels.lock() else {
            return;
        };
        if let Some(sender) = channels.get(conversation_id) {
            if sender.send(Arc::new(event.clone())).is_err() {
                // Nobody listens any more.
                channels.remove(conversation_id);
            }
        }
    }

    /// Live events of a conversation from now on.
    pub fn subscribe(
        &self,
        conversation_id: &str,
    ) -> Option<broadcast::Receiver<Arc<StoredEvent>>> {
        let mut channels = self.channels.lock().ok()?;
        Some(
            channels
                .entry(conversation_id.to_owned())
                .or_insert_with(|| broadcast::channel(CAPACITY).0)
                .subscribe(),
        )
    }
}
