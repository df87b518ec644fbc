//! Shared by the provider suites: a client pointed at a scripted provider, and a helper that
//! drains a stream into its items, the whole answer and the error that ended it.
#![allow(dead_code)]

use tessera_providers::config::{ProviderConfig, WireKind};
use tessera_providers::keys::Secret;
use tessera_providers::stream::{Accumulator, Response, StreamItem};
use tessera_providers::{ChatMessage, ChatRequest, ProviderClient, ProviderError};
use tessera_testkit::scripted::ScriptedProvider;
use tokio_util::sync::CancellationToken;

pub const KEY: &str = "sk-test-0123456789abcdef";

pub fn config(provider: &ScriptedProvider, kind: WireKind) -> ProviderConfig {
    let base = match kind {
        WireKind::Openai => provider.openai_base(),
        WireKind::Anthropic => provider.url(),
    };
    let mut config = ProviderConfig::new("scripted", kind, base);
    config.proxy = Some("none".into());
    config.retry.base_delay_ms = 10;
    config.retry.max_delay_ms = 50;
    config
}

pub fn client(config: ProviderConfig) -> ProviderClient {
    match ProviderClient::new(config, Some(Secret::new(KEY))) {
        Ok(c) => c,
        Err(err) => panic!("client: {err}"),
    }
}

pub fn hello(model: &str) -> ChatRequest {
    ChatRequest::new(model, vec![ChatMessage::user("Hello")])
}

/// Everything a call produced.
#[derive(Debug)]
pub struct Outcome {
    pub items: Vec<StreamItem>,
    pub response: Response,
    pub error: Option<ProviderError>,
}

impl Outcome {
    pub fn count(&self, pred: impl Fn(&StreamItem) -> bool) -> usize {
        self.items.iter().filter(|i| pred(i)).count()
    }
}

pub async fn run(client: &ProviderClient, request: ChatRequest) -> Outcome {
    run_with(client, request, CancellationToken::new()).await
}

pub async fn run_with(
    client: &ProviderClient,
    request: ChatRequest,
    cancel: CancellationToken,
) -> Outcome {
    let mut stream = client.stream(request, cancel);
    let mut acc = Accumulator::new();
    let mut items = Vec::new();
    let mut error = None;
    while let Some(next) = stream.next().await {
        match next {
            Ok(item) => {
                acc.push(&item);
                items.push(item);
            }
            Err(err) => {
                error = Some(err);
                break;
            }
        }
    }
    Outcome {
        items,
        response: acc.into_response(),
        error,
    }
}
