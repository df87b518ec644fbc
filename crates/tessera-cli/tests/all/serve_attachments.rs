//! What a person attaches to a message (USER_INPUT `attachments`, seed 000 §3.1), through the
//! real `tessera serve` and the scripted provider: an image reaches the model as an image, a
//! text file as its text, audio as a note; all are stored with the message (listed on it,
//! referenced by its evidence, served by `GET /v1/attachments/…`) and go with it to a
//! regeneration. A url that is not a `data:` URL nor a Tessera attachment is refused before
//! anything is created or sent.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::support;

use base64::Engine as _;
use serde_json::{json, Value};
use support::api::{mcp_message, Api};
use support::tessera_std;
use tessera_testkit::scripted::{Reply, ScriptedProvider};

fn start(data: &std::path::Path, provider: &ScriptedProvider) -> Api {
    let store = tessera_store::Store::open(data).unwrap();
    store
        .set_provider_settings(
            "local",
            json!({"name": "local", "kind": "openai", "base_url": provider.openai_base(),
                "requires_key": false, "default_model": "m", "proxy": "none",
                "models": {"m": {"image_input": true}}}),
        )
        .unwrap();
    drop(store);
    let mut cmd = tessera_std(data);
    cmd.args(["serve", "--port", "0", "--provider", "local"]);
    Api::start(cmd)
}

fn png_2x1() -> Vec<u8> {
    let mut out = Vec::new();
    let mut encoder = png::Encoder::new(&mut out, 2, 1);
    encoder.set_color(png::ColorType::Rgb);
    encoder.set_depth(png::BitDepth::Eight);
    let mut writer = encoder.write_header().unwrap();
    writer.write_image_data(&[255, 128, 0, 0, 0, 255]).unwrap();
    writer.finish().unwrap();
    out
}

fn data_url(mime: &str, bytes: &[u8]) -> String {
    format!(
        "data:{mime};base64,{}",
        base64::engine::general_purpose::STANDARD.encode(bytes)
    )
}

fn with_attachments(context: &str, text: &str, attachments: Value) -> Value {
    mcp_message(
        context,
        "USER_INPUT",
        json!({"text": text, "attachments": attachments}),
    )
}

