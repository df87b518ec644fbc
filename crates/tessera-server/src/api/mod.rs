//! The API over the engine (issue 6, first part): `POST /v1/messages` with a USER_INPUT starts a
//! run and answers with its event stream (`Accept: text/event-stream`) or, once it ends, with a
//! MODEL_RESPONSE; `GET /v1/conversations/{id}/events` replays from `Last-Event-ID` and goes on
//! live until the run's `done`; `POST /v1/runs/{id}/cancel`. A client that disconnects never
//! cancels a run.

mod errors;
mod interactions;
mod sse;
mod ui;

use axum::extract::{Path, State};
use axum::http::{header, HeaderMap, StatusCode};
use axum::response::sse::{KeepAlive, Sse};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use futures_util::stream;
use serde_json::{json, Value};
use tessera_engine::engine::{Engine, Subscription};
use tessera_protocol::easyflow::EventBody;
use tessera_protocol::mcp_cp::{
    FinishReason, Message, MessageContent, ModelResponse, Sender, SenderType, TokenUsage,
};
use tessera_protocol::wire::{JsonObject, Timestamp};
use tessera_protocol::DocumentKind;
use tessera_store::conversations::NewConversation;

pub use errors::ApiError;
use sse::{to_sse, Ends};

/// The `/v1` routes (the caller adds authentication).
pub fn routes(engine: Engine) -> Router {
    Router::new()
        .route("/messages", post(post_message))
        .route("/conversations/{id}/events", get(conversation_events))
        .route("/runs/{id}/cancel", post(cancel_run))
        .merge(interactions::routes())
        .merge(ui::ui_routes())
        .with_state(engine)
}

fn wants_stream(headers: &HeaderMap) -> bool {
    headers
        .get(header::ACCEPT)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.contains("text/event-stream"))
}

/// The SSE response for a subscription, ending after `done` or a fatal error.
fn stream_response(sub: Subscription) -> Response {
    let events = stream::unfold(Some(sub), |state| async move {
        let mut sub = state?;
        match sub.next().await {
            Ok(Some(event)) => {
                let (sse, ends) = to_sse(&event);
                Some((sse, (ends == Ends::No).then_some(sub)))
            }
            Ok(None) => None,
            Err(error) => {
                tracing::warn!(%error, "cannot read events from the store");
                None
            }
        }
    });
    Sse::new(events)
        .keep_alive(KeepAlive::default())
        .into_response()
}

