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
    /// The chunk's row in the index (changes when its file is indexed again).
    pub chunk_id: i64,
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
const MAX_TERMS: usize = 16;
/// Below this many chunks in a project every term of a query is searched by (it is cheap).
const SMALL_INDEX: i64 = 2_000;
/// A term in more than one chunk in this many is left out of a large project's query: it
/// matches nearly everything (a stopword, a word the whole folder shares), costs a score for
/// every chunk and adds little to the ranking.
const COMMON_FRACTION: i64 = 10;

/// The token every chunk of a project carries in the index, so a search stays inside the
/// project within FTS5 itself (no join to filter after ranking everything).
pub fn project_token(project_id: &str) -> String {
    let id: String = project_id
        .chars()
        .filter(char::is_ascii_alphanumeric)
        .collect();
    format!("kproj{}", id.to_ascii_lowercase())
}

/// The terms of a query: each Latin word, and each pair of neighbouring CJK characters (a
/// question in Chinese is one run of characters with no spaces; its bigrams are what it shares
/// with a passage that answers it); a lone CJK character alone.
fn terms(query: &str) -> Vec<String> {
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
                word.extend(c.to_lowercase());
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
    terms.retain(|t| seen.insert(t.clone()));
    terms
}

/// How many chunks hold `token` (0 when none, or when it cannot be counted).
fn chunks_holding(conn: &Connection, token: &str) -> i64 {
    conn.prepare_cached("SELECT doc FROM chunk_vocab WHERE term = ?1")
        .and_then(|mut s| s.query_row([token], |r| r.get::<_, i64>(0)))
        .unwrap_or(0)
}

/// The FTS5 expression for `query` in a project of `total` chunks: its terms that occur,
/// the common ones left out of a large project, at most [`MAX_TERMS`] of the rarest, ORed.
/// When every term is common they must all occur instead (ANDed), which is selective.
fn plan(conn: &Connection, query: &str, total: i64) -> Option<(String, bool)> {
    let mut counted: Vec<(String, i64)> = Vec::new();
    for term in terms(query) {
        let single_cjk = term.chars().count() == 1 && term.chars().all(is_cjk);
        let df = if single_cjk || !term.is_ascii() && !term.chars().all(is_cjk) {
            // A lone CJK character is a prefix query of every bigram it starts, and a word
            // with diacritics is indexed without them: neither is counted as it is written.
            total
        } else {
            // `snake_case` is a phrase of its parts: as common as its rarest part.
            term.split('_')
                .filter(|part| !part.is_empty())
                .map(|part| chunks_holding(conn, part))
                .min()
                .unwrap_or(0)
        };
        if df > 0 {
            if let Some(phrase) = query_phrases(&term).into_iter().next() {
                counted.push((phrase, df));
            }
        }
    }
    if counted.is_empty() {
        return None;
    }
    counted.sort_by_key(|(_, df)| *df);
    let common = |df: i64| total >= SMALL_INDEX && df * COMMON_FRACTION > total;
    let rare: Vec<&String> = counted
        .iter()
        .filter(|(_, df)| !common(*df))
        .map(|(p, _)| p)
        .take(MAX_TERMS)
        .collect();
    if rare.is_empty() {
        let all: Vec<&String> = counted.iter().map(|(p, _)| p).take(MAX_TERMS).collect();
        return Some((
            all.iter()
                .map(|p| p.as_str())
                .collect::<Vec<_>>()
                .join(" AND "),
            true,
        ));
    }
    Some((
        rare.iter()
            .map(|p| p.as_str())
            .collect::<Vec<_>>()
            .join(" OR "),
        false,
    ))
}

fn run(
    conn: &Connection,
    project_id: &str,
    expression: &str,
    limit: i64,
) -> Result<Vec<KnowledgeHit>> {
    let matched = format!("\"{}\" AND ({expression})", project_token(project_id));
    let mut stmt = conn.prepare_cached(
        "SELECT f.path, c.page, c.line_start, c.line_end, c.heading, c.text,
                m.rank, f.sha256, f.mtime_ms, f.format, c.id
         FROM (SELECT rowid, rank FROM chunk_index WHERE chunk_index MATCH ?1
               ORDER BY rank LIMIT ?2) m
         JOIN chunks c ON c.id = m.rowid
         JOIN files f ON f.id = c.file_id
         WHERE f.project_id = ?3
         ORDER BY m.rank, c.id",
    )?;
    let rows = stmt.query_map(params![matched, limit, project_id], |row| {
        hit_of(project_id, row)
    })?;
    Ok(rows.collect::<rusqlite::Result<Vec<_>>>()?)
}

/// A hit from a row of (path, page, line_start, line_end, heading, text, rank, sha256,
/// mtime_ms, format, chunk id).
fn hit_of(project_id: &str, row: &rusqlite::Row<'_>) -> rusqlite::Result<KnowledgeHit> {
    {
        let path: String = row.get(0)?;
        let page: Option<u32> = row.get(1)?;
        let lines = [row.get::<_, u32>(2)?, row.get::<_, u32>(3)?];
        let sha256: String = row.get::<_, Option<String>>(7)?.unwrap_or_default();
        Ok(KnowledgeHit {
            chunk_id: row.get(10)?,
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
    }
}

/// The hits of chunks by id (found by their vectors), in the order given.
pub fn by_chunk_ids(conn: &Connection, project_id: &str, ids: &[i64]) -> Result<Vec<KnowledgeHit>> {
    let mut stmt = conn.prepare_cached(
        "SELECT f.path, c.page, c.line_start, c.line_end, c.heading, c.text,
                0.0, f.sha256, f.mtime_ms, f.format, c.id
         FROM chunks c JOIN files f ON f.id = c.file_id
         WHERE c.id = ?1 AND f.project_id = ?2",
    )?;
    let mut out = Vec::new();
    for id in ids {
        let mut rows = stmt.query_map(params![id, project_id], |row| hit_of(project_id, row))?;
        if let Some(hit) = rows.next() {
            out.push(hit?);
        }
    }
    Ok(out)
}

/// The lexical hits of `query` in `project_id`'s chunks, best first.
pub fn lexical(
    conn: &Connection,
    project_id: &str,
    query: &str,
    limit: usize,
) -> Result<Vec<KnowledgeHit>> {
    let total = chunks_holding(conn, &project_token(project_id));
    if total == 0 {
        return Ok(Vec::new());
    }
    let Some((expression, all_common)) = plan(conn, query, total) else {
        return Ok(Vec::new());
    };
    let limit = i64::try_from(limit.min(MAX_HITS)).unwrap_or(10);
    let mut hits = run(conn, project_id, &expression, limit)?;
    if all_common && hits.is_empty() {
        // No chunk holds every common word: any of the rarest few, at a full ranking's cost.
        let terms: Vec<String> = terms(query)
            .into_iter()
            .filter_map(|t| query_phrases(&t).into_iter().next())
            .take(4)
            .collect();
        hits = run(conn, project_id, &terms.join(" OR "), limit)?;
    }
    Ok(hits)
}
