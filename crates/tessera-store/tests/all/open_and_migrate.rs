#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

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
    // The lock goes with the store (the file stays: the OS lock on it is what counts).
    assert!(tessera_store::lock::DataFolderLock::acquire(&data).is_ok());
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
        tessera_store::lock::DataFolderLock::acquire(dir.path()).is_ok(),
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

#[cfg(unix)]
mod modes {
    use std::fs;
    use std::os::unix::fs::PermissionsExt;
    use std::path::Path;

    use tessera_store::Store;

    fn mode(path: &Path) -> u32 {
        fs::metadata(path).unwrap().permissions().mode() & 0o777
    }

    #[test]
    fn a_new_data_folder_is_the_persons_only() {
        let dir = tempfile::tempdir().unwrap();
        let data = dir.path().join("data");
        {
            let store = Store::open(&data).unwrap();
            let info = store
                .put_attachment(b"a picture", Some("image/png"))
                .unwrap();
            store
                .set_app_setting("theme", serde_json::json!("dark"))
                .unwrap();
            let attachment = data.join("attachments").join(&info.sha256);
            assert_eq!(mode(&data), 0o700);
            for folder in ["attachments", "backups"] {
                assert_eq!(mode(&data.join(folder)), 0o700, "{folder}");
            }
            for file in [
                "tessera.sqlite",
                "tessera.sqlite-wal",
                "tessera.sqlite-shm",
                "tessera.lock",
            ] {
                assert_eq!(mode(&data.join(file)), 0o600, "{file}");
            }
            let stored: Vec<_> = fs::read_dir(data.join("attachments"))
                .unwrap()
                .flatten()
                .filter(|e| e.file_type().unwrap().is_file())
                .collect();
            assert!(!stored.is_empty());
            for entry in stored {
                assert_eq!(mode(&entry.path()), 0o600, "{}", entry.path().display());
            }
            let _ = attachment;
        }
    }

    #[test]
    fn an_older_folder_is_tightened_once_and_a_persons_own_folder_is_left_alone() {
        let dir = tempfile::tempdir().unwrap();
        let data = dir.path().join("data");
        drop(Store::open(&data).unwrap());
        // As an earlier version (or a loose umask) left it.
        for (path, m) in [
            (data.clone(), 0o755),
            (data.join("attachments"), 0o755),
            (data.join("tessera.sqlite"), 0o644),
        ] {
            fs::set_permissions(&path, fs::Permissions::from_mode(m)).unwrap();
        }
        let store = Store::open(&data).unwrap();
        assert_eq!(mode(&data), 0o700);
        assert_eq!(mode(&data.join("attachments")), 0o700);
        assert_eq!(mode(&data.join("tessera.sqlite")), 0o600);
        let recorded = store
            .app_setting(tessera_store::file_modes::TIGHTENED_SETTING)
            .unwrap()
            .unwrap();
        assert!(recorded["changed"].as_u64().unwrap() >= 1, "{recorded}");
        drop(store);
        // Once: a mode the person sets afterwards stays.
        fs::set_permissions(&data, fs::Permissions::from_mode(0o750)).unwrap();
        drop(Store::open(&data).unwrap());
        assert_eq!(mode(&data), 0o750);

        // A folder the person keeps their own files in: Tessera's parts only.
        let own = dir.path().join("documents");
        fs::create_dir(&own).unwrap();
        fs::write(own.join("thesis.odt"), "mine").unwrap();
        fs::set_permissions(&own, fs::Permissions::from_mode(0o755)).unwrap();
        fs::set_permissions(own.join("thesis.odt"), fs::Permissions::from_mode(0o644)).unwrap();
        drop(Store::open(&own).unwrap());
        assert_eq!(mode(&own), 0o755);
        assert_eq!(mode(&own.join("thesis.odt")), 0o644);
        assert_eq!(mode(&own.join("tessera.sqlite")), 0o600);
        assert_eq!(mode(&own.join("attachments")), 0o700);
    }
}

#[test]
fn a_closed_store_leaves_everything_in_the_database_file_alone() {
    let (dir, store) = common::open();
    let id = common::conversation(&store, "kept in the file");
    store
        .set_app_setting("note", serde_json::json!("x".repeat(100_000)))
        .unwrap();
    drop(store);
    let wal = dir.path().join("tessera.sqlite-wal");
    assert!(!wal.exists(), "the WAL was copied in and removed at close");
    // The database file copied on its own (as a person backing up the folder would) has it all.
    let copy = tempfile::tempdir().unwrap();
    fs::copy(
        dir.path().join("tessera.sqlite"),
        copy.path().join("tessera.sqlite"),
    )
    .unwrap();
    let store = Store::open(copy.path()).unwrap();
    assert_eq!(
        store.conversation(&id).unwrap().unwrap().title,
        "kept in the file"
    );
}

#[test]
fn the_wal_starts_over_under_steady_writes() {
    let (dir, store) = common::open();
    let wal = dir.path().join("tessera.sqlite-wal");
    let blob = serde_json::json!("y".repeat(8_000));
    let started = std::time::Instant::now();
    let (mut written, mut largest) = (0u64, 0u64);
    // New rows one after another with no pause, as a client's calls in a row make them: no
    // moment comes when a passive checkpoint alone has copied every frame.
    while started.elapsed() < std::time::Duration::from_millis(2_000) {
        store
            .set_app_setting(&format!("blob {written}"), blob.clone())
            .unwrap();
        written += 8_000;
        largest = largest.max(fs::metadata(&wal).map(|m| m.len()).unwrap_or(0));
    }
    drop(store);
    // Every page the writes made is in the database now. A WAL that never started over holds
    // each of them at least once (more: a page is written again by each commit that changes it).
    let database = fs::metadata(dir.path().join("tessera.sqlite"))
        .unwrap()
        .len();
    assert!(
        largest < database,
        "the WAL reached {largest} bytes, for a database of {database} bytes after {written} bytes \
         of rows: it never started over"
    );
}
