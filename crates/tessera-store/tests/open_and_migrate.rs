#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::fs;

use rusqlite::Connection;
use tessera_store::{Store, StoreError, SCHEMA_VERSION};

#[test]
fn open_creates_the_layout_and_a_wal_database() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    let store = Store::open(&data).unwrap();
    assert!(data.join("tessera.sqlite").is_file());
    assert!(data.join("attachments").is_dir());
    assert!(data.join("backups").is_dir());
    assert!(data.join("tessera.lock").is_file());
    assert_eq!(
        fs::read_dir(data.join("backups")).unwrap().count(),
        0,
        "no backup of a new database"
    );
    assert_eq!(store.integrity_check().unwrap(), "ok");
    let conn = Connection::open(data.join("tessera.sqlite")).unwrap();
    let mode: String = conn
        .query_row("PRAGMA journal_mode", [], |r| r.get(0))
        .unwrap();
    assert_eq!(mode, "wal");
    let version: i64 = conn
        .query_row("PRAGMA user_version", [], |r| r.get(0))
        .unwrap();
    assert_eq!(version, SCHEMA_VERSION);
    drop(conn);
    drop(store);
    assert!(
        !data.join("tessera.lock").exists(),
        "the lock goes with the store"
    );
}

#[test]
fn reopening_keeps_data_and_takes_no_backup() {
    let (dir, store) = common::open();
    let id = common::conversation(&store, "kept");
    drop(store);
    let store = Store::open(dir.path()).unwrap();
    assert_eq!(store.conversation(&id).unwrap().unwrap().title, "kept");
    assert_eq!(fs::read_dir(dir.path().join("backups")).unwrap().count(), 0);
}

fn refused_untouched(journal_mode: &str) {
    let dir = tempfile::tempdir().unwrap();
    drop(Store::open(dir.path()).unwrap());
    let db = dir.path().join("tessera.sqlite");
    {
        let conn = Connection::open(&db).unwrap();
        conn.pragma_update(None, "journal_mode", journal_mode)
            .unwrap();
        conn.pragma_update(None, "user_version", SCHEMA_VERSION + 7)
            .unwrap();
    }
    let wal = dir.path().join("tessera.sqlite-wal");
    assert!(!wal.exists());
    let before = fs::read(&db).unwrap();
    let err = Store::open(dir.path()).unwrap_err();
    match &err {
        StoreError::NewerDatabase {
            found, supported, ..
        } => {
            assert_eq!(*found, SCHEMA_VERSION + 7);
            assert_eq!(*supported, SCHEMA_VERSION);
        }
        other => panic!("expected NewerDatabase, got {other}"),
    }
    assert!(err.to_string().contains("newer Tessera"), "{err}");
    assert_eq!(fs::read(&db).unwrap(), before, "the file is byte-identical");
    assert!(!wal.exists(), "not even a WAL was started");
    assert_eq!(fs::read_dir(dir.path().join("backups")).unwrap().count(), 0);
    assert!(
        !dir.path().join("tessera.lock").exists(),
        "the lock is released"
    );
}

#[test]
fn a_newer_database_is_refused_and_left_byte_identical() {
    refused_untouched("WAL");
    refused_untouched("DELETE");
}

#[test]
fn a_file_that_is_not_sqlite_is_refused_untouched() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("tessera.sqlite");
    fs::write(&db, vec![7u8; 4096]).unwrap();
    let err = Store::open(dir.path()).unwrap_err();
    assert!(matches!(err, StoreError::NotOurDatabase { .. }), "{err}");
    assert_eq!(fs::read(&db).unwrap(), vec![7u8; 4096]);
}
