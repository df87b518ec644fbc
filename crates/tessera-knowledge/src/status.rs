//! What the index holds and what it is doing, as `tessera knowledge status` and the UI show it.

use rusqlite::{params, Connection};
use serde::{Deserialize, Serialize};

use crate::error::Result;

/// A file left out, and why.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
pub struct SkippedFile {
    pub path: String,
    pub reason: String,
}

/// The scan under way.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct ScanProgress {
    pub project_id: String,
    /// The folder or file being scanned.
    pub source: String,
    /// Files looked at so far, and how many the walk found (None while it still walks).
    pub done: u64,
    pub total: Option<u64>,
    pub files_per_second: f64,
    /// Seconds left at this rate, once known.
    pub seconds_left: Option<f64>,
}

/// The state of the index, for one project or all.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct KnowledgeStatus {
    pub indexed_files: u64,
    pub skipped_files: u64,
    /// Files and folders waiting to be scanned (a scan queued, a change a watcher saw).
    pub pending: u64,
    /// Bytes of text indexed.
    pub bytes: u64,
    pub chunks: u64,
    /// The skipped files, at most [`MAX_SKIPPED_LISTED`], by path.
    pub skipped: Vec<SkippedFile>,
    pub scanning: Option<ScanProgress>,
    pub paused: bool,
    /// True when nothing is pending and no scan runs.
    pub idle: bool,
    /// How retrieval works now: `lexical` (no embedding model, or nothing embedded yet) or
    /// `hybrid` (words and vectors, fused).
    pub retrieval: String,
    /// The model that embeds chunks, when one is chosen.
    pub embedding_model: Option<String>,
    /// Chunks with a vector of that model.
    pub embedded_chunks: u64,
    /// Why embedding stopped, until it works again.
    pub embed_error: Option<String>,
}

/// Chunks of a project (or all) with a vector of `model`.
pub fn embedded(conn: &Connection, project_id: Option<&str>, model: &str) -> Result<u64> {
    let n: i64 = conn
        .prepare_cached(
            "SELECT count(*) FROM vectors v JOIN chunks c ON c.id = v.chunk_id
             JOIN files f ON f.id = c.file_id
             WHERE v.model = ?2 AND (?1 IS NULL OR f.project_id = ?1)",
        )?
        .query_row(params![project_id, model], |r| r.get(0))?;
    Ok(u64::try_from(n).unwrap_or(0))
}

/// Most skipped files listed in a status.
pub const MAX_SKIPPED_LISTED: usize = 500;

/// The counts and the skipped list from the index.
pub fn counts(conn: &Connection, project_id: Option<&str>) -> Result<KnowledgeStatus> {
    let mut status = KnowledgeStatus::default();
    let (indexed, skipped, bytes, chunks): (i64, i64, i64, i64) = conn
        .prepare_cached(
            "SELECT coalesce(sum(state = 'indexed'), 0), coalesce(sum(state = 'skipped'), 0),
                    coalesce(sum(text_bytes), 0), coalesce(sum(chunks), 0)
             FROM files WHERE ?1 IS NULL OR project_id = ?1",
        )?
        .query_row(params![project_id], |r| {
            Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?))
        })?;
    status.indexed_files = u64::try_from(indexed).unwrap_or(0);
    status.skipped_files = u64::try_from(skipped).unwrap_or(0);
    status.bytes = u64::try_from(bytes).unwrap_or(0);
    status.chunks = u64::try_from(chunks).unwrap_or(0);
    let limit = i64::try_from(MAX_SKIPPED_LISTED).unwrap_or(500);
    status.skipped = conn
        .prepare_cached(
            "SELECT path, coalesce(reason, '') FROM files
             WHERE state = 'skipped' AND (?1 IS NULL OR project_id = ?1)
             ORDER BY path LIMIT ?2",
        )?
        .query_map(params![project_id, limit], |r| {
            Ok(SkippedFile {
                path: r.get(0)?,
                reason: r.get(1)?,
            })
        })?
        .collect::<rusqlite::Result<_>>()?;
    Ok(status)
}
