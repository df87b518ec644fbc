//! Retrieval over a project's chunks. Lexical: the FTS5 index with its CJK bigrams, every word
//! of the query a phrase, ORed and ranked by bm25, so a question in plain words finds the chunks
//! sharing most of its rarer words. Each hit carries what a citation needs (path, line or page
//! span, the file's sha256 and mtime) and becomes a seed-004 `rag_doc` evidence.

use rusqlite::{params, Connection};
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};
use tessera_protocol::context_doc::{Evidence, EvidenceSource, EvidenceType, SourceKind};
use tessera_store::cjk_bigrams::{is_cjk, query_phrases};

use crate::error::Result;

/// Most hits one search returns.
pub const MAX_HITS: usize = 50;
/// Longest query read, in characters.
pub const MAX_QUERY_CHARS: usize = 1_000;

/// One chunk found, with where it is.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct KnowledgeHit {
    /// The evidence id the chunk is cited by (stable while the file's bytes are).
    pub evidence_id: String,
    pub path: String,
    /// Lines `[start, end]` from 1: of the file, of the page's text for a PDF, paragraphs for
    /// DOCX and ODT.
    pub lines: [u32; 2],
    /// The PDF page, from 1.
    pub page: Option<u32>,
    pub heading: Option<String>,
    pub text: String,
    /// Higher is better; comparable within one search.
    pub score: f64,
    /// What found it: `lexical`, `vector`, or both.
    pub matched_by: Vec<String>,
    pub sha256: String,
    pub mtime_ms: i64,
    pub format: Option<String>,
}

impl KnowledgeHit {
    /// `path:12-18`, or `path#page=3` for a PDF: how the answer names it.
    pub fn citation(&self) -> String {
        match self.page {
            Some(page) => format!("{}#page={page}", self.path),
            None if self.lines[0] == self.lines[1] => format!("{}:{}", self.path, self.lines[0]),
            None => format!("{}:{}-{}", self.path, self.lines[0], self.lines[1]),
        }
    }

    /// `lines:12-18` (seed 004's selector form).
    pub fn selector(&self) -> String {
        format!("lines:{}-{}", self.lines[0], self.lines[1])
    }

    /// The seed-004 evidence of this chunk: `rag_doc`, its source naming the file and span.
    pub fn evidence(&self, project_name: &str) -> Evidence {
        let mut extra = serde_json::Map::new();
        extra.insert("path".into(), json!(self.path));
        if let Some(page) = self.page {
            extra.insert("page".into(), json!(page));
        }
        extra.insert(
            "lines".into(),
            json!(format!("{}-{}", self.lines[0], self.lines[1])),
        );
        extra.insert("sha256".into(), json!(self.sha256));
        extra.insert("mtime".into(), json!(mtime_text(self.mtime_ms)));
        let mut metadata = serde_json::Map::new();
        metadata.insert("project".into(), json!(project_name));
        metadata.insert("citation".into(), json!(self.citation()));
        metadata.insert("score".into(), json!(self.score));
        metadata.insert("matched_by".into(), json!(self.matched_by));
        if let Some(h) = &self.heading {
            metadata.insert("heading".into(), json!(h));
        }
        Evidence {
            evidence_id: self.evidence_id.clone(),
            evidence_type: EvidenceType::RagDoc,
            source: EvidenceSource {
                kind: SourceKind::Rag,
                name: Some("knowledge".into()),
                uri: Some(file_uri(&self.path, self.page, self.lines)),
                extra,
            },
            content: Some(Value::String(self.text.clone())),
            confidence: None,
            metadata: Some(metadata),
            links: None,
            extra: serde_json::Map::new(),
        }
    }
}

fn mtime_text(ms: i64) -> String {
    time::OffsetDateTime::from_unix_timestamp_nanos(i128::from(ms) * 1_000_000)
        .ok()
        .and_then(|t| {
            t.format(&time::format_description::well_known::Rfc3339)
                .ok()
        })
        .unwrap_or_default()
}

