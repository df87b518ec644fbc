//! Tessera as an MCP client of one server: it declares the elicitation capability (form and
//! URL; servers hide their elicitation tools from clients that do not), shows a form
//! elicitation as an `interaction/form_request` of the call that asked, opens a URL elicitation
//! in the browser once the person agreed, and passes progress notifications on as the call's
//! `tool/tool_progress`.

use std::sync::{Arc, Mutex};
use tessera_engine::sync::lock;

use rmcp::model::{
    ClientCapabilities, ClientConfig, ElicitRequestParams, ElicitResult, ElicitationAction,
    ElicitationCapability, FormElicitationCapability, Implementation, ProgressNotificationParam,
    ProgressToken, ProtocolVersion, UrlElicitationCapability,
};
use rmcp::service::{NotificationContext, RequestContext, RoleClient};
use rmcp::{ClientHandler, ErrorData};
use serde_json::{json, Value};
use tessera_engine::interactions::{LiveFormError, LiveReply};
use tessera_engine::tools::{CallReporter, ToolContext};
use tessera_protocol::easyflow::{FormRequestPayload, FormRequester, FormUi, RequesterKind};
use tessera_protocol::wire::JsonObject;

use crate::browser::open_url;

/// The calls of one server that are running, so that what the server sends about them
/// (progress, a form) reaches the right conversation.
#[derive(Default)]
pub(crate) struct Calls {
    /// With the progress token of each call's request.
    running: Mutex<Vec<(ProgressToken, CallReporter)>>,
}

impl Calls {
    pub(crate) fn begin(&self, token: &ProgressToken, ctx: &ToolContext) {
        lock(&self.running).push((token.clone(), ctx.reporter()));
    }

    /// The call ended (answered, cancelled, timed out): a form it still waits for is
    /// withdrawn now, before its result is reported.
    pub(crate) fn end(&self, call_id: &str) {
        let ended: Vec<CallReporter> = {
            let mut running = lock(&self.running);
            let (gone, kept) = running
                .drain(..)
                .partition::<Vec<_>, _>(|(_, ctx)| ctx.call_id() == call_id);
            *running = kept;
            gone.into_iter().map(|(_, ctx)| ctx).collect()
        };
        for ctx in ended {
            ctx.withdraw_forms("the tool call that asked ended");
        }
    }

    fn by_token(&self, token: &ProgressToken) -> Option<CallReporter> {
        let running = lock(&self.running);
        running
            .iter()
            .find(|(t, _)| t == token)
            .map(|(_, ctx)| ctx.clone())
    }

    /// The call a server request is about. Over stdio a request carries no link to the call
    /// that caused it, so it is the latest call still running (a server asks while a call of
    /// its own waits; with one call at a time, which is the usual case, that is exact).
    fn latest(&self) -> Option<CallReporter> {
        let running = lock(&self.running);
        running.last().map(|(_, ctx)| ctx.clone())
    }
}

/// The handler rmcp drives for one server connection.
pub(crate) struct TesseraClient {
    pub(crate) server: String,
    pub(crate) calls: Arc<Calls>,
    /// Set when the server says its tool list changed: the next run lists the tools again.
    pub(crate) tools_changed: Arc<std::sync::atomic::AtomicBool>,
}

/// What the client tells servers about itself.
pub(crate) fn client_info() -> ClientConfig {
    let mut capabilities = ClientCapabilities::default();
    capabilities.elicitation = Some(
        ElicitationCapability::new()
            .with_form(FormElicitationCapability::default())
            .with_url(UrlElicitationCapability::new()),
    );
    ClientConfig::new(
        capabilities,
        Implementation::new("tessera", env!("CARGO_PKG_VERSION")),
    )
    // Servers of today speak the versions with an `initialize` handshake.
    .with_protocol_version(ProtocolVersion::LATEST_WITH_INITIALIZE)
}

fn requester(server: &str) -> FormRequester {
    FormRequester {
        kind: Some(RequesterKind::McpServer),
        name: Some(server.to_owned()),
        extra: JsonObject::new(),
    }
}

fn result_of(reply: LiveReply) -> ElicitResult {
    match reply {
        LiveReply::Accept(values) => {
            ElicitResult::new(ElicitationAction::Accept).with_content(values)
        }
        LiveReply::Decline => ElicitResult::new(ElicitationAction::Decline),
        // A form is never answered with a consent decision.
        LiveReply::Cancel(_) | LiveReply::Decided(_) => {
            ElicitResult::new(ElicitationAction::Cancel)
        }
    }
}

fn refused(error: LiveFormError) -> ErrorData {
    ErrorData::invalid_params(error.to_string(), None)
}

