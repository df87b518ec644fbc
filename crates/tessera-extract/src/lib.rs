//! Text out of a file, bounded: which formats are read, and what each gives the chunker.
//!
//! Plain text, Markdown, source code and CSV keep the file's own lines, so a chunk cites the
//! lines a person sees in an editor. HTML keeps its source lines too (tags are blanked, not
//! removed, so line N of the text is line N of the file). PDF gives pages; DOCX and ODT give
//! their paragraphs, one per line of the extracted text.
//!
//! Every reader is bounded: the file's size before it is read, the text it may produce, and
//! for the container formats (PDF, DOCX, ODT) what a stream or a zip member may inflate to.

mod html;
mod inflate;
mod office;
mod pdf;
mod pdf_decode;
#[cfg(any(test, feature = "fixtures"))]
pub mod pdf_fixtures;
mod pdf_font;
mod pdf_layout;
mod pdf_load;
mod pdf_syntax;
mod pdf_text;
mod text;
mod zip_bounded;

use std::path::Path;

use serde::{Deserialize, Serialize};

/// What a file is read as.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, ts_rs::TS)]
#[serde(rename_all = "snake_case")]
pub enum Format {
    Text,
    Markdown,
    Code,
    Html,
    Csv,
    Pdf,
    Docx,
    Odt,
}

impl Format {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Text => "text",
            Self::Markdown => "markdown",
            Self::Code => "code",
            Self::Html => "html",
            Self::Csv => "csv",
            Self::Pdf => "pdf",
            Self::Docx => "docx",
            Self::Odt => "odt",
        }
    }

    /// The format of a file by its name; None for a file no reader takes.
    pub fn of(path: &Path) -> Option<Self> {
        let name = path.file_name()?.to_str()?.to_ascii_lowercase();
        if TEXT_NAMES.contains(&name.as_str()) {
            return Some(Self::Text);
        }
        let ext = name.rsplit_once('.').map(|(_, ext)| ext)?;
        Some(match ext {
            "txt" | "text" | "log" | "rst" | "adoc" | "org" | "tex" | "bib" | "ini" | "cfg"
            | "conf" | "toml" | "yaml" | "yml" | "json" | "jsonl" | "xml" | "srt" | "vtt" => {
                Self::Text
            }
            "md" | "markdown" | "mdx" => Self::Markdown,
            "html" | "htm" | "xhtml" => Self::Html,
            "csv" | "tsv" => Self::Csv,
            "pdf" => Self::Pdf,
            "docx" => Self::Docx,
            "odt" => Self::Odt,
            ext if CODE_EXTENSIONS.contains(&ext) => Self::Code,
            _ => return None,
        })
    }
}

/// Files without an extension that are text.
const TEXT_NAMES: &[&str] = &[
    "readme",
    "license",
    "copying",
    "authors",
    "changelog",
    "makefile",
    "dockerfile",
    "notes",
    "todo",
];

const CODE_EXTENSIONS: &[&str] = &[
    "rs", "py", "js", "mjs", "cjs", "ts", "tsx", "jsx", "go", "java", "kt", "kts", "c", "h", "cc",
    "cpp", "cxx", "hpp", "hh", "cs", "rb", "php", "swift", "m", "mm", "scala", "lua", "pl", "r",
    "jl", "hs", "ml", "ex", "exs", "erl", "clj", "dart", "zig", "nim", "sh", "bash", "zsh", "fish",
    "ps1", "sql", "css", "scss", "less", "vue", "svelte", "proto", "graphql", "cmake", "gradle",
    "el", "vim",
];

/// How much a reader may take and make.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Limits {
    /// Largest text-like file read (text, Markdown, code, HTML, CSV), in bytes.
    pub max_text_file_bytes: u64,
    /// Largest PDF, DOCX or ODT read, in bytes.
    pub max_document_bytes: u64,
    /// Most text one file may give, in bytes (UTF-8).
    pub max_extracted_bytes: usize,
    /// Most bytes one compressed stream or zip member may inflate to.
    pub max_inflated_bytes: u64,
    /// Most pages of a PDF read.
    pub max_pages: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Self {
            max_text_file_bytes: 10 * 1024 * 1024,
            max_document_bytes: 100 * 1024 * 1024,
            max_extracted_bytes: 20 * 1024 * 1024,
            max_inflated_bytes: 200 * 1024 * 1024,
            max_pages: 5_000,
        }
    }
}

/// The text of a file, in the shape its citations take.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Body {
    /// Text whose line N is line N of the file (text, Markdown, code, HTML, CSV).
    Lines(String),
    /// One text per page, the first being page 1 (PDF).
    Pages(Vec<String>),
    /// Paragraphs, one per line: line N is paragraph N (DOCX, ODT).
    Paragraphs(String),
}

/// Why a file gave no text. Each reads as a reason a person understands ("skipped: …").
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ExtractError {
    #[error("larger than {limit} bytes ({size} bytes)")]
    TooLarge { size: u64, limit: u64 },
    #[error("not text (binary bytes)")]
    Binary,
    #[error("not valid {format}: {reason}")]
    Malformed {
        format: &'static str,
        reason: String,
    },
    #[error("a part of it inflates past {limit} bytes (a compression bomb?)")]
    Bomb { limit: u64 },
    #[error("its text passes {limit} bytes")]
    TooMuchText { limit: usize },
    #[error("encrypted: it cannot be read without its password")]
    Encrypted,
    #[error("it has no text (a scan without a text layer?)")]
    NoText,
}

/// Reads `bytes` (the whole file, already checked against the size limits) as `format`.
pub fn extract(format: Format, bytes: &[u8], limits: &Limits) -> Result<Body, ExtractError> {
    match format {
        Format::Text | Format::Markdown | Format::Code | Format::Csv => {
            text::lines(bytes, limits).map(Body::Lines)
        }
        Format::Html => html::lines(bytes, limits).map(Body::Lines),
        Format::Pdf => pdf::pages(bytes, limits).map(Body::Pages),
        Format::Docx => office::docx_paragraphs(bytes, limits).map(Body::Paragraphs),
        Format::Odt => office::odt_paragraphs(bytes, limits).map(Body::Paragraphs),
    }
}

/// The size limit that applies to a file of `format`.
pub fn size_limit(format: Format, limits: &Limits) -> u64 {
    match format {
        Format::Pdf | Format::Docx | Format::Odt => limits.max_document_bytes,
        _ => limits.max_text_file_bytes,
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn formats_come_from_the_name() {
        for (name, format) in [
            ("a/notes.md", Some(Format::Markdown)),
            ("a/main.RS", Some(Format::Code)),
            ("README", Some(Format::Text)),
            ("x.pdf", Some(Format::Pdf)),
            ("x.docx", Some(Format::Docx)),
            ("x.odt", Some(Format::Odt)),
            ("x.html", Some(Format::Html)),
            ("x.csv", Some(Format::Csv)),
            ("x.png", None),
            ("x", None),
        ] {
            assert_eq!(Format::of(Path::new(name)), format, "{name}");
        }
    }
}
