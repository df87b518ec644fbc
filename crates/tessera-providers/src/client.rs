//! Talking to a provider over HTTP: one call streamed as normalised items, with retries before
//! the first output, fallback on overload, the three timeouts, and cancellation that closes the
//! connection at once.

use std::pin::Pin;
use std::sync::{Arc, OnceLock};
use std::task::Poll;
use std::time::{Duration, Instant};

use futures_util::Stream;
use reqwest::header::{HeaderMap, HeaderValue, ACCEPT, AUTHORIZATION, CONTENT_TYPE};
use serde_json::Value;
use tokio_util::sync::CancellationToken;

use crate::cancel_flag::CancelFlag;
use crate::item_queue::ItemQueue;
use crate::wake_flag::WakeFlag;

use crate::config::{ProviderConfig, WireKind};
use crate::error::{ProviderError, Result};
use crate::http::{build_client, client_builder, join_url};
use crate::keys::Secret;
use crate::limits::WholeBodyError;
use crate::request::ChatRequest;
use crate::stream::{Accumulator, Response, StreamItem};
use crate::{anthropic, openai, retry};

/// A configured provider, ready to take calls. Cheap to clone.
#[derive(Clone)]
pub struct ProviderClient {
    inner: Arc<Inner>,
}

struct Inner {
    config: ProviderConfig,
    /// Built on the first call: an app that starts with a model configured, and is not asked
    /// anything yet, does not set up TLS for it (its configuration is checked at once).
    http: OnceLock<std::result::Result<reqwest::Client, String>>,
    key: Option<Secret>,
    /// Asked before each call where to send it (and with which key): a local model's worker.
    source: Option<Arc<dyn crate::endpoint::EndpointSource>>,
}

impl Inner {
    fn http(&self) -> Result<&reqwest::Client> {
        self.http
            .get_or_init(|| build_client(&self.config).map_err(|err| err.to_string()))
            .as_ref()
            .map_err(|message| ProviderError::Config(message.clone()))
    }
}

impl std::fmt::Debug for ProviderClient {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ProviderClient")
            .field("name", &self.inner.config.name)
            .field("kind", &self.inner.config.kind)
            .field("base_url", &self.inner.config.base_url)
            .field("has_key", &self.inner.key.is_some())
            .finish()
    }
}

impl ProviderClient {
    /// A client for `config`, authenticating with `key` (None for servers that need none).
    pub fn new(config: ProviderConfig, key: Option<Secret>) -> Result<Self> {
        if config.base_url.trim().is_empty() {
            return Err(ProviderError::Config(format!(
                "provider {} has no base URL",
                config.name
            )));
        }
        if config.requires_key && key.is_none() {
            return Err(ProviderError::MissingKey {
                env_hint: crate::keys::env_var_names(&config).join(" or "),
                provider: config.name.clone(),
            });
        }
        // Checked now (proxy, extra certificates), built on the first call.
        let _checked = client_builder(&config)?;
        Ok(Self {
            inner: Arc::new(Inner {
                config,
                http: OnceLock::new(),
                key,
                source: None,
            }),
        })
    }

    /// A client whose calls go where `source` says at the time (OpenAI wire): the config's
    /// base URL and key are not used.
    pub fn with_endpoint_source(
        config: ProviderConfig,
        source: Arc<dyn crate::endpoint::EndpointSource>,
    ) -> Result<Self> {
        let _checked = client_builder(&config)?;
        Ok(Self {
            inner: Arc::new(Inner {
                config,
                http: OnceLock::new(),
                key: None,
                source: Some(source),
            }),
        })
    }

    pub fn config(&self) -> &ProviderConfig {
        &self.inner.config
    }

    /// The provider's HTTP client (built on first use, shared by every call).
    pub(crate) fn http_client(&self) -> Result<&reqwest::Client> {
        self.inner.http()
    }