impl TesseraClient {
    async fn form(
        &self,
        ctx: &CallReporter,
        message: String,
        schema: Value,
    ) -> Result<ElicitResult, ErrorData> {
        let Value::Object(schema) = schema else {
            return Err(ErrorData::invalid_params(
                "the requested schema must be an object",
                None,
            ));
        };
        let title = schema
            .get("title")
            .and_then(Value::as_str)
            .map(str::to_owned)
            .unwrap_or_else(|| format!("{} asks", self.server));
        let form = FormRequestPayload {
            form_id: String::new(),
            title,
            schema,
            description: Some(message),
            ui: None,
            requester: Some(requester(&self.server)),
            extra: JsonObject::new(),
        };
        let reply = ctx.ask_form(form).await.map_err(refused)?;
        Ok(result_of(reply))
    }

    /// Shows the server's question to the person, in the call it belongs to.
    async fn elicit(&self, request: ElicitRequestParams) -> Result<ElicitResult, ErrorData> {
        let Some(ctx) = self.calls.latest() else {
            // Nothing of ours is running: nobody to show it to, in no conversation.
            tracing::info!(server = %self.server, "an elicitation outside any call was declined");
            return Ok(ElicitResult::new(ElicitationAction::Decline));
        };
        match request {
            ElicitRequestParams::FormElicitationParams {
                message,
                requested_schema,
                ..
            } => {
                let schema = serde_json::to_value(&requested_schema)
                    .map_err(|e| ErrorData::invalid_params(e.to_string(), None))?;
                self.form(&ctx, message, schema).await
            }
            ElicitRequestParams::UrlElicitationParams { message, url, .. } => {
                self.url(&ctx, message, url).await
            }
            _ => Err(ErrorData::invalid_params(
                "this kind of elicitation is not supported",
                None,
            )),
        }
    }

    /// A URL elicitation: the person first agrees to open the page (a form that shows where
    /// it goes, with one box to tick), then the browser opens it.
    async fn url(
        &self,
        ctx: &CallReporter,
        message: String,
        url: String,
    ) -> Result<ElicitResult, ErrorData> {
        if !(url.starts_with("https://") || url.starts_with("http://")) {
            return Err(ErrorData::invalid_params(
                "only http(s) pages are opened",
                None,
            ));
        }
        let mut extra = JsonObject::new();
        extra.insert("url".into(), Value::String(url.clone()));
        let schema = json!({
            "type": "object",
            "properties": {
                OPEN_FIELD: {"type": "boolean", "title": "Open this page in the browser", "default": true}
            }
        });
        let form = FormRequestPayload {
            form_id: String::new(),
            title: format!("{} asks you to open a page", self.server),
            schema: schema.as_object().cloned().unwrap_or_default(),
            description: Some(format!("{message}\n\n{url}")),
            ui: Some(FormUi {
                submit_text: Some("Open in the browser".into()),
                ..FormUi::default()
            }),
            requester: Some(requester(&self.server)),
            extra,
        };
        let reply = match ctx.ask_form(form).await.map_err(refused)? {
            LiveReply::Accept(values) if values.get(OPEN_FIELD) == Some(&Value::Bool(false)) => {
                LiveReply::Decline
            }
            other => other,
        };
        if let LiveReply::Accept(_) = reply {
            if let Err(error) = open_url(&url) {
                tracing::warn!(server = %self.server, %error, "cannot open the page");
                return Err(ErrorData::internal_error(
                    format!("the browser could not be opened: {error}"),
                    None,
                ));
            }
            return Ok(ElicitResult::new(ElicitationAction::Accept));
        }
        Ok(result_of(reply))
    }
}

/// The one field of a URL elicitation's form.
const OPEN_FIELD: &str = "open";

impl ClientHandler for TesseraClient {
    fn get_info(&self) -> ClientConfig {
        client_info()
    }

    async fn create_elicitation(
        &self,
        request: ElicitRequestParams,
        context: RequestContext<RoleClient>,
    ) -> Result<ElicitResult, ErrorData> {
        // The server may give up its question (its own call was cancelled): the form goes.
        tokio::select! {
            answer = self.elicit(request) => answer,
            () = context.ct.cancelled() => Ok(ElicitResult::new(ElicitationAction::Cancel)),
        }
    }

    async fn on_progress(
        &self,
        params: ProgressNotificationParam,
        _context: NotificationContext<RoleClient>,
    ) {
        if let Some(ctx) = self.calls.by_token(&params.progress_token) {
            ctx.progress(params.progress, params.total, params.message.as_deref());
        }
    }

    async fn on_tool_list_changed(&self, _context: NotificationContext<RoleClient>) {
        self.tools_changed
            .store(true, std::sync::atomic::Ordering::SeqCst);
    }
}

/// Keeps what the hub needs of a running call registered while it runs.
pub(crate) struct Registered<'a> {
    pub(crate) calls: &'a Calls,
    pub(crate) call_id: String,
}

impl Drop for Registered<'_> {
    fn drop(&mut self) {
        self.calls.end(&self.call_id);
    }
}
