//! What a person attaches to a message (seed 000 §3.1 `attachments`), read by the rules the
//! `file_picker` tool reads a picked file by: images go to the model as images, text, Markdown
//! and code as text, a PDF as its extracted text; audio, video and other files are kept and the
//! model gets a note naming them. Every attachment is stored (the attachment store, referenced
//! by the message's `user_input` evidence) and listed on the message, so the answer can be
//! given again and the conversation shows what was sent.
//!
//! Where the bytes come from is checked first: a `data:` URL, or an attachment Tessera already
//! holds (`/v1/attachments/<sha256>`); never a file path, nor an address Tessera would fetch.

use base64::Engine as _;
use serde::{Deserialize, Serialize};
use tessera_protocol::mcp_cp::{Attachment, AttachmentType};
use tessera_providers::request::{Image, Part};
use tessera_store::attachments::is_sha256;
use tessera_store::{AttachmentRef, Store};
use thiserror::Error;

/// The key of a stored message's `extra` that lists its attachments.
pub(crate) const MESSAGE_ATTACHMENTS_KEY: &str = "attachments";
/// An attached file larger than this is refused (file_picker's limit).
pub(crate) const MAX_ATTACHMENT_BYTES: u64 = 20 * 1024 * 1024;
/// Text longer than this is refused: more than a model takes at once.
pub const MAX_TEXT_CHARS: usize = 200_000;
/// The most attachments one message takes.
pub(crate) const MAX_ATTACHMENTS: usize = 20;

/// How the model reads an attachment.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
#[serde(rename_all = "snake_case")]
pub enum AttachmentKind {
    Image,
    Text,
    Pdf,
    Audio,
    Video,
    /// Kept, but not readable by the model (it gets a note).
    File,
}

/// One attachment of a stored message.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct MessageAttachment {
    /// The bytes as sent, in the attachment store (`GET /v1/attachments/<sha256>`).
    pub sha256: String,
    pub mime_type: String,
    pub name: String,
    pub size: u64,
    pub kind: AttachmentKind,
    /// A PDF's extracted text (what the model reads), stored beside it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub(crate) text_sha256: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub width: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub height: Option<u32>,
}

/// Why an attachment was refused; each names the attachment (by its position and name).
#[derive(Debug, Error)]
pub enum AttachmentError {
    #[error("a message takes at most {MAX_ATTACHMENTS} attachments, not {0}")]
    TooMany(usize),
    #[error("attachment {index} ({name}): {reason}")]
    Refused {
        index: usize,
        name: String,
        reason: String,
    },
    #[error(transparent)]
    Store(#[from] tessera_store::StoreError),
}

/// What the bytes of a file are, as the model will read them.
#[derive(Debug)]
pub enum Classified {
    Image {
        mime: &'static str,
        width: u32,
        height: u32,
    },
    Pdf {
        text: String,
    },
    Text {
        text: String,
    },
    /// Neither text, a PDF nor an image a model takes.
    Other,
}

/// Why a file's content cannot be given to a model.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum Unreadable {
    #[error("it is not a readable image ({0})")]
    Image(String),
    #[error("its text could not be extracted ({0})")]
    PdfText(String),
    #[error("it is a damaged PDF")]
    DamagedPdf,
    #[error(
        "its text is {chars} characters, over the {max} that can be given at once",
        max = MAX_TEXT_CHARS
    )]
    TextTooLong { chars: usize },
    /// Reading stopped at the limit, so the whole length is not known.
    #[error("its text is over the {max} characters that can be given at once", max = MAX_TEXT_CHARS)]
    TextOverLimit,
}

