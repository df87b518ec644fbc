//! Errors as seed 000 section 7.2 ERROR_RESPONSE messages with a fitting HTTP status.

use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::Json;
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
    pub fn new(status: StatusCode, code: ErrorCode, message: impl Into<String>) -> Self {
        Self {
            status,
            code,
            message: message.into(),
            context_id: "none".into(),
            details: None,
        }
    }

    /// Seed 000 §7.2 `details`: what a client can act on (the problems of a document…).
    pub fn with_details(mut self, details: JsonObject) -> Self {
        self.details = Some(Box::new(details));
        self
    }

    /// 422 listing every problem of a document, each as `{path, message}`.
    pub fn invalid_document(what: &str, problems: &[tessera_protocol::Problem]) -> Self {
        let listed: Vec<String> = problems.iter().map(ToString::to_string).collect();
        let mut details = JsonObject::new();
        details.insert("problems".into(), problems_json(problems));
        Self::new(
            StatusCode::UNPROCESSABLE_ENTITY,
            ErrorCode::InvalidDocument,
            format!("{what} is not valid: {}", listed.join("; ")),
        )
        .with_details(details)
    }

    /// 400 for an MCP-CP message that is not valid: every problem listed in `details.problems`
    /// as `{path, message}` (Tessera's extension of §7.2 `details`).
    pub fn invalid_message(err: &tessera_protocol::ProtocolError) -> Self {
        let error = Self::new(
            StatusCode::BAD_REQUEST,
            ErrorCode::InvalidMessage,
            err.to_string(),
        );
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

/// Problems as `[{path, message}]`.
pub fn problems_json(problems: &[tessera_protocol::Problem]) -> serde_json::Value {
    serde_json::Value::Array(
        problems
            .iter()
            .map(|p| serde_json::json!({"path": p.path, "message": p.message}))
            .collect(),
    )
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        (self.status, Json(self.body())).into_response()
    }
}

impl From<tessera_engine::engine::EngineError> for ApiError {
    fn from(err: tessera_engine::engine::EngineError) -> Self {
        use tessera_engine::engine::EngineError;
        match &err {
            EngineError::NoConversation(_) | EngineError::NoMessage { .. } => {
                ApiError::new(StatusCode::NOT_FOUND, ErrorCode::NotFound, err.to_string())
            }
            EngineError::MessageIdInUse { .. } => ApiError::new(
                StatusCode::CONFLICT,
                ErrorCode::MessageIdInUse,
                err.to_string(),
            ),
            EngineError::NotUserMessage(_) => ApiError::new(
                StatusCode::BAD_REQUEST,
                ErrorCode::BadRequest,
                err.to_string(),
            ),
            EngineError::ShuttingDown => ApiError::new(
                StatusCode::SERVICE_UNAVAILABLE,
                ErrorCode::ShuttingDown,
                err.to_string(),
            ),
            EngineError::Attachment(tessera_engine::attachments::AttachmentError::Store(_)) => {
                ApiError::new(
                    StatusCode::INTERNAL_SERVER_ERROR,
                    ErrorCode::StoreError,
                    err.to_string(),
                )
            }
            EngineError::Attachment(_) => ApiError::new(
                StatusCode::BAD_REQUEST,
                ErrorCode::InvalidAttachment,
                err.to_string(),
            ),
            EngineError::ModelUnavailable { requested, .. } => ApiError::new(
                if *requested {
                    StatusCode::BAD_REQUEST
                } else {
                    StatusCode::CONFLICT
                },
                ErrorCode::ModelUnavailable,
                err.to_string(),
            ),
            EngineError::NoModel => ApiError::new(
                StatusCode::SERVICE_UNAVAILABLE,
                ErrorCode::NoModel,
                err.to_string(),
            ),
            EngineError::AlreadyRunning(_) => ApiError::new(
                StatusCode::CONFLICT,
                ErrorCode::AlreadyRunning,
                err.to_string(),
            ),
            EngineError::Turn(tessera_engine::turn::TurnError::MessageTooLong { .. }) => {
                ApiError::new(
                    StatusCode::BAD_REQUEST,
                    ErrorCode::MessageTooLong,
                    err.to_string(),
                )
            }
            EngineError::Turn(_) => ApiError::new(
                StatusCode::INTERNAL_SERVER_ERROR,
                ErrorCode::RunError,
                err.to_string(),
            ),
            EngineError::Store(_) => ApiError::new(
                StatusCode::INTERNAL_SERVER_ERROR,
                ErrorCode::StoreError,
                err.to_string(),
            ),
            EngineError::Secrets(
                tessera_engine::secrets::SecretError::Keyring(_)
                | tessera_engine::secrets::SecretError::Timeout { .. },
            ) => ApiError::new(
                StatusCode::SERVICE_UNAVAILABLE,
                ErrorCode::KeyringUnavailable,
                err.to_string(),
            ),
            // The person's own file where the key file would go: theirs to move.
            EngineError::Secrets(tessera_engine::secrets::SecretError::NotKeyFile { .. }) => {
                ApiError::new(
                    StatusCode::CONFLICT,
                    ErrorCode::KeyFileError,
                    err.to_string(),
                )
            }
            EngineError::Secrets(_) => ApiError::new(
                StatusCode::INTERNAL_SERVER_ERROR,
                ErrorCode::KeyFileError,
                err.to_string(),
            ),
        }
    }
}

