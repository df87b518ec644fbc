//! Schema migrations, counted in `PRAGMA user_version` from 1.
//!
//! Before anything is changed the file is inspected from its header alone: a database written
//! by a newer Tessera, or a file that is not ours, is refused and left byte for byte as it was
//! (not even switched to WAL). An existing database is copied to `backups/` (`VACUUM INTO`)
//! before any migration runs; a brand-new empty one is not. All pending migrations run in one
//! transaction, so a failure leaves the database at its old version.

use std::fs;
use std::io::Read;
use std::path::{Path, PathBuf};

use rusqlite::Connection;

use crate::error::{Result, StoreError};
use crate::layout::DataPaths;
use crate::{
    app_settings, attachments, blocks, consents, context_state, conversation_model, conversations,
    events, evidences, interactions, memories, messages, model_turns, projects, provider_settings,
    rows, search, search_backlog, search_pieces, summary, tasks, tool_calls, usage,
};

/// `PRAGMA application_id` of a Tessera database: "TESS".
pub const APPLICATION_ID: i64 = 0x5445_5353;

/// One schema step. The SQL lives in the module that owns each table.
struct Migration {
    version: i64,
    name: &'static str,
    apply: fn(&Connection) -> Result<()>,
}

const MIGRATIONS: &[Migration] = &[
    Migration {
        version: 1,
        name: "the seed-004 context model",
        apply: |conn| {
            for sql in [
                conversations::SCHEMA_V1,
                messages::SCHEMA_V1,
                attachments::SCHEMA_V1,
                evidences::SCHEMA_V1,
                tasks::SCHEMA_V1,
                tool_calls::SCHEMA_V1,
                usage::SCHEMA_V1,
                blocks::SCHEMA_V1,
                summary::SCHEMA_V1,
                events::SCHEMA_V1,
            ] {
                conn.execute_batch(sql)?;
            }
            conn.pragma_update(None, "application_id", APPLICATION_ID)?;
            Ok(())
        },
    },
    Migration {
        version: 2,
        name: "full-text search over messages and evidences",
        apply: |conn| {
            // Filled by version 5, which makes the index anew.
            conn.execute_batch(search::SCHEMA_V2)?;
            Ok(())
        },
    },
    Migration {
        version: 3,
        name: "model turns, interactions, consents, provider settings, context state",
        apply: |conn| {
            for sql in [
                model_turns::SCHEMA_V3,
                interactions::SCHEMA_V3,
                consents::SCHEMA_V3,
                provider_settings::SCHEMA_V3,
                context_state::SCHEMA_V3,
            ] {
                conn.execute_batch(sql)?;
            }
            Ok(())
        },
    },
    Migration {
        version: 4,
        name: "model usage by start time and cost, app settings",
        apply: |conn| {
            conn.execute_batch(usage::SCHEMA_V4)?;
            usage::backfill_v4(conn)?;
            conn.execute_batch(app_settings::SCHEMA_V4)?;
            Ok(())
        },
    },
    Migration {
        version: 5,
        name: "the full-text index holds long texts in pieces",
        apply: |conn| {
            conn.execute_batch(search_pieces::SCHEMA_V5)?;
            search_pieces::backfill(conn)
        },
    },
    Migration {
        version: 6,
        name: "a conversation's own model",
        apply: |conn| Ok(conn.execute_batch(conversation_model::SCHEMA_V6)?),
    },
    Migration {
        version: 7,
        name: "streamed deltas written together share a row",
        apply: |conn| Ok(conn.execute_batch(events::SCHEMA_V7)?),
    },
    Migration {
        version: 8,
        name: "long messages are indexed for search after they are stored",
        apply: |conn| Ok(conn.execute_batch(search_backlog::SCHEMA_V8)?),
    },
    Migration {
        version: 9,
        name: "evidences are indexed for search after they are stored",
        apply: |conn| Ok(conn.execute_batch(search_backlog::SCHEMA_V9)?),
    },
    Migration {
        version: 10,
        name: "projects: instructions, a model, folders, conversations",
        apply: |conn| Ok(conn.execute_batch(projects::SCHEMA_V10)?),
    },
    Migration {
        version: 11,
        name: "memories kept for a project or everywhere",
        apply: |conn| Ok(conn.execute_batch(memories::SCHEMA_V11)?),
    },
];

/// The schema version this build writes.
pub const SCHEMA_VERSION: i64 = 11;

/// What opening did to the schema: from and to which version, and the backup taken.
#[derive(Debug)]
pub struct MigrationReport {
    pub from: i64,
    pub to: i64,
    /// The copy taken before migrating, if there was anything to copy.
    pub backup: Option<PathBuf>,
}

