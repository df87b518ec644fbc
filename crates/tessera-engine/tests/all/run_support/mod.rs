//! What the suites that drive runs against the scripted provider share: a client for it, and
//! the events of a subscription until a stop (with what was seen when it never comes).
#![allow(dead_code, clippy::unwrap_used, clippy::expect_used)]

use std::time::Duration;

use serde_json::Value;
use tessera_engine::engine::Subscription;
use tessera_protocol::easyflow::{EventBody, SystemState};
use tessera_providers::config::{ProviderConfig, WireKind};
use tessera_providers::keys::Secret;
use tessera_providers::ProviderClient;
use tessera_store::StoredEvent;
use tessera_testkit::scripted::ScriptedProvider;

/// A client of the scripted provider's OpenAI endpoint, no proxy.
pub fn scripted_client(provider: &ScriptedProvider) -> ProviderClient {
    let mut config = ProviderConfig::new("scripted", WireKind::Openai, provider.openai_base());
    config.proxy = Some("none".into());
    ProviderClient::new(config, Some(Secret::new("k"))).unwrap()
}

/// Events until `stop` says so (that one included); panics naming what came when it does not
/// within 30 s.
pub async fn until(
    sub: &mut Subscription,
    stop: impl Fn(&StoredEvent) -> bool,
) -> Vec<StoredEvent> {
    let mut events = Vec::new();
    loop {
        let Ok(event) = tokio::time::timeout(Duration::from_secs(30), sub.next()).await else {
            let seen: Vec<String> = events
                .iter()
                .map(|e: &StoredEvent| {
                    format!(
                        "{} {}/{}",
                        e.seq,
                        e.event.body.domain().as_str(),
                        e.event.body.event_type()
                    )
                })
                .collect();
            panic!("the run stopped after {seen:?}");
        };
        let event = event.unwrap().expect("the engine runs");
        let last = stop(&event);
        events.push(event);
        if last {
            return events;
        }
    }
}

pub fn done(e: &StoredEvent) -> bool {
    matches!(e.event.body, EventBody::Done(_))
}

pub fn suspended(e: &StoredEvent) -> bool {
    matches!(&e.event.body, EventBody::SystemStatus(s) if s.state == SystemState::Suspended)
}

/// Events until `system/done`.
pub async fn until_done(sub: &mut Subscription) -> Vec<StoredEvent> {
    until(sub, done).await
}

/// The JSON of stored events, for the event-order checker.
pub fn json_of(events: &[StoredEvent]) -> Vec<Value> {
    events
        .iter()
        .map(|e| serde_json::to_value(&e.event).unwrap())
        .collect()
}

/// The data folder opened again, as after a restart: a real restart comes after the old
/// process ended, so this waits until the engine dropped before lets go of the folder's lock
/// (its last task may still be ending).
pub fn reopen(dir: &std::path::Path) -> tessera_store::Store {
    let deadline = std::time::Instant::now() + Duration::from_secs(10);
    loop {
        match tessera_store::Store::open(dir) {
            Err(tessera_store::StoreError::Lock(_)) if std::time::Instant::now() < deadline => {
                std::thread::sleep(Duration::from_millis(10));
            }
            other => return other.unwrap(),
        }
    }
}
