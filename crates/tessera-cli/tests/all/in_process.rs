//! The API called in process, as the desktop shell carries it over IPC: the same router as
//! `tessera serve`, the event stream arriving chunk by chunk, errors as ERROR_RESPONSE bodies.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::support;

use serde_json::Value;
use tessera_app::{App, ModelOverrides};
use tessera_server::in_process::{ApiRequest, InProcessApi};
use tessera_testkit::scripted::{Reply, ScriptedProvider};

async fn api_over(data: &std::path::Path, provider: &ScriptedProvider) -> InProcessApi {
    support::save_scripted_provider(data, provider);
    let overrides = ModelOverrides {
        provider: Some("local".into()),
        ..ModelOverrides::default()
    };
    InProcessApi::new(App::open(data, overrides, Vec::new()).await.unwrap())
}

fn request(method: &str, path: &str, headers: &[(&str, &str)], body: Option<Value>) -> ApiRequest {
    ApiRequest {
        method: method.into(),
        path: path.into(),
        headers: headers
            .iter()
            .map(|(n, v)| ((*n).to_owned(), (*v).to_owned()))
            .collect(),
        body: body.map(|b| b.to_string()),
    }
}

async fn whole_body(api: &InProcessApi, req: ApiRequest) -> (u16, Vec<String>) {
    let (head, mut body) = api.call(req).await;
    let mut chunks = Vec::new();
    while let Some(chunk) = body.next().await {
        chunks.push(chunk.unwrap());
    }
    (head.status, chunks)
}

/// "Hi" sent to conversation `ctx` with an event stream asked for (and `headers` besides).
async fn send_hi(
    api: &InProcessApi,
    ctx: &str,
    headers: &[(&str, &str)],
) -> (
    tessera_server::in_process::ApiResponseHead,
    tessera_server::in_process::BodyText,
) {
    let mut all = vec![("accept", "text/event-stream")];
    all.extend_from_slice(headers);
    api.call(request(
        "POST",
        "/v1/messages",
        &all,
        Some(support::stream::user_input(ctx, "Hi")),
    ))
    .await
}

/// The answer's text in an event stream's `text`, and its events.
fn answer_of(text: &str) -> (String, Vec<support::stream::SseEvent>) {
    let events: Vec<_> = text
        .split("\n\n")
        .filter_map(support::stream::parse_block)
        .collect();
    let answer = events
        .iter()
        .filter(|(_, _, e)| e["domain"] == "llm" && e["type"] == "message")
        .filter_map(|(_, _, e)| e["payload"]["delta"].as_str())
        .collect();
    (answer, events)
}

#[tokio::test(flavor = "multi_thread")]
async fn a_message_streams_its_answer_through_the_in_process_router() {
    let provider = ScriptedProvider::start().await.unwrap();
    provider.push(Reply::openai_text("m", &["Hello ", "from ", "the shell"]));
    let data = tempfile::tempdir().unwrap();
    let api = api_over(data.path(), &provider).await;

    // A forged token and Host from the webview are replaced by the shell's own.
    let (head, mut body) = send_hi(
        &api,
        "ctx_ipc",
        &[
            ("authorization", "Bearer not-the-token"),
            ("host", "evil.example"),
        ],
    )
    .await;
    assert_eq!(head.status, 200);
    let header = |name: &str| {
        head.headers
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.clone())
    };
    assert!(header("content-type")
        .unwrap()
        .starts_with("text/event-stream"));
    assert!(header("x-tessera-run-id").is_some());

    let mut text = String::new();
    let mut chunks = 0;
    while let Some(chunk) = body.next().await {
        text.push_str(&chunk.unwrap());
        chunks += 1;
    }
    assert!(
        chunks > 1,
        "the events arrive as they happen, not as one body"
    );
    let (answer, events) = answer_of(&text);
    assert_eq!(answer, "Hello from the shell");
    assert_eq!(events.last().unwrap().1, "done");

    // The conversation is stored like any other.
    let (status, chunks) =
        whole_body(&api, request("GET", "/v1/conversations/ctx_ipc", &[], None)).await;
    assert_eq!(status, 200);
    let detail: Value = serde_json::from_str(&chunks.concat()).unwrap();
    assert_eq!(detail["messages"].as_array().unwrap().len(), 2);
}

