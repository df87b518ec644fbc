//! Long messages and evidences are indexed for search after the write that stores them, not
//! inside it.
//!
//! Indexing a long answer's text is most of the work at the end of a turn: a 20,000-word answer
//! took the writer as long to index as to store all of its deltas, and the person waited for it
//! before seeing the turn end. A message longer than [`INDEX_LATER_BYTES`] is listed in
//! `search_backlog` instead, in the same transaction as the message (so a crash loses nothing).
//! So is every evidence with text to index, in `search_backlog_evidences`: an evidence is a
//! tool's result, written while the caller waits for the call's answer, and indexing it there
//! was a sixth of the writer's work for a call (FTS5 also writes its pending pieces at every
//! savepoint after). Listed texts are indexed:
//! - before any search: every search goes through [`Store::catch_up_search_index`] first, so no
//!   search misses a stored message;
//! - when the writer has been idle for [`INDEX_WHEN_IDLE_AFTER`], for at most
//!   [`IDLE_INDEXING_BUDGET`] at a time, so a long-lived process (the app, `tessera serve`)
//!   catches up by itself without holding up a write that comes meanwhile for long.
//!
//! A short command (`tessera chat`) ends before either; the next process catches up.

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use crate::error::Result;
use crate::tx::{AfterCommit, WriteTx};
use crate::Store;
use crate::{evidences, rows, search_pieces, sql};

pub(crate) const SCHEMA_V8: &str = "
CREATE TABLE search_backlog (
    message_pk INTEGER PRIMARY KEY REFERENCES messages (pk) ON DELETE CASCADE
) STRICT;
";

pub(crate) const SCHEMA_V9: &str = "
CREATE TABLE search_backlog_evidences (
    evidence_pk INTEGER PRIMARY KEY REFERENCES evidences (pk) ON DELETE CASCADE
) STRICT;
";

/// Texts longer than this are indexed later: indexing one takes a millisecond or more.
pub(crate) const INDEX_LATER_BYTES: usize = 16 * 1024;

/// How long the writer waits with nothing to do before it indexes listed texts.
pub(crate) const INDEX_WHEN_IDLE_AFTER: Duration = Duration::from_millis(250);

/// How long an idle writer indexes before it looks for writes again (at least one text).
pub(crate) const IDLE_INDEXING_BUDGET: Duration = Duration::from_millis(10);

/// How long the writer waits between two rounds of indexing while texts are left.
pub(crate) const KEEP_INDEXING_AFTER: Duration = Duration::from_millis(1);

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

/// Indexes evidence `pk`'s `text` (None: keeps it out of the index): a text to index is
/// listed for later when `later` (the writer's flag) is given, else indexed now.
pub(crate) fn index_evidence(
    conn: &rusqlite::Connection,
    pk: i64,
    text: Option<&str>,
    later: Option<&AtomicBool>,
) -> Result<()> {
    if let (Some(text), Some(flag)) = (text, later) {
        if !text.is_empty() {
            conn.prepare_cached(
                "INSERT OR IGNORE INTO search_backlog_evidences (evidence_pk) VALUES (?1)",
            )?
            .execute([pk])?;
            flag.store(true, Ordering::Release);
            return Ok(());
        }
    }
    // Listed before with a text since replaced: what is indexed now is what holds.
    conn.prepare_cached("DELETE FROM search_backlog_evidences WHERE evidence_pk = ?1")?
        .execute([pk])?;
    search_pieces::index_evidence(conn, pk, text.unwrap_or(""))
}

/// Whether the database lists any text to index (asked once, when the store opens).
pub(crate) fn any(conn: &rusqlite::Connection) -> Result<bool> {
    rows::exists(
        conn,
        "SELECT 1 FROM search_backlog UNION ALL SELECT 1 FROM search_backlog_evidences LIMIT 1",
        [],
    )
}

impl WriteTx<'_> {
    /// Indexes listed texts, oldest message first then oldest evidence; true when none is
    /// left. With a `budget` (the idle writer), after one text at least, it stops once the
    /// budget has passed or a write is waiting; without, only when none is left.
    pub(crate) fn index_search_backlog(&mut self, budget: Option<Duration>) -> Result<bool> {
        let started = Instant::now();
        let mut indexed = 0;
        let mut message_done = self
            .conn
            .prepare_cached("DELETE FROM search_backlog WHERE message_pk = ?1")?;
        let mut evidence_done = self
            .conn
            .prepare_cached("DELETE FROM search_backlog_evidences WHERE evidence_pk = ?1")?;
        loop {
            let enough = |budget: Duration| {
                started.elapsed() >= budget || self.ctx.queued.load(Ordering::Acquire) > 0
            };
            if indexed > 0 && budget.is_some_and(enough) {
                break;
            }
            indexed += 1;
            let message: Option<(i64, String)> = rows::optional(
                self.conn,
                "SELECT b.message_pk, m.content FROM search_backlog b
                 JOIN messages m ON m.pk = b.message_pk
                 ORDER BY b.message_pk LIMIT 1",
                [],
            )?;
            if let Some((pk, text)) = message {
                search_pieces::index_message(self.conn, pk, &text)?;
                message_done.execute([pk])?;
                continue;
            }
            let evidence: Option<(i64, Option<String>)> = rows::optional(
                self.conn,
                "SELECT b.evidence_pk, e.content_json FROM search_backlog_evidences b
                 JOIN evidences e ON e.pk = b.evidence_pk
                 ORDER BY b.evidence_pk LIMIT 1",
                [],
            )?;
            let Some((pk, content)) = evidence else {
                self.after_commit.push(AfterCommit::SearchBacklogEmpty);
                return Ok(true);
            };
            // Content that does not parse (a database edited by hand) is left out of the index
            // rather than holding up every text listed after it, and every search.
            let content = sql::opt_parse("evidence content", content).unwrap_or_else(|error| {
                tracing::warn!(%error, evidence = pk, "an evidence is left out of the search index");
                None
            });
            let text = evidences::search_text(content.as_ref());
            search_pieces::index_evidence(self.conn, pk, &text)?;
            evidence_done.execute([pk])?;
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
        self.write_alone(|tx| tx.index_search_backlog(None).map(drop))
    }
}