/// Reads `bytes` as file_picker does: a PDF (its text), an image (PNG, JPEG, GIF, WebP), UTF-8
/// text; `Err` is why it cannot be read (a damaged file, text too long).
pub fn classify(bytes: &[u8]) -> Result<Classified, Unreadable> {
    if bytes.starts_with(b"%PDF-") {
        let text = pdf_text(bytes)?;
        return checked_text(text).map(|text| Classified::Pdf { text });
    }
    if let Ok(format) = image::guess_format(bytes) {
        let mime = match format {
            image::ImageFormat::Png => Some("image/png"),
            image::ImageFormat::Jpeg => Some("image/jpeg"),
            image::ImageFormat::Gif => Some("image/gif"),
            image::ImageFormat::WebP => Some("image/webp"),
            _ => None,
        };
        if let Some(mime) = mime {
            let (width, height) =
                image::ImageReader::with_format(std::io::Cursor::new(bytes), format)
                    .into_dimensions()
                    .map_err(|e| Unreadable::Image(e.to_string()))?;
            return Ok(Classified::Image {
                mime,
                width,
                height,
            });
        }
    }
    match std::str::from_utf8(bytes) {
        Ok(text) if !text.contains('\0') => {
            checked_text(text.to_owned()).map(|text| Classified::Text { text })
        }
        _ => Ok(Classified::Other),
    }
}

fn checked_text(text: String) -> Result<String, Unreadable> {
    let chars = text.chars().count();
    if chars > MAX_TEXT_CHARS {
        return Err(Unreadable::TextTooLong { chars });
    }
    Ok(text)
}

/// How much reading an attached PDF may take and make: the text a model takes at once (four
/// bytes a character at most), and far less inflation than a whole folder's index allows, since
/// the person waits on it.
fn pdf_limits() -> tessera_extract::Limits {
    tessera_extract::Limits {
        max_document_bytes: MAX_ATTACHMENT_BYTES,
        max_extracted_bytes: MAX_TEXT_CHARS * 4,
        max_inflated_bytes: 64 * 1024 * 1024,
        ..tessera_extract::Limits::default()
    }
}

/// A PDF's text, its pages apart by a blank line. Read by the bounded reader the knowledge
/// index uses: nothing in the file can make it inflate, parse or recurse past its limits.
fn pdf_text(bytes: &[u8]) -> Result<String, Unreadable> {
    use tessera_extract::{Body, ExtractError, Format};
    match tessera_extract::extract(Format::Pdf, bytes, &pdf_limits()) {
        Ok(Body::Pages(pages)) => Ok(pages.join("\n\n")),
        Ok(Body::Lines(text) | Body::Paragraphs(text)) => Ok(text),
        Err(ExtractError::NoText) => Ok(String::new()),
        Err(ExtractError::TooMuchText { .. }) => Err(Unreadable::TextOverLimit),
        Err(ExtractError::Malformed { .. }) => Err(Unreadable::DamagedPdf),
        Err(err) => Err(Unreadable::PdfText(err.to_string())),
    }
}

/// The bytes an attachment's `url` carries: a `data:` URL's, or a stored attachment's.
fn bytes_of(store: &Store, url: &str) -> Result<(Vec<u8>, Option<String>), String> {
    if let Some(rest) = url.strip_prefix("data:") {
        let (header, data) = rest
            .split_once(',')
            .ok_or("its data: URL has no comma before the data")?;
        let mime = header.split(';').next().filter(|m| !m.is_empty());
        // The encoded size bounds the decoded one: refuse before decoding a huge one.
        if data.len() as u64 > MAX_ATTACHMENT_BYTES / 3 * 4 + 4 {
            return Err(too_big(data.len() as u64 / 4 * 3));
        }
        let bytes = if header.split(';').any(|p| p.eq_ignore_ascii_case("base64")) {
            base64::engine::general_purpose::STANDARD
                .decode(data.trim())
                .map_err(|e| format!("its data: URL is not valid base64 ({e})"))?
        } else {
            percent_decode(data)
        };
        return Ok((bytes, mime.map(str::to_owned)));
    }
    let sha = url
        .strip_prefix("/v1/attachments/")
        .or_else(|| url.strip_prefix("tessera://attachments/"))
        .filter(|s| is_sha256(s))
        .ok_or(
            "its url must be a data: URL or a Tessera attachment (/v1/attachments/<sha256>); \
             files and other addresses are not fetched",
        )?;
    let info = store
        .attachment(sha)
        .map_err(|e| format!("it cannot be read ({e})"))?
        .ok_or("no attachment with that sha256 is stored")?;
    if info.size > MAX_ATTACHMENT_BYTES {
        return Err(too_big(info.size));
    }
    let bytes = store
        .read_attachment(sha)
        .map_err(|e| format!("it cannot be read ({e})"))?;
    Ok((bytes, info.mime_type))
}

