//! Text rewriting that lets SQLite FTS5 (`unicode61` tokenizer) find Chinese, Japanese and
//! Korean text, short queries included.
//!
//! `unicode61` keeps a run of CJK letters as one token, and `trigram` needs three characters, so
//! neither finds `续订` inside `包周期续订的接口是？`. Here each CJK run is indexed as its
//! overlapping bigrams followed by its last character alone (`包周 周期 期续 续订 订的 的接 接口
//! 口是 是`): every character then starts some token, so a one-character query is a prefix query,
//! and a run that ends where a Latin word begins keeps the two adjacent for phrase queries. Text
//! outside CJK runs is left to the tokenizer as it is.
//!
//! A query is rewritten the same way, each whitespace-separated term into one quoted FTS5 phrase
//! (terms are ANDed). Quoting makes every character literal, so `"`, `*`, `AND`, `NEAR(`… in a
//! query are searched for, never interpreted.

/// Whether `c` is a CJK letter (Han, kana, Hangul, Bopomofo). CJK punctuation is not: the
/// tokenizer treats it as a separator.
pub fn is_cjk(c: char) -> bool {
    matches!(c as u32,
        0x3400..=0x4DBF      // CJK Unified Ideographs Extension A
        | 0x4E00..=0x9FFF    // CJK Unified Ideographs
        | 0xF900..=0xFAFF    // CJK Compatibility Ideographs
        | 0x20000..=0x3134F  // Extensions B–G
        | 0x3040..=0x309F    // Hiragana
        | 0x30A0..=0x30FF    // Katakana
        | 0x31F0..=0x31FF    // Katakana Phonetic Extensions
        | 0x3100..=0x312F    // Bopomofo
        | 0x1100..=0x11FF    // Hangul Jamo
        | 0x3130..=0x318F    // Hangul Compatibility Jamo
        | 0xAC00..=0xD7AF    // Hangul Syllables
    )
}

/// One piece of a text: a CJK run or anything between runs.
enum Piece<'a> {
    Cjk(Vec<char>),
    Other(&'a str),
}

fn pieces(text: &str) -> Vec<Piece<'_>> {
    let mut out = Vec::new();
    let mut run: Vec<char> = Vec::new();
    let mut other_start: Option<usize> = None;
    for (at, c) in text.char_indices() {
        if is_cjk(c) {
            if let Some(start) = other_start.take() {
                out.push(Piece::Other(&text[start..at]));
            }
            run.push(c);
        } else {
            if !run.is_empty() {
                out.push(Piece::Cjk(std::mem::take(&mut run)));
            }
            other_start.get_or_insert(at);
        }
    }
    if !run.is_empty() {
        out.push(Piece::Cjk(run));
    } else if let Some(start) = other_start {
        out.push(Piece::Other(&text[start..]));
    }
    out
}

fn bigrams(run: &[char]) -> impl Iterator<Item = String> + '_ {
    run.windows(2).map(|pair| pair.iter().collect())
}

/// The text as it goes into the index column.
pub fn index_text(text: &str) -> String {
    let mut out = String::with_capacity(text.len() * 2);
    for piece in pieces(text) {
        match piece {
            Piece::Other(other) => out.push_str(other),
            Piece::Cjk(run) => {
                out.push(' ');
                for bigram in bigrams(&run) {
                    out.push_str(&bigram);
                    out.push(' ');
                }
                if let Some(last) = run.last() {
                    out.push(*last);
                }
                out.push(' ');
            }
        }
    }
    out
}

/// Whether the tokenizer finds a token in `text` (letters and digits are token characters).
fn has_token(text: &str) -> bool {
    text.chars().any(char::is_alphanumeric)
}

/// The FTS5 match expression for a user query, or `None` when the query holds nothing to
/// search for (only spaces or punctuation).
pub fn match_expression(query: &str) -> Option<String> {
    let phrases = query_phrases(query);
    if phrases.is_empty() {
        None
    } else {
        Some(phrases.join(" AND "))
    }
}

