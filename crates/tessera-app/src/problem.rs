//! What a shell tells a client or a person about an operation the core refused or that failed:
//! the wire code, the message, and what a client can act on. Every error the core's operations
//! return becomes one here, so the shells never look inside the engine's, the store's or an MCP
//! server's errors: the HTTP API answers a [`Problem`] with its code's status (the error-code
//! table, [`ErrorCode::http_status`]), the CLI prints its message.

use serde_json::{json, Value};
use tessera_engine::attachments::AttachmentError;
use tessera_engine::engine::EngineError;
use tessera_engine::interactions::AnswerError;
use tessera_engine::secrets::SecretError;
use tessera_engine::turn::TurnError;
use tessera_mcp::resources::AttachError;
use tessera_mcp::HubError;
use tessera_protocol::error_codes::ErrorCode;
use tessera_protocol::wire::JsonObject;
use tessera_store::StoreError;

use tessera_engine::profiles::ProfilesError;
use tessera_engine::provider_settings::ProviderLookupError;
use tessera_engine::specialists::SpecialistsError;
use tessera_providers::ProviderError;

use crate::local_models::LocalModelsError;
use crate::projects::KnowledgeError;
use crate::providers::ProvidersError;
use crate::views::agents::{AgentProblem, AgentProblems};
use crate::CoreError;

#[derive(Clone, Debug, PartialEq)]
pub struct Problem {
    pub code: ErrorCode,
    /// Another HTTP status than the code's own, where the cause decides it (a model the
    /// request itself named is its fault, 400; the key file broken, not misplaced, is ours,
    /// 500).
    pub status: Option<u16>,
    pub message: String,
    /// Seed 000 §7.2 `details`: what a client can act on (the problems of a document, the
    /// fields of a form, the versions of a conflict).
    pub details: Option<JsonObject>,
    /// The conversation the problem is about, when it names one.
    pub conversation: Option<String>,
}

impl Problem {
    pub fn new(code: ErrorCode, message: impl Into<String>) -> Self {
        Self {
            code,
            status: None,
            message: message.into(),
            details: None,
            conversation: None,
        }
    }

    fn with_status(mut self, status: u16) -> Self {
        self.status = Some(status);
        self
    }

    fn with_detail(mut self, key: &str, value: Value) -> Self {
        self.details
            .get_or_insert_with(JsonObject::new)
            .insert(key.into(), value);
        self
    }

    fn about(mut self, conversation: Option<&str>) -> Self {
        if let Some(id) = conversation {
            self.conversation = Some(id.to_owned());
        }
        self
    }

    /// The HTTP status to answer with.
    pub fn http_status(&self) -> u16 {
        self.status.unwrap_or_else(|| self.code.http_status())
    }

    /// `INVALID_DOCUMENT` listing every problem of `what` in `details.problems`.
    pub fn invalid_document(what: &str, problems: &[tessera_protocol::Problem]) -> Self {
        let listed: Vec<String> = problems.iter().map(ToString::to_string).collect();
        Self::new(
            ErrorCode::InvalidDocument,
            format!("{what} is not valid: {}", listed.join("; ")),
        )
        .with_detail("problems", problems_json(problems))
    }
}

/// Problems as `[{path, message}]`.
pub fn problems_json(problems: &[tessera_protocol::Problem]) -> Value {
    Value::Array(
        problems
            .iter()
            .map(|p| json!({"path": p.path, "message": p.message}))
            .collect(),
    )
}

