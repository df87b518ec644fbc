//! The HTTP side of the scripted provider.

use std::collections::VecDeque;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::body::Body as AxumBody;
use axum::extract::State;
use axum::http::{HeaderMap, Method, StatusCode, Uri};
use axum::response::Response;
use axum::routing::{any, get, post};
use axum::{Json, Router};
use bytes::Bytes;
use futures_util::stream;
use serde::Serialize;
use serde_json::{json, Value};
use tokio::net::TcpListener;
use tokio::sync::oneshot;

use super::reply::{Body, Reply, Step};

/// A request the provider received.
#[derive(Clone, Debug, Serialize)]
pub struct RecordedRequest {
    pub method: String,
    pub path: String,
    /// Header names lower-cased.
    pub headers: Vec<(String, String)>,
    /// The body as JSON (Null when empty or not JSON).
    pub body: Value,
}

impl RecordedRequest {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }
}

#[derive(Default)]
struct Shared {
    replies: Mutex<VecDeque<Reply>>,
    requests: Mutex<Vec<RecordedRequest>>,
    models: Mutex<Vec<String>>,
    /// Answer only the OpenAI routes (`/api/tags` is a 404), as LM Studio does.
    openai_only: std::sync::atomic::AtomicBool,
}

/// A running scripted provider on 127.0.0.1. Stops when dropped.
pub struct ScriptedProvider {
    addr: SocketAddr,
    shared: Arc<Shared>,
    stop: Option<oneshot::Sender<()>>,
}

impl ScriptedProvider {
    /// Binds a free port on 127.0.0.1 and serves on the current tokio runtime.
    pub async fn start() -> std::io::Result<Self> {
        let listener = TcpListener::bind(("127.0.0.1", 0)).await?;
        Self::serve(listener)
    }

    /// Serves on a listener already bound.
    pub fn serve(listener: TcpListener) -> std::io::Result<Self> {
        let addr = listener.local_addr()?;
        let shared = Arc::new(Shared::default());
        let app = Router::new()
            .route("/v1/chat/completions", post(play))
            .route("/chat/completions", post(play))
            .route("/v1/messages", post(play))
            .route("/v1/models", get(models))
            .route("/models", get(models))
            .route("/api/tags", get(tags))
            .route("/v1/embeddings", post(embeddings))
            .route("/embeddings", post(embeddings))
            .route("/_script", post(push_script))
            .route("/_requests", get(list_requests))
            .fallback(any(unknown))
            .with_state(shared.clone());
        let (stop, stopped) = oneshot::channel::<()>();
        tokio::spawn(async move {
            let _ = axum::serve(listener, app)
                .with_graceful_shutdown(async {
                    let _ = stopped.await;
                })
                .await;
        });
        Ok(Self {
            addr,
            shared,
            stop: Some(stop),
        })
    }

    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// `http://127.0.0.1:PORT`: the base URL for an Anthropic provider.
    pub fn url(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// `http://127.0.0.1:PORT/v1`: the base URL for an OpenAI-compatible provider.
    pub fn openai_base(&self) -> String {
        format!("http://{}/v1", self.addr)
    }

    /// Queues a reply; requests take replies in the order they were queued.
    pub fn push(&self, reply: Reply) {
        if let Ok(mut replies) = self.shared.replies.lock() {
            replies.push_back(reply);
        }
    }

    /// Replies not taken yet.
    pub fn remaining(&self) -> usize {
        self.shared.replies.lock().map(|r| r.len()).unwrap_or(0)
    }

    /// The models `/v1/models` and `/api/tags` list.
    pub fn set_models(&self, models: &[&str]) {
        if let Ok(mut list) = self.shared.models.lock() {
            *list = models.iter().map(|m| (*m).to_owned()).collect();
        }
    }

    /// Answers no Ollama route from now on (`/api/tags` is a 404): an LM Studio, which serves
    /// `/v1/models` only.
    pub fn act_as_lmstudio(&self) {
        self.shared
            .openai_only
            .store(true, std::sync::atomic::Ordering::Relaxed);
    }

    /// Every request received so far.
    pub fn requests(&self) -> Vec<RecordedRequest> {
        self.shared
            .requests
            .lock()
            .map(|r| r.clone())
            .unwrap_or_default()
    }

    /// Model-call requests (chat completions and messages) received so far.
    pub fn calls(&self) -> Vec<RecordedRequest> {
        self.requests()
            .into_iter()
            .filter(|r| r.method == "POST" && !r.path.starts_with("/_"))
            .collect()
    }
}

impl Drop for ScriptedProvider {
    fn drop(&mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
    }
}

fn record(shared: &Shared, method: &Method, uri: &Uri, headers: &HeaderMap, body: &Bytes) {
    let request = RecordedRequest {
        method: method.to_string(),
        path: uri.path().to_owned(),
        headers: headers
            .iter()
            .map(|(n, v)| {
                (
                    n.as_str().to_ascii_lowercase(),
                    String::from_utf8_lossy(v.as_bytes()).into_owned(),
                )
            })
            .collect(),
        body: serde_json::from_slice(body).unwrap_or(Value::Null),
    };
    if let Ok(mut requests) = shared.requests.lock() {
        requests.push(request);
    }
}

async fn play(
    State(shared): State<Arc<Shared>>,
    method: Method,
    uri: Uri,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    record(&shared, &method, &uri, &headers, &body);
    let reply = shared.replies.lock().ok().and_then(|mut r| r.pop_front());
    let Some(reply) = reply else {
        return json_response(
            500,
            &json!({"error": {"type": "scripted_provider", "message": format!(
                "the scripted provider has no reply left for {method} {}", uri.path())}}),
            &[],
        );
    };
    if reply.delay_ms > 0 {
        tokio::time::sleep(Duration::from_millis(reply.delay_ms)).await;
    }
    match reply.body {
        Body::Json(value) => json_response(reply.status, &value, &reply.headers),
        Body::Text { content_type, text } => {
            let mut headers = reply.headers.clone();
            headers.push(("content-type".into(), content_type));
            build(reply.status, &headers, AxumBody::from(text))
        }
        Body::Sse(steps) => {
            let mut headers = reply.headers.clone();
            headers.push(("content-type".into(), "text/event-stream".into()));
            headers.push(("cache-control".into(), "no-cache".into()));
            build(
                reply.status,
                &headers,
                AxumBody::from_stream(sse_body(steps)),
            )
        }
    }
}

/// In a `Raw` step, replaced by the time it is sent (nanoseconds since the Unix epoch), so a
/// benchmark can tell how long each piece took to reach the reader.
pub const NOW_NS: &str = "{{now_ns}}";

fn now_ns() -> u128 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos())
        .unwrap_or(0)
}