    /// Where a call for `model` goes and the headers it carries: the configured base URL and
    /// key, or, for a model this machine runs, the worker's address and token of the moment
    /// (started on demand).
    pub(crate) async fn endpoint_for(&self, model: &str) -> Result<(String, HeaderMap)> {
        let config = &self.inner.config;
        match &self.inner.source {
            Some(source) => {
                let endpoint = source.endpoint(model).await.map_err(|message| {
                    ProviderError::LocalModelStopped {
                        provider: config.name.clone(),
                        message,
                    }
                })?;
                let mut headers = HeaderMap::new();
                let mut value = HeaderValue::from_str(&format!("Bearer {}", endpoint.key.expose()))
                    .map_err(|_| {
                        ProviderError::Config(
                            "the local model's token is not a header value".into(),
                        )
                    })?;
                value.set_sensitive(true);
                headers.insert(AUTHORIZATION, value);
                Ok((endpoint.base_url, headers))
            }
            None => Ok((config.base_url.clone(), self.auth_headers()?)),
        }
    }

    /// The headers every call to this provider carries (authentication included).
    pub fn auth_headers(&self) -> Result<HeaderMap> {
        let mut headers = HeaderMap::new();
        let key = self.inner.key.as_ref().map(|k| k.expose());
        let bad_key = || {
            ProviderError::Config(format!(
                "the API key of {} contains characters an HTTP header cannot carry",
                self.inner.config.name
            ))
        };
        match self.inner.config.kind {
            WireKind::Openai => {
                if let Some(key) = key {
                    let mut value =
                        HeaderValue::from_str(&format!("Bearer {key}")).map_err(|_| bad_key())?;
                    value.set_sensitive(true);
                    headers.insert(AUTHORIZATION, value);
                }
            }
            WireKind::Anthropic => {
                if let Some(key) = key {
                    let mut value = HeaderValue::from_str(key).map_err(|_| bad_key())?;
                    value.set_sensitive(true);
                    headers.insert("x-api-key", value);
                }
                headers.insert(
                    "anthropic-version",
                    HeaderValue::from_static(anthropic::ANTHROPIC_VERSION),
                );
            }
        }
        Ok(headers)
    }

    /// Starts a streamed call. Nothing is sent until the first [`ResponseStream::next`].
    pub fn stream(&self, request: ChatRequest, cancel: CancellationToken) -> ResponseStream {
        ResponseStream::new(self.clone(), request, cancel, true)
    }

    /// A call answered whole (no streaming), with the same retries and fallback.
    pub async fn complete(
        &self,
        request: ChatRequest,
        cancel: CancellationToken,
    ) -> Result<Response> {
        let mut stream = ResponseStream::new(self.clone(), request, cancel, false);
        let mut acc = Accumulator::new();
        while let Some(item) = stream.next().await {
            acc.push(&item?);
        }
        Ok(acc.into_response())
    }

    /// Removes the key from text that is about to leave this module (a provider may echo it).
    fn redact(&self, text: String) -> String {
        match &self.inner.key {
            Some(key) if key.expose().len() >= 8 && text.contains(key.expose()) => {
                text.replace(key.expose(), "[redacted]")
            }
            _ => text,
        }
    }
}

/// How many times the timer looks whether events came within one idle timeout: a timeout comes at
/// most this fraction of it late.
const CHECKS_PER_TIMEOUT: u32 = 8;

/// How often the timer looks whether events came, for a timeout of `limit`.
fn check_period(limit: Duration) -> Duration {
    limit / CHECKS_PER_TIMEOUT
}

/// What ended a wait for the next event.
enum Woken {
    Event(Option<std::result::Result<crate::sse::SseEvent, crate::sse::SseError>>),
    Cancelled,
    Timer,
}

type Events = Pin<
    Box<dyn Stream<Item = std::result::Result<crate::sse::SseEvent, crate::sse::SseError>> + Send>,
>;

enum Decoder {
    Openai(openai::Decoder),
    Anthropic(anthropic::Decoder),
}

impl Decoder {
    fn new(kind: WireKind, provider: &str) -> Self {
        match kind {
            WireKind::Openai => Self::Openai(openai::Decoder::new(provider)),
            WireKind::Anthropic => Self::Anthropic(anthropic::Decoder::new(provider)),
        }
    }
    fn feed(&mut self, data: &str, out: &mut Vec<StreamItem>) -> Result<()> {
        match self {
            Self::Openai(d) => d.feed(data, out),
            Self::Anthropic(d) => d.feed(data, out),
        }
    }
    fn finish(&mut self, out: &mut Vec<StreamItem>) -> Result<()> {
        match self {
            Self::Openai(d) => d.finish(out),
            Self::Anthropic(d) => d.finish(out),
        }
    }
    fn is_done(&self) -> bool {
        match self {
            Self::Openai(d) => d.is_done(),
            Self::Anthropic(d) => d.is_done(),
        }
    }
}

