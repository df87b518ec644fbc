//! Images returned by tools, through the real `tessera serve` and the scripted provider: the
//! test tool `test_image` makes a PNG of the colour asked for and lists it under `images` of
//! its result. The result's evidence references the attachment (and the export carries it);
//! the next model request carries the image (an OpenAI `image_url` data URL in a user message
//! after the tool messages, or an image block inside the Anthropic `tool_result`), never the
//! base64 in the result's JSON text; a model that takes no images gets a note instead; and
//! `GET /v1/attachments/{sha256}` gives the person the same bytes.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::support;

use std::path::Path;

use base64::Engine as _;
use serde_json::{json, Value};
use support::api::Api;
use support::serve_local;
use support::stream::{http, is_tool_event, Stream};
use tessera_testkit::scripted::{Reply, ScriptedProvider};

const ORANGE_RGB: [u8; 3] = [0xff, 0x80, 0x00];

/// Saves the scripted provider as `local` on the wire `kind`, its model `m` taking images or
/// not.
fn save_provider(data: &Path, provider: &ScriptedProvider, kind: &str, images: bool) {
    let base = if kind == "anthropic" {
        provider.url()
    } else {
        provider.openai_base()
    };
    let store = tessera_store::Store::open(data).unwrap();
    store
        .set_provider_settings(
            "local",
            json!({"name": "local", "kind": kind, "base_url": base, "requires_key": false,
                "default_model": "m", "proxy": "none",
                "models": {"m": {"image_input": images}}}),
        )
        .unwrap();
}

/// The pixel at (`x`, `y`) of a PNG, as RGB.
fn pixel(png_bytes: &[u8], x: u32, y: u32) -> [u8; 3] {
    let decoder = png::Decoder::new(std::io::Cursor::new(png_bytes));
    let mut reader = decoder.read_info().unwrap();
    let mut buffer = vec![0; reader.output_buffer_size().unwrap()];
    let info = reader.next_frame(&mut buffer).unwrap();
    let channels = info.color_type.samples();
    let at = (y as usize * info.width as usize + x as usize) * channels;
    [buffer[at], buffer[at + 1], buffer[at + 2]]
}

fn decode_data_url(url: &str) -> Vec<u8> {
    let data = url
        .strip_prefix("data:image/png;base64,")
        .unwrap_or_else(|| panic!("not a PNG data URL: {}", &url[..url.len().min(40)]));
    base64::engine::general_purpose::STANDARD
        .decode(data)
        .unwrap()
}

/// Runs one turn in which the model calls `test_image` for orange and then answers; returns
/// the `tool_result` payload.
async fn call_test_image(api: &Api, context: &str) -> Value {
    let mut stream = Stream::post(&api.server, context, "Show me orange.").await;
    stream.read_to_done().await;
    stream
        .events
        .iter()
        .find(|e| is_tool_event(&e.2, "tool_result", "call_img"))
        .map(|e| e.2["payload"].clone())
        .expect("a tool_result for call_img")
}

fn sha_of(result: &Value) -> String {
    assert_eq!(result["status"], "success", "{result}");
    let images = result["result"]["images"].as_array().expect("images");
    assert_eq!(images.len(), 1, "{result}");
    assert_eq!(images[0]["mime_type"], "image/png");
    images[0]["sha256"].as_str().unwrap().to_owned()
}

