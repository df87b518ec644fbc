//! Bringing the index in line with the files: a file whose size and mtime are unchanged is left
//! alone, one whose bytes hash the same only has its mtime updated, any other is read again
//! (bounded), checked for secrets, chunked and written in place of its old chunks. Files gone
//! from the folder leave the index. Writes are batched: one transaction per [`BATCH_FILES`]
//! files keeps a large folder fast and a kill loses at most a batch (the next scan redoes it).

use std::collections::HashSet;
use std::io::Read;
use std::path::Path;

use rusqlite::{params, Connection, OptionalExtension, Transaction};
use sha2::{Digest, Sha256};
use tessera_protocol::secret_files::find_secret_in_text;
use tessera_store::cjk_bigrams::index_text;

use crate::chunk::{chunks, Span};
use crate::error::Result;
use crate::extract::{self, size_limit, Body, Format, Limits};
use crate::walk::Found;

/// Files written per transaction.
pub const BATCH_FILES: usize = 64;

/// What happened to one file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Outcome {
    Unchanged,
    Indexed,
    Skipped,
}

/// What a scan did, for the log and the CLI.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ScanReport {
    pub seen: u64,
    pub indexed: u64,
    pub unchanged: u64,
    pub skipped: u64,
    pub removed: u64,
    pub bytes_read: u64,
}

fn now_text() -> String {
    time::OffsetDateTime::now_utc()
        .format(&time::format_description::well_known::Rfc3339)
        .unwrap_or_default()
}

struct Known {
    size: i64,
    mtime_ms: i64,
    sha256: Option<String>,
    state: String,
}

fn known(tx: &Transaction<'_>, project_id: &str, path: &str) -> Result<Option<(i64, Known)>> {
    Ok(tx
        .prepare_cached(
            "SELECT id, size, mtime_ms, sha256, state FROM files WHERE project_id = ?1 AND path = ?2",
        )?
        .query_row(params![project_id, path], |row| {
            Ok((
                row.get(0)?,
                Known {
                    size: row.get(1)?,
                    mtime_ms: row.get(2)?,
                    sha256: row.get(3)?,
                    state: row.get(4)?,
                },
            ))
        })
        .optional()?)
}

/// One file's row, replacing whatever was there (its chunks go with it).
struct FileRow<'a> {
    project_id: &'a str,
    source: &'a str,
    path: &'a str,
    format: Option<Format>,
    size: u64,
    mtime_ms: i64,
    sha256: Option<&'a str>,
    skipped: Option<&'a str>,
    chunks: usize,
    text_bytes: usize,
}

fn write_file(tx: &Transaction<'_>, row: &FileRow<'_>) -> Result<i64> {
    tx.prepare_cached("DELETE FROM files WHERE project_id = ?1 AND path = ?2")?
        .execute(params![row.project_id, row.path])?;
    tx.prepare_cached(
        "INSERT INTO files (project_id, path, source, format, size, mtime_ms, sha256, state,
             reason, chunks, text_bytes, indexed_at)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12)",
    )?
    .execute(params![
        row.project_id,
        row.path,
        row.source,
        row.format.map(Format::as_str),
        i64::try_from(row.size).unwrap_or(i64::MAX),
        row.mtime_ms,
        row.sha256,
        if row.skipped.is_some() {
            "skipped"
        } else {
            "indexed"
        },
        row.skipped,
        i64::try_from(row.chunks).unwrap_or(i64::MAX),
        i64::try_from(row.text_bytes).unwrap_or(i64::MAX),
        now_text(),
    ])?;
    Ok(tx.last_insert_rowid())
}

/// Reads a file whole, refusing one larger than `limit` (checked on the open file too: it may
/// have grown since the walk).
fn read_bounded(path: &Path, limit: u64) -> std::result::Result<Vec<u8>, String> {
    let file = std::fs::File::open(path).map_err(|e| format!("cannot be read: {e}"))?;
    let mut bytes = Vec::new();
    file.take(limit.saturating_add(1))
        .read_to_end(&mut bytes)
        .map_err(|e| format!("cannot be read: {e}"))?;
    if bytes.len() as u64 > limit {
        return Err(format!("larger than {limit} bytes"));
    }
    Ok(bytes)
}

fn sha256_hex(bytes: &[u8]) -> String {
    let digest = Sha256::digest(bytes);
    digest.iter().map(|b| format!("{b:02x}")).collect()
}

fn body_text(body: &Body) -> std::borrow::Cow<'_, str> {
    match body {
        Body::Lines(t) | Body::Paragraphs(t) => std::borrow::Cow::Borrowed(t),
        Body::Pages(pages) => std::borrow::Cow::Owned(pages.join("\n")),
    }
}