enum State {
    /// Not connected yet (or about to reconnect).
    Idle,
    /// Waiting before a retry.
    Backoff(tokio::time::Instant),
    Streaming {
        events: Events,
        got_event: bool,
        /// Fires at the first-byte deadline, then every `CHECKS_PER_TIMEOUT`th of the idle time
        /// (checked against `quiet_since`).
        timer: Pin<Box<tokio::time::Sleep>>,
        /// How each wait looks at `timer`: polled again only after it woke us (or was reset).
        timer_flag: WakeFlag,
        /// When the request was sent, then the timer's last check that found events taken since
        /// the one before: the provider has been silent at least since then (the last event came
        /// at most a check's period before), so a timeout is never early and at most that late.
        quiet_since: tokio::time::Instant,
        /// Events were taken since the timer's last check.
        fresh: bool,
    },
    Done,
}

/// One call's answer as normalised items. Dropping it closes the connection.
pub struct ResponseStream {
    client: ProviderClient,
    request: ChatRequest,
    cancel: CancellationToken,
    /// `cancel`, checked per item with one atomic load and waited on across calls to `next`.
    cancel_flag: CancelFlag,
    streaming: bool,
    state: State,
    decoder: Decoder,
    pending: ItemQueue,
    scratch: Vec<StreamItem>,
    /// An error to report once the items decoded before it have been delivered.
    deferred: Option<ProviderError>,
    retries: u32,
    fell_back_from: Option<String>,
    output_started: bool,
    started: Instant,
    first_output: Option<Duration>,
}

impl ResponseStream {
    fn new(
        client: ProviderClient,
        request: ChatRequest,
        cancel: CancellationToken,
        streaming: bool,
    ) -> Self {
        let decoder = Decoder::new(client.inner.config.kind, &client.inner.config.name);
        Self {
            client,
            request,
            cancel_flag: CancelFlag::new(cancel.clone()),
            cancel,
            streaming,
            state: State::Idle,
            decoder,
            pending: ItemQueue::default(),
            scratch: Vec::new(),
            deferred: None,
            retries: 0,
            fell_back_from: None,
            output_started: false,
            started: Instant::now(),
            first_output: None,
        }
    }

    /// The model being asked (the fallback model after an overload).
    pub fn model(&self) -> &str {
        &self.request.model
    }

    /// The model asked first, when an overload switched to the fallback.
    pub fn fell_back_from(&self) -> Option<&str> {
        self.fell_back_from.as_deref()
    }

    /// From the start of the call to its first output item.
    pub fn first_output_latency(&self) -> Option<Duration> {
        self.first_output
    }

    /// Since the call started.
    pub fn elapsed(&self) -> Duration {
        self.started.elapsed()
    }

    /// The usage record of this call now that it ended with `response` (and `error`, if it was
    /// cut short): provider, model, fallback, latencies, tokens, and the model's price from
    /// `prices` (the provider's own first, then the built-in list).
    pub fn call_record(
        &self,
        model_usage_id: String,
        stage: tessera_protocol::context_doc::UsageStage,
        started_at: jiff::Timestamp,
        response: &Response,
        error: Option<&ProviderError>,
        prices: &crate::cost::PriceTable,
    ) -> crate::cost::CallRecord {
        let config = self.client.config();
        let model = self.model();
        let mut record = crate::cost::CallRecord::new(
            model_usage_id,
            stage,
            config.name.clone(),
            model.to_owned(),
            started_at,
        );
        record.fallback_from = self.fell_back_from().map(str::to_owned);
        record.first_token_latency = self.first_output_latency();
        record.latency = self.elapsed();
        record.usage = response.usage;
        record.error = error.cloned();
        record.price = prices.price_for(config, model);
        record
    }

    /// Retries made so far.
    pub fn retries(&self) -> u32 {
        self.retries
    }