/// Each term of a query as its FTS5 phrase (a match expression of its own).
pub fn query_phrases(query: &str) -> Vec<String> {
    query.split_whitespace().filter_map(term_phrase).collect()
}

/// One term as a quoted phrase, with `*` when its last token is a lone CJK character.
fn term_phrase(term: &str) -> Option<String> {
    let pieces = pieces(term);
    let mut tokens = String::new();
    let mut prefix = false;
    for (i, piece) in pieces.iter().enumerate() {
        match piece {
            Piece::Other(other) => {
                tokens.push_str(other);
            }
            Piece::Cjk(run) => {
                // In the index a run's last character stands alone right before whatever token
                // follows the run; only when the query goes on past the run does it say so.
                let followed = pieces[i + 1..].iter().any(|p| match p {
                    Piece::Cjk(_) => true,
                    Piece::Other(other) => has_token(other),
                });
                tokens.push(' ');
                for bigram in bigrams(run) {
                    tokens.push_str(&bigram);
                    tokens.push(' ');
                }
                if followed || run.len() == 1 {
                    if let Some(last) = run.last() {
                        tokens.push(*last);
                    }
                    tokens.push(' ');
                }
                prefix = !followed && run.len() == 1;
            }
        }
        if let Piece::Other(other) = piece {
            if has_token(other) {
                prefix = false;
            }
        }
    }
    if !has_token(&tokens) {
        return None;
    }
    let quoted = format!("\"{}\"", tokens.trim().replace('"', "\"\""));
    Some(if prefix {
        format!("{quoted} *")
    } else {
        quoted
    })
}

/// The words of a query as they appear in text (CJK runs and alphanumeric runs), used to place
/// a snippet.
pub fn query_words(query: &str) -> Vec<String> {
    let mut words = Vec::new();
    for piece in pieces(query) {
        match piece {
            Piece::Cjk(run) => words.push(run.into_iter().collect()),
            Piece::Other(other) => words.extend(
                other
                    .split(|c: char| !c.is_alphanumeric())
                    .filter(|w| !w.is_empty())
                    .map(str::to_owned),
            ),
        }
    }
    words
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cjk_runs_become_bigrams_and_a_final_unigram() {
        assert_eq!(
            index_text("包周期续订的接口是？")
                .split_whitespace()
                .collect::<Vec<_>>(),
            [
                "包周", "周期", "期续", "续订", "订的", "的接", "接口", "口是", "是", "？"
            ]
        );
        assert_eq!(
            index_text("调用API续订")
                .split_whitespace()
                .collect::<Vec<_>>(),
            ["调用", "用", "API", "续订", "订"]
        );
        assert_eq!(
            index_text("a 中 b").split_whitespace().collect::<Vec<_>>(),
            ["a", "中", "b"]
        );
        assert_eq!(index_text("plain English."), "plain English.");
    }

    #[test]
    fn queries_become_quoted_phrases() {
        assert_eq!(match_expression("续订").as_deref(), Some("\"续订\""));
        assert_eq!(
            match_expression("续订的接口").as_deref(),
            Some("\"续订 订的 的接 接口\"")
        );
        assert_eq!(match_expression("续").as_deref(), Some("\"续\" *"));
        assert_eq!(
            match_expression("续订API").as_deref(),
            Some("\"续订 订 API\"")
        );
        assert_eq!(
            match_expression("renew  interface").as_deref(),
            Some("\"renew\" AND \"interface\"")
        );
        assert_eq!(
            match_expression("say \"hi\"").as_deref(),
            Some("\"say\" AND \"\"\"hi\"\"\"")
        );
        assert_eq!(match_expression("续订？").as_deref(), Some("\"续订 ？\""));
        assert_eq!(match_expression("  \" * - ").as_deref(), None);
        assert_eq!(match_expression("").as_deref(), None);
    }

    #[test]
    fn query_words_split_scripts() {
        assert_eq!(query_words("续订API v2!"), ["续订", "API", "v2"]);
    }
}
