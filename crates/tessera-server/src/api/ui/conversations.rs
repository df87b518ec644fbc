//! The conversation list: list, show (the active branch), rename, delete everywhere, export and
//! import as the documents `tessera context export|import` read and write.

use axum::body::Bytes;
use axum::extract::rejection::BytesRejection;
use axum::extract::{DefaultBodyLimit, Path, RawQuery, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use serde_json::{json, Map, Value};
use tessera_engine::engine::Engine;
use tessera_store::conversations::{Conversation, ConversationFilter, ConversationPatch};

use super::{bad_request, json_body, kind_of, object_body};
use crate::api::ApiError;
use crate::context_cmd::{export_value, import_value, ContextCmdError, ExportFormat};

/// Context documents carry their evidences (attachments inline): more than axum's 2 MB default.
const IMPORT_LIMIT: usize = 64 * 1024 * 1024;

/// The longest title kept, in characters.
const TITLE_MAX: usize = 200;

pub(super) fn routes() -> Router<Engine> {
    Router::new()
        .route("/conversations", get(list))
        .route(
            "/conversations/import",
            post(import).layer(DefaultBodyLimit::max(IMPORT_LIMIT)),
        )
        .route(
            "/conversations/{id}",
            get(show).patch(change).delete(remove),
        )
        .route("/conversations/{id}/export", get(export))
}

fn not_found(id: &str) -> ApiError {
    ApiError::new(
        StatusCode::NOT_FOUND,
        "NOT_FOUND",
        format!("no conversation with id {id}"),
    )
    .in_context(id)
}

/// `name=value` pairs of a query string, decoded.
fn query_pairs(query: Option<&str>) -> Vec<(String, String)> {
    url::form_urlencoded::parse(query.unwrap_or_default().as_bytes())
        .into_owned()
        .collect()
}

fn listed(conversation: Conversation, message_count: u64) -> Value {
    let mut value = serde_json::to_value(conversation).unwrap_or_default();
    if let Value::Object(map) = &mut value {
        map.insert("message_count".into(), json!(message_count));
    }
    value
}

/// `GET /v1/conversations[?limit=N&offset=N&archived=true|false]`: pinned first, then the most
/// recently updated; `message_count` is the length of the branch shown.
async fn list(
    State(engine): State<Engine>,
    RawQuery(query): RawQuery,
) -> Result<Json<Value>, ApiError> {
    let mut filter = ConversationFilter::default();
    for (name, value) in query_pairs(query.as_deref()) {
        let number = || {
            value
                .parse::<usize>()
                .map_err(|_| bad_request(format!("{name} must be a whole number, not `{value}`")))
        };
        match name.as_str() {
            "limit" => filter.limit = Some(number()?),
            "offset" => filter.offset = number()?,
            "archived" => {
                filter.archived = match value.as_str() {
                    "true" => Some(true),
                    "false" => Some(false),
                    "all" => None,
                    _ => {
                        return Err(bad_request(format!(
                            "archived must be true, false or all, not `{value}`"
                        )))
                    }
                }
            }
            _ => {
                return Err(bad_request(format!(
                    "unknown query parameter `{name}` (limit, offset, archived)"
                )))
            }
        }
    }
    // The active leaf's depth is the branch length: one indexed lookup per conversation.
    let rows = engine.store().read(|r| {
        let mut rows = Vec::new();
        for conversation in r.conversations(&filter)? {
            let count = match &conversation.active_leaf_id {
                Some(leaf) => r
                    .message(&conversation.id, leaf)?
                    .map_or(0, |m| m.depth + 1),
                None => 0,
            };
            rows.push(listed(conversation, count));
        }
        Ok(rows)
    })?;
    Ok(Json(json!({ "conversations": rows })))
}

/// `GET /v1/conversations/{id}`: the conversation and the messages of the branch shown.
async fn show(
    State(engine): State<Engine>,
    Path(id): Path<String>,
) -> Result<Json<Value>, ApiError> {
    let store = engine.store();
    let conversation = store.conversation(&id)?.ok_or_else(|| not_found(&id))?;
    let messages = store.active_branch(&id)?;
    let count = messages.len() as u64;
    Ok(Json(json!({
        "conversation": listed(conversation, count),
        "messages": messages,
    })))
}

/// `PATCH /v1/conversations/{id}`: `{"title": …}` renames; `pinned` and `archived` too.
async fn change(
    State(engine): State<Engine>,
    Path(id): Path<String>,
    body: Result<Bytes, BytesRejection>,
) -> Result<Json<Value>, ApiError> {
    let patch = patch_of(object_body(body)?)?;
    let store = engine.store();
    if store.conversation(&id)?.is_none() {
        return Err(not_found(&id));
    }
    let conversation = store.update_conversation(&id, patch)?;
    let count = match &conversation.active_leaf_id {
        Some(leaf) => store.message(&id, leaf)?.map_or(0, |m| m.depth + 1),
        None => 0,
    };
    Ok(Json(listed(conversation, count)))
}

fn patch_of(body: Map<String, Value>) -> Result<ConversationPatch, ApiError> {
    let mut patch = ConversationPatch::default();
    if body.is_empty() {
        return Err(bad_request(
            "nothing to change: send {\"title\": …} (or pinned, archived)",
        ));
    }
    for (field, value) in body {
        match (field.as_str(), value) {
            ("title", Value::String(title)) => {
                let title = title.trim();
                if title.is_empty() {
                    return Err(bad_request("title must not be empty"));
                }
                if title.chars().count() > TITLE_MAX {
                    return Err(bad_request(format!(
                        "title is longer than {TITLE_MAX} characters"
                    )));
                }
                if title.chars().any(char::is_control) {
                    return Err(bad_request("title must be one line of text"));
                }
                patch.title = Some(title.to_owned());
            }
            ("pinned", Value::Bool(b)) => patch.pinned = Some(b),
            ("archived", Value::Bool(b)) => patch.archived = Some(b),
            ("title", other) => {
                return Err(bad_request(format!(
                    "title must be a string, not {}",
                    kind_of(&other)
                )))
            }
            ("pinned" | "archived", other) => {
                return Err(bad_request(format!(
                    "{field} must be true or false, not {}",
                    kind_of(&other)
                )))
            }
            _ => {
                return Err(bad_request(format!(
                    "unknown field `{field}` (title, pinned, archived)"
                )))
            }
        }
    }
    Ok(patch)
}

/// `DELETE /v1/conversations/{id}`: rows, search index, event log and unshared attachments.
/// Refused while a run is answering in it (cancel it first), so no run writes into nothing.
async fn remove(
    State(engine): State<Engine>,
    Path(id): Path<String>,
) -> Result<Json<Value>, ApiError> {
    let store = engine.store();
    if store.conversation(&id)?.is_none() {
        return Err(not_found(&id));
    }
    if let Some(run) = engine
        .running()
        .into_iter()
        .find(|r| r.conversation_id == id)
    {
        return Err(ApiError::new(
            StatusCode::CONFLICT,
            "RUN_IN_PROGRESS",
            format!(
                "run {} is answering in conversation {id}: cancel it (POST /v1/runs/{}/cancel) \
                 before deleting",
                run.run_id, run.run_id
            ),
        )
        .in_context(&id));
    }
    let report = store.delete_conversation(&id)?;
    Ok(Json(json!({
        "deleted": id,
        "attachments_removed": report.attachments_removed.len(),
    })))
}

/// `GET /v1/conversations/{id}/export?format=context|messages`: the seed-004 context document
/// (default) or the MCP-CP messages, as `tessera context export` prints them.
async fn export(
    State(engine): State<Engine>,
    Path(id): Path<String>,
    RawQuery(query): RawQuery,
) -> Result<Json<Value>, ApiError> {
    let mut format = ExportFormat::Context;
    for (name, value) in query_pairs(query.as_deref()) {
        match (name.as_str(), value.as_str()) {
            ("format", "context") => format = ExportFormat::Context,
            ("format", "messages") => format = ExportFormat::Messages,
            ("format", other) => {
                return Err(bad_request(format!(
                    "format must be context or messages, not `{other}`"
                )))
            }
            _ => {
                return Err(bad_request(format!(
                    "unknown query parameter `{name}` (format)"
                )))
            }
        }
    }
    match export_value(engine.store(), &id, format) {
        Ok(document) => Ok(Json(document)),
        Err(ContextCmdError::NoConversation(_)) => Err(not_found(&id)),
        Err(ContextCmdError::Store(err)) => Err(ApiError::from(err).in_context(&id)),
        Err(other) => Err(ApiError::new(
            StatusCode::INTERNAL_SERVER_ERROR,
            "EXPORT_FAILED",
            other.to_string(),
        )),
    }
}

/// `POST /v1/conversations/import`: a context document (or a list of MCP-CP messages) becomes
/// a new conversation; 201 with its id. The whole document is checked first: any problem is a
/// 422 listing them all, and nothing is stored.
async fn import(
    State(engine): State<Engine>,
    body: Result<Bytes, BytesRejection>,
) -> Result<Response, ApiError> {
    let document = json_body(body)?;
    match import_value(engine.store(), &document, "the body") {
        Ok(Ok(report)) => Ok((
            StatusCode::CREATED,
            Json(json!({
                "conversation_id": report.conversation_id,
                "messages": report.messages,
                "evidences": report.evidences,
            })),
        )
            .into_response()),
        Ok(Err(problems)) => Err(ApiError::invalid_document("the document", &problems)),
        Err(err @ ContextCmdError::UnknownShape(_)) => Err(ApiError::invalid_document(
            "the document",
            &[tessera_protocol::Problem {
                path: "$".into(),
                message: err.to_string(),
            }],
        )),
        Err(ContextCmdError::Store(err)) => Err(err.into()),
        Err(other) => Err(ApiError::new(
            StatusCode::INTERNAL_SERVER_ERROR,
            "IMPORT_FAILED",
            other.to_string(),
        )),
    }
}
