//! How texts go into the full-text index: a long text in pieces, each its own FTS5 row.
//!
//! FTS5 gathers every term of a row in memory before it writes any: one row of a million
//! different words (a long answer) took ~170 MB, which SQLite freed but the process kept. A
//! piece holds at most [`PIECE_BYTES`], cut at whitespace, so indexing needs a bounded amount
//! whatever the length of the text.
//!
//! An entry's rowid says whose piece it is: `pk << PIECE_BITS | piece` for a message,
//! the negation of that for an evidence (newer rows still sort after older ones for messages
//! and before them for evidences, which the search's window relies on). Texts of more than one
//! piece are listed in `search_long_texts`, by owner (a message's `pk`, an evidence's `-pk`):
//! a search for several words also looks for them across the pieces of those.

use rusqlite::{params, Connection};

use crate::cjk_bigrams::index_text;
use crate::error::Result;
use crate::{evidences, rows, sql};

/// The most text one index row holds (more for a piece without whitespace).
pub(crate) const PIECE_BYTES: usize = 64 * 1024;

/// Bits of a rowid that number the pieces of one text.
pub(crate) const PIECE_BITS: u32 = 16;

const LAST_PIECE: i64 = (1 << PIECE_BITS) - 1;

pub(crate) const SCHEMA_V5: &str = "
DROP TRIGGER IF EXISTS messages_leave_search_index;
DROP TRIGGER IF EXISTS evidences_leave_search_index;
DROP TABLE IF EXISTS search_index;
CREATE VIRTUAL TABLE search_index USING fts5 (
    body,
    tokenize = 'unicode61 remove_diacritics 2',
    content = '',
    contentless_delete = 1
);
CREATE TABLE search_long_texts (owner INTEGER PRIMARY KEY);
CREATE TRIGGER messages_leave_search_index AFTER DELETE ON messages BEGIN
    DELETE FROM search_index WHERE rowid BETWEEN old.pk * 65536 AND old.pk * 65536 + 65535;
    DELETE FROM search_long_texts WHERE owner = old.pk;
END;
CREATE TRIGGER evidences_leave_search_index AFTER DELETE ON evidences BEGIN
    DELETE FROM search_index WHERE rowid BETWEEN -(old.pk * 65536) - 65535 AND -(old.pk * 65536);
    DELETE FROM search_long_texts WHERE owner = -old.pk;
END;
";

/// The rowids an owner's pieces may take, lowest first.
pub(crate) fn rowid_range(owner: i64) -> (i64, i64) {
    let base = owner.unsigned_abs() << PIECE_BITS;
    let base = i64::try_from(base).unwrap_or(i64::MAX);
    if owner > 0 {
        (base, base.saturating_add(LAST_PIECE))
    } else {
        (-base - LAST_PIECE, -base)
    }
}

/// `text` cut into pieces of at most [`PIECE_BYTES`], each ending after whitespace where the
/// piece has any (else at a character boundary).
pub(crate) fn pieces(text: &str) -> impl Iterator<Item = &str> {
    let mut rest = text;
    std::iter::from_fn(move || {
        if rest.is_empty() {
            return None;
        }
        if rest.len() <= PIECE_BYTES {
            return Some(std::mem::take(&mut rest));
        }
        let mut cut = PIECE_BYTES;
        while !rest.is_char_boundary(cut) {
            cut -= 1;
        }
        if let Some(space) = rest[..cut].rfind(char::is_whitespace) {
            // Past the whitespace character itself.
            cut = space + rest[space..].chars().next().map_or(1, char::len_utf8);
        }
        let (piece, tail) = rest.split_at(cut);
        rest = tail;
        Some(piece)
    })
}

