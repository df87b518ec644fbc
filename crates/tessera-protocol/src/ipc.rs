//! What the desktop shell and its webview say to each other over Tauri IPC: an HTTP request for
//! the in-process API (docs/design.md: one command that calls the router, one channel for the
//! body), the head of its response, and the body as a sequence of frames.

use serde::{Deserialize, Serialize};
use ts_rs::TS;

/// One request for the API, as the UI's transport describes it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct ApiRequest {
    pub method: String,
    /// Path and query under the API root, e.g. `/v1/conversations?limit=20`.
    pub path: String,
    /// Name and value pairs; Host, Origin and Authorization are the shell's to set.
    #[serde(default)]
    pub headers: Vec<(String, String)>,
    /// The body, already serialised (JSON).
    #[serde(default)]
    #[ts(optional = nullable)]
    pub body: Option<String>,
}

/// The status and headers of a response; its body follows as [`BodyFrame`]s.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct ApiResponseHead {
    pub status: u16,
    pub headers: Vec<(String, String)>,
}

/// A piece of a response body, in order: text chunks (or byte chunks, for a body that is not
/// text), then `end` or `error`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum BodyFrame {
    /// Whole UTF-8 text (a character is never split between two chunks).
    Chunk { text: String },
    /// Bytes of a body that is not text (an image, a PDF), as standard base64: carried as they
    /// are, never through a text decoding.
    Bytes { base64: String },
    /// The body ended.
    End,
    /// The body broke off (the in-process equivalent of a dropped connection).
    Error { message: String },
}