/// `file:///path#L12-18` (or `#page=3`), the path percent-encoded where a URI needs it.
pub fn file_uri(path: &str, page: Option<u32>, lines: [u32; 2]) -> String {
    let mut out = String::from("file://");
    for b in path.bytes() {
        if b.is_ascii_alphanumeric() || b"/-_.~".contains(&b) {
            out.push(char::from(b));
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    match page {
        Some(page) => out.push_str(&format!("#page={page}")),
        None => out.push_str(&format!("#L{}-{}", lines[0], lines[1])),
    }
    out
}

/// A chunk's evidence id: its project, file, span and the file's bytes, so the same chunk of
/// the same file is one evidence however often it is found, and an edited file's is another.
fn evidence_id(
    project_id: &str,
    path: &str,
    page: Option<u32>,
    lines: [u32; 2],
    sha: &str,
) -> String {
    use sha2::{Digest, Sha256};
    let key = format!("{project_id}\u{0}{path}\u{0}{page:?}\u{0}{lines:?}\u{0}{sha}");
    let digest = Sha256::digest(key.as_bytes());
    let hex: String = digest.iter().take(8).map(|b| format!("{b:02x}")).collect();
    format!("kn-{hex}")
}

/// Most terms one query is searched by.
const MAX_TERMS: usize = 64;

/// The FTS5 expression matching a chunk that holds any term of `query`: each Latin word, and
/// each pair of neighbouring CJK characters (a question in Chinese is one run of characters with
/// no spaces; its bigrams are what it shares with a passage that answers it).
pub fn any_term(query: &str) -> Option<String> {
    let query: String = query.chars().take(MAX_QUERY_CHARS).collect();
    let mut terms: Vec<String> = Vec::new();
    let mut run: Vec<char> = Vec::new();
    let mut word = String::new();
    let flush_run = |run: &mut Vec<char>, terms: &mut Vec<String>| {
        match run.len() {
            0 => {}
            1 => terms.push(run[0].to_string()),
            _ => terms.extend(run.windows(2).map(|p| p.iter().collect::<String>())),
        }
        run.clear();
    };
    for c in query.chars() {
        if is_cjk(c) {
            if !word.is_empty() {
                terms.push(std::mem::take(&mut word));
            }
            run.push(c);
        } else {
            flush_run(&mut run, &mut terms);
            if c.is_alphanumeric() || c == '_' {
                word.push(c);
            } else if !word.is_empty() {
                terms.push(std::mem::take(&mut word));
            }
        }
    }
    flush_run(&mut run, &mut terms);
    if !word.is_empty() {
        terms.push(word);
    }
    let mut seen = std::collections::HashSet::new();
    let phrases: Vec<String> = terms
        .into_iter()
        .filter(|t| seen.insert(t.to_lowercase()))
        .flat_map(|t| query_phrases(&t))
        .take(MAX_TERMS)
        .collect();
    (!phrases.is_empty()).then(|| phrases.join(" OR "))
}

/// The lexical hits of `query` in `project_id`'s chunks, best first.
pub fn lexical(
    conn: &Connection,
    project_id: &str,
    query: &str,
    limit: usize,
) -> Result<Vec<KnowledgeHit>> {
    let Some(expression) = any_term(query) else {
        return Ok(Vec::new());
    };
    let limit = i64::try_from(limit.min(MAX_HITS)).unwrap_or(10);
    let mut stmt = conn.prepare_cached(
        "SELECT f.path, c.page, c.line_start, c.line_end, c.heading, c.text,
                bm25(chunk_index), f.sha256, f.mtime_ms, f.format
         FROM chunk_index
         JOIN chunks c ON c.id = chunk_index.rowid
         JOIN files f ON f.id = c.file_id
         WHERE chunk_index MATCH ?1 AND f.project_id = ?2
         ORDER BY bm25(chunk_index), c.id
         LIMIT ?3",
    )?;
    let rows = stmt.query_map(params![expression, project_id, limit], |row| {
        let path: String = row.get(0)?;
        let page: Option<u32> = row.get(1)?;
        let lines = [row.get::<_, u32>(2)?, row.get::<_, u32>(3)?];
        let sha256: String = row.get::<_, Option<String>>(7)?.unwrap_or_default();
        Ok(KnowledgeHit {
            evidence_id: evidence_id(project_id, &path, page, lines, &sha256),
            path,
            lines,
            page,
            heading: row.get(4)?,
            text: row.get(5)?,
            score: -row.get::<_, f64>(6)?,
            matched_by: vec!["lexical".into()],
            sha256,
            mtime_ms: row.get(8)?,
            format: row.get(9)?,
        })
    })?;
    Ok(rows.collect::<rusqlite::Result<Vec<_>>>()?)
}