    /// The next item, an error (after which the stream ends), or None at the end.
    pub async fn next(&mut self) -> Option<Result<StreamItem>> {
        loop {
            if let Some(item) = self.pending.pop() {
                if item.is_output() && !self.output_started {
                    self.output_started = true;
                    self.first_output = Some(self.started.elapsed());
                }
                return Some(Ok(item));
            }
            if let Some(err) = self.deferred.take() {
                return Some(Err(err));
            }
            if self.cancel_flag.is_cancelled() && !matches!(self.state, State::Done) {
                self.state = State::Done;
                return Some(Err(ProviderError::Cancelled));
            }
            match &mut self.state {
                State::Done => return None,
                State::Backoff(until) => {
                    let until = *until;
                    tokio::select! {
                        biased;
                        _ = self.cancel_flag.cancelled() => {
                            self.state = State::Done;
                            return Some(Err(ProviderError::Cancelled));
                        }
                        _ = tokio::time::sleep_until(until) => self.state = State::Idle,
                    }
                }
                State::Idle => {
                    // One first-byte deadline from the request on, headers and first event alike.
                    let sent = tokio::time::Instant::now();
                    // Boxed: the request's future is large, and kept inline it would make the
                    // future of every call to `next` as large (and moved per delta).
                    let outcome = Box::pin(self.connect_or_cancel()).await;
                    match outcome {
                        Ok(Some(events)) => {
                            let first_byte = self.client.inner.config.timeouts.first_byte();
                            self.state = State::Streaming {
                                events,
                                got_event: false,
                                timer: Box::pin(tokio::time::sleep_until(sent + first_byte)),
                                timer_flag: WakeFlag::new(),
                                quiet_since: sent,
                                fresh: false,
                            }
                        }
                        // A whole (non-streamed) answer was decoded into `pending`.
                        Ok(None) => self.state = State::Done,
                        Err(err) => self.fail(err),
                    }
                }
                State::Streaming {
                    events,
                    got_event,
                    timer,
                    timer_flag,
                    quiet_since,
                    fresh,
                } => {
                    let timeouts = self.client.inner.config.timeouts;
                    let cancel_flag = &mut self.cancel_flag;
                    // The events first: while they are ready (a burst read at once), neither the
                    // cancel (checked above, one atomic load) nor the timer needs polling. One
                    // timer serves the whole stream, checking every few seconds whether events
                    // came (a reset per delta would cost a timer-wheel update per delta, and a
                    // clock read per wait was a tenth of what the layer adds to a delta). Neither
                    // is polled again until it woke us (`WakeFlag`): a wait with nothing new from
                    // them is two atomic loads.
                    let next = std::future::poll_fn(|cx| {
                        if let Poll::Ready(next) = events.as_mut().poll_next(cx) {
                            return Poll::Ready(Woken::Event(next));
                        }
                        if cancel_flag.poll_cancelled(cx).is_ready() {
                            return Poll::Ready(Woken::Cancelled);
                        }
                        if timer_flag.poll(timer.as_mut(), cx).is_ready() {
                            return Poll::Ready(Woken::Timer);
                        }
                        Poll::Pending
                    })
                    .await;
                    let next = match next {
                        Woken::Cancelled => {
                            self.state = State::Done;
                            return Some(Err(ProviderError::Cancelled));
                        }
                        Woken::Event(next) => Some(next),
                        Woken::Timer => None,
                    };
                    match next {
                        None => {
                            let limit = if *got_event {
                                timeouts.idle()
                            } else {
                                timeouts.first_byte()
                            };
                            let now = tokio::time::Instant::now();
                            if std::mem::take(fresh) {
                                *quiet_since = now;
                            }
                            let deadline = *quiet_since + limit;
                            if now < deadline {
                                timer
                                    .as_mut()
                                    .reset(deadline.min(now + check_period(limit)));
                                timer_flag.disarm();
                                continue;
                            }
                            let provider = self.client.inner.config.name.clone();
                            let idle = *got_event;
                            self.fail(if idle {
                                ProviderError::IdleTimeout {
                                    provider,
                                    timeout: limit,
                                }
                            } else {
                                ProviderError::FirstByteTimeout {
                                    provider,
                                    timeout: limit,
                                }
                            });
                        }
                        Some(None) => {
                            let result = self.decoder.finish(&mut self.scratch);
                            self.pending.take_from(&mut self.scratch);
                            match result {
                                Ok(()) => self.state = State::Done,
                                Err(err) => self.fail(err),
                            }
                        }
                        Some(Some(Err(err))) => {
                            let provider = self.client.inner.config.name.clone();
                            let message = format!("the connection broke: {err}");
                            self.fail(ProviderError::Network { provider, message });
                        }
                        Some(Some(Ok(event))) => {
                            *fresh = true;
                            if !*got_event {
                                *got_event = true;
                                // `fresh` stays raised: the first check counts the silence
                                // from itself, not from this event (the caller may take a while
                                // to ask for the next).
                                let now = tokio::time::Instant::now();
                                *quiet_since = now;
                                timer.as_mut().reset(now + check_period(timeouts.idle()));
                                timer_flag.disarm();
                            }
                            let result = self.decoder.feed(&event.data, &mut self.scratch);
                            self.pending.take_from(&mut self.scratch);
                            match result {
                                Err(err) => self.fail(err),
                                Ok(()) if self.decoder.is_done() => self.state = State::Done,
                                Ok(()) => {}
                            }
                        }
                    }
                }
            }
        }
    }

