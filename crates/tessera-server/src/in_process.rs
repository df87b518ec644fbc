//! The HTTP API called in process: what the desktop shell carries over Tauri IPC (docs/design.md,
//! "one command that calls the router in process, one channel for the event stream"). The
//! request goes through the very router `tessera serve` binds, token check included, so the
//! desktop runs the code every browser test exercises.

use std::sync::Arc;
use tessera_protocol::error_codes::ErrorCode;

use axum::body::{Body, BodyDataStream};
use axum::http::{header, HeaderName, HeaderValue, Method, Request, StatusCode};
use axum::response::IntoResponse;
use axum::Router;
use futures_util::StreamExt;
pub use tessera_protocol::ipc::{ApiRequest, ApiResponseHead, BodyFrame};
use tower::ServiceExt;

use crate::api::ApiError;
use crate::auth::{new_token, Guard};
use crate::router::{router, RouterConfig};

/// Headers a caller in process may not set: the shell speaks for itself (no Host, no Origin, its
/// own token).
const SET_BY_THE_SHELL: [HeaderName; 4] = [
    header::HOST,
    header::ORIGIN,
    header::AUTHORIZATION,
    header::CONTENT_LENGTH,
];

/// The router with a token of its own that never leaves the process.
#[derive(Clone)]
pub struct InProcessApi {
    router: Router,
    bearer: Arc<HeaderValue>,
}

impl std::fmt::Debug for InProcessApi {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("InProcessApi").finish_non_exhaustive()
    }
}

impl InProcessApi {
    /// The API over `app`.
    pub fn new(app: tessera_app::App) -> Self {
        let token = new_token();
        let bearer = HeaderValue::try_from(format!("Bearer {token}"))
            .unwrap_or_else(|_| HeaderValue::from_static("Bearer invalid"));
        let router = router(RouterConfig {
            // No socket: port 0 is never a Host a request names, and requests carry no Host.
            guard: Arc::new(Guard::new(token, 0)),
            ui_dir: None,
            app: Some(app),
        });
        Self {
            router,
            bearer: Arc::new(bearer),
        }
    }

    /// Runs one request through the router. Malformed requests get the API's own error
    /// answer (a 400 ERROR_RESPONSE naming what was wrong), never a panic.
    pub async fn call(&self, request: ApiRequest) -> (ApiResponseHead, BodyText) {
        let response = match self.build(request) {
            Ok(request) => match self.router.clone().oneshot(request).await {
                Ok(response) => response,
                Err(never) => match never {},
            },
            Err(error) => error.into_response(),
        };
        split(response)
    }

    fn build(&self, request: ApiRequest) -> Result<Request<Body>, ApiError> {
        let bad = |message: String| ApiError::new(ErrorCode::BadRequest, message);
        let method = Method::from_bytes(request.method.as_bytes())
            .map_err(|_| bad(format!("`{}` is not an HTTP method", request.method)))?;
        // Only paths under the API: never an absolute URL that could name another server.
        if !request.path.starts_with('/') || request.path.starts_with("//") {
            return Err(bad(format!(
                "`{}` is not a path of the API (it must start with /v1/)",
                request.path
            )));
        }
        let mut builder = Request::builder().method(method).uri(&request.path);
        for (name, value) in &request.headers {
            let name = HeaderName::from_bytes(name.as_bytes())
                .map_err(|_| bad(format!("`{name}` is not a header name")))?;
            if SET_BY_THE_SHELL.contains(&name) {
                continue;
            }
            let value = HeaderValue::from_str(value)
                .map_err(|_| bad(format!("the value of header `{name}` is not valid")))?;
            builder = builder.header(name, value);
        }
        builder = builder.header(header::AUTHORIZATION, (*self.bearer).clone());
        let body = match request.body {
            Some(text) => {
                builder = builder.header(header::CONTENT_TYPE, "application/json");
                Body::from(text)
            }
            None => Body::empty(),
        };
        builder
            .body(body)
            .map_err(|error| bad(format!("the request cannot be built: {error}")))
    }
}

/// An error answered in the API's own format (an MCP-CP ERROR_RESPONSE) without a router: what
/// a shell answers when its engine did not open.
pub fn error_answer(
    status: StatusCode,
    code: ErrorCode,
    message: impl Into<String>,
) -> (ApiResponseHead, BodyText) {
    split(
        ApiError::new(code, message)
            .with_status(status)
            .into_response(),
    )
}

/// Whether a body of this content type is text (JSON, an event stream, Markdown…): anything
/// else (images, PDFs, octet streams) is carried as bytes. A body without a type is the API's
/// own JSON.
fn is_text(content_type: Option<&str>) -> bool {
    let Some(kind) = content_type else {
        return true;
    };
    let kind = kind.split(';').next().unwrap_or_default().trim();
    kind.starts_with("text/")
        || kind.ends_with("json")
        || kind.ends_with("+xml")
        || kind == "application/xml"
        || kind == "application/javascript"
}

fn split(response: axum::response::Response) -> (ApiResponseHead, BodyText) {
    let head = ApiResponseHead {
        status: response.status().as_u16(),
        headers: response
            .headers()
            .iter()
            .filter_map(|(name, value)| {
                Some((name.as_str().to_owned(), value.to_str().ok()?.to_owned()))
            })
            .collect(),
    };
    let binary = !is_text(
        response
            .headers()
            .get(header::CONTENT_TYPE)
            .and_then(|v| v.to_str().ok()),
    );
    (head, BodyText::new(response.into_body(), binary))
}