impl From<tessera_app::StoreError> for ApiError {
    fn from(err: tessera_app::StoreError) -> Self {
        use tessera_app::StoreError;
        match &err {
            StoreError::NotFound { .. } => {
                ApiError::new(StatusCode::NOT_FOUND, ErrorCode::NotFound, err.to_string())
            }
            StoreError::AlreadyExists { .. } => ApiError::new(
                StatusCode::CONFLICT,
                ErrorCode::AlreadyExists,
                err.to_string(),
            ),
            StoreError::InvalidDocument { problems } => {
                ApiError::invalid_document("the document", problems)
            }
            StoreError::EmptyConversation { .. } => ApiError::new(
                StatusCode::CONFLICT,
                ErrorCode::EmptyConversation,
                err.to_string(),
            ),
            StoreError::InvalidMemory(_) => ApiError::new(
                StatusCode::BAD_REQUEST,
                ErrorCode::BadRequest,
                err.to_string(),
            ),
            StoreError::InvalidProject { .. } => ApiError::new(
                StatusCode::BAD_REQUEST,
                ErrorCode::InvalidProject,
                err.to_string(),
            ),
            StoreError::SecretInSettings { .. } => ApiError::new(
                StatusCode::BAD_REQUEST,
                ErrorCode::SecretRefused,
                err.to_string(),
            ),
            // A CONTEXT_UPDATE naming another version than the context's (seed 000 §8.3).
            StoreError::VersionConflict {
                expected, current, ..
            } => {
                let mut details = JsonObject::new();
                details.insert("expectedVersion".into(), serde_json::json!(expected));
                details.insert("currentVersion".into(), serde_json::json!(current));
                ApiError::new(
                    StatusCode::CONFLICT,
                    ErrorCode::VersionConflict,
                    err.to_string(),
                )
                .with_details(details)
            }
            StoreError::StatePath { .. } | StoreError::InvalidContextUpdate(_) => ApiError::new(
                StatusCode::UNPROCESSABLE_ENTITY,
                ErrorCode::InvalidContextUpdate,
                err.to_string(),
            ),
            _ => ApiError::new(
                StatusCode::INTERNAL_SERVER_ERROR,
                ErrorCode::StoreError,
                err.to_string(),
            ),
        }
    }
}

