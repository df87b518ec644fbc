//! Attachments and screenshots: files in `<data>/attachments/` named by their SHA-256
//! (content-addressed, so the same bytes are stored once), written atomically (temp file,
//! fsync, rename) and referenced by evidences. A file goes when the last evidence referencing
//! it goes.

use std::collections::HashSet;
use std::fs;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};

use rusqlite::{params, Connection, Row};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use tessera_protocol::wire::Timestamp;

use crate::error::{Entity, Result, StoreError};
use crate::rows::{self, FromRow};
use crate::tx::{AfterCommit, WriteTx};
use crate::{clock, ids, sql, Store};

pub(crate) const SCHEMA_V1: &str = "
CREATE TABLE attachments (
    sha256     TEXT PRIMARY KEY NOT NULL,
    size       INTEGER NOT NULL,
    mime_type  TEXT,
    created_at TEXT NOT NULL
) STRICT;
";

const TEMP_PREFIX: &str = ".tmp-";

/// An evidence's reference to an attachment file.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct AttachmentRef {
    /// Lowercase hex SHA-256 of the file's bytes.
    pub sha256: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mime_type: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub file_name: Option<String>,
}

impl AttachmentRef {
    pub fn new(sha256: impl Into<String>) -> Self {
        Self {
            sha256: sha256.into(),
            mime_type: None,
            file_name: None,
        }
    }
}

/// A stored attachment file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AttachmentInfo {
    pub sha256: String,
    pub size: u64,
    pub mime_type: Option<String>,
    pub created_at: Timestamp,
    pub path: PathBuf,
}

/// Whether `text` is a lowercase hex SHA-256.
pub fn is_sha256(text: &str) -> bool {
    text.len() == 64 && text.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'))
}

