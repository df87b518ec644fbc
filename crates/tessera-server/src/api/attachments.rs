//! `GET /v1/attachments/{sha256}`: the bytes of a stored attachment (a tool's screenshot, a
//! picked image), so a client can show what the model was sent. Content-addressed, so a
//! response never changes and may be cached for good, privately: it is the person's data.

use axum::body::Body;
use axum::extract::{Path, State};
use axum::http::header;
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::Router;
use tessera_app::answers::is_sha256;
use tessera_app::{App, AttachmentInfo, CoreError, StoreError};
use tessera_protocol::error_codes::ErrorCode;

use super::ApiError;

/// What a response says about caching: the same hash always names the same bytes.
const CACHE_CONTROL: &str = "private, max-age=31536000, immutable";

pub fn routes() -> Router<crate::api::ApiState> {
    Router::new().route("/attachments/{sha256}", get(get_attachment))
}

async fn get_attachment(
    State(app): State<App>,
    Path(sha256): Path<String>,
) -> Result<Response, ApiError> {
    if !is_sha256(&sha256) {
        return Err(ApiError::new(
            ErrorCode::BadSha256,
            "an attachment is named by the lowercase hex SHA-256 of its bytes (64 characters)",
        ));
    }
    match app.attachment(&sha256).await {
        Ok(Some((info, bytes))) => Ok(attachment_response(info, bytes)),
        Ok(None) | Err(CoreError::Store(StoreError::NotFound { .. })) => Err(ApiError::new(
            ErrorCode::AttachmentNotFound,
            format!("no attachment {sha256}"),
        )),
        Err(error) => {
            tracing::warn!(%error, %sha256, "cannot read an attachment");
            Err(ApiError::new(
                ErrorCode::StoreError,
                "cannot read the attachment",
            ))
        }
    }
}

/// The bytes, as their type, never run when opened on their own.
fn attachment_response(info: AttachmentInfo, bytes: Vec<u8>) -> Response {
    let mime = info
        .mime_type
        .unwrap_or_else(|| "application/octet-stream".to_owned());
    (
        [
            (header::CONTENT_TYPE, mime),
            (header::CACHE_CONTROL, CACHE_CONTROL.to_owned()),
            (header::X_CONTENT_TYPE_OPTIONS, "nosniff".to_owned()),
            // Opened on its own (an SVG, an HTML file), an attachment runs nothing.
            (
                header::CONTENT_SECURITY_POLICY,
                "default-src 'none'; sandbox".to_owned(),
            ),
        ],
        Body::from(bytes),
    )
        .into_response()
}