/// Indexes `text` as `owner`'s; `replace` removes what was indexed for it before.
fn index(conn: &Connection, owner: i64, text: &str, replace: bool) -> Result<()> {
    let (lo, hi) = rowid_range(owner);
    if replace {
        conn.prepare_cached("DELETE FROM search_index WHERE rowid BETWEEN ?1 AND ?2")?
            .execute([lo, hi])?;
        conn.prepare_cached("DELETE FROM search_long_texts WHERE owner = ?1")?
            .execute([owner])?;
    }
    let mut insert =
        conn.prepare_cached("INSERT INTO search_index (rowid, body) VALUES (?1, ?2)")?;
    let mut count: i64 = 0;
    let mut pieces = pieces(text).peekable();
    while let Some(piece) = pieces.next() {
        // The last rowid takes whatever is left of an enormous text.
        let piece = if count == LAST_PIECE && pieces.peek().is_some() {
            let start = piece.as_ptr() as usize - text.as_ptr() as usize;
            &text[start..]
        } else {
            piece
        };
        let rowid = if owner > 0 { lo + count } else { hi - count };
        insert.execute(params![rowid, index_text(piece)])?;
        count += 1;
        if count > LAST_PIECE {
            break;
        }
    }
    if count > 1 {
        conn.prepare_cached("INSERT INTO search_long_texts (owner) VALUES (?1)")?
            .execute([owner])?;
    }
    Ok(())
}

/// A new message's text (messages never change).
pub(crate) fn index_message(conn: &Connection, pk: i64, text: &str) -> Result<()> {
    index(conn, pk, text, false)
}

/// An evidence's text, new or changed.
pub(crate) fn index_evidence(conn: &Connection, pk: i64, text: &str) -> Result<()> {
    index(conn, -pk, text, true)
}

/// Indexes everything the database holds (after the index was made anew).
pub(crate) fn backfill(conn: &Connection) -> Result<()> {
    rows::for_each(
        conn,
        "SELECT pk, content FROM messages",
        [],
        |(pk, text): (i64, String)| index_message(conn, pk, &text),
    )?;
    // An evidence that copies a message (an answer kept to be cited) is found by the message's
    // rows: left out, as the run that wrote it left it.
    rows::for_each(
        conn,
        "SELECT pk, conversation_id, source_json ->> '$.uri', content_json FROM evidences",
        [],
        |(pk, conversation_id, uri, content): (i64, String, Option<String>, Option<String>)| {
            let content: Option<serde_json::Value> = sql::opt_parse("evidence content", content)?;
            if evidences::copies_stored_message(
                conn,
                &conversation_id,
                uri.as_deref(),
                content.as_ref(),
            )? {
                return Ok(());
            }
            index_evidence(conn, pk, &evidences::search_text(content.as_ref()))
        },
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pieces_cover_the_text_and_end_after_whitespace() {
        let text = "word ".repeat(PIECE_BYTES / 2);
        let cut: Vec<&str> = pieces(&text).collect();
        assert!(cut.len() > 1);
        assert_eq!(cut.concat(), text);
        assert!(cut.iter().all(|p| p.len() <= PIECE_BYTES));
        assert!(cut[..cut.len() - 1].iter().all(|p| p.ends_with(' ')));
        // No whitespace at all: cut at a character boundary.
        let han = "续".repeat(PIECE_BYTES);
        let cut: Vec<&str> = pieces(&han).collect();
        assert_eq!(cut.concat(), han);
        assert!(cut.iter().all(|p| p.len() <= PIECE_BYTES));
        assert_eq!(pieces("").count(), 0);
        assert_eq!(pieces("short").collect::<Vec<_>>(), ["short"]);
    }

    #[test]
    fn owners_take_disjoint_rowid_ranges_in_pk_order() {
        for owner in [1, 7, 1 << 40, -1, -7, -(1 << 40)] {
            let (lo, hi) = rowid_range(owner);
            assert_eq!(hi - lo, LAST_PIECE);
            assert_eq!(lo.signum(), owner.signum());
        }
        assert_eq!(rowid_range(3).0 >> PIECE_BITS, 3);
        assert!(rowid_range(2).0 > rowid_range(1).1);
        assert!(rowid_range(-2).1 < rowid_range(-1).0);
    }
}
