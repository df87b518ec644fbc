//! The handles a read or a write works through. Each table module adds its own methods to
//! [`ReadTx`] and [`WriteTx`], next to the SQL it owns.

use std::collections::{HashMap, HashSet};
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicUsize};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use rusqlite::Connection;

use crate::event_folding::RunFolds;
use crate::layout::DataPaths;

/// A read: one consistent snapshot of the database.
pub struct ReadTx<'a> {
    pub(crate) conn: &'a Connection,
}

/// A write: everything done through one `WriteTx` commits together or not at all, and the
/// caller hears back only after the commit.
pub struct WriteTx<'a> {
    pub(crate) conn: &'a Connection,
    pub(crate) ctx: &'a WriterContext,
    pub(crate) after_commit: Vec<AfterCommit>,
}

impl<'a> WriteTx<'a> {
    pub(crate) fn new(conn: &'a Connection, ctx: &'a WriterContext) -> Self {
        Self {
            conn,
            ctx,
            after_commit: Vec::new(),
        }
    }

    /// Reads inside this write (they see what it wrote so far).
    pub fn read(&self) -> ReadTx<'_> {
        ReadTx { conn: self.conn }
    }
}

/// Work that may only happen once the transaction is durable (files are deleted only after the
/// rows that referenced them are gone for good).
#[derive(Debug)]
pub(crate) enum AfterCommit {
    RemoveFile(PathBuf),
    /// The write indexed every text `search_backlog` listed: none is left once it is durable.
    SearchBacklogEmpty,
    /// The conversation was deleted: no longer known to exist.
    ConversationGone(String),
}

/// What the writer thread shares with the rest of the store.
#[derive(Debug)]
pub(crate) struct WriterContext {
    pub paths: DataPaths,
    pub pins: AttachmentPins,
    pub run_folds: Mutex<RunFolds>,
    /// Held by the writer for each transaction, and by the checkpoint thread when it must copy
    /// the WAL's last frames with no write in between (see `checkpoint`).
    pub write_gate: Mutex<()>,
    /// Whether `search_backlog` may list texts to index (see `search_backlog`).
    pub search_backlog: AtomicBool,
    /// Writes queued and not yet taken by the writer: indexing while idle stops for them.
    pub queued: AtomicUsize,
    /// Conversations seen to exist (see `Store::conversation_exists`); one leaves when it is
    /// deleted, after the commit.
    pub known_conversations: Mutex<KnownConversations>,
}

/// Conversation ids seen to exist, and how many deletions have committed: an id read before a
/// deletion that commits meanwhile is not added (it may be the one deleted).
#[derive(Debug, Default)]
pub(crate) struct KnownConversations {
    pub ids: HashSet<String>,
    pub deletions: u64,
}

impl WriterContext {
    pub fn new(paths: DataPaths) -> Self {
        Self {
            paths,
            pins: AttachmentPins::default(),
            run_folds: Mutex::default(),
            write_gate: Mutex::default(),
            search_backlog: AtomicBool::new(false),
            queued: AtomicUsize::new(0),
            known_conversations: Mutex::default(),
        }
    }

    /// No write transaction runs while this is held.
    pub fn write_gate(&self) -> std::sync::MutexGuard<'_, ()> {
        self.write_gate.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The runs the writer is folding as it writes them (only the writer thread takes it).
    pub fn run_folds(&self) -> std::sync::MutexGuard<'_, RunFolds> {
        self.run_folds.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// Attachments written to disk and not referenced yet: garbage collection leaves them alone
/// until an evidence cites them (or for a while), so a file is never deleted between its write
/// and the evidence that cites it.
#[derive(Debug, Default)]
pub(crate) struct AttachmentPins {
    pinned: Mutex<HashMap<String, Instant>>,
}

const PIN_FOR: Duration = Duration::from_secs(600);

impl AttachmentPins {
    pub fn pin(&self, sha256: &str) {
        let mut pinned = self.pinned.lock().unwrap_or_else(|e| e.into_inner());
        pinned.retain(|_, at| at.elapsed() < PIN_FOR);
        pinned.insert(sha256.to_owned(), Instant::now());
    }

    /// Called once an evidence references the file: from then on references keep it.
    pub fn unpin(&self, sha256: &str) {
        let mut pinned = self.pinned.lock().unwrap_or_else(|e| e.into_inner());
        pinned.remove(sha256);
    }

    pub fn is_pinned(&self, sha256: &str) -> bool {
        let pinned = self.pinned.lock().unwrap_or_else(|e| e.into_inner());
        pinned.get(sha256).is_some_and(|at| at.elapsed() < PIN_FOR)
    }
}