impl From<EngineError> for Problem {
    fn from(err: EngineError) -> Self {
        let message = err.to_string();
        let code = match &err {
            EngineError::NoConversation(_) | EngineError::NoMessage { .. } => ErrorCode::NotFound,
            EngineError::MessageIdInUse { .. } => ErrorCode::MessageIdInUse,
            EngineError::NotUserMessage(_) => ErrorCode::BadRequest,
            EngineError::ShuttingDown => ErrorCode::ShuttingDown,
            EngineError::Attachment(AttachmentError::Store(_)) => ErrorCode::StoreError,
            EngineError::Attachment(_) => ErrorCode::InvalidAttachment,
            EngineError::ModelUnavailable { requested, .. } => {
                let problem = Problem::new(ErrorCode::ModelUnavailable, message);
                return if *requested {
                    problem.with_status(400)
                } else {
                    problem
                };
            }
            EngineError::NoModel => ErrorCode::NoModel,
            EngineError::AlreadyRunning(_) => ErrorCode::AlreadyRunning,
            EngineError::Turn(TurnError::MessageTooLong { .. }) => ErrorCode::MessageTooLong,
            EngineError::Turn(_) => ErrorCode::RunError,
            EngineError::Store(_) => ErrorCode::StoreError,
            EngineError::Secrets(SecretError::Keyring(_) | SecretError::Timeout { .. }) => {
                ErrorCode::KeyringUnavailable
            }
            // The person's own file where the key file would go: theirs to move (409).
            EngineError::Secrets(SecretError::NotKeyFile { .. }) => ErrorCode::KeyFileError,
            EngineError::Secrets(_) => {
                return Problem::new(ErrorCode::KeyFileError, message).with_status(500)
            }
        };
        let conversation = match &err {
            EngineError::NoMessage { conversation, .. } => Some(conversation.as_str()),
            _ => None,
        };
        Problem::new(code, message).about(conversation)
    }
}

impl From<StoreError> for Problem {
    fn from(err: StoreError) -> Self {
        let message = err.to_string();
        let code = match &err {
            StoreError::NotFound { .. } => ErrorCode::NotFound,
            StoreError::AlreadyExists { .. } => ErrorCode::AlreadyExists,
            StoreError::InvalidDocument { problems } => {
                return Problem::invalid_document("the document", problems)
            }
            StoreError::EmptyConversation { .. } => ErrorCode::EmptyConversation,
            StoreError::InvalidMemory(_) => ErrorCode::BadRequest,
            StoreError::InvalidProject { .. } => ErrorCode::InvalidProject,
            StoreError::SecretInSettings { .. } => ErrorCode::SecretRefused,
            // A CONTEXT_UPDATE naming another version than the context's (seed 000 §8.3).
            StoreError::VersionConflict {
                expected, current, ..
            } => {
                return Problem::new(ErrorCode::VersionConflict, message)
                    .with_detail("expectedVersion", json!(expected))
                    .with_detail("currentVersion", json!(current))
            }
            StoreError::StatePath { .. } | StoreError::InvalidContextUpdate(_) => {
                ErrorCode::InvalidContextUpdate
            }
            _ => ErrorCode::StoreError,
        };
        Problem::new(code, message)
    }
}

impl From<AnswerError> for Problem {
    fn from(err: AnswerError) -> Self {
        let message = err.to_string();
        match err {
            AnswerError::NotFound(_) => Problem::new(ErrorCode::NotFound, message),
            AnswerError::BadAnswer(_) | AnswerError::WrongKind { .. } => {
                Problem::new(ErrorCode::BadAnswer, message)
            }
            AnswerError::FieldErrors(errors) => {
                let fields = errors
                    .iter()
                    .map(|e| json!({"field": e.field, "message": e.message}))
                    .collect();
                Problem::new(ErrorCode::InvalidValues, message)
                    .with_detail("fields", Value::Array(fields))
            }
            AnswerError::AlreadyAnswered { .. } => {
                Problem::new(ErrorCode::AlreadyAnswered, message)
            }
            AnswerError::Closed { .. } => Problem::new(ErrorCode::InteractionClosed, message),
            AnswerError::Store(_) => Problem::new(ErrorCode::StoreError, message),
        }
    }
}