/// The steps as a body stream: each `Raw` is its own chunk, written when reached.
fn sse_body(
    steps: Vec<Step>,
) -> impl futures_util::Stream<Item = Result<Bytes, std::io::Error>> + Send {
    stream::unfold(steps.into_iter(), |mut steps| async move {
        loop {
            match steps.next()? {
                Step::Raw(text) => {
                    let bytes = if text.contains(NOW_NS) {
                        Step::bytes(&text.replace(NOW_NS, &now_ns().to_string()))
                    } else {
                        Step::bytes(&text)
                    };
                    return Some((Ok(bytes), steps));
                }
                Step::DelayMs(ms) => tokio::time::sleep(Duration::from_millis(ms)).await,
                Step::Gate(gate) => gate.pass().await,
                Step::Reset => {
                    // Let the server flush what was written before breaking the connection,
                    // so the client sees exactly the bytes before the cut.
                    tokio::time::sleep(Duration::from_millis(20)).await;
                    return Some((
                        Err(std::io::Error::new(
                            std::io::ErrorKind::ConnectionReset,
                            "scripted connection reset",
                        )),
                        Vec::new().into_iter(),
                    ));
                }
                Step::Stall => std::future::pending::<()>().await,
            }
        }
    })
}

fn build(status: u16, headers: &[(String, String)], body: AxumBody) -> Response {
    let mut builder = Response::builder()
        .status(StatusCode::from_u16(status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR));
    for (name, value) in headers {
        builder = builder.header(name.as_str(), value.as_str());
    }
    builder.body(body).unwrap_or_else(|err| {
        let mut response = Response::new(AxumBody::from(format!("bad scripted reply: {err}")));
        *response.status_mut() = StatusCode::INTERNAL_SERVER_ERROR;
        response
    })
}

fn json_response(status: u16, value: &Value, headers: &[(String, String)]) -> Response {
    let mut headers = headers.to_vec();
    headers.push(("content-type".into(), "application/json".into()));
    build(status, &headers, AxumBody::from(value.to_string()))
}

async fn models(
    State(shared): State<Arc<Shared>>,
    method: Method,
    uri: Uri,
    headers: HeaderMap,
) -> Json<Value> {
    record(&shared, &method, &uri, &headers, &Bytes::new());
    let models = shared.models.lock().map(|m| m.clone()).unwrap_or_default();
    Json(
        json!({"object": "list", "data": models.iter().map(|m| json!({
        "id": m, "object": "model", "created": 0, "owned_by": "scripted",
        "type": "model", "display_name": m
    })).collect::<Vec<_>>()}),
    )
}

