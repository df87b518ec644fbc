//! The conversation list: list and search, show (the active branch and where it branches),
//! rename, pin, archive, delete everywhere, export (the documents `tessera context export`
//! writes, or a Markdown transcript) and import. Regenerating and switching branches are in
//! [`super::branches`].

use axum::body::Bytes;
use axum::extract::rejection::BytesRejection;
use axum::extract::{DefaultBodyLimit, Path, RawQuery, State};
use axum::http::{header, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use serde_json::{Map, Value};
use std::collections::BTreeMap;
use tessera_engine::engine::Engine;
use tessera_store::conversations::{Conversation, ConversationFilter};
use tessera_store::{ReadTx, StoredMessage};

use super::{bad_request, json_body, kind_of, object_body};
use crate::api::messages::refuse_while_running;
use crate::api::ApiError;
use crate::context_cmd::{export_value, import_value, ContextCmdError, ExportFormat};
use crate::views::conversations::{
    ConversationDeleted, ConversationDetail, ConversationEdit, ConversationImported,
    ConversationList, ConversationSummary,
};

/// Context documents carry their evidences (attachments inline): more than axum's 2 MB default.
const IMPORT_LIMIT: usize = 64 * 1024 * 1024;

/// The longest title kept, in characters.
const TITLE_MAX: usize = 200;

pub(super) fn routes() -> Router<crate::api::ApiState> {
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

pub(super) fn not_found(id: &str) -> ApiError {
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

fn listed(conversation: Conversation, message_count: u64) -> ConversationSummary {
    ConversationSummary {
        conversation,
        message_count,
        found: None,
    }
}

/// The conversation as the list shows it; `message_count` is the length of the branch shown
/// (the active leaf's depth: one indexed lookup).
fn listed_row(
    r: &ReadTx<'_>,
    conversation: Conversation,
) -> tessera_store::Result<ConversationSummary> {
    let count = match &conversation.active_leaf_id {
        Some(leaf) => r
            .message(&conversation.id, leaf)?
            .map_or(0, |m| m.depth + 1),
        None => 0,
    };
    Ok(listed(conversation, count))
}

/// `GET /v1/conversations[?limit=N&offset=N&archived=true|false|all&q=TEXT]`: pinned first,
/// then the most recently updated; `message_count` is the length of the branch shown. With
/// `q`, only the conversations whose title or messages (any branch; Chinese too) hold every
/// word of it, each with `match`: the newest matching message's `message_id`, a `snippet`
/// around the words and their `highlight` [start, end) in characters (null when only the
/// title matched).
async fn list(
    State(engine): State<Engine>,
    RawQuery(query): RawQuery,
) -> Result<Json<ConversationList>, ApiError> {
    let mut filter = ConversationFilter::default();
    let mut search: Option<String> = None;
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
            "q" => search = Some(value).filter(|q| !q.trim().is_empty()),
            _ => {
                return Err(bad_request(format!(
                    "unknown query parameter `{name}` (limit, offset, archived, q)"
                )))
            }
        }
    }
    let rows = engine.store().read(|r| match &search {
        None => r
            .conversations(&filter)?
            .into_iter()
            .map(|c| listed_row(r, c))
            .collect::<tessera_store::Result<Vec<_>>>(),
        Some(q) => r
            .search_conversations(q, &filter)?
            .into_iter()
            .map(|found| {
                Ok(ConversationSummary {
                    found: Some(found.message),
                    ..listed_row(r, found.conversation)?
                })
            })
            .collect(),
    })?;
    Ok(Json(ConversationList {
        conversations: rows,
    }))
}

/// `GET /v1/conversations/{id}`: the conversation and the messages of the branch shown;
/// `siblings`, for each message of it that has others beside it (earlier answers, edited
/// messages), their ids in the order written, itself included; `off_branch`, the ids of every
/// message not on the branch shown.
async fn show(
    State(engine): State<Engine>,
    Path(id): Path<String>,
) -> Result<Json<ConversationDetail>, ApiError> {
    Ok(Json(detail(&engine, &id)?))
}

/// What [`show`] answers (a branch switch answers it too).
pub(super) fn detail(engine: &Engine, id: &str) -> Result<ConversationDetail, ApiError> {
    let found = engine.store().read(|r| {
        let Some(conversation) = r.conversation(id)? else {
            return Ok(None);
        };
        Ok(Some((
            conversation,
            r.active_branch(id)?,
            r.message_links(id)?,
            r.conversation_model(id)?,
        )))
    })?;
    let (conversation, messages, links, model) = found.ok_or_else(|| not_found(id))?;
    let count = messages.len() as u64;
    let (siblings, off_branch) = branching(&messages, &links);
    Ok(ConversationDetail {
        conversation: listed(conversation, count),
        messages,
        siblings,
        off_branch,
        model,
    })
}

/// For the branch `shown`, given the tree's `(id, parent)` links in the order written: each
/// shown message's siblings (only those that have some) and the messages off the branch.
fn branching(
    shown: &[StoredMessage],
    links: &[(String, Option<String>)],
) -> (BTreeMap<String, Vec<String>>, Vec<String>) {
    let mut children: std::collections::HashMap<Option<&str>, Vec<&str>> =
        std::collections::HashMap::new();
    for (id, parent) in links {
        children.entry(parent.as_deref()).or_default().push(id);
    }
    let mut siblings = BTreeMap::new();
    for m in shown {
        if let Some(ids) = children
            .get(&m.parent_id.as_deref())
            .filter(|ids| ids.len() > 1)
        {
            siblings.insert(
                m.id.clone(),
                ids.iter().map(|id| (*id).to_owned()).collect(),
            );
        }
    }
    let on: std::collections::HashSet<&str> = shown.iter().map(|m| m.id.as_str()).collect();
    let off = links
        .iter()
        .filter(|(id, _)| !on.contains(id.as_str()))
        .map(|(id, _)| id.clone())
        .collect();
    (siblings, off)
}

/// `PATCH /v1/conversations/{id}`: `{"title": …}` renames; `pinned` and `archived` too.
async fn change(
    State(engine): State<Engine>,
    Path(id): Path<String>,
    body: Result<Bytes, BytesRejection>,
) -> Result<Json<ConversationSummary>, ApiError> {
    let patch = patch_of(object_body(body)?)?;
    let store = engine.store();
    if store.conversation(&id)?.is_none() {
        return Err(not_found(&id));
    }
    let conversation = store.update_conversation(&id, patch.into())?;
    Ok(Json(store.read(|r| listed_row(r, conversation))?))
}

fn patch_of(body: Map<String, Value>) -> Result<ConversationEdit, ApiError> {
    let mut patch = ConversationEdit::default();
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
) -> Result<Json<ConversationDeleted>, ApiError> {
    let store = engine.store();
    if store.conversation(&id)?.is_none() {
        return Err(not_found(&id));
    }
    refuse_while_running(&engine, &id, "deleting it")?;
    let report = store.delete_conversation(&id)?;
    Ok(Json(ConversationDeleted {
        deleted: id,
        attachments_removed: report.attachments_removed.len() as u64,
    }))
}

/// `GET /v1/conversations/{id}/export?format=context|messages|markdown`: the seed-004
/// context document (default) or the MCP-CP messages, as `tessera context export` prints them,
/// or the branch shown as a Markdown transcript (`text/markdown`, to save as a file).
async fn export(
    State(engine): State<Engine>,
    Path(id): Path<String>,
    RawQuery(query): RawQuery,
) -> Result<Response, ApiError> {
    let mut format = ExportFormat::Context;
    for (name, value) in query_pairs(query.as_deref()) {
        match (name.as_str(), value.as_str()) {
            ("format", "context") => format = ExportFormat::Context,
            ("format", "messages") => format = ExportFormat::Messages,
            ("format", "markdown") => format = ExportFormat::Markdown,
            ("format", other) => {
                return Err(bad_request(format!(
                    "format must be context, messages or markdown, not `{other}`"
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
        Ok(Value::String(markdown)) => {
            let title = engine
                .store()
                .conversation(&id)?
                .map(|c| c.title)
                .unwrap_or_default();
            Ok((
                [
                    (
                        header::CONTENT_TYPE,
                        "text/markdown; charset=utf-8".to_owned(),
                    ),
                    (header::CONTENT_DISPOSITION, attachment(&title, "md")),
                ],
                markdown,
            )
                .into_response())
        }
        Ok(document) => Ok(Json(document).into_response()),
        Err(ContextCmdError::NoConversation(_)) => Err(not_found(&id)),
        Err(ContextCmdError::Store(err)) => Err(ApiError::from(err).in_context(&id)),
        Err(other) => Err(ApiError::new(
            StatusCode::INTERNAL_SERVER_ERROR,
            "EXPORT_FAILED",
            other.to_string(),
        )),
    }
}

/// `attachment` with a file name from `title` (`conversation.EXT` when nothing of it is
/// usable), plain ASCII for old clients and the whole title in `filename*` (RFC 6266).
fn attachment(title: &str, ext: &str) -> String {
    let safe: String = title
        .chars()
        .map(|c| {
            if c.is_control() || "/\\:*?\"<>|".contains(c) {
                ' '
            } else {
                c
            }
        })
        .collect();
    let safe = safe.split_whitespace().collect::<Vec<_>>().join(" ");
    let safe = if safe.is_empty() {
        "conversation".to_owned()
    } else {
        safe
    };
    let ascii: String = safe
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || " -_.,()".contains(c) {
                c
            } else {
                '_'
            }
        })
        .collect();
    let encoded: String = url::form_urlencoded::byte_serialize(format!("{safe}.{ext}").as_bytes())
        .collect::<String>()
        .replace('+', "%20");
    format!("attachment; filename=\"{ascii}.{ext}\"; filename*=UTF-8''{encoded}")
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
            Json(ConversationImported {
                conversation_id: report.conversation_id,
                messages: report.messages as u64,
                evidences: report.evidences as u64,
            }),
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
