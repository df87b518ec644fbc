//! Full-text search over messages and evidences, Chinese as well as English (see
//! [`crate::cjk_bigrams`] for how CJK text is indexed). One contentless FTS5 table holds both,
//! a long text in pieces ([`crate::search_pieces`] says how rows name their owner); triggers
//! remove entries when rows go (so deleting a conversation clears its entries through the
//! foreign-key cascade).

use rusqlite::{params, Connection, Row};
use serde::{Deserialize, Serialize};

use crate::cjk_bigrams::{match_expression, query_phrases, query_words};
use crate::conversations::{self, Conversation, ConversationFilter};
use crate::error::Result;
use crate::rows::{self, FromRow};
use crate::tx::ReadTx;
use crate::{evidences, search_pieces, sql, Store};

pub(crate) const SCHEMA_V2: &str = "
CREATE VIRTUAL TABLE search_index USING fts5 (
    body,
    tokenize = 'unicode61 remove_diacritics 2',
    content = '',
    contentless_delete = 1
);
CREATE TRIGGER messages_leave_search_index AFTER DELETE ON messages BEGIN
    DELETE FROM search_index WHERE rowid = old.pk;
END;
CREATE TRIGGER evidences_leave_search_index AFTER DELETE ON evidences BEGIN
    DELETE FROM search_index WHERE rowid = -old.pk;
END;
";

/// What a hit is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum HitKind {
    Message,
    Evidence,
}

/// One search result.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SearchHit {
    pub conversation_id: String,
    pub kind: HitKind,
    /// The message id or the evidence id.
    pub id: String,
    /// Text around the first match, `…` where it was cut.
    pub snippet: String,
    /// Where the match is in `snippet`, in characters (start, end), when it could be placed.
    pub highlight: Option<(usize, usize)>,
    /// bm25: lower is better.
    pub rank: f64,
}

/// Which results to return.
#[derive(Clone, Debug)]
pub struct SearchOptions {
    /// Only this conversation.
    pub conversation_id: Option<String>,
    pub limit: usize,
}

impl Default for SearchOptions {
    fn default() -> Self {
        Self {
            conversation_id: None,
            limit: 20,
        }
    }
}

/// Cuts `text` around the first word found, marking where it is.
fn snippet(text: &str, words: &[String]) -> (String, Option<(usize, usize)>) {
    const BEFORE: usize = 20;
    const AFTER: usize = 60;
    // What a person reads, not the Markdown's marks.
    let plain = crate::plain_text::plain_text(text);
    let text = plain.as_str();
    let lower = text.to_ascii_lowercase();
    let found = words
        .iter()
        .filter_map(|w| lower.find(&w.to_ascii_lowercase()).map(|at| (at, w.len())))
        .min();
    let chars: Vec<char> = text
        .chars()
        .map(|c| if c == '\n' { ' ' } else { c })
        .collect();
    let (start_char, match_chars) = match found {
        Some((at, len)) => (
            text[..at].chars().count(),
            text.get(at..at + len).map_or(0, |m| m.chars().count()),
        ),
        None => (0, 0),
    };
    let from = start_char.saturating_sub(BEFORE);
    let to = (start_char + match_chars + AFTER).min(chars.len());
    let mut out = String::new();
    let mut offset = 0;
    if from > 0 {
        out.push('…');
        offset = 1;
    }
    out.extend(&chars[from..to]);
    if to < chars.len() {
        out.push('…');
    }
    let highlight = found.map(|_| {
        let start = start_char - from + offset;
        (start, start + match_chars)
    });
    (out, highlight)
}

/// How many of the newest matches of each kind an unscoped search ranks. bm25 costs a lookup
/// per matching row, so a word found in nearly every message would otherwise rank them all;
/// past this many, older matches are left out (a chat search favours recent text anyway).
pub const RANKED_WINDOW: i64 = 4000;

/// A hit: conversation, whether an evidence (0 or 1), its id, its text, its rank.
type HitRow = (String, i64, String, Option<String>, f64);

/// A conversation of [`conversations::COLUMNS`], with the message that matched, if one did.
struct ConversationHitRow {
    conversation: Conversation,
    message_pk: Option<i64>,
}