impl From<tessera_app::CoreError> for ApiError {
    fn from(err: tessera_app::CoreError) -> Self {
        use tessera_app::CoreError;
        let context = err.conversation().map(str::to_owned);
        let answer = match err {
            CoreError::NoProject(_) | CoreError::NotInProject { .. } | CoreError::NoMemory(_) => {
                ApiError::new(StatusCode::NOT_FOUND, ErrorCode::NotFound, err.to_string())
            }
            CoreError::Knowledge(
                tessera_app::projects::KnowledgeError::BadSource { .. }
                | tessera_app::projects::KnowledgeError::RelativePath(_),
            ) => ApiError::new(
                StatusCode::BAD_REQUEST,
                ErrorCode::InvalidKnowledgeSource,
                err.to_string(),
            ),
            CoreError::Knowledge(_) | CoreError::KnowledgeUnavailable(_) => ApiError::new(
                StatusCode::SERVICE_UNAVAILABLE,
                ErrorCode::KnowledgeUnavailable,
                err.to_string(),
            ),
            CoreError::BadSetting(_) => ApiError::new(
                StatusCode::BAD_REQUEST,
                ErrorCode::InvalidValue,
                err.to_string(),
            ),
            CoreError::Store(err) => err.into(),
            CoreError::Engine(err) => err.into(),
            CoreError::NoConversation(_) | CoreError::NoModelCall(_) => {
                ApiError::new(StatusCode::NOT_FOUND, ErrorCode::NotFound, err.to_string())
            }
            CoreError::ConversationExists { ref id, ref title } => {
                let mut details = JsonObject::new();
                details.insert("conversation_id".into(), id.clone().into());
                details.insert("title".into(), title.clone().into());
                ApiError::new(
                    StatusCode::CONFLICT,
                    ErrorCode::AlreadyExists,
                    err.to_string(),
                )
                .with_details(details)
            }
            CoreError::RunInProgress { .. } => ApiError::new(
                StatusCode::CONFLICT,
                ErrorCode::RunInProgress,
                err.to_string(),
            ),
            CoreError::NothingToRegenerate(ref id) => ApiError::new(
                StatusCode::CONFLICT,
                ErrorCode::NothingToRegenerate,
                err.to_string(),
            )
            .in_context(id),
            CoreError::NotAQuestion(_) => ApiError::new(
                StatusCode::BAD_REQUEST,
                ErrorCode::BadRequest,
                err.to_string(),
            ),
            CoreError::UnknownShape(_) => ApiError::invalid_document(
                "the document",
                &[tessera_protocol::Problem {
                    path: "$".into(),
                    message: err.to_string(),
                }],
            ),
            CoreError::Answer(err) => err.into(),
            CoreError::NoForm { .. } => {
                ApiError::new(StatusCode::NOT_FOUND, ErrorCode::NotFound, err.to_string())
            }
            CoreError::NoGrant(_) => {
                ApiError::new(StatusCode::NOT_FOUND, ErrorCode::NotFound, err.to_string())
            }
            CoreError::McpUnavailable => ApiError::new(
                StatusCode::SERVICE_UNAVAILABLE,
                ErrorCode::McpUnavailable,
                err.to_string(),
            ),
            CoreError::Attach(tessera_mcp::resources::AttachError::Hub(e)) => e.into(),
            CoreError::Attach(tessera_mcp::resources::AttachError::Store(e)) => e.into(),
            CoreError::Attach(tessera_mcp::resources::AttachError::Empty(_)) => ApiError::new(
                StatusCode::UNPROCESSABLE_ENTITY,
                ErrorCode::EmptyResource,
                err.to_string(),
            ),
            CoreError::AddWhileRunning(_) => ApiError::new(
                StatusCode::CONFLICT,
                ErrorCode::RunInProgress,
                err.to_string(),
            ),
            CoreError::Plan(_) => ApiError::new(
                StatusCode::UNPROCESSABLE_ENTITY,
                ErrorCode::InvalidPlan,
                err.to_string(),
            ),
            CoreError::Unavailable(_) => ApiError::new(
                StatusCode::SERVICE_UNAVAILABLE,
                ErrorCode::Unavailable,
                err.to_string(),
            ),
            CoreError::Assemble(_) | CoreError::Json(_) | CoreError::Internal(_) => ApiError::new(
                StatusCode::INTERNAL_SERVER_ERROR,
                ErrorCode::Internal,
                err.to_string(),
            ),
        };
        match context {
            Some(id) => answer.in_context(&id),
            None => answer,
        }
    }
}