async fn post_message(
    State(engine): State<Engine>,
    headers: HeaderMap,
    body: axum::body::Bytes,
) -> Result<Response, ApiError> {
    let value: Value = serde_json::from_slice(&body).map_err(|err| {
        ApiError::new(
            StatusCode::BAD_REQUEST,
            "INVALID_JSON",
            format!("the body is not JSON: {err}"),
        )
    })?;
    let message: Message = tessera_protocol::validate::parse(DocumentKind::Message, &value)
        .map_err(|err| {
            ApiError::new(StatusCode::BAD_REQUEST, "INVALID_MESSAGE", err.to_string())
        })?;
    let context_id = message.context_id.clone();
    let MessageContent::UserInput(input) = message.content else {
        return Err(ApiError::new(
            StatusCode::NOT_IMPLEMENTED,
            "UNSUPPORTED_MESSAGE_TYPE",
            "this server answers USER_INPUT messages so far",
        )
        .in_context(&context_id));
    };
    // The MCP-CP context is the conversation; a new context starts one under that id.
    let store = engine.store();
    if store.conversation(&context_id)?.is_none() {
        store.create_conversation(NewConversation {
            id: Some(context_id.clone()),
            title: input
                .text
                .lines()
                .next()
                .unwrap_or("New conversation")
                .chars()
                .take(60)
                .collect(),
            locale: None,
            actor: None,
            created_at: None,
        })?;
    }
    // Follow from what is stored now, so the stream holds this run's events only.
    let after = store.read(|r| r.last_event_seq(&context_id))?;
    let mut sub = engine.subscribe(&context_id, Some(after))?;
    let run = engine.start_run(Some(&context_id), &input.text)?;
    if wants_stream(&headers) {
        let mut response = stream_response(sub);
        if let Ok(value) = header::HeaderValue::from_str(&run.run_id) {
            response.headers_mut().insert("x-tessera-run-id", value);
        }
        return Ok(response);
    }
    // Without a stream: the MODEL_RESPONSE once the run ends.
    let mut text = String::new();
    let mut usage = None;
    let mut failure = None;
    let mut suspended = false;
    while let Some(event) = sub.next().await? {
        if event.run_id.as_deref() != Some(run.run_id.as_str()) {
            continue;
        }
        match &event.event.body {
            // The person must answer a form or consent first: the answer so far, and what waits.
            EventBody::SystemStatus(p)
                if p.state == tessera_protocol::easyflow::SystemState::Suspended =>
            {
                suspended = true;
                break;
            }
            EventBody::LlmMessage(p) => {
                if let Some(t) = p.delta.as_ref().or(p.content.as_ref()) {
                    text.push_str(t);
                }
            }
            EventBody::SystemError(p) if p.retryable != Some(true) => {
                failure = Some((p.code.clone(), p.message.clone()));
            }
            EventBody::Done(_) => {
                usage = event.event.meta.clone();
                break;
            }
            _ => {}
        }
    }
    if let Some((code, message)) = failure {
        let status = if code == "spending_limit" {
            StatusCode::PAYMENT_REQUIRED
        } else {
            StatusCode::BAD_GATEWAY
        };
        let mut err = ApiError::new(status, "MODEL_ERROR", format!("{code}: {message}"));
        err = err.in_context(&context_id);
        return Err(err);
    }
    let token_usage = usage.and_then(|m| {
        Some(TokenUsage {
            prompt_tokens: m.prompt_tokens?,
            completion_tokens: m.completion_tokens?,
            total_tokens: m.prompt_tokens? + m.completion_tokens?,
            extra: JsonObject::new(),
        })
    });
    let mut metadata = JsonObject::new();
    metadata.insert("inReplyTo".into(), json!(message.message_id));
    metadata.insert("runId".into(), json!(run.run_id));
    if suspended {
        let waiting: Vec<Value> = engine
            .pending_interactions(Some(&run.conversation_id))?
            .into_iter()
            .filter(|i| i.run_id.as_deref() == Some(run.run_id.as_str()))
            .map(|i| json!({"interactionId": i.interaction_id, "kind": i.kind, "request": i.request}))
            .collect();
        metadata.insert("state".into(), json!("suspended"));
        metadata.insert("interactions".into(), Value::Array(waiting));
    }
    let reply = Message {
        message_id: uuid::Uuid::now_v7().to_string(),
        context_id,
        timestamp: Timestamp::new(
            jiff::Timestamp::now()
                .strftime("%Y-%m-%dT%H:%M:%S%.3fZ")
                .to_string(),
        ),
        sender: Sender {
            id: "tessera".into(),
            sender_type: SenderType::Model,
            extra: JsonObject::new(),
        },
        content: MessageContent::ModelResponse(ModelResponse {
            text,
            tool_calls: None,
            finish_reason: if suspended {
                FinishReason::ToolCalls
            } else {
                FinishReason::Stop
            },
            usage: token_usage,
            extra: JsonObject::new(),
        }),
        metadata: Some(metadata),
        extra: JsonObject::new(),
    };
    Ok(Json(reply).into_response())
}

async fn conversation_events(
    State(engine): State<Engine>,
    Path(id): Path<String>,
    headers: HeaderMap,
) -> Result<Response, ApiError> {
    let after = match headers.get("last-event-id").map(|v| v.to_str()) {
        None => None,
        Some(Ok(text)) => Some(text.trim().parse::<u64>().map_err(|_| {
            ApiError::new(
                StatusCode::BAD_REQUEST,
                "BAD_LAST_EVENT_ID",
                format!("Last-Event-ID must be an event's seq (a number), not `{text}`"),
            )
        })?),
        Some(Err(_)) => {
            return Err(ApiError::new(
                StatusCode::BAD_REQUEST,
                "BAD_LAST_EVENT_ID",
                "Last-Event-ID must be an event's seq (a number)",
            ))
        }
    };
    let sub = engine.subscribe(&id, after)?;
    Ok(stream_response(sub))
}

async fn cancel_run(
    State(engine): State<Engine>,
    Path(id): Path<String>,
) -> Result<Json<Value>, ApiError> {
    if engine.cancel(&id) {
        Ok(Json(json!({"run_id": id, "cancelled": true})))
    } else {
        Err(ApiError::new(
            StatusCode::NOT_FOUND,
            "RUN_NOT_RUNNING",
            format!("run {id} is not running (it ended, or never existed)"),
        ))
    }
}