impl FromRow for ConversationHitRow {
    fn from_row(row: &Row<'_>) -> Result<Self> {
        Ok(Self {
            conversation: Conversation::from_row(row)?,
            message_pk: row.get(10)?,
        })
    }
}

/// The rowid range holding the newest `RANKED_WINDOW` matches within `lo..=hi`; `newest_high`
/// says whether newer rows have higher rowids (messages) or lower ones (evidences, `-pk`).
fn window(
    conn: &Connection,
    expression: &str,
    lo: i64,
    hi: i64,
    newest_high: bool,
) -> Result<(i64, i64)> {
    let sql_text = if newest_high {
        "SELECT rowid FROM search_index WHERE search_index MATCH ?1 AND rowid BETWEEN ?2 AND ?3
         ORDER BY rowid DESC LIMIT 1 OFFSET ?4"
    } else {
        "SELECT rowid FROM search_index WHERE search_index MATCH ?1 AND rowid BETWEEN ?2 AND ?3
         ORDER BY rowid ASC LIMIT 1 OFFSET ?4"
    };
    let boundary: Option<i64> = rows::optional(
        conn,
        sql_text,
        params![expression, lo, hi, RANKED_WINDOW - 1],
    )?;
    Ok(match boundary {
        Some(b) if newest_high => (b, hi),
        Some(b) => (lo, b),
        None => (lo, hi),
    })
}

/// Texts in several pieces holding every phrase, each in some piece (where no one piece holds
/// them all, the plain match misses them), with the sum of each phrase's best rank there.
/// `messages_only` leaves out evidences; `conversation_id` scopes the search.
fn across_pieces(
    conn: &Connection,
    phrases: &[String],
    messages_only: bool,
    conversation_id: Option<&str>,
) -> Result<Vec<(i64, f64)>> {
    let owners: Vec<i64> = rows::all(
        conn,
        "SELECT l.owner FROM search_long_texts l
             LEFT JOIN messages m ON l.owner > 0 AND m.pk = l.owner
             LEFT JOIN evidences e ON l.owner < 0 AND e.pk = -l.owner
         WHERE (?1 IS NULL OR l.owner > 0)
             AND (?2 IS NULL OR coalesce(m.conversation_id, e.conversation_id) = ?2)",
        params![messages_only.then_some(1), conversation_id],
    )?;
    let mut found = Vec::new();
    'owners: for owner in owners {
        let (lo, hi) = search_pieces::rowid_range(owner);
        let mut total = 0.0;
        for phrase in phrases {
            let best: Option<f64> = rows::one(
                conn,
                "SELECT min(rank) FROM search_index
                 WHERE search_index MATCH ?1 AND rowid BETWEEN ?2 AND ?3",
                params![phrase, lo, hi],
            )?;
            match best {
                Some(rank) => total += rank,
                None => continue 'owners,
            }
        }
        found.push((owner, total));
    }
    Ok(found)
}

/// The hit row of an owner [`across_pieces`] found.
fn hit_of(conn: &Connection, owner: i64, rank: f64) -> Result<Option<HitRow>> {
    let sql_text = if owner > 0 {
        "SELECT conversation_id, 0, id, content, ?2 FROM messages WHERE pk = ?1"
    } else {
        "SELECT conversation_id, 1, evidence_id, content_json, ?2 FROM evidences WHERE pk = ?1"
    };
    rows::optional(conn, sql_text, params![owner.abs(), rank])
}

