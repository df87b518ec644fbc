//! Long messages are indexed for search after the write that stores them, not inside it.
//!
//! Indexing a long answer's text is most of the work at the end of a turn: a 20,000-word answer
//! took the writer as long to index as to store all of its deltas, and the person waited for it
//! before seeing the turn end. A message longer than [`INDEX_LATER_BYTES`] is listed in
//! `search_backlog` instead, in the same transaction as the message (so a crash loses nothing),
//! and indexed:
//! - before any search: every search goes through [`Store::catch_up_search_index`] first, so no
//!   search misses a stored message;
//! - when the writer has been idle for [`INDEX_WHEN_IDLE_AFTER`], one text at a time, so a
//!   long-lived process (the app, `tessera serve`) catches up by itself.
//!
//! A short command (`tessera chat`) ends before either; the next process catches up.

use std::sync::atomic::Ordering;
use std::time::Duration;

use rusqlite::OptionalExtension;

use crate::error::Result;
use crate::search_pieces;
use crate::tx::{AfterCommit, WriteTx};
use crate::Store;

pub(crate) const SCHEMA_V8: &str = "
CREATE TABLE search_backlog (
    message_pk INTEGER PRIMARY KEY REFERENCES messages (pk) ON DELETE CASCADE
) STRICT;
";

/// Texts longer than this are indexed later: indexing one takes a millisecond or more.
pub(crate) const INDEX_LATER_BYTES: usize = 16 * 1024;

/// How long the writer waits with nothing to do before it indexes a listed text.
pub(crate) const INDEX_WHEN_IDLE_AFTER: Duration = Duration::from_millis(250);

/// Indexes message `pk`'s `text` now, or lists it for later if it is long.
pub(crate) fn index_message(tx: &WriteTx<'_>, pk: i64, text: &str) -> Result<()> {
    if text.len() <= INDEX_LATER_BYTES {
        return search_pieces::index_message(tx.conn, pk, text);
    }
    tx.conn
        .prepare_cached("INSERT INTO search_backlog (message_pk) VALUES (?1)")?
        .execute([pk])?;
    tx.ctx.search_backlog.store(true, Ordering::Release);
    Ok(())
}

/// Whether the database lists any text to index (asked once, when the store opens).
pub(crate) fn any(conn: &rusqlite::Connection) -> Result<bool> {
    Ok(conn
        .query_row("SELECT 1 FROM search_backlog LIMIT 1", [], |_| Ok(()))
        .optional()?
        .is_some())
}

impl WriteTx<'_> {
    /// Indexes up to `limit` listed texts, oldest first; true when none is left.
    pub(crate) fn index_search_backlog(&mut self, limit: usize) -> Result<bool> {
        let mut next = self.conn.prepare_cached(
            "SELECT b.message_pk, m.content FROM search_backlog b
             JOIN messages m ON m.pk = b.message_pk
             ORDER BY b.message_pk LIMIT 1",
        )?;
        let mut done = self
            .conn
            .prepare_cached("DELETE FROM search_backlog WHERE message_pk = ?1")?;
        for _ in 0..limit {
            let listed: Option<(i64, String)> = next
                .query_row([], |row| Ok((row.get(0)?, row.get(1)?)))
                .optional()?;
            let Some((pk, text)) = listed else {
                self.after_commit.push(AfterCommit::SearchBacklogEmpty);
                return Ok(true);
            };
            search_pieces::index_message(self.conn, pk, &text)?;
            done.execute([pk])?;
        }
        let empty = !any(self.conn)?;
        if empty {
            // Only once committed: a failed commit lists them all again.
            self.after_commit.push(AfterCommit::SearchBacklogEmpty);
        }
        Ok(empty)
    }
}

impl Store {
    /// Indexes every text still listed for indexing, so that a search made after this finds
    /// every message stored before it. Costs nothing when none is listed.
    pub fn catch_up_search_index(&self) -> Result<()> {
        if !self.writer_context().search_backlog.load(Ordering::Acquire) {
            return Ok(());
        }
        self.write_alone(|tx| tx.index_search_backlog(usize::MAX).map(drop))
    }
}