impl From<HubError> for Problem {
    fn from(err: HubError) -> Self {
        let message = err.to_string();
        let code = match &err {
            HubError::Config(_) => ErrorCode::InvalidMcpConfig,
            HubError::NotFound(_) => ErrorCode::NotFound,
            HubError::Keyring { .. } => ErrorCode::KeyringUnavailable,
            HubError::Unavailable { .. } => ErrorCode::McpServerUnavailable,
            HubError::Server { .. } => ErrorCode::McpServerError,
            HubError::WouldReplace(names) => {
                return Problem::new(ErrorCode::McpServersExist, message)
                    .with_detail("servers", json!(names))
            }
            HubError::Grants(_) => ErrorCode::ContextDatabaseUnavailable,
        };
        Problem::new(code, message)
    }
}

impl From<CoreError> for Problem {
    fn from(err: CoreError) -> Self {
        let conversation = err.conversation().map(str::to_owned);
        let message = err.to_string();
        let code = match err {
            CoreError::NoProject(_)
            | CoreError::NotInProject { .. }
            | CoreError::NoMemory(_)
            | CoreError::NoConversation(_)
            | CoreError::NoModelCall(_)
            | CoreError::NoForm { .. }
            | CoreError::NoGrant(_) => ErrorCode::NotFound,
            CoreError::Knowledge(
                KnowledgeError::BadSource { .. } | KnowledgeError::RelativePath(_),
            ) => ErrorCode::InvalidKnowledgeSource,
            CoreError::Knowledge(_) | CoreError::KnowledgeUnavailable(_) => {
                ErrorCode::KnowledgeUnavailable
            }
            CoreError::BadSetting(_) => ErrorCode::InvalidValue,
            CoreError::WrongShape(_) => ErrorCode::BadRequest,
            CoreError::Providers(err) => return err.into(),
            CoreError::LocalModels(err) => return err.into(),
            CoreError::Store(err) => return Problem::from(err).about(conversation.as_deref()),
            CoreError::Profiles(err) => return profiles_problem(err),
            CoreError::Specialists(err) => return specialists_problem(err),
            CoreError::Engine(err) => return Problem::from(err).about(conversation.as_deref()),
            CoreError::Answer(err) => return Problem::from(err).about(conversation.as_deref()),
            CoreError::Attach(AttachError::Hub(err)) => return err.into(),
            CoreError::Attach(AttachError::Store(err)) => return err.into(),
            CoreError::Attach(AttachError::Empty(_)) => ErrorCode::EmptyResource,
            CoreError::ConversationExists { ref id, ref title } => {
                return Problem::new(ErrorCode::AlreadyExists, message)
                    .with_detail("conversation_id", json!(id))
                    .with_detail("title", json!(title))
                    .about(conversation.as_deref())
            }
            CoreError::RunInProgress { .. } | CoreError::AddWhileRunning(_) => {
                ErrorCode::RunInProgress
            }
            CoreError::NothingToRegenerate(ref id) => {
                return Problem::new(ErrorCode::NothingToRegenerate, message).about(Some(id))
            }
            CoreError::NotAQuestion(_) => ErrorCode::BadRequest,
            CoreError::UnknownShape(_) => {
                return Problem::invalid_document(
                    "the document",
                    &[tessera_protocol::Problem {
                        path: "$".into(),
                        message,
                    }],
                )
            }
            CoreError::McpUnavailable => ErrorCode::McpUnavailable,
            CoreError::BadCapabilities(_) => ErrorCode::InvalidCapabilities,
            CoreError::NoWaitingCall { .. } => ErrorCode::NoWaitingCall,
            CoreError::RunNotRunning(_) => ErrorCode::RunNotRunning,
            CoreError::Plan(_) => ErrorCode::InvalidPlan,
            CoreError::Unavailable(_) => ErrorCode::Unavailable,
            CoreError::Assemble(_) | CoreError::Json(_) | CoreError::Internal(_) => {
                ErrorCode::Internal
            }
        };
        Problem::new(code, message).about(conversation.as_deref())
    }
}