fn too_big(size: u64) -> String {
    format!(
        "it is {:.1} MB, over the {} MB limit",
        size as f64 / 1_048_576.0,
        MAX_ATTACHMENT_BYTES / 1_048_576
    )
}

fn percent_decode(data: &str) -> Vec<u8> {
    let bytes = data.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = |b: u8| (b as char).to_digit(16).map(|d| d as u8);
        match (bytes[i], bytes.get(i + 1), bytes.get(i + 2)) {
            (b'%', Some(&h), Some(&l)) if hex(h).is_some() && hex(l).is_some() => {
                out.push(hex(h).unwrap_or(0) * 16 + hex(l).unwrap_or(0));
                i += 3;
            }
            (b, _, _) => {
                out.push(b);
                i += 1;
            }
        }
    }
    out
}

/// A name the model and the conversation can show: the one given (its last path part, so no
/// folder of the sender's disk is kept), else one made from the kind.
fn name_of(attachment: &Attachment, index: usize) -> String {
    let given = attachment
        .metadata
        .as_ref()
        .and_then(|m| m.file_name.as_deref())
        .map(|n| n.rsplit(['/', '\\']).next().unwrap_or(n).trim())
        .filter(|n| !n.is_empty())
        .map(|n| n.chars().take(200).collect::<String>());
    given.unwrap_or_else(|| format!("attachment-{}", index + 1))
}

/// Reads and stores a message's attachments; the first one refused refuses them all (nothing
/// is kept of a message that is not sent).
pub(crate) fn ingest(
    store: &Store,
    attachments: &[Attachment],
) -> Result<Vec<MessageAttachment>, AttachmentError> {
    if attachments.len() > MAX_ATTACHMENTS {
        return Err(AttachmentError::TooMany(attachments.len()));
    }
    let mut read = Vec::with_capacity(attachments.len());
    for (index, attachment) in attachments.iter().enumerate() {
        let name = name_of(attachment, index);
        let refused = |reason: String| AttachmentError::Refused {
            index,
            name: name.clone(),
            reason,
        };
        let (bytes, mime) = bytes_of(store, &attachment.url).map_err(refused)?;
        if bytes.len() as u64 > MAX_ATTACHMENT_BYTES {
            return Err(refused(too_big(bytes.len() as u64)));
        }
        let declared = attachment.attachment_type;
        let classified = match declared {
            // Audio and video are kept as sent; the model gets a note.
            AttachmentType::Audio | AttachmentType::Video => Classified::Other,
            _ => classify(&bytes).map_err(|why| refused(why.to_string()))?,
        };
        read.push((name, bytes, mime, declared, classified));
    }
    let mut stored = Vec::with_capacity(read.len());
    for (name, bytes, mime, declared, classified) in read {
        let size = bytes.len() as u64;
        let (kind, mime_type, width, height, text) = match classified {
            Classified::Image {
                mime,
                width,
                height,
            } => (
                AttachmentKind::Image,
                mime.to_owned(),
                Some(width),
                Some(height),
                None,
            ),
            Classified::Pdf { text } => (
                AttachmentKind::Pdf,
                "application/pdf".to_owned(),
                None,
                None,
                Some(text),
            ),
            Classified::Text { .. } => (
                AttachmentKind::Text,
                mime.filter(|m| m.starts_with("text/"))
                    .unwrap_or_else(|| "text/plain".into()),
                None,
                None,
                None,
            ),
            Classified::Other => (
                match declared {
                    AttachmentType::Audio => AttachmentKind::Audio,
                    AttachmentType::Video => AttachmentKind::Video,
                    _ => AttachmentKind::File,
                },
                mime.unwrap_or_else(|| "application/octet-stream".into()),
                None,
                None,
                None,
            ),
        };
        let info = store.put_attachment(&bytes, Some(&mime_type))?;
        let text_sha256 = match text {
            Some(text) => Some(
                store
                    .put_attachment(text.as_bytes(), Some("text/plain"))?
                    .sha256,
            ),
            None => None,
        };
        stored.push(MessageAttachment {
            sha256: info.sha256,
            mime_type,
            name,
            size,
            kind,
            text_sha256,
            width,
            height,
        });
    }
    Ok(stored)
}

