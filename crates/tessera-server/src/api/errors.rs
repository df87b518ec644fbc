//! Errors as seed 000 section 7.2 ERROR_RESPONSE messages with a fitting HTTP status.

use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::Json;
use tessera_app::Problem;
use tessera_protocol::error_codes::ErrorCode;
use tessera_protocol::mcp_cp::{ErrorResponse, Message, MessageContent, Sender, SenderType};
use tessera_protocol::wire::{JsonObject, Timestamp};

/// An API error: the status and the ERROR_RESPONSE body.
#[derive(Debug)]
pub struct ApiError {
    status: StatusCode,
    code: ErrorCode,
    message: String,
    context_id: String,
    /// Boxed: most errors have none, and every handler's Result carries this type.
    details: Option<Box<JsonObject>>,
}

impl ApiError {
    /// An error with `code`, answered with the code's own HTTP status (the error-code table).
    pub fn new(code: ErrorCode, message: impl Into<String>) -> Self {
        Self {
            status: StatusCode::from_u16(code.http_status())
                .unwrap_or(StatusCode::INTERNAL_SERVER_ERROR),
            code,
            message: message.into(),
            context_id: "none".into(),
            details: None,
        }
    }

    /// Another status than the code's own, for the few answers whose cause decides it (a body
    /// too large is 413; the model a request named, 400).
    pub fn with_status(mut self, status: StatusCode) -> Self {
        self.status = status;
        self
    }

    /// Seed 000 §7.2 `details`: what a client can act on (the problems of a document…).
    pub fn with_details(mut self, details: JsonObject) -> Self {
        self.details = Some(Box::new(details));
        self
    }

    /// 422 listing every problem of a document, each as `{path, message}`.
    pub fn invalid_document(what: &str, problems: &[tessera_protocol::Problem]) -> Self {
        Problem::invalid_document(what, problems).into()
    }

    /// 400 for an MCP-CP message that is not valid: every problem listed in `details.problems`
    /// as `{path, message}` (Tessera's extension of §7.2 `details`).
    pub fn invalid_message(err: &tessera_protocol::ProtocolError) -> Self {
        let error = Self::new(ErrorCode::InvalidMessage, err.to_string());
        match err {
            tessera_protocol::ProtocolError::Invalid { problems, .. } => {
                let mut details = JsonObject::new();
                details.insert("problems".into(), problems_json(problems));
                error.with_details(details)
            }
            _ => error,
        }
    }

    pub fn code(&self) -> ErrorCode {
        self.code
    }

    pub fn status(&self) -> StatusCode {
        self.status
    }

    /// The conversation the error is about.
    pub fn in_context(mut self, context_id: &str) -> Self {
        self.context_id = context_id.to_owned();
        self
    }

    pub fn body(&self) -> Message {
        let remedy = super::advice::Remedy::of(self.code, self.status);
        Message {
            message_id: uuid::Uuid::now_v7().to_string(),
            context_id: self.context_id.clone(),
            timestamp: Timestamp::new(
                jiff::Timestamp::now()
                    .strftime("%Y-%m-%dT%H:%M:%S%.3fZ")
                    .to_string(),
            ),
            sender: Sender {
                id: "tessera".into(),
                sender_type: SenderType::System,
                extra: JsonObject::new(),
            },
            content: MessageContent::ErrorResponse(ErrorResponse {
                error_code: self.code.as_str().to_owned(),
                message: self.message.clone(),
                details: self.details.as_deref().cloned(),
                source: Some("server".into()),
                recoverable: Some(remedy.recoverable()),
                suggested_action: Some(remedy.suggested_action().to_owned()),
                extra: JsonObject::new(),
            }),
            metadata: None,
            extra: JsonObject::new(),
        }
    }
}

pub use tessera_app::problem::problems_json;

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        (self.status, Json(self.body())).into_response()
    }
}

impl From<Problem> for ApiError {
    fn from(problem: Problem) -> Self {
        let status = StatusCode::from_u16(problem.http_status())
            .unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
        let mut error = ApiError::new(problem.code, problem.message).with_status(status);
        error.details = problem.details.map(Box::new);
        match problem.conversation {
            Some(id) => error.in_context(&id),
            None => error,
        }
    }
}

/// Every error of the core's operations answers as its [`Problem`].
macro_rules! through_problem {
    ($($error:ty),+) => {
        $(impl From<$error> for ApiError {
            fn from(err: $error) -> Self {
                Problem::from(err).into()
            }
        })+
    };
}

through_problem!(
    tessera_app::CoreError,
    tessera_app::StoreError,
    tessera_mcp::HubError
);