#[tokio::test(flavor = "multi_thread")]
async fn a_tool_image_reaches_the_model_as_an_image_and_the_person_as_an_attachment() {
    let provider = ScriptedProvider::start().await.unwrap();
    provider.push(Reply::openai_tool_calls(
        "m",
        &[("call_img", "test_image", &[r##"{"color": "#ff8000"}"##])],
    ));
    provider.push(Reply::openai_text("m", &["It is orange."]));
    let data = tempfile::tempdir().unwrap();
    save_provider(data.path(), &provider, "openai", true);
    let api = Api::start(serve_local(data.path(), true));

    let result = call_test_image(&api, "ctx_img").await;
    let sha = sha_of(&result);

    // The model's next request: the tool message holds the JSON without the bytes, and a
    // user message right after it holds the image.
    let calls = provider.calls();
    assert_eq!(calls.len(), 2);
    let messages = calls[1].body["messages"].as_array().unwrap().clone();
    let tool_at = messages.iter().position(|m| m["role"] == "tool").unwrap();
    let tool_text = messages[tool_at]["content"].as_str().unwrap();
    assert!(tool_text.contains(&sha), "{tool_text}");
    assert!(!tool_text.contains("base64"), "{tool_text}");
    let after = &messages[tool_at + 1];
    assert_eq!(after["role"], "user", "{after}");
    let url = after["content"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["type"] == "image_url")
        .map(|p| p["image_url"]["url"].as_str().unwrap().to_owned())
        .expect("an image_url part");
    assert_eq!(pixel(&decode_data_url(&url), 5, 7), ORANGE_RGB);

    // The person gets the same bytes, cacheable for good.
    let response = http()
        .get(format!("{}/v1/attachments/{sha}", api.server.base))
        .bearer_auth(&api.server.token)
        .send()
        .await
        .unwrap();
    assert_eq!(response.status().as_u16(), 200);
    let header = |name: &str| {
        response
            .headers()
            .get(name)
            .and_then(|v| v.to_str().ok())
            .map(str::to_owned)
    };
    assert_eq!(header("content-type").as_deref(), Some("image/png"));
    assert_eq!(
        header("cache-control").as_deref(),
        Some("private, max-age=31536000, immutable")
    );
    let bytes = response.bytes().await.unwrap();
    assert_eq!(pixel(&bytes, 0, 0), ORANGE_RGB);

    // The result's evidence references the attachment, in the store and in the export.
    let doc = api.get("/conversations/ctx_img/export").await;
    let doc = doc.ok(200);
    let referencing: Vec<&Value> = doc["evidences"]
        .as_object()
        .unwrap()
        .values()
        .filter(|e| e["type"] == "tool_result")
        .filter(|e| {
            e["attachments"]
                .as_array()
                .is_some_and(|a| a.iter().any(|r| r["sha256"] == sha.as_str()))
        })
        .collect();
    assert_eq!(referencing.len(), 1, "{}", doc["evidences"]);
    assert_eq!(referencing[0]["attachments"][0]["mime_type"], "image/png");

    // Unknown, malformed, and without the token.
    api.get(&format!("/attachments/{}", "0".repeat(64)))
        .await
        .error(404, "ATTACHMENT_NOT_FOUND");
    api.get("/attachments/not-a-hash")
        .await
        .error(400, "BAD_SHA256");
    let anonymous = http()
        .get(format!("{}/v1/attachments/{sha}", api.server.base))
        .send()
        .await
        .unwrap();
    assert_eq!(anonymous.status().as_u16(), 401);
}

#[tokio::test(flavor = "multi_thread")]
async fn a_model_that_takes_no_images_gets_a_note_instead() {
    let provider = ScriptedProvider::start().await.unwrap();
    provider.push(Reply::openai_tool_calls(
        "m",
        &[("call_img", "test_image", &[r##"{"color": "#ff8000"}"##])],
    ));
    provider.push(Reply::openai_text("m", &["I cannot see it."]));
    let data = tempfile::tempdir().unwrap();
    save_provider(data.path(), &provider, "openai", false);
    let api = Api::start(serve_local(data.path(), true));

    sha_of(&call_test_image(&api, "ctx_blind").await);
    let body = provider.calls()[1].body.to_string();
    assert!(!body.contains("image_url"), "{body}");
    assert!(!body.contains("base64"), "{body}");
    assert!(body.contains("does not accept images"), "{body}");
}

#[tokio::test(flavor = "multi_thread")]
async fn an_anthropic_model_gets_the_image_inside_the_tool_result() {
    let provider = ScriptedProvider::start().await.unwrap();
    provider.push(Reply::anthropic_tool_use(
        "m",
        &[("call_img", "test_image", &[r##"{"color": "#ff8000"}"##])],
    ));
    provider.push(Reply::anthropic_text("m", &["It is orange."]));
    let data = tempfile::tempdir().unwrap();
    save_provider(data.path(), &provider, "anthropic", true);
    let api = Api::start(serve_local(data.path(), true));

    sha_of(&call_test_image(&api, "ctx_claude").await);
    let messages = provider.calls()[1].body["messages"].clone();
    let result = messages
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|m| m["content"].as_array().cloned().unwrap_or_default())
        .find(|b| b["type"] == "tool_result")
        .expect("a tool_result block");
    let blocks = result["content"].as_array().unwrap();
    assert!(!blocks[0]["text"].as_str().unwrap().contains("base64"));
    let image = blocks
        .iter()
        .find(|b| b["type"] == "image")
        .expect("an image block");
    assert_eq!(image["source"]["media_type"], "image/png");
    let bytes = base64::engine::general_purpose::STANDARD
        .decode(image["source"]["data"].as_str().unwrap())
        .unwrap();
    assert_eq!(pixel(&bytes, 3, 3), ORANGE_RGB);
}