fn check_sha256(text: &str) -> Result<()> {
    if is_sha256(text) {
        Ok(())
    } else {
        Err(StoreError::InvalidSha256(text.to_owned()))
    }
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// A row of `sha256, mime_type, file_name`.
impl FromRow for AttachmentRef {
    fn from_row(row: &Row<'_>) -> Result<Self> {
        Ok(AttachmentRef {
            sha256: row.get(0)?,
            mime_type: row.get(1)?,
            file_name: row.get(2)?,
        })
    }
}

pub(crate) fn of_evidence(conn: &Connection, evidence_pk: i64) -> Result<Vec<AttachmentRef>> {
    rows::all(
        conn,
        "SELECT sha256, mime_type, file_name FROM evidence_attachments
         WHERE evidence_pk = ?1 ORDER BY position",
        [evidence_pk],
    )
}

pub(crate) fn set_for_evidence(
    conn: &Connection,
    evidence_pk: i64,
    refs: &[AttachmentRef],
) -> Result<()> {
    conn.prepare_cached("DELETE FROM evidence_attachments WHERE evidence_pk = ?1")?
        .execute([evidence_pk])?;
    for (position, r) in refs.iter().enumerate() {
        check_sha256(&r.sha256)?;
        if !rows::exists(
            conn,
            "SELECT 1 FROM attachments WHERE sha256 = ?1",
            [&r.sha256],
        )? {
            return Err(StoreError::NotFound {
                entity: Entity::Attachment,
                conversation_id: None,
                id: r.sha256.clone(),
            });
        }
        conn.prepare_cached(
            "INSERT INTO evidence_attachments (evidence_pk, position, sha256, mime_type, file_name)
             VALUES (?1, ?2, ?3, ?4, ?5)",
        )?
        .execute(params![
            evidence_pk,
            sql::to_i64("attachment position", position as u64)?,
            r.sha256,
            r.mime_type,
            r.file_name
        ])?;
    }
    Ok(())
}

/// Records an attachment whose file is (or will be) on disk; used by import, whose documents
/// carry references but not the bytes.
pub(crate) fn record(
    conn: &Connection,
    sha256: &str,
    size: u64,
    mime_type: Option<&str>,
) -> Result<()> {
    check_sha256(sha256)?;
    conn.prepare_cached(
        "INSERT INTO attachments (sha256, size, mime_type, created_at) VALUES (?1, ?2, ?3, ?4)
         ON CONFLICT (sha256) DO NOTHING",
    )?
    .execute(params![
        sha256,
        sql::to_i64("attachment size", size)?,
        mime_type,
        clock::now().as_str()
    ])?;
    Ok(())
}

pub(crate) fn referenced_by_conversation(
    conn: &Connection,
    conversation_id: &str,
) -> Result<Vec<String>> {
    rows::all(
        conn,
        "SELECT DISTINCT a.sha256 FROM evidence_attachments a
         JOIN evidences e ON e.pk = a.evidence_pk WHERE e.conversation_id = ?1",
        [conversation_id],
    )
}

/// Forgets the candidates no evidence references any more and schedules their files for
/// removal after the commit; returns the hashes removed.
pub(crate) fn release_unreferenced(
    tx: &mut WriteTx<'_>,
    candidates: &[String],
) -> Result<Vec<String>> {
    let mut removed = Vec::new();
    for sha256 in candidates {
        let referenced = rows::exists(
            tx.conn,
            "SELECT 1 FROM evidence_attachments WHERE sha256 = ?1 LIMIT 1",
            [sha256],
        )?;
        if referenced || tx.ctx.pins.is_pinned(sha256) {
            continue;
        }
        tx.conn
            .prepare_cached("DELETE FROM attachments WHERE sha256 = ?1")?
            .execute([sha256])?;
        tx.after_commit.push(AfterCommit::RemoveFile(
            tx.ctx.paths.attachments.join(sha256),
        ));
        removed.push(sha256.clone());
    }
    Ok(removed)
}

fn file_path(dir: &Path, sha256: &str) -> Result<PathBuf> {
    check_sha256(sha256)?;
    Ok(dir.join(sha256))
}

impl Store {
    /// Stores bytes as an attachment file (once per content) and returns its description;
    /// reference it from an evidence with an [`AttachmentRef`].
    pub fn put_attachment(&self, bytes: &[u8], mime_type: Option<&str>) -> Result<AttachmentInfo> {
        self.put_attachment_from(bytes, mime_type)
    }

    /// Like [`Store::put_attachment`], streaming from a reader.
    pub fn put_attachment_from(
        &self,
        mut reader: impl Read,
        mime_type: Option<&str>,
    ) -> Result<AttachmentInfo> {
        let dir = self.paths().attachments.clone();
        let temp = dir.join(format!("{TEMP_PREFIX}{}", ids::new_id()));
        let written = (|| -> std::io::Result<(String, u64)> {
            let mut file = crate::file_modes::private_file()
                .write(true)
                .create_new(true)
                .open(&temp)?;
            let mut hasher = Sha256::new();
            let mut size = 0u64;
            let mut buffer = vec![0u8; 64 * 1024];
            loop {
                let n = reader.read(&mut buffer)?;
                if n == 0 {
                    break;
                }
                hasher.update(&buffer[..n]);
                file.write_all(&buffer[..n])?;
                size += n as u64;
            }
            file.sync_all()?;
            Ok((hex(&hasher.finalize()), size))
        })();
        let (sha256, size) = match written {
            Ok(done) => done,
            Err(e) => {
                let _ = fs::remove_file(&temp);
                return Err(StoreError::io("cannot write the attachment", &temp)(e));
            }
        };
        // Pinned before it can be seen, so no collection removes it before an evidence cites it.
        self.writer_context().pins.pin(&sha256);
        let path = dir.join(&sha256);
        if path.exists() {
            let _ = fs::remove_file(&temp);
        } else {
            fs::rename(&temp, &path)
                .map_err(StoreError::io("cannot store the attachment", &path))?;
            if let Ok(folder) = fs::File::open(&dir) {
                let _ = folder.sync_all();
            }
        }
        let (sha, mime) = (sha256.clone(), mime_type.map(str::to_owned));
        self.write(move |tx| record(tx.conn, &sha, size, mime.as_deref()))?;
        self.attachment(&sha256)?
            .ok_or_else(|| StoreError::NotFound {
                entity: Entity::Attachment,
                conversation_id: None,
                id: sha256,
            })
    }

    /// A stored attachment's description.
    pub fn attachment(&self, sha256: &str) -> Result<Option<AttachmentInfo>> {
        let path = file_path(&self.paths().attachments, sha256)?;
        let row: Option<(i64, Option<String>, String)> = self.read(|r| {
            rows::optional(
                r.conn,
                "SELECT size, mime_type, created_at FROM attachments WHERE sha256 = ?1",
                [sha256],
            )
        })?;
        row.map(|(size, mime_type, created_at)| {
            Ok(AttachmentInfo {
                sha256: sha256.to_owned(),
                size: sql::to_u64("attachment size", size)?,
                mime_type,
                created_at: Timestamp::new(created_at),
                path: path.clone(),
            })
        })
        .transpose()
    }

    /// The bytes of a stored attachment.
    pub fn read_attachment(&self, sha256: &str) -> Result<Vec<u8>> {
        let path = file_path(&self.paths().attachments, sha256)?;
        fs::read(&path).map_err(|e| {
            if e.kind() == std::io::ErrorKind::NotFound {
                StoreError::NotFound {
                    entity: Entity::Attachment,
                    conversation_id: None,
                    id: sha256.to_owned(),
                }
            } else {
                StoreError::io("cannot read the attachment", &path)(e)
            }
        })
    }

    /// Removes what a crash may have left: attachment rows no evidence references, files with
    /// no row, temp files. Runs when the store opens, before anything else can write.
    pub(crate) fn sweep_attachments(&self) -> Result<()> {
        let dir = self.paths().attachments.clone();
        let removed = self.write(|tx| {
            let orphans: Vec<String> = rows::all(
                tx.conn,
                "SELECT sha256 FROM attachments a WHERE NOT EXISTS
                 (SELECT 1 FROM evidence_attachments e WHERE e.sha256 = a.sha256)",
                [],
            )?;
            release_unreferenced(tx, &orphans)
        })?;
        let known: HashSet<String> = self.read(|r| {
            let all: Vec<String> = rows::all(r.conn, "SELECT sha256 FROM attachments", [])?;
            Ok(all.into_iter().collect())
        })?;
        let entries = fs::read_dir(&dir).map_err(StoreError::io("cannot list", &dir))?;
        let mut stray = 0usize;
        for entry in entries.flatten() {
            let name = entry.file_name().to_string_lossy().into_owned();
            let stale =
                name.starts_with(TEMP_PREFIX) || (is_sha256(&name) && !known.contains(&name));
            if stale && fs::remove_file(entry.path()).is_ok() {
                stray += 1;
            }
        }
        if !removed.is_empty() || stray > 0 {
            tracing::info!(
                rows = removed.len(),
                files = stray,
                "swept unreferenced attachments"
            );
        }
        Ok(())
    }
}