    /// Decides what an error means: a retry or a fallback while nothing has been shown,
    /// otherwise the end of the stream (what was received stays with the caller).
    fn fail(&mut self, err: ProviderError) {
        // Every error (and the retry notice made from it) passes here: scrub the key once.
        let err = err.map_text(|text| self.client.redact(text));
        let nothing_shown = !self.output_started && !self.pending.has_output();
        let config = &self.client.inner.config;
        if nothing_shown && err.is_overload() {
            if let Some(fallback) = config.fallback_model.clone() {
                if self.fell_back_from.is_none() && fallback != self.request.model {
                    tracing::warn!(provider = %config.name, from = %self.request.model, to = %fallback, "overloaded; switching to the fallback model");
                    let from = std::mem::replace(&mut self.request.model, fallback.clone());
                    self.fell_back_from = Some(from.clone());
                    self.pending
                        .replace_with(StreamItem::FallbackModel { from, to: fallback });
                    self.reset(State::Idle);
                    return;
                }
            }
        }
        if nothing_shown && err.is_retryable() && self.retries < config.retry.max_retries {
            let delay = retry::backoff(&config.retry, self.retries, err.retry_after());
            self.retries += 1;
            tracing::warn!(provider = %config.name, attempt = self.retries, delay_ms = delay.as_millis() as u64, code = %err.code(), "model call failed before any output; retrying");
            self.pending.replace_with(StreamItem::Retrying {
                attempt: self.retries,
                delay_ms: delay.as_millis() as u64,
                code: err.code(),
                message: err.to_string(),
            });
            self.reset(State::Backoff(tokio::time::Instant::now() + delay));
            return;
        }
        // Calls that had begun are reported incomplete (never run) before the error.
        let _ = self.decoder.finish(&mut self.scratch);
        self.pending.take_from(&mut self.scratch);
        self.state = State::Done;
        // The worker of a model on this machine is what failed, not a network.
        self.deferred = Some(if self.client.inner.source.is_some() {
            err.from_local_model()
        } else {
            err
        });
    }

    fn reset(&mut self, state: State) {
        self.state = state;
        self.decoder = Decoder::new(
            self.client.inner.config.kind,
            &self.client.inner.config.name,
        );
    }

    async fn connect_or_cancel(&mut self) -> Result<Option<Events>> {
        let cancel = self.cancel.clone();
        tokio::select! {
            biased;
            _ = cancel.cancelled() => Err(ProviderError::Cancelled),
            outcome = self.connect() => outcome,
        }
    }

