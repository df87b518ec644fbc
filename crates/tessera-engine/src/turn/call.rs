//! One model call inside a turn: its stream becomes stored events, its answer a [`Response`]
//! (kept whole or partial), and its figures a `model_usage` record.

use std::time::Duration;

use jiff::Timestamp;
use tessera_protocol::context_doc::UsageStage;
use tessera_providers::stream::{Accumulator, Response, Usage};
use tessera_providers::{anthropic, openai};
use tessera_providers::{ChatRequest, ProviderClient, ProviderError, WireKind};
use tessera_store::model_turns::NewModelTurn;
use tokio_util::sync::CancellationToken;

use crate::tools::images::without_inline_images;

use super::read_ahead::ReadAhead;
use super::{Recorder, TurnError, TurnOptions};
use crate::ids::new_id;

/// What one model call gave.
pub(super) struct CallResult {
    pub response: Response,
    pub error: Option<ProviderError>,
    /// The model that answered (the fallback after an overload).
    pub model: String,
    pub usage: Option<Usage>,
    pub cost: Option<f64>,
    pub first_output: Option<Duration>,
    /// The call's `model_usage` record.
    pub model_usage_id: String,
}

/// Streams one call, storing the request, every event, the answer and the usage record.
pub(super) async fn call_model(
    recorder: &mut Recorder<'_>,
    client: &ProviderClient,
    request: ChatRequest,
    options: &TurnOptions,
    cancel: CancellationToken,
) -> Result<CallResult, TurnError> {
    let config = client.config();
    let mut wire_request = match config.kind {
        WireKind::Openai => openai::encode_request(config, &request, true),
        WireKind::Anthropic => anthropic::encode_request(config, &request, true),
    };
    without_inline_images(&mut wire_request);
    let turn = recorder.store.start_model_turn(
        &recorder.conversation_id,
        NewModelTurn {
            turn_id: None,
            run_id: Some(recorder.shaper.run_id().to_owned()),
            provider: config.name.clone(),
            model: request.model.clone(),
            request: wire_request,
            assembly: recorder.assembly.take(),
        },
    )?;
    let started_at = Timestamp::now();
    recorder.shaper.next_call();
    let mut stream = ReadAhead::start(client.stream(request, cancel.clone()), cancel, &config.name);
    let mut acc = Accumulator::new();
    let mut error = None;
    // Events are queued for the store as items come; each is handed on once committed, also
    // while the next item is awaited (the wait for an item is never dropped half-way).
    loop {
        let next = {
            let next = stream.next();
            tokio::pin!(next);
            loop {
                tokio::select! {
                    biased;
                    item = &mut next => break item,
                    committed = recorder.next_committed(), if recorder.pending() => {
                        committed?;
                    }
                }
            }
        };
        match next {
            Some(Ok(item)) => {
                acc.push(&item);
                if let Some(event) = recorder.shaper.item(&item) {
                    recorder.stream(event).await?;
                }
            }
            Some(Err(err)) => {
                error = Some(err);
                break;
            }
            None => break,
        }
    }
    let stream = stream
        .finish()
        .await
        .ok_or_else(|| TurnError::Internal("the task reading the model's answer stopped".into()))?;
    // Everything streamed is stored and handed on before the call counts as done.
    recorder.drain().await?;
    let response = acc.into_response();
    let model = stream.model().to_owned();
    recorder.store.finish_model_turn(
        &recorder.conversation_id,
        &turn.turn_id,
        serde_json::to_value(&response).unwrap_or_default(),
        None,
    )?;

    let stage = if response.tool_calls.is_empty() {
        options.stage
    } else {
        UsageStage::ToolCall
    };
    let record = stream.call_record(
        new_id(),
        stage,
        started_at,
        &response,
        error.as_ref(),
        &options.prices,
    );
    let cost = record.estimated_cost_usd();
    let model_usage_id = record.model_usage_id.clone();
    recorder
        .store
        .put_model_usage(&recorder.conversation_id, record.to_model_usage())?;
    Ok(CallResult {
        usage: response.usage,
        response,
        error,
        model,
        cost,
        first_output: stream.first_output_latency(),
        model_usage_id,
    })
}
