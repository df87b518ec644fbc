//! The knowledge index: `knowledge.sqlite` in the data folder, beside the context database and
//! apart from it, so indexing thousands of files never holds the writer a chat needs. It holds
//! only what can be made again from the person's files (a lost or newer-version index is
//! rebuilt, never migrated by hand): each file's state, its chunks with their spans, the
//! full-text index over them (CJK bigrams, as the context database's), and vectors.

use std::path::{Path, PathBuf};

use rusqlite::Connection;
use tessera_store::file_modes::{private_file, tighten, FILE_MODE};

use crate::error::{KnowledgeError, Result};

/// The index's file name in the data folder.
pub const INDEX_FILE: &str = "knowledge.sqlite";

/// Bumped when the schema changes: an index of another version is made anew.
const SCHEMA_VERSION: i64 = 3;
/// `PRAGMA application_id`: "TKNW".
const APPLICATION_ID: i64 = 0x544B_4E57;

const SCHEMA: &str = "
CREATE TABLE files (
    id          INTEGER PRIMARY KEY,
    project_id  TEXT NOT NULL,
    path        TEXT NOT NULL,
    source      TEXT NOT NULL,
    format      TEXT,
    size        INTEGER NOT NULL,
    mtime_ms    INTEGER NOT NULL,
    sha256      TEXT,
    state       TEXT NOT NULL,
    reason      TEXT,
    chunks      INTEGER NOT NULL DEFAULT 0,
    text_bytes  INTEGER NOT NULL DEFAULT 0,
    indexed_at  TEXT NOT NULL,
    UNIQUE (project_id, path)
) STRICT;
CREATE INDEX files_by_source ON files (project_id, source);
CREATE TABLE chunks (
    id          INTEGER PRIMARY KEY,
    file_id     INTEGER NOT NULL REFERENCES files (id) ON DELETE CASCADE,
    ordinal     INTEGER NOT NULL,
    page        INTEGER,
    line_start  INTEGER NOT NULL,
    line_end    INTEGER NOT NULL,
    heading     TEXT,
    text        TEXT NOT NULL
) STRICT;
CREATE INDEX chunks_by_file ON chunks (file_id);
CREATE VIRTUAL TABLE chunk_index USING fts5 (
    body,
    tokenize = 'unicode61 remove_diacritics 2',
    content = '',
    contentless_delete = 1
);
CREATE TABLE vectors (
    chunk_id    INTEGER PRIMARY KEY REFERENCES chunks (id) ON DELETE CASCADE,
    model       TEXT NOT NULL,
    dims        INTEGER NOT NULL,
    data        BLOB NOT NULL
) STRICT;
-- How many chunks hold each token: a query keeps its rarer words (see search::plan).
CREATE VIRTUAL TABLE chunk_vocab USING fts5vocab (chunk_index, 'row');
CREATE TRIGGER chunks_leave_index AFTER DELETE ON chunks BEGIN
    DELETE FROM chunk_index WHERE rowid = old.id;
END;
";

/// Where the index of a data folder lives.
pub fn path_in(data_dir: &Path) -> PathBuf {
    data_dir.join(INDEX_FILE)
}

fn configure(conn: &Connection) -> Result<()> {
    conn.busy_timeout(std::time::Duration::from_secs(10))?;
    conn.pragma_update(None, "foreign_keys", true)?;
    conn.pragma_update(None, "synchronous", "NORMAL")?;
    Ok(())
}

/// Opens (creating or remaking) the index for writing.
pub fn open_writer(path: &Path) -> Result<Connection> {
    match private_file().write(true).create_new(true).open(path) {
        Ok(_) => {}
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {}
        Err(source) => {
            return Err(KnowledgeError::Io {
                action: "cannot create the knowledge index",
                path: path.to_owned(),
                source,
            })
        }
    }
    let mut conn = Connection::open(path)?;
    conn.pragma_update(None, "journal_mode", "WAL")?;
    configure(&conn)?;
    for suffix in ["-wal", "-shm"] {
        let file = PathBuf::from(format!("{}{suffix}", path.display()));
        let _ = tighten(&file, FILE_MODE);
    }
    let version: i64 = conn.pragma_query_value(None, "user_version", |r| r.get(0))?;
    let app: i64 = conn.pragma_query_value(None, "application_id", |r| r.get(0))?;
    if version != SCHEMA_VERSION || (app != APPLICATION_ID && version != 0) {
        // Made anew: everything in it comes from the person's files.
        if version != 0 {
            tracing::info!(
                version,
                "the knowledge index is from another version: made anew"
            );
        }
        let tx = conn.transaction()?;
        tx.execute_batch(
            "DROP TABLE IF EXISTS vectors; DROP TABLE IF EXISTS chunk_vocab;
             DROP TABLE IF EXISTS chunk_index;
             DROP TABLE IF EXISTS chunks;
             DROP TABLE IF EXISTS files;",
        )?;
        tx.execute_batch(SCHEMA)?;
        tx.pragma_update(None, "user_version", SCHEMA_VERSION)?;
        tx.pragma_update(None, "application_id", APPLICATION_ID)?;
        tx.commit()?;
    }
    Ok(conn)
}

/// A connection that only reads (searches and status beside a running scan).
pub fn open_reader(path: &Path) -> Result<Connection> {
    let conn = Connection::open_with_flags(
        path,
        rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY | rusqlite::OpenFlags::SQLITE_OPEN_NO_MUTEX,
    )?;
    configure(&conn)?;
    Ok(conn)
}