    /// Sends the request. A streamed answer gives its events; a whole one is decoded at once.
    async fn connect(&mut self) -> Result<Option<Events>> {
        let inner = &self.client.inner;
        let config = &inner.config;
        // Not retried when a worker cannot start: the source has just tried and says why (a
        // model that fails to load fails again).
        let (base_url, mut headers) = self.client.endpoint_for(&self.request.model).await?;
        let (url, body) = match config.kind {
            WireKind::Openai => (
                join_url(&base_url, "chat/completions"),
                openai::encode_request(config, &self.request, self.streaming),
            ),
            WireKind::Anthropic => (
                join_url(&base_url, "v1/messages"),
                anthropic::encode_request(config, &self.request, self.streaming),
            ),
        };
        headers.insert(CONTENT_TYPE, HeaderValue::from_static("application/json"));
        if self.streaming {
            headers.insert(ACCEPT, HeaderValue::from_static("text/event-stream"));
        }
        let body =
            serde_json::to_vec(&body).map_err(|err| ProviderError::Config(err.to_string()))?;
        let provider = config.name.clone();
        let first_byte = config.timeouts.first_byte();
        let send = inner.http()?.post(&url).headers(headers).body(body).send();
        let response = match tokio::time::timeout(first_byte, send).await {
            Err(_) => {
                return Err(ProviderError::FirstByteTimeout {
                    provider,
                    timeout: first_byte,
                })
            }
            Ok(Err(err)) => return Err(self.transport_error(err)),
            Ok(Ok(response)) => response,
        };
        let status = response.status();
        if !status.is_success() {
            let retry_after = retry::retry_after(response.headers());
            let read = crate::limits::read_start(response, crate::limits::MAX_ERROR_BYTES);
            let text = tokio::time::timeout(first_byte, read)
                .await
                .unwrap_or_default();
            let (kind, message) = match serde_json::from_str::<Value>(&text) {
                Ok(value) => {
                    let error = value.get("error").unwrap_or(&value);
                    openai::decode_error_fields(error)
                }
                Err(_) if text.trim().is_empty() => (
                    None,
                    status.canonical_reason().unwrap_or("error").to_owned(),
                ),
                Err(_) => (None, text.chars().take(500).collect()),
            };
            return Err(ProviderError::Http {
                provider,
                status: status.as_u16(),
                kind,
                message,
                retry_after,
            });
        }
        let is_sse = response
            .headers()
            .get(CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .is_some_and(|v| v.starts_with("text/event-stream"));
        if !is_sse {
            // Some servers ignore `stream: true`; a whole answer is fine either way.
            let read = crate::limits::read_response(
                response,
                crate::limits::MAX_ANSWER_BYTES,
                "the answer",
            );
            let bytes = match tokio::time::timeout(first_byte, read).await {
                Err(_) => {
                    return Err(ProviderError::FirstByteTimeout {
                        provider,
                        timeout: first_byte,
                    })
                }
                Ok(Err(WholeBodyError::Transport(err))) => return Err(self.transport_error(err)),
                Ok(Err(WholeBodyError::TooLarge(err))) => {
                    return Err(ProviderError::Decode {
                        provider,
                        message: err.to_string(),
                    })
                }
                Ok(Ok(bytes)) => bytes,
            };
            let value: Value =
                serde_json::from_slice(&bytes).map_err(|err| ProviderError::Decode {
                    provider: provider.clone(),
                    message: format!("the answer is neither an event stream nor JSON ({err})"),
                })?;
            let items = match config.kind {
                WireKind::Openai => openai::decode_response(&provider, &value)?,
                WireKind::Anthropic => anthropic::decode_response(&provider, &value)?,
            };
            self.pending.extend(items);
            return Ok(None);
        }
        // An event the server did not end with a blank line before closing is still an event
        // (two recorded Anthropic streams end that way).
        let body = crate::limits::body_for_events(response.bytes_stream());
        Ok(Some(Box::pin(
            crate::sse::SseStream::new(Box::pin(body)).keeping_an_unended_last_event(),
        )))
    }

    fn transport_error(&self, err: reqwest::Error) -> ProviderError {
        let config = &self.client.inner.config;
        if err.is_connect() && err.is_timeout() {
            return ProviderError::ConnectTimeout {
                provider: config.name.clone(),
                timeout: config.timeouts.connect(),
            };
        }
        let mut message = err.to_string();
        let mut source = std::error::Error::source(&err);
        while let Some(inner) = source {
            message.push_str(": ");
            message.push_str(&inner.to_string());
            source = inner.source();
        }
        // A base URL saved with credentials before they were refused never shows them.
        let message = tessera_protocol::secrets::redact_text(&message);
        ProviderError::Network {
            provider: config.name.clone(),
            message,
        }
    }
}