/// `details.problems` of a refused profile set or specialist list.
fn agent_details(problems: Vec<AgentProblem>) -> Option<JsonObject> {
    match serde_json::to_value(AgentProblems { problems }) {
        Ok(Value::Object(details)) => Some(details),
        _ => None,
    }
}

fn profiles_problem(err: ProfilesError) -> Problem {
    match err {
        ProfilesError::Invalid(problems) => {
            let listed = problems
                .iter()
                .map(|p| AgentProblem {
                    profile: Some(p.profile.clone()),
                    specialist: None,
                    index: None,
                    field: p.field.clone(),
                    message: p.message.clone(),
                })
                .collect();
            Problem {
                details: agent_details(listed),
                ..Problem::new(
                    ErrorCode::InvalidProfiles,
                    ProfilesError::Invalid(problems).to_string(),
                )
            }
        }
        ProfilesError::Store(err) => err.into(),
    }
}

fn specialists_problem(err: SpecialistsError) -> Problem {
    match err {
        SpecialistsError::Store(err) => err.into(),
        SpecialistsError::Invalid {
            index,
            ref name,
            ref message,
        } => {
            // The engine's message starts with the field(s) it is about (`max_turns: …`,
            // `title and description: …`): one problem per field, as the profiles' are, so the
            // settings page shows each next to its field.
            let (fields, text) = message.split_once(": ").unwrap_or(("", message.as_str()));
            let listed = fields
                .split(" and ")
                .map(|field| AgentProblem {
                    profile: None,
                    specialist: Some(name.clone()),
                    index: Some(index),
                    field: field.trim().to_owned(),
                    message: text.to_owned(),
                })
                .collect();
            Problem {
                details: agent_details(listed),
                ..Problem::new(ErrorCode::InvalidSpecialists, err.to_string())
            }
        }
        other => Problem::new(ErrorCode::InvalidSpecialists, other.to_string()),
    }
}

impl From<ProvidersError> for Problem {
    /// A wrong request is a 4xx (404 for an unknown provider), a provider or keyring that
    /// failed a 502 or 503.
    fn from(err: ProvidersError) -> Self {
        let message = crate::error_chain(&err);
        let code = match &err {
            ProvidersError::Lookup(lookup) => match lookup {
                ProviderLookupError::Unknown { .. } => ErrorCode::UnknownProvider,
                ProviderLookupError::Unreadable { .. } => ErrorCode::ProviderUnreadable,
                ProviderLookupError::CredentialsInUrl { .. } => ErrorCode::InvalidProvider,
                _ => ErrorCode::StoreError,
            },
            ProvidersError::Store(_) => ErrorCode::StoreError,
            ProvidersError::Provider(ProviderError::Keyring(_)) => ErrorCode::KeyringUnavailable,
            ProvidersError::Provider(ProviderError::MissingKey { .. }) => ErrorCode::MissingKey,
            _ if err.is_remote() => ErrorCode::ProviderError,
            _ => ErrorCode::InvalidProvider,
        };
        Problem::new(code, message)
    }
}

impl From<LocalModelsError> for Problem {
    fn from(err: LocalModelsError) -> Self {
        let message = crate::error_chain(&err);
        if let LocalModelsError::Providers(inner) = err {
            return inner.into();
        }
        let code = if err.is_not_found() {
            ErrorCode::NotFound
        } else if err.is_bad_request() {
            ErrorCode::BadRequest
        } else {
            match &err {
                LocalModelsError::AlreadyThere(_) => ErrorCode::AlreadyExists,
                LocalModelsError::StillDownloading(_) => ErrorCode::AlreadyRunning,
                LocalModelsError::NotAModel { .. } => ErrorCode::InvalidValue,
                _ => ErrorCode::StoreError,
            }
        };
        Problem::new(code, message)
    }
}