/// Dimensions of the scripted embeddings.
pub const EMBEDDING_DIMENSIONS: usize = 64;

/// A text's scripted embedding: its words (lowercased; CJK by character pairs) hashed into
/// [`EMBEDDING_DIMENSIONS`] buckets. Texts that share words point the same way, as a real
/// model's would for these tests; the wire is OpenAI's.
pub fn scripted_embedding(text: &str) -> Vec<f32> {
    use std::hash::{Hash, Hasher};
    let mut v = vec![0f32; EMBEDDING_DIMENSIONS];
    let lower = text.to_lowercase();
    let chars: Vec<char> = lower.chars().collect();
    let mut words: Vec<String> = lower
        .split(|c: char| !c.is_alphanumeric() || c > '\u{2e80}')
        .filter(|w| w.len() > 2)
        .map(str::to_owned)
        .collect();
    words.extend(
        chars
            .windows(2)
            .filter(|w| w.iter().all(|c| *c > '\u{2e80}'))
            .map(|w| w.iter().collect::<String>()),
    );
    for word in words {
        let mut h = std::collections::hash_map::DefaultHasher::new();
        word.hash(&mut h);
        let bucket = (h.finish() % EMBEDDING_DIMENSIONS as u64) as usize;
        v[bucket] += 1.0;
    }
    v
}

async fn embeddings(
    State(shared): State<Arc<Shared>>,
    method: Method,
    uri: Uri,
    headers: HeaderMap,
    body: Bytes,
) -> Json<Value> {
    record(&shared, &method, &uri, &headers, &body);
    let request: Value = serde_json::from_slice(&body).unwrap_or(Value::Null);
    let inputs: Vec<String> = match &request["input"] {
        Value::String(s) => vec![s.clone()],
        Value::Array(items) => items
            .iter()
            .map(|i| i.as_str().unwrap_or_default().to_owned())
            .collect(),
        _ => Vec::new(),
    };
    let data: Vec<Value> = inputs
        .iter()
        .enumerate()
        .map(|(index, text)| {
            json!({"object": "embedding", "index": index, "embedding": scripted_embedding(text)})
        })
        .collect();
    Json(json!({
        "object": "list",
        "data": data,
        "model": request["model"],
        "usage": {"prompt_tokens": 0, "total_tokens": 0}
    }))
}

async fn tags(
    State(shared): State<Arc<Shared>>,
    method: Method,
    uri: Uri,
    headers: HeaderMap,
) -> Response {
    use axum::response::IntoResponse;
    record(&shared, &method, &uri, &headers, &Bytes::new());
    if shared
        .openai_only
        .load(std::sync::atomic::Ordering::Relaxed)
    {
        return (StatusCode::NOT_FOUND, "Unexpected endpoint or method.").into_response();
    }
    let models = shared.models.lock().map(|m| m.clone()).unwrap_or_default();
    Json(json!({"models": models.iter().map(|m| json!({
        "name": m, "model": m, "size": 0, "digest": "scripted"
    })).collect::<Vec<_>>()}))
    .into_response()
}

/// `POST /_script`: queues replies (one object or an array) for a provider run as a process.
async fn push_script(State(shared): State<Arc<Shared>>, body: Bytes) -> Response {
    let replies: Result<Vec<Reply>, _> =
        serde_json::from_slice::<Value>(&body).and_then(|v| match v {
            Value::Array(_) => serde_json::from_value(v),
            other => serde_json::from_value(other).map(|r| vec![r]),
        });
    match replies {
        Ok(replies) => {
            let n = replies.len();
            if let Ok(mut queue) = shared.replies.lock() {
                queue.extend(replies);
            }
            json_response(200, &json!({"queued": n}), &[])
        }
        Err(err) => json_response(
            400,
            &json!({"error": {"message": format!("not a script: {err}")}}),
            &[],
        ),
    }
}

async fn list_requests(State(shared): State<Arc<Shared>>) -> Json<Value> {
    let requests = shared
        .requests
        .lock()
        .map(|r| r.clone())
        .unwrap_or_default();
    Json(serde_json::to_value(requests).unwrap_or(Value::Null))
}

async fn unknown(method: Method, uri: Uri) -> Response {
    json_response(
        404,
        &json!({"error": {"type": "not_found", "message": format!(
            "the scripted provider does not serve {method} {}", uri.path())}}),
        &[],
    )
}