/// The attachments a stored message lists.
pub(crate) fn of_message(extra: &tessera_protocol::wire::JsonObject) -> Vec<MessageAttachment> {
    extra
        .get(MESSAGE_ATTACHMENTS_KEY)
        .and_then(|v| serde_json::from_value(v.clone()).ok())
        .unwrap_or_default()
}

/// The refs the message's `user_input` evidence carries (so the files go when it goes).
pub(crate) fn refs_of(attachments: &[MessageAttachment]) -> Vec<AttachmentRef> {
    attachments
        .iter()
        .flat_map(|a| {
            let original = AttachmentRef {
                sha256: a.sha256.clone(),
                mime_type: Some(a.mime_type.clone()),
                file_name: Some(a.name.clone()),
            };
            let text = a.text_sha256.as_ref().map(|sha| AttachmentRef {
                sha256: sha.clone(),
                mime_type: Some("text/plain".into()),
                file_name: Some(format!("{} (text)", a.name)),
            });
            std::iter::once(original).chain(text)
        })
        .collect()
}

/// What the model reads of a message's attachments, after its text.
pub(crate) fn parts(store: &Store, attachments: &[MessageAttachment]) -> Vec<Part> {
    attachments.iter().map(|a| part(store, a)).collect()
}

fn part(store: &Store, a: &MessageAttachment) -> Part {
    let note = |why: &str| Part::text(format!("[Attachment {} {why}.]", a.name));
    let read = |sha: &str| store.read_attachment(sha);
    match a.kind {
        AttachmentKind::Image => {
            if a.size > crate::tools::images::MAX_IMAGE_BYTES {
                return note(&format!(
                    "is an image of {} bytes, over the {}-byte limit a model takes, so it was left out",
                    a.size,
                    crate::tools::images::MAX_IMAGE_BYTES
                ));
            }
            match read(&a.sha256) {
                Ok(bytes) => Part::Image(Image {
                    media_type: a.mime_type.clone(),
                    data_base64: base64::engine::general_purpose::STANDARD.encode(bytes),
                }),
                Err(_) => note("could not be read"),
            }
        }
        AttachmentKind::Text | AttachmentKind::Pdf => {
            let sha = a.text_sha256.as_deref().unwrap_or(&a.sha256);
            match read(sha) {
                Ok(bytes) => Part::File {
                    name: a.name.clone(),
                    media_type: if a.kind == AttachmentKind::Pdf {
                        "text/plain".into()
                    } else {
                        a.mime_type.clone()
                    },
                    text: Some(String::from_utf8_lossy(&bytes).into_owned()),
                },
                Err(_) => note("could not be read"),
            }
        }
        AttachmentKind::Audio | AttachmentKind::Video | AttachmentKind::File => note(&format!(
            "({}, {} bytes) was sent; its contents cannot be given to you",
            a.mime_type, a.size
        )),
    }
}
