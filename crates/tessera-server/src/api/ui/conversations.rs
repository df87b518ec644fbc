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
use tessera_app::conversations::ConversationFilter;
use tessera_app::views::conversations::ExportFormat;
use tessera_app::App;

use super::{bad_request, json_body, kind_of, object_body};
use crate::api::ApiError;
use tessera_app::views::conversations::{
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

/// `name=value` pairs of a query string, decoded.
fn query_pairs(query: Option<&str>) -> Vec<(String, String)> {
    url::form_urlencoded::parse(query.unwrap_or_default().as_bytes())
        .into_owned()
        .collect()
}

/// `GET /v1/conversations[?limit=N&offset=N&archived=true|false|all&q=TEXT]`: pinned first,
/// then the most recently updated; `message_count` is the length of the branch shown. With
/// `q`, only the conversations whose title or messages (any branch; Chinese too) hold every
/// word of it, each with `match`: the newest matching message's `message_id`, a `snippet`
/// around the words and their `highlight` [start, end) in characters (null when only the
/// title matched).
async fn list(
    State(app): State<App>,
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
    let rows = app.conversations(&filter, search.as_deref())?;
    Ok(Json(ConversationList {
        conversations: rows,
    }))
}

/// `GET /v1/conversations/{id}`: the conversation and the messages of the branch shown;
/// `siblings`, for each message of it that has others beside it (earlier answers, edited
/// messages), their ids in the order written, itself included; `off_branch`, the ids of every
/// message not on the branch shown.
async fn show(
    State(app): State<App>,
    Path(id): Path<String>,
) -> Result<Json<ConversationDetail>, ApiError> {
    Ok(Json(app.conversation_detail(&id)?))
}

/// `PATCH /v1/conversations/{id}`: `{"title": …}` renames; `pinned` and `archived` too.
async fn change(
    State(app): State<App>,
    Path(id): Path<String>,
    body: Result<Bytes, BytesRejection>,
) -> Result<Json<ConversationSummary>, ApiError> {
    let patch = patch_of(object_body(body)?)?;
    Ok(Json(app.edit_conversation(&id, patch)?))
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
    State(app): State<App>,
    Path(id): Path<String>,
) -> Result<Json<ConversationDeleted>, ApiError> {
    Ok(Json(app.delete_conversation(&id)?))
}

/// `GET /v1/conversations/{id}/export?format=context|messages|markdown`: the seed-004
/// context document (default) or the MCP-CP messages, as `tessera context export` prints them,
/// or the branch shown as a Markdown transcript (`text/markdown`, to save as a file).
async fn export(
    State(app): State<App>,
    Path(id): Path<String>,
    RawQuery(query): RawQuery,
) -> Result<Response, ApiError> {
    let mut format = ExportFormat::Context;
    for (name, value) in query_pairs(query.as_deref()) {
        match name.as_str() {
            "format" => format = value.parse().map_err(bad_request)?,
            _ => {
                return Err(bad_request(format!(
                    "unknown query parameter `{name}` (format)"
                )))
            }
        }
    }
    match app.export_conversation(&id, format)? {
        Value::String(markdown) => {
            let title = app.require_conversation(&id)?.title;
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
        document => Ok(Json(document).into_response()),
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

/// `POST /v1/conversations/import[?copy=true]`: a context document (or a list of MCP-CP
/// messages) becomes a new conversation; 201 with its id. The whole document is checked first:
/// any problem is a 422 listing them all, and nothing is stored. A conversation that is stored
/// already is a 409 (`ALREADY_EXISTS`, its id and title in `details`); `copy=true` imports it
/// under a new id beside it.
async fn import(
    State(app): State<App>,
    RawQuery(query): RawQuery,
    body: Result<Bytes, BytesRejection>,
) -> Result<Response, ApiError> {
    let as_copy = copy_of(query.as_deref())?;
    let document = json_body(body)?;
    match app.import_conversation_as(&document, "the body", as_copy)? {
        Ok(report) => Ok((
            StatusCode::CREATED,
            Json(ConversationImported {
                conversation_id: report.conversation_id,
                messages: report.messages as u64,
                evidences: report.evidences as u64,
            }),
        )
            .into_response()),
        Err(problems) => Err(ApiError::invalid_document("the document", &problems)),
    }
}

/// `?copy=true|false` (also 1|0), the only query parameter of an import.
fn copy_of(query: Option<&str>) -> Result<bool, ApiError> {
    let mut as_copy = false;
    for (name, value) in query_pairs(query) {
        match (name.as_str(), value.as_str()) {
            ("copy", "true" | "1") => as_copy = true,
            ("copy", "false" | "0") => as_copy = false,
            ("copy", _) => {
                return Err(bad_request(format!(
                    "copy must be true or false, not `{value}`"
                )))
            }
            _ => {
                return Err(bad_request(format!(
                    "unknown query parameter `{name}` (copy)"
                )))
            }
        }
    }
    Ok(as_copy)
}
