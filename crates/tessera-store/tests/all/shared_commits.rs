//! The writer thread: writes queued while others run join their transaction before it commits
//! (no write waits for another's commit, and the commit is shared), and a write that fails
//! in a shared transaction is undone alone.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{mpsc, Arc};

use serde_json::json;
use tessera_store::StoreError;

#[test]
fn a_write_queued_while_another_runs_shares_its_commit() {
    let (_dir, store) = common::open();
    let store = Arc::new(store);
    let later_ran = Arc::new(AtomicBool::new(false));
    let (told, heard) = mpsc::channel();
    let (inside, ran) = (Arc::clone(&store), Arc::clone(&later_ran));
    store.write_then(
        move |tx| {
            tx.set_app_setting("first", &json!(1))?;
            // Queued from inside the running write: it reaches the writer before the commit.
            let ran = Arc::clone(&ran);
            inside.write_then(
                move |tx| {
                    ran.store(true, Ordering::SeqCst);
                    tx.set_app_setting("later", &json!(2))
                },
                |result: Result<(), StoreError>| result.unwrap(),
            );
            Ok(())
        },
        move |result: Result<(), StoreError>| {
            result.unwrap();
            // The first write is answered only once its transaction committed: the later one
            // ran in it.
            told.send(later_ran.load(Ordering::SeqCst)).unwrap();
        },
    );
    assert!(
        heard.recv().unwrap(),
        "the later write shares the first one's commit"
    );
    store.write(|_| Ok(())).unwrap();
    assert_eq!(store.app_setting("first").unwrap(), Some(json!(1)));
    assert_eq!(store.app_setting("later").unwrap(), Some(json!(2)));
}

#[test]
fn a_failing_write_in_a_shared_commit_is_undone_alone() {
    let (_dir, store) = common::open();
    let store = Arc::new(store);
    let (told, heard) = mpsc::channel();
    let inside = Arc::clone(&store);
    store.write_then(
        move |tx| {
            tx.set_app_setting("kept", &json!("a"))?;
            inside.write_then(
                |tx| {
                    tx.set_app_setting("undone", &json!("b"))?;
                    Err(StoreError::InvalidContextUpdate(
                        "refused on purpose".into(),
                    ))
                },
                |result: Result<(), StoreError>| {
                    assert!(result.is_err());
                },
            );
            inside.write_then(
                |tx| tx.set_app_setting("also kept", &json!("c")),
                |result: Result<(), StoreError>| result.unwrap(),
            );
            Ok(())
        },
        move |result: Result<(), StoreError>| told.send(result.is_ok()).unwrap(),
    );
    assert!(heard.recv().unwrap());
    store.write(|_| Ok(())).unwrap();
    assert_eq!(store.app_setting("kept").unwrap(), Some(json!("a")));
    assert_eq!(store.app_setting("undone").unwrap(), None);
    assert_eq!(store.app_setting("also kept").unwrap(), Some(json!("c")));
}
