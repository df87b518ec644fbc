//! A model call made for the engine's own sake (routing, the rolling summary): nothing of it is
//! shown or becomes a message, but what it cost is recorded like any turn's call (a
//! `model_usage` record with its stage, built the way `turn::call` builds it).
//!
//! It is not kept as a model turn: those rebuild a run's conversation with the provider, which
//! this call is no part of.

use jiff::Timestamp;
use tessera_protocol::context_doc::UsageStage;
use tessera_providers::cost::PriceTable;
use tessera_providers::stream::{Accumulator, Response};
use tessera_providers::{ChatRequest, ProviderClient, ProviderError};
use tessera_store::{Store, StoreError};
use tokio_util::sync::CancellationToken;

use crate::sync::blocking;
use crate::turn::limits::check_spending;

/// What the call gave: the answer so far, and the error that ended it early, if any.
pub(crate) struct SideCall {
    pub response: Response,
    pub error: Option<ProviderError>,
    /// The model that answered (the fallback after an overload).
    pub model: String,
    /// Its estimated cost in USD, when the price is known.
    pub cost: Option<f64>,
}

/// Streams `request` to the end and records its usage under `stage` in the conversation.
/// Only a failed store write is an error here; a provider failure is part of the result.
pub(crate) async fn call_recorded(
    store: &Store,
    client: &ProviderClient,
    conversation_id: &str,
    stage: UsageStage,
    request: ChatRequest,
    cancel: CancellationToken,
) -> Result<SideCall, StoreError> {
    call_recorded_by(store, client, conversation_id, stage, None, request, cancel).await
}

/// [`call_recorded`] on behalf of `agent` (a specialist), named in the usage record. The
/// spending limits are checked first: a call they stop is never sent and costs nothing.
pub(crate) async fn call_recorded_by(
    store: &Store,
    client: &ProviderClient,
    conversation_id: &str,
    stage: UsageStage,
    agent: Option<&str>,
    request: ChatRequest,
    cancel: CancellationToken,
) -> Result<SideCall, StoreError> {
    let prices = PriceTable::builtin();
    if let Err(error) = blocking(|| {
        check_spending(
            store,
            client,
            &request.model,
            conversation_id,
            None,
            &prices,
        )
    }) {
        return Ok(SideCall {
            response: Response::default(),
            error: Some(error),
            model: request.model,
            cost: None,
        });
    }
    let started_at = Timestamp::now();
    let mut stream = client.stream(request, cancel);
    let mut acc = Accumulator::new();
    let mut error = None;
    while let Some(next) = stream.next().await {
        match next {
            Ok(item) => acc.push(&item),
            Err(err) => {
                error = Some(err);
                break;
            }
        }
    }
    let response = acc.into_response();
    let model = stream.model().to_owned();
    let mut record = stream.call_record(
        crate::ids::new_id(),
        stage,
        started_at,
        &response,
        error.as_ref(),
        &prices,
    );
    record.agent = agent.map(str::to_owned);
    let cost = record.estimated_cost_usd();
    let usage = record.to_model_usage();
    blocking(|| store.put_model_usage(conversation_id, usage))?;
    Ok(SideCall {
        response,
        error,
        model,
        cost,
    })
}
