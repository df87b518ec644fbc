//! A Hugging Face hub on 127.0.0.1, as the downloader of local models meets it: a HEAD (or GET)
//! of `OWNER/REPO/resolve/REV/FILE` redirects to a "CDN" path with `X-Linked-Size` and
//! `X-Linked-Etag` (the SHA-256), and the CDN path honours `Range`. It can cut a connection
//! part way, stall, ignore ranges, or serve a byte that is not the hub's.

use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use axum::body::Body;
use axum::extract::{Path as UrlPath, State};
use axum::http::{HeaderMap, Method, StatusCode};
use axum::response::Response;
use axum::routing::{any, get};
use axum::Router;
use sha2::{Digest, Sha256};

/// What the hub serves (every file name gets the same content), and how it misbehaves.
#[derive(Default)]
pub struct Hosted {
    pub content: Vec<u8>,
    /// The size the hub claims (the content's when None).
    pub claimed_size: Option<u64>,
    /// The next GET of the file stops after this many bytes, the connection dropped.
    pub cut_after: Mutex<Option<usize>>,
    /// Serve the file with one byte changed.
    pub corrupt: AtomicBool,
    /// Ignore ranges (answer 200 with the whole file).
    pub ignore_ranges: AtomicBool,
    /// Hold the body after this many bytes until the test lets go.
    pub stall_after: Mutex<Option<usize>>,
    /// Send at most this many bytes a second (a slow line, so progress can be watched).
    pub bytes_per_second: Option<u64>,
    /// Give no SHA-256 (a hub or mirror that does not: no `X-Linked-Etag`).
    pub without_sha256: bool,
    /// Send the body without a `Content-Length` (chunked): its end is known only when it comes.
    pub without_length: bool,
    pub gets: AtomicUsize,
    pub ranges_asked: Mutex<Vec<u64>>,
    /// The revision of each `resolve` asked, in order.
    pub revisions_asked: Mutex<Vec<String>>,
    pub served: AtomicU64,
}

/// Lower-case hex SHA-256, as the hub gives it.
pub fn sha(bytes: &[u8]) -> String {
    Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

async fn resolve(
    State(hosted): State<Arc<Hosted>>,
    method: Method,
    UrlPath((_owner, _name, rev, file)): UrlPath<(String, String, String, String)>,
) -> Response {
    hosted
        .revisions_asked
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .push(rev);
    let size = hosted.claimed_size.unwrap_or(hosted.content.len() as u64);
    let mut answer = Response::builder()
        .status(StatusCode::FOUND)
        .header("location", format!("/cdn/{file}"))
        .header("x-linked-size", size.to_string())
        .header("etag", "\"not-the-hash\"");
    if !hosted.without_sha256 {
        answer = answer.header("x-linked-etag", format!("\"{}\"", sha(&hosted.content)));
    }
    if method == Method::HEAD {
        answer = answer.header("content-length", "0");
    }
    answer
        .body(Body::empty())
        .unwrap_or_else(|_| Response::new(Body::empty()))
}

/// The pieces the body is sent in.
const CHUNK: usize = 64 * 1024;

async fn cdn(State(hosted): State<Arc<Hosted>>, headers: HeaderMap) -> Response {
    hosted.gets.fetch_add(1, Ordering::SeqCst);
    let mut content = hosted.content.clone();
    if hosted.corrupt.load(Ordering::SeqCst) {
        let middle = content.len() / 2;
        content[middle] ^= 0xff;
    }
    let from = headers
        .get("range")
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.strip_prefix("bytes="))
        .and_then(|v| v.trim_end_matches('-').parse::<usize>().ok())
        .filter(|_| !hosted.ignore_ranges.load(Ordering::SeqCst));
    if let Some(from) = from {
        hosted
            .ranges_asked
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push(from as u64);
    }
    let start = from.unwrap_or(0);
    let body = content[start..].to_vec();
    let total = content.len();
    let cut = hosted
        .cut_after
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .take();
    let stall = hosted
        .stall_after
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .take();
    hosted.served.fetch_add(body.len() as u64, Ordering::SeqCst);
    let chunks: Vec<Result<Vec<u8>, std::io::Error>> = match cut {
        Some(n) => vec![
            Ok(body[..n].to_vec()),
            Err(std::io::Error::other("cut on purpose")),
        ],
        None => body.chunks(CHUNK).map(|c| Ok(c.to_vec())).collect(),
    };
    let pause = hosted
        .bytes_per_second
        .map(|rate| std::time::Duration::from_secs_f64(CHUNK as f64 / rate.max(1) as f64));
    let stream =
        futures_util::StreamExt::then(futures_util::stream::iter(chunks), move |c| async move {
            if let Some(pause) = pause {
                tokio::time::sleep(pause).await;
            }
            c
        });
    let stream: std::pin::Pin<
        Box<dyn futures_util::Stream<Item = Result<Vec<u8>, std::io::Error>> + Send>,
    > = match stall {
        Some(n) => {
            let head = body[..n].to_vec();
            Box::pin(futures_util::stream::unfold(0, move |step| {
                let head = head.clone();
                async move {
                    match step {
                        0 => Some((Ok(head), 1)),
                        _ => {
                            tokio::time::sleep(std::time::Duration::from_secs(3600)).await;
                            None
                        }
                    }
                }
            }))
        }
        None => Box::pin(stream),
    };
    let mut answer = Response::builder();
    if !hosted.without_length {
        answer = answer.header("content-length", body.len().to_string());
    }
    answer = if from.is_some() {
        answer.status(StatusCode::PARTIAL_CONTENT).header(
            "content-range",
            format!("bytes {start}-{}/{total}", total - 1),
        )
    } else {
        answer.status(StatusCode::OK)
    };
    answer
        .body(Body::from_stream(stream))
        .unwrap_or_else(|_| Response::new(Body::empty()))
}

/// Serves `hosted` on a free loopback port until the runtime ends; returns the endpoint (what
/// `HF_ENDPOINT` is set to).
pub async fn serve(hosted: Arc<Hosted>) -> std::io::Result<String> {
    let app = Router::new()
        .route("/{owner}/{name}/resolve/{rev}/{file}", any(resolve))
        .route("/cdn/{file}", get(cdn))
        .with_state(hosted);
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
    let addr = listener.local_addr()?;
    tokio::spawn(async move {
        let _ = axum::serve(listener, app).await;
    });
    Ok(format!("http://{addr}"))
}