impl ReadTx<'_> {
    /// Messages and evidences matching `query`, best first (bm25). Any text is a valid query:
    /// quotes and FTS5 operators in it are searched for literally. Without a conversation,
    /// the newest [`RANKED_WINDOW`] matching messages and evidences are ranked; within one
    /// conversation, all of its matches are.
    ///
    /// A long message stored moments ago may not be indexed yet: call
    /// [`Store::catch_up_search_index`] before the read (as [`Store::search`] does).
    pub fn search(&self, query: &str, options: &SearchOptions) -> Result<Vec<SearchHit>> {
        let Some(expression) = match_expression(query) else {
            return Ok(Vec::new());
        };
        let words = query_words(query);
        let limit = i64::try_from(options.limit).unwrap_or(i64::MAX);
        let (messages, evidences) = if options.conversation_id.is_some() {
            ((1, i64::MAX), (i64::MIN, -1))
        } else {
            (
                window(self.conn, &expression, 1, i64::MAX, true)?,
                window(self.conn, &expression, i64::MIN, -1, false)?,
            )
        };
        let mut rows: Vec<HitRow> = rows::all(
            self.conn,
            "SELECT m.conversation_id, 0, m.id, m.content, min(f.rank) AS best
             FROM search_index f JOIN messages m ON m.pk = f.rowid >> 16
             WHERE search_index MATCH ?1 AND f.rowid BETWEEN ?2 AND ?3
                 AND (?4 IS NULL OR m.conversation_id = ?4)
             GROUP BY m.pk ORDER BY best LIMIT ?5",
            params![
                expression,
                messages.0,
                messages.1,
                options.conversation_id,
                limit
            ],
        )?;
        rows.extend(rows::all::<HitRow>(
            self.conn,
            "SELECT e.conversation_id, 1, e.evidence_id, e.content_json, min(f.rank) AS best
             FROM search_index f JOIN evidences e ON e.pk = (-f.rowid) >> 16
             WHERE search_index MATCH ?1 AND f.rowid BETWEEN ?2 AND ?3
                 AND (?4 IS NULL OR e.conversation_id = ?4)
             GROUP BY e.pk ORDER BY best LIMIT ?5",
            params![
                expression,
                evidences.0,
                evidences.1,
                options.conversation_id,
                limit
            ],
        )?);
        let phrases = query_phrases(query);
        if phrases.len() > 1 {
            for (owner, rank) in across_pieces(
                self.conn,
                &phrases,
                false,
                options.conversation_id.as_deref(),
            )? {
                if let Some(row) = hit_of(self.conn, owner, rank)? {
                    rows.push(row);
                }
            }
            // A text found both ways counts once, at its better rank.
            rows.sort_by(|a, b| (a.1, &a.2).cmp(&(b.1, &b.2)).then(a.4.total_cmp(&b.4)));
            rows.dedup_by(|a, b| a.1 == b.1 && a.2 == b.2);
        }
        rows.sort_by(|a, b| a.4.total_cmp(&b.4));
        rows.truncate(options.limit);
        rows.into_iter()
            .map(|(conversation_id, kind, id, text, rank)| {
                let (kind, text) = if kind == 0 {
                    (HitKind::Message, text.unwrap_or_default())
                } else {
                    let content: Option<serde_json::Value> =
                        sql::opt_parse("evidence content", text)?;
                    (HitKind::Evidence, evidences::search_text(content.as_ref()))
                };
                let (snippet, highlight) = snippet(&text, &words);
                Ok(SearchHit {
                    conversation_id,
                    kind,
                    id,
                    snippet,
                    highlight,
                    rank,
                })
            })
            .collect()
    }
}

/// A conversation a search found.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ConversationMatch {
    pub conversation: Conversation,
    /// The newest message holding every word of the query; None when only the title did.
    pub message: Option<MessageMatch>,
}

/// Where in a conversation a search matched.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct MessageMatch {
    pub message_id: String,
    /// Text around the first match, `…` where it was cut.
    pub snippet: String,
    /// Where the match is in `snippet`, in characters (start, end), when it could be placed.
    pub highlight: Option<(usize, usize)>,
}