/// What the file's header says, read without opening it as a database.
#[derive(Debug, PartialEq, Eq)]
struct Header {
    user_version: i64,
    application_id: i64,
    /// Pages in the file; a database with any table has more than one.
    page_count: u32,
}

/// Brings the database at `paths.database` to [`SCHEMA_VERSION`], creating it if missing.
pub(crate) fn prepare(paths: &DataPaths) -> Result<MigrationReport> {
    prepare_to(paths, SCHEMA_VERSION)
}

pub(crate) fn prepare_to(paths: &DataPaths, target: i64) -> Result<MigrationReport> {
    let path = &paths.database;
    let header = inspect(path)?;
    let (from, has_content) = match &header {
        None => (0, false),
        Some(h) => (h.user_version, h.page_count > 1),
    };
    if from > SCHEMA_VERSION {
        return Err(StoreError::NewerDatabase {
            path: path.clone(),
            found: from,
            supported: SCHEMA_VERSION,
        });
    }
    if let Some(h) = &header {
        if h.application_id != 0 && h.application_id != APPLICATION_ID {
            return Err(StoreError::NotOurDatabase {
                path: path.clone(),
                reason: format!("its application id is {:#x}", h.application_id),
            });
        }
        if from == 0 && has_content {
            return Err(StoreError::NotOurDatabase {
                path: path.clone(),
                reason: "it has tables but no Tessera schema version".into(),
            });
        }
    }

    let mut conn = Connection::open(path)?;
    let mut backup = None;
    if from < target && has_content {
        backup = Some(back_up(&conn, paths, from, target)?);
    }
    conn.pragma_update(None, "journal_mode", "WAL")?;
    if from < target {
        migrate(&mut conn, from, target)?;
    }
    Ok(MigrationReport {
        from,
        to: target.max(from),
        backup,
    })
}

/// Reads the version fields from the header. With a non-empty `-wal` beside the file the header
/// may be stale, so then a read-only connection (which never checkpoints) asks SQLite.
fn inspect(path: &Path) -> Result<Option<Header>> {
    let len = match fs::metadata(path) {
        Ok(meta) => meta.len(),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(StoreError::io("cannot read", path)(e)),
    };
    if len == 0 {
        return Ok(None);
    }
    let mut bytes = [0u8; 100];
    let mut file = fs::File::open(path).map_err(StoreError::io("cannot open", path))?;
    let read = file
        .read(&mut bytes)
        .map_err(StoreError::io("cannot read", path))?;
    if read < 100 || &bytes[..16] != b"SQLite format 3\0" {
        return Err(StoreError::NotOurDatabase {
            path: path.to_path_buf(),
            reason: "it is not an SQLite database".into(),
        });
    }
    let be32 =
        |at: usize| u32::from_be_bytes([bytes[at], bytes[at + 1], bytes[at + 2], bytes[at + 3]]);
    let mut header = Header {
        // Both are signed 32-bit integers in the header.
        user_version: i64::from(be32(60) as i32),
        application_id: i64::from(be32(68) as i32),
        page_count: be32(28),
    };
    let wal = PathBuf::from(format!("{}-wal", path.display()));
    if fs::metadata(&wal).is_ok_and(|m| m.len() > 0) {
        let conn = Connection::open_with_flags(path, rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY)?;
        header.user_version = conn.pragma_query_value(None, "user_version", |r| r.get(0))?;
        header.application_id = conn.pragma_query_value(None, "application_id", |r| r.get(0))?;
        let pages: i64 = conn.pragma_query_value(None, "page_count", |r| r.get(0))?;
        header.page_count = u32::try_from(pages).unwrap_or(u32::MAX);
    }
    Ok(Some(header))
}

fn back_up(conn: &Connection, paths: &DataPaths, from: i64, to: i64) -> Result<PathBuf> {
    let stamp = crate::clock::file_stamp();
    let mut target = paths
        .backups
        .join(format!("tessera-{from}-to-{to}-{stamp}.sqlite"));
    let mut n = 1;
    while target.exists() {
        target = paths
            .backups
            .join(format!("tessera-{from}-to-{to}-{stamp}-{n}.sqlite"));
        n += 1;
    }
    let Some(text) = target.to_str() else {
        return Err(StoreError::Io {
            action: "cannot name the backup",
            path: target,
            source: std::io::Error::other("the path is not UTF-8"),
        });
    };
    // Made empty and private first: VACUUM INTO fills an empty file and keeps its mode.
    crate::file_modes::private_file()
        .write(true)
        .create_new(true)
        .open(&target)
        .map_err(StoreError::io("cannot create the backup", &target))?;
    conn.execute("VACUUM INTO ?1", [text])
        .map_err(|source| StoreError::Backup {
            path: paths.database.clone(),
            source,
        })?;
    Ok(target)
}