/// The content parts of the last user message the provider received.
fn last_user_parts(provider: &ScriptedProvider) -> Vec<Value> {
    let call = provider.calls().last().cloned().unwrap();
    let messages = call.body["messages"].as_array().unwrap().clone();
    let user = messages.iter().rev().find(|m| m["role"] == "user").unwrap();
    match &user["content"] {
        Value::Array(parts) => parts.clone(),
        other => vec![json!({"type": "text", "text": other})],
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn an_image_a_text_file_and_audio_reach_the_model_by_the_file_picker_rules() {
    let provider = ScriptedProvider::start().await.unwrap();
    let data = tempfile::tempdir().unwrap();
    let api = start(data.path(), &provider);
    let png = png_2x1();
    let notes = "# Notes\nThe launch is on 3 March.\n";
    provider.push(Reply::openai_text("m", &["Seen."]));
    let sent = with_attachments(
        "att1",
        "What is in these?",
        json!([
            {"type": "IMAGE", "url": data_url("image/png", &png), "metadata": {"fileName": "C:\\Users\\me\\shot.png"}},
            {"type": "FILE", "url": format!("data:text/markdown,{}", notes.replace(' ', "%20").replace('\n', "%0A").replace('#', "%23")), "metadata": {"fileName": "notes.md"}},
            {"type": "AUDIO", "url": data_url("audio/ogg", b"OggS\0fake"), "metadata": {"fileName": "memo.ogg"}}
        ]),
    );
    let answer = api.post("/messages", &sent).await;
    assert_eq!(answer.ok(200)["content"]["text"], "Seen.");

    let parts = last_user_parts(&provider);
    assert_eq!(parts[0]["text"], "What is in these?");
    let image = parts.iter().find(|p| p["type"] == "image_url").unwrap();
    let url = image["image_url"]["url"].as_str().unwrap();
    assert_eq!(url, data_url("image/png", &png));
    let texts: Vec<&str> = parts.iter().filter_map(|p| p["text"].as_str()).collect();
    assert!(
        texts
            .iter()
            .any(|t| t.contains("The launch is on 3 March.") && t.contains("notes.md")),
        "{texts:?}"
    );
    assert!(
        texts
            .iter()
            .any(|t| t.contains("memo.ogg") && t.contains("cannot be given")),
        "{texts:?}"
    );

    // Stored with the message: listed on it (the name without the sender's folders), served.
    let shown = api.get("/conversations/att1").await;
    let message = &shown.ok(200)["messages"][0];
    let listed = message["message"]["attachments"].as_array().unwrap();
    let names: Vec<&str> = listed.iter().map(|a| a["name"].as_str().unwrap()).collect();
    assert_eq!(names, ["shot.png", "notes.md", "memo.ogg"]);
    assert_eq!(listed[0]["kind"], "image");
    assert_eq!(
        (listed[0]["width"].as_u64(), listed[0]["height"].as_u64()),
        (Some(2), Some(1))
    );
    assert_eq!(listed[1]["kind"], "text");
    assert_eq!(listed[2]["kind"], "audio");
    let sha = listed[0]["sha256"].as_str().unwrap();
    let response = support::stream::http()
        .get(format!("{}/v1/attachments/{sha}", api.server.base))
        .bearer_auth(&api.server.token)
        .send()
        .await
        .unwrap();
    assert_eq!(response.bytes().await.unwrap().as_ref(), png.as_slice());

    // A regeneration sends them again.
    provider.push(Reply::openai_text("m", &["Seen again."]));
    api.post("/conversations/att1/regenerate", &json!({}))
        .await
        .ok(200);
    let again = last_user_parts(&provider);
    assert!(again.iter().any(|p| p["type"] == "image_url"));
}

#[tokio::test(flavor = "multi_thread")]
async fn an_attachment_from_anywhere_but_the_message_or_tessera_is_refused_and_nothing_is_created()
{
    let provider = ScriptedProvider::start().await.unwrap();
    let data = tempfile::tempdir().unwrap();
    let api = start(data.path(), &provider);
    let big = vec![b'a'; 21 * 1024 * 1024];
    for (url, says) in [
        (
            "file:///etc/passwd".to_owned(),
            "files and other addresses are not fetched",
        ),
        ("http://127.0.0.1:1/x.png".to_owned(), "not fetched"),
        (
            "http://169.254.169.254/latest/meta-data".to_owned(),
            "not fetched",
        ),
        (
            format!("/v1/attachments/{}", "0".repeat(64)),
            "no attachment with that sha256",
        ),
        ("data:image/png;base64,@@@".to_owned(), "not valid base64"),
        (data_url("text/plain", &big), "over the 20 MB limit"),
        (
            data_url("image/png", b"\x89PNG\r\n\x1a\nbroken"),
            "not a readable image",
        ),
    ] {
        let sent = with_attachments(
            "refused",
            "look",
            json!([{"type": "FILE", "url": url, "metadata": {"fileName": "f"}}]),
        );
        let refused = api.post("/messages", &sent).await;
        let message = refused.error(400, "INVALID_ATTACHMENT");
        assert!(
            message.contains(says) && message.contains("attachment 0 (f)"),
            "{message}"
        );
    }
    api.get("/conversations/refused")
        .await
        .error(404, "NOT_FOUND");
    assert!(provider.calls().is_empty());
    let many: Vec<Value> = (0..21)
        .map(|_| json!({"type": "FILE", "url": "data:,x"}))
        .collect();
    let refused = api
        .post(
            "/messages",
            &with_attachments("refused", "look", json!(many)),
        )
        .await;
    assert!(refused
        .error(400, "INVALID_ATTACHMENT")
        .contains("at most 20"));
}

#[tokio::test(flavor = "multi_thread")]
async fn a_pdf_reaches_the_model_as_its_text_and_a_pdf_bomb_is_refused_within_bounds() {
    use tessera_extract::pdf_fixtures::{stream, with_pages, zeros_bomb, HELVETICA};
    let provider = ScriptedProvider::start().await.unwrap();
    let data = tempfile::tempdir().unwrap();
    let api = start(data.path(), &provider);

    let page = stream(
        "",
        b"BT /F1 12 Tf 72 700 Td (The launch is on 3 March.) Tj ET",
    );
    let pdf = with_pages(&[page], HELVETICA);
    provider.push(Reply::openai_text("m", &["Read."]));
    let sent = with_attachments(
        "att_pdf",
        "When is the launch?",
        json!([{"type": "FILE", "url": data_url("application/pdf", &pdf), "metadata": {"fileName": "plan.pdf"}}]),
    );
    api.post("/messages", &sent).await.ok(200);
    let texts: Vec<String> = last_user_parts(&provider)
        .iter()
        .filter_map(|p| p["text"].as_str().map(str::to_owned))
        .collect();
    assert!(
        texts
            .iter()
            .any(|t| t.contains("The launch is on 3 March.") && t.contains("plan.pdf")),
        "{texts:?}"
    );

    // 256 MiB of zeros in a ~250 KB page stream: refused naming the limit, memory untouched.
    eprintln!(
        "before the bomb: peak {} MiB",
        support::peak_mib(api.server.pid())
    );
    let bomb = zeros_bomb(256);
    let pdf = with_pages(&[stream("/Filter /FlateDecode", &bomb)], HELVETICA);
    assert!(pdf.len() < 400 * 1024, "{} bytes", pdf.len());
    let before = provider.calls().len();
    let sent = with_attachments(
        "att_bomb",
        "Read this",
        json!([{"type": "FILE", "url": data_url("application/pdf", &pdf), "metadata": {"fileName": "bomb.pdf"}}]),
    );
    let refused = api.post("/messages", &sent).await;
    assert!(refused.status >= 400, "{}", refused.text);
    assert!(
        refused.text.contains("bomb.pdf") && refused.text.contains("inflates past 67108864 bytes"),
        "{}",
        refused.text
    );
    assert_eq!(provider.calls().len(), before, "nothing was sent");
    let peak = support::peak_mib(api.server.pid());
    eprintln!("PDF bomb: peak {peak} MiB for 256 MiB inflated");
    assert!(peak < 200, "peak {peak} MiB");
}