impl ReadTx<'_> {
    /// The conversations whose title holds every word of `query` (ignoring ASCII case) or
    /// one of whose messages (on any branch) does, Chinese included, in the order of the list
    /// (pinned first, then the most recently updated) within `filter`. Each says which of its
    /// messages matched last. A blank query finds nothing. Call
    /// [`Store::catch_up_search_index`] before the read (see [`ReadTx::search`]).
    pub fn search_conversations(
        &self,
        query: &str,
        filter: &ConversationFilter,
    ) -> Result<Vec<ConversationMatch>> {
        let terms: Vec<&str> = query.split_whitespace().collect();
        if terms.is_empty() {
            return Ok(Vec::new());
        }
        let title_terms =
            serde_json::to_string(&terms).map_err(|source| crate::StoreError::Encode {
                what: "search terms",
                source,
            })?;
        let expression = match_expression(query);
        // The newest matching message of each conversation: one pass over the matches, no
        // ranking (the list keeps its own order).
        let hits = if expression.is_some() {
            "SELECT cid, max(pk) AS pk FROM (
                 SELECT m.conversation_id AS cid, f.rowid >> 16 AS pk FROM search_index f
                     JOIN messages m ON m.pk = f.rowid >> 16
                 WHERE search_index MATCH ?1 AND f.rowid > 0
                 UNION ALL
                 SELECT m.conversation_id, m.pk FROM json_each(?6) j
                     JOIN messages m ON m.pk = j.value)
             GROUP BY cid"
        } else {
            "SELECT NULL AS cid, NULL AS pk WHERE ?1 IS NULL AND ?6 IS NULL"
        };
        let phrases = query_phrases(query);
        let long_hits: Vec<i64> = if phrases.len() > 1 {
            across_pieces(self.conn, &phrases, true, None)?
                .into_iter()
                .map(|(owner, _)| owner)
                .collect()
        } else {
            Vec::new()
        };
        let long_hits =
            serde_json::to_string(&long_hits).map_err(|source| crate::StoreError::Encode {
                what: "search hits",
                source,
            })?;
        let limit = filter
            .limit
            .map_or(-1, |l| i64::try_from(l).unwrap_or(i64::MAX));
        let offset = i64::try_from(filter.offset).unwrap_or(i64::MAX);
        let rows: Vec<ConversationHitRow> = rows::all(
            self.conn,
            &format!(
                "WITH hits AS ({hits})
                 SELECT {columns}, h.pk FROM conversations c LEFT JOIN hits h ON h.cid = c.id
                 WHERE (?2 IS NULL OR c.archived = ?2)
                     AND (h.pk IS NOT NULL OR NOT EXISTS (
                         SELECT 1 FROM json_each(?5) t
                         WHERE instr(lower(c.title), lower(t.value)) = 0))
                 ORDER BY c.pinned DESC, c.updated_ms DESC, c.id
                 LIMIT ?3 OFFSET ?4",
                columns = conversations::COLUMNS,
            ),
            params![
                expression,
                filter.archived,
                limit,
                offset,
                title_terms,
                long_hits
            ],
        )?;
        let words = query_words(query);
        rows.into_iter()
            .map(|row| {
                let message = match row.message_pk {
                    Some(pk) => rows::optional::<(String, String)>(
                        self.conn,
                        "SELECT id, content FROM messages WHERE pk = ?1",
                        [pk],
                    )?
                    .map(|(message_id, text)| {
                        let (snippet, highlight) = snippet(&text, &words);
                        MessageMatch {
                            message_id,
                            snippet,
                            highlight,
                        }
                    }),
                    None => None,
                };
                Ok(ConversationMatch {
                    conversation: row.conversation,
                    message,
                })
            })
            .collect()
    }
}

impl Store {
    /// Conversations by title or message text; see [`ReadTx::search_conversations`].
    pub fn search_conversations(
        &self,
        query: &str,
        filter: &ConversationFilter,
    ) -> Result<Vec<ConversationMatch>> {
        self.catch_up_search_index()?;
        self.read(|r| r.search_conversations(query, filter))
    }

    /// Full-text search; see [`ReadTx::search`].
    pub fn search(&self, query: &str, options: &SearchOptions) -> Result<Vec<SearchHit>> {
        self.catch_up_search_index()?;
        self.read(|r| r.search(query, options))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn snippets_mark_the_match() {
        let (text, at) = snippet("包周期续订的接口是？", &["续订".into()]);
        assert_eq!(text, "包周期续订的接口是？");
        assert_eq!(at, Some((3, 5)));
        let long = format!("{}needle{}", "a".repeat(50), "b".repeat(100));
        let (text, at) = snippet(&long, &["NEEDLE".into()]);
        let (start, end) = at.unwrap();
        assert_eq!(
            text.chars()
                .skip(start)
                .take(end - start)
                .collect::<String>(),
            "needle"
        );
        assert!(text.starts_with('…') && text.ends_with('…'));
    }
}