fn migrate(conn: &mut Connection, from: i64, to: i64) -> Result<()> {
    // Table rebuilds in later migrations need foreign keys off; the check below replaces them.
    conn.pragma_update(None, "foreign_keys", false)?;
    let tx = conn.transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)?;
    for migration in MIGRATIONS
        .iter()
        .filter(|m| m.version > from && m.version <= to)
    {
        tracing::info!(
            version = migration.version,
            name = migration.name,
            "migrating"
        );
        (migration.apply)(&tx).map_err(|source| StoreError::Migration {
            version: migration.version,
            source: Box::new(source),
        })?;
        tx.pragma_update(None, "user_version", migration.version)?;
    }
    let violations: i64 = rows::one(&tx, "SELECT count(*) FROM pragma_foreign_key_check", [])?;
    if violations > 0 {
        return Err(StoreError::Migration {
            version: to,
            source: Box::new(StoreError::Corrupt {
                what: "foreign keys",
                message: format!("{violations} broken reference(s) after migrating"),
            }),
        });
    }
    tx.commit()?;
    conn.pragma_update(None, "foreign_keys", true)?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_version_has_one_migration_in_order() {
        let versions: Vec<i64> = MIGRATIONS.iter().map(|m| m.version).collect();
        assert_eq!(versions, (1..=SCHEMA_VERSION).collect::<Vec<_>>());
    }

    #[test]
    fn a_new_database_is_migrated_without_a_backup() {
        let dir = tempfile::tempdir().unwrap();
        let paths = DataPaths::new(dir.path());
        paths.create_folders().unwrap();
        let report = prepare(&paths).unwrap();
        assert_eq!((report.from, report.to), (0, SCHEMA_VERSION));
        assert!(report.backup.is_none());
        assert_eq!(fs::read_dir(&paths.backups).unwrap().count(), 0);
        let header = inspect(&paths.database).unwrap().unwrap();
        assert_eq!(header.user_version, SCHEMA_VERSION);
        assert_eq!(header.application_id, APPLICATION_ID);
        // Opening again migrates nothing and copies nothing.
        let report = prepare(&paths).unwrap();
        assert_eq!((report.from, report.to), (SCHEMA_VERSION, SCHEMA_VERSION));
        assert!(report.backup.is_none());
    }

    #[test]
    fn an_older_database_is_copied_before_it_is_migrated() {
        let dir = tempfile::tempdir().unwrap();
        let paths = DataPaths::new(dir.path());
        paths.create_folders().unwrap();
        let previous = SCHEMA_VERSION - 1;
        prepare_to(&paths, previous).unwrap();
        {
            let conn = Connection::open(&paths.database).unwrap();
            conn.execute(
                "INSERT INTO conversations (id, title, created_at, updated_at, updated_ms)
                 VALUES ('c1', 'before', '2026-01-01T00:00:00Z', '2026-01-01T00:00:00Z', 0)",
                [],
            )
            .unwrap();
        }
        let report = prepare(&paths).unwrap();
        assert_eq!((report.from, report.to), (previous, SCHEMA_VERSION));
        let backup = report.backup.unwrap();
        let name = backup.file_name().unwrap().to_str().unwrap().to_owned();
        assert!(
            name.starts_with(&format!("tessera-{previous}-to-{SCHEMA_VERSION}-")),
            "{name}"
        );
        let copy = Connection::open(&backup).unwrap();
        let version: i64 = copy
            .pragma_query_value(None, "user_version", |r| r.get(0))
            .unwrap();
        assert_eq!(version, previous);
        let title: String = copy
            .query_row("SELECT title FROM conversations WHERE id = 'c1'", [], |r| {
                r.get(0)
            })
            .unwrap();
        assert_eq!(title, "before");
        let live = Connection::open(&paths.database).unwrap();
        let version: i64 = live
            .pragma_query_value(None, "user_version", |r| r.get(0))
            .unwrap();
        assert_eq!(version, SCHEMA_VERSION);
    }

    #[test]
    fn version_4_fills_start_and_cost_columns_from_existing_records() {
        let dir = tempfile::tempdir().unwrap();
        let paths = DataPaths::new(dir.path());
        paths.create_folders().unwrap();
        prepare_to(&paths, 3).unwrap();
        {
            let conn = Connection::open(&paths.database).unwrap();
            conn.execute_batch(
                r#"INSERT INTO conversations (id, title, created_at, updated_at, updated_ms)
                   VALUES ('c1', 'spent', '2026-01-01T00:00:00Z', '2026-01-01T00:00:00Z', 0);
                   INSERT INTO model_usage (conversation_id, model_usage_id, extra_json) VALUES
                   ('c1', 'm1', '{"started_at":"2026-01-20T08:00:00+08:00","estimated_cost_usd":0.25}'),
                   ('c1', 'm2', '{"started_at":"not a time","estimated_cost_usd":"free"}'),
                   ('c1', 'm3', NULL);"#,
            )
            .unwrap();
        }
        let report = prepare(&paths).unwrap();
        assert_eq!((report.from, report.to), (3, SCHEMA_VERSION));
        assert!(report.backup.is_some());
        let conn = Connection::open(&paths.database).unwrap();
        let rows: Vec<(String, Option<String>, Option<f64>)> = conn
            .prepare("SELECT model_usage_id, started_at, cost_usd FROM model_usage ORDER BY pk")
            .unwrap()
            .query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))
            .unwrap()
            .collect::<rusqlite::Result<_>>()
            .unwrap();
        assert_eq!(
            rows,
            [
                (
                    "m1".to_owned(),
                    Some("2026-01-20T00:00:00.000Z".to_owned()),
                    Some(0.25)
                ),
                ("m2".to_owned(), None, None),
                ("m3".to_owned(), None, None),
            ]
        );
        let settings: i64 = conn
            .query_row("SELECT count(*) FROM app_settings", [], |r| r.get(0))
            .unwrap();
        assert_eq!(settings, 0);
    }

    #[test]
    fn version_5_makes_the_search_index_anew_with_what_is_stored() {
        let dir = tempfile::tempdir().unwrap();
        let paths = DataPaths::new(dir.path());
        paths.create_folders().unwrap();
        prepare_to(&paths, 4).unwrap();
        {
            let conn = Connection::open(&paths.database).unwrap();
            conn.execute_batch(
                "INSERT INTO conversations (id, title, created_at, updated_at, updated_ms)
                 VALUES ('c1', 'old', '2026-01-01T00:00:00Z', '2026-01-01T00:00:00Z', 0);",
            )
            .unwrap();
            let long = format!("first {} last", "word ".repeat(40_000));
            for (id, text) in [("m1", "包周期续订的接口是？".to_owned()), ("m2", long)] {
                conn.execute(
                    "INSERT INTO messages (conversation_id, id, depth, role, content)
                     VALUES ('c1', ?1, 0, 'user', ?2)",
                    [id, &text],
                )
                .unwrap();
                // Indexed as version 4 did: one row under the message's pk.
                conn.execute(
                    "INSERT INTO search_index (rowid, body)
                     SELECT pk, ?2 FROM messages WHERE id = ?1",
                    [id, &text],
                )
                .unwrap();
            }
            // m1 kept as evidence, as the engine keeps an answer; and an evidence of its own.
            conn.execute_batch(
                r#"INSERT INTO evidences (conversation_id, evidence_id, evidence_type, source_json, content_json)
                   VALUES ('c1', 'copy', 'llm_output',
                           '{"kind":"llm","uri":"tessera://conversations/c1/messages/m1"}',
                           '"包周期续订的接口是？"'),
                          ('c1', 'doc', 'rag_doc', '{"kind":"file","uri":"file:///renewal.md"}',
                           '"the renewal API is renewOrder"'),
                          ('c1', 'other', 'llm_output',
                           '{"kind":"llm","uri":"tessera://conversations/c1/messages/m1"}',
                           '"a different text about 续订"');"#,
            )
            .unwrap();
        }
        prepare(&paths).unwrap();
        let store = crate::Store::open(dir.path()).unwrap();
        let found = |query: &str| -> Vec<String> {
            store
                .search(query, &Default::default())
                .unwrap()
                .into_iter()
                .map(|h| h.id)
                .collect()
        };
        // The message, and the evidence whose text is not the message's; its copy is found
        // as the message alone.
        let mut hits = found("续订");
        hits.sort();
        assert_eq!(hits, ["m1", "other"]);
        assert_eq!(found("renewOrder"), ["doc"]);
        assert_eq!(found("first last"), ["m2"]);
        let conn = Connection::open(&paths.database).unwrap();
        let rows: i64 = conn
            .query_row("SELECT count(*) FROM search_long_texts", [], |r| r.get(0))
            .unwrap();
        assert_eq!(rows, 1);
    }

    #[test]
    fn a_foreign_sqlite_file_is_refused_untouched() {
        let dir = tempfile::tempdir().unwrap();
        let paths = DataPaths::new(dir.path());
        paths.create_folders().unwrap();
        {
            let conn = Connection::open(&paths.database).unwrap();
            conn.execute_batch("CREATE TABLE other (x INTEGER)")
                .unwrap();
        }
        let before = fs::read(&paths.database).unwrap();
        let err = prepare(&paths).unwrap_err();
        assert!(matches!(err, StoreError::NotOurDatabase { .. }), "{err}");
        assert_eq!(fs::read(&paths.database).unwrap(), before);
    }
}