/// A fast answer (a delta every 2 ms) reaches the shell as at most one text frame per
/// `TEXT_FRAME_INTERVAL` while it keeps coming: each frame costs the page a script of its own.
/// Every event still arrives whole and in order, and a frame after a pause is not held back.
#[tokio::test(flavor = "multi_thread")]
async fn a_fast_answer_arrives_in_frames_gathered_per_display_frame() {
    use tessera_server::in_process::{BodyFrame, TEXT_FRAME_INTERVAL};
    let provider = ScriptedProvider::start().await.unwrap();
    let deltas: Vec<String> = (0..200).map(|i| format!("w{i} ")).collect();
    let pieces: Vec<&str> = deltas.iter().map(String::as_str).collect();
    provider.push(
        Reply::openai_text("m", &pieces).with_step_delay(std::time::Duration::from_millis(2)),
    );
    let data = tempfile::tempdir().unwrap();
    let api = api_over(data.path(), &provider).await;
    let (head, mut body) = send_hi(&api, "ctx_frames", &[]).await;
    assert_eq!(head.status, 200);
    let started = tokio::time::Instant::now();
    let mut frames = Vec::new();
    let mut text = String::new();
    while let Some(frame) = body.next_frame().await {
        match frame {
            BodyFrame::Chunk { text: piece } => {
                frames.push(started.elapsed());
                text.push_str(&piece);
            }
            other => panic!("the event stream came as {other:?}"),
        }
    }
    let (answer, events) = answer_of(&text);
    assert_eq!(answer, deltas.concat());
    assert_eq!(events.last().unwrap().1, "done");
    // Frames handed out less than the interval apart: none (a little slack for the clock),
    // but for the last, which goes as soon as the body ends.
    let close = frames[..frames.len() - 1]
        .windows(2)
        .filter(|w| w[1] - w[0] + std::time::Duration::from_millis(1) < TEXT_FRAME_INTERVAL)
        .count();
    assert_eq!(close, 0, "frames at {frames:?}");
    assert!(
        frames.len() * 3 < events.len(),
        "{} frames for {} events",
        frames.len(),
        events.len()
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn malformed_requests_get_a_clear_error_and_nothing_else() {
    let provider = ScriptedProvider::start().await.unwrap();
    let data = tempfile::tempdir().unwrap();
    let api = api_over(data.path(), &provider).await;

    for (method, path, what) in [
        (
            "GET",
            "http://example.com/v1/conversations",
            "not a path of the API",
        ),
        ("NOT A METHOD", "/v1/conversations", "not an HTTP method"),
    ] {
        let (status, chunks) = whole_body(&api, request(method, path, &[], None)).await;
        assert_eq!(status, 400, "{method} {path}");
        let body: Value = serde_json::from_str(&chunks.concat()).unwrap();
        assert_eq!(body["type"], "ERROR_RESPONSE");
        assert!(
            body["content"]["message"].as_str().unwrap().contains(what),
            "{body}"
        );
    }
    let (status, _) = whole_body(&api, request("GET", "/v1/conversations/nope", &[], None)).await;
    assert_eq!(status, 404);
    let (status, chunks) = whole_body(
        &api,
        request("POST", "/v1/messages", &[], Some(Value::String("x".into()))),
    )
    .await;
    assert_eq!(status, 400, "{}", chunks.concat());
}

#[tokio::test(flavor = "multi_thread")]
async fn a_picture_arrives_byte_for_byte_while_text_stays_text() {
    use base64::Engine as _;
    use tessera_server::in_process::BodyFrame;
    let provider = ScriptedProvider::start().await.unwrap();
    let data = tempfile::tempdir().unwrap();
    // Bytes that are not UTF-8 (a PNG's signature starts with 0x89), every value once.
    let mut picture = vec![0x89, b'P', b'N', b'G', 0x0d, 0x0a, 0x1a, 0x0a];
    picture.extend((0..=255u8).cycle().take(300_000));
    support::save_scripted_provider(data.path(), &provider);
    let overrides = ModelOverrides {
        provider: Some("local".into()),
        ..ModelOverrides::default()
    };
    // The store as a tool plugin gets it (the seam the desktop's native tools use), to keep a
    // picture the way a tool's screenshot is kept.
    let seen = std::sync::Arc::new(std::sync::OnceLock::new());
    let plugin: tessera_app::ToolPlugin = {
        let seen = seen.clone();
        std::sync::Arc::new(move |_tools, store| {
            let _ = seen.set(store.clone());
            Ok(())
        })
    };
    let app = App::open(data.path(), overrides, vec![plugin])
        .await
        .unwrap();
    let store: &std::sync::Arc<tessera_store::Store> = seen.get().unwrap();
    let sha = store
        .put_attachment(&picture, Some("image/png"))
        .unwrap()
        .sha256;
    let api = InProcessApi::new(app);
    let (head, mut body) = api
        .call(request("GET", &format!("/v1/attachments/{sha}"), &[], None))
        .await;
    assert_eq!(head.status, 200);
    let mut received = Vec::new();
    while let Some(frame) = body.next_frame().await {
        match frame {
            BodyFrame::Bytes { base64 } => received.extend(
                base64::engine::general_purpose::STANDARD
                    .decode(base64)
                    .unwrap(),
            ),
            other => panic!("a picture came as {other:?}"),
        }
    }
    assert_eq!(received.len(), picture.len());
    assert!(
        received == picture,
        "the picture's bytes changed on the way"
    );

    // A JSON answer is still text.
    let (_, mut body) = api
        .call(request("GET", "/v1/conversations", &[], None))
        .await;
    match body.next_frame().await {
        Some(BodyFrame::Chunk { text }) => assert!(text.starts_with('{'), "{text}"),
        other => panic!("JSON came as {other:?}"),
    }
}
