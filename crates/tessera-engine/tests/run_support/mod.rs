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