/// Indexes one file found by a walk (or a watcher) under `source`.
pub fn index_one(
    tx: &Transaction<'_>,
    project_id: &str,
    source: &str,
    found: &Found,
    limits: &Limits,
    report: &mut ScanReport,
) -> Result<Outcome> {
    report.seen += 1;
    let (path, size, mtime_ms) = match found {
        Found::Skipped { path, reason } => {
            let path = path.to_string_lossy();
            write_file(
                tx,
                &FileRow {
                    project_id,
                    source,
                    path: &path,
                    format: None,
                    size: 0,
                    mtime_ms: 0,
                    sha256: None,
                    skipped: Some(reason),
                    chunks: 0,
                    text_bytes: 0,
                },
            )?;
            report.skipped += 1;
            return Ok(Outcome::Skipped);
        }
        Found::File {
            path,
            size,
            mtime_ms,
        } => (path, *size, *mtime_ms),
    };
    let path_text = path.to_string_lossy();
    let before = known(tx, project_id, &path_text)?;
    if let Some((_, k)) = &before {
        if k.size == i64::try_from(size).unwrap_or(i64::MAX)
            && k.mtime_ms == mtime_ms
            && k.state != "pending"
        {
            report.unchanged += 1;
            return Ok(Outcome::Unchanged);
        }
    }
    let format = Format::of(path);
    let skip = |reason: String, sha: Option<&str>, report: &mut ScanReport| -> Result<Outcome> {
        write_file(
            tx,
            &FileRow {
                project_id,
                source,
                path: &path_text,
                format,
                size,
                mtime_ms,
                sha256: sha,
                skipped: Some(&reason),
                chunks: 0,
                text_bytes: 0,
            },
        )?;
        report.skipped += 1;
        Ok(Outcome::Skipped)
    };
    let Some(format) = format else {
        return skip("not a format Tessera reads".into(), None, report);
    };
    let limit = size_limit(format, limits);
    if size > limit {
        return skip(
            format!("larger than {limit} bytes ({size} bytes)"),
            None,
            report,
        );
    }
    let bytes = match read_bounded(path, limit) {
        Ok(bytes) => bytes,
        Err(reason) => return skip(reason, None, report),
    };
    report.bytes_read += bytes.len() as u64;
    let sha = sha256_hex(&bytes);
    if let Some((id, k)) = &before {
        if k.sha256.as_deref() == Some(sha.as_str()) && k.state != "pending" {
            tx.prepare_cached("UPDATE files SET mtime_ms = ?2, size = ?3 WHERE id = ?1")?
                .execute(params![
                    id,
                    mtime_ms,
                    i64::try_from(size).unwrap_or(i64::MAX)
                ])?;
            report.unchanged += 1;
            return Ok(Outcome::Unchanged);
        }
    }
    let body = match extract::extract(format, &bytes, limits) {
        Ok(body) => body,
        Err(err) => return skip(err.to_string(), Some(&sha), report),
    };
    drop(bytes);
    let text = body_text(&body);
    if let Some(finding) = find_secret_in_text(&text) {
        return skip(format!("a secret: {finding}"), Some(&sha), report);
    }
    let text_bytes = text.len();
    drop(text);
    let pieces = chunks(format, &body);
    let file_id = write_file(
        tx,
        &FileRow {
            project_id,
            source,
            path: &path_text,
            format: Some(format),
            size,
            mtime_ms,
            sha256: Some(&sha),
            skipped: None,
            chunks: pieces.len(),
            text_bytes,
        },
    )?;
    let mut insert = tx.prepare_cached(
        "INSERT INTO chunks (file_id, ordinal, page, line_start, line_end, heading, text)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
    )?;
    let mut index = tx.prepare_cached("INSERT INTO chunk_index (rowid, body) VALUES (?1, ?2)")?;
    for (ordinal, chunk) in pieces.iter().enumerate() {
        let (page, start, end) = match chunk.span {
            Span::Lines { start, end } => (None, start, end),
            Span::Page { page, start, end } => (Some(page), start, end),
        };
        insert.execute(params![
            file_id,
            i64::try_from(ordinal).unwrap_or(i64::MAX),
            page,
            start,
            end,
            chunk.heading,
            chunk.text
        ])?;
        let chunk_id = tx.last_insert_rowid();
        let file_name = path
            .file_name()
            .map(|n| n.to_string_lossy())
            .unwrap_or_default();
        let token = crate::search::project_token(project_id);
        let searchable = match &chunk.heading {
            Some(h) => format!("{token}\n{file_name}\n{h}\n{}", chunk.text),
            None => format!("{token}\n{file_name}\n{}", chunk.text),
        };
        index.execute(params![chunk_id, index_text(&searchable)])?;
    }
    report.indexed += 1;
    Ok(Outcome::Indexed)
}

/// Removes the rows of `source` whose path was not seen by the scan that just ended.
pub fn remove_unseen(
    conn: &mut Connection,
    project_id: &str,
    source: &str,
    seen: &HashSet<String>,
) -> Result<u64> {
    let paths: Vec<(i64, String)> = conn
        .prepare("SELECT id, path FROM files WHERE project_id = ?1 AND source = ?2")?
        .query_map(params![project_id, source], |r| Ok((r.get(0)?, r.get(1)?)))?
        .collect::<rusqlite::Result<_>>()?;
    let tx = conn.transaction()?;
    let mut removed = 0;
    for (id, path) in paths {
        if !seen.contains(&path) {
            tx.prepare_cached("DELETE FROM files WHERE id = ?1")?
                .execute([id])?;
            removed += 1;
        }
    }
    tx.commit()?;
    Ok(removed)
}

/// Removes one path's row (a file deleted or moved away), or every row under a folder path.
pub fn remove_path(conn: &Connection, project_id: &str, path: &str) -> Result<u64> {
    let prefix = format!("{}/", path.trim_end_matches('/'));
    let removed = conn
        .prepare_cached(
            "DELETE FROM files WHERE project_id = ?1
                AND (path = ?2 OR substr(path, 1, length(?3)) = ?3)",
        )?
        .execute(params![project_id, path, prefix])?;
    Ok(removed as u64)
}

/// Removes everything a source brought in.
pub fn remove_source(conn: &Connection, project_id: &str, source: &str) -> Result<u64> {
    let removed = conn
        .prepare_cached("DELETE FROM files WHERE project_id = ?1 AND source = ?2")?
        .execute(params![project_id, source])?;
    Ok(removed as u64)
}

/// Removes a whole project's index.
pub fn remove_project(conn: &Connection, project_id: &str) -> Result<u64> {
    let removed = conn
        .prepare_cached("DELETE FROM files WHERE project_id = ?1")?
        .execute(params![project_id])?;
    Ok(removed as u64)
}