/// While text keeps coming, the shortest time between two text frames; a frame after a pause
/// goes at once. Each frame costs the page a script of its own (Tauri evaluates one per channel
/// message) and a turn of its event-stream reader: a fast answer's hundred events a second
/// arrive as at most one frame a display frame, which the page draws no faster anyway.
pub const TEXT_FRAME_INTERVAL: std::time::Duration = std::time::Duration::from_millis(16);

/// A response body, as the frames the shell carries: UTF-8 text chunks for a text body (a chunk
/// boundary may fall inside a character; its first bytes wait for the next chunk, so every
/// chunk handed out is whole text), byte chunks for any other.
pub struct BodyText {
    stream: BodyDataStream,
    pending: Vec<u8>,
    done: bool,
    /// Not text: handed out as bytes.
    binary: bool,
    /// When the last text frame was handed out.
    last_text: Option<tokio::time::Instant>,
    /// The break that ended text gathered into a frame, handed out next.
    broke: Option<String>,
}

impl BodyText {
    fn new(body: Body, binary: bool) -> Self {
        Self {
            stream: body.into_data_stream(),
            pending: Vec::new(),
            done: false,
            binary,
            last_text: None,
            broke: None,
        }
    }

    /// The next frame of the body (`chunk`, `bytes` or `error`); `None` once it has ended. Text
    /// that comes within `TEXT_FRAME_INTERVAL` of the last text frame waits for the rest of
    /// that interval and goes with what else arrives meanwhile, in order.
    pub async fn next_frame(&mut self) -> Option<BodyFrame> {
        if !self.binary {
            if let Some(message) = self.broke.take() {
                return Some(BodyFrame::Error { message });
            }
            let mut text = match self.next().await? {
                Ok(text) => text,
                Err(message) => return Some(BodyFrame::Error { message }),
            };
            if let Some(last) = self.last_text {
                let due = last + TEXT_FRAME_INTERVAL;
                // `next` keeps what it read in `self` across its waits: a wait cut by the
                // deadline loses nothing.
                while let Ok(Some(more)) = tokio::time::timeout_at(due, self.next()).await {
                    match more {
                        Ok(more) => text.push_str(&more),
                        Err(message) => {
                            self.broke = Some(message);
                            break;
                        }
                    }
                }
            }
            self.last_text = Some(tokio::time::Instant::now());
            return Some(BodyFrame::Chunk { text });
        }
        use base64::Engine as _;
        while !self.done {
            match self.stream.next().await {
                Some(Ok(bytes)) if bytes.is_empty() => {}
                Some(Ok(bytes)) => {
                    return Some(BodyFrame::Bytes {
                        base64: base64::engine::general_purpose::STANDARD.encode(&bytes),
                    })
                }
                Some(Err(error)) => {
                    self.done = true;
                    return Some(BodyFrame::Error {
                        message: error.to_string(),
                    });
                }
                None => self.done = true,
            }
        }
        None
    }

    /// The next piece of text; `None` once the body has ended. An error means the body broke
    /// off (the connection in `tessera serve` terms).
    pub async fn next(&mut self) -> Option<Result<String, String>> {
        while !self.done {
            match self.stream.next().await {
                Some(Ok(bytes)) => {
                    self.pending.extend_from_slice(&bytes);
                    let text = take_whole_text(&mut self.pending);
                    if !text.is_empty() {
                        return Some(Ok(text));
                    }
                }
                Some(Err(error)) => {
                    self.done = true;
                    return Some(Err(error.to_string()));
                }
                None => {
                    self.done = true;
                    if !self.pending.is_empty() {
                        let rest = String::from_utf8_lossy(&self.pending).into_owned();
                        self.pending.clear();
                        return Some(Ok(rest));
                    }
                }
            }
        }
        None
    }
}

/// Takes the longest prefix of `bytes` that is whole text, leaving an unfinished character
/// behind; bytes that can never be UTF-8 become U+FFFD.
fn take_whole_text(bytes: &mut Vec<u8>) -> String {
    let mut out = String::new();
    loop {
        match std::str::from_utf8(bytes) {
            Ok(text) => {
                out.push_str(text);
                bytes.clear();
                return out;
            }
            Err(error) => {
                let valid = error.valid_up_to();
                out.push_str(&String::from_utf8_lossy(&bytes[..valid]));
                match error.error_len() {
                    // An unfinished character at the end: keep it for the next chunk.
                    None => {
                        bytes.drain(..valid);
                        return out;
                    }
                    Some(len) => {
                        out.push(char::REPLACEMENT_CHARACTER);
                        bytes.drain(..valid + len);
                    }
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::take_whole_text;

    #[test]
    fn a_character_split_between_chunks_waits_for_its_end() {
        let text = "答案";
        let bytes = text.as_bytes();
        let mut pending = bytes[..4].to_vec();
        assert_eq!(take_whole_text(&mut pending), "答");
        assert_eq!(pending, bytes[3..4]);
        pending.extend_from_slice(&bytes[4..]);
        assert_eq!(take_whole_text(&mut pending), "案");
        assert!(pending.is_empty());
    }

    #[test]
    fn bytes_that_are_never_text_become_replacement_characters() {
        let mut pending = b"ok\xffgo".to_vec();
        assert_eq!(take_whole_text(&mut pending), "ok\u{FFFD}go");
        assert!(pending.is_empty());
    }
}
