//! Routing rules compiled once (when the set is validated) and matched against a message.

use regex::{Regex, RegexBuilder};
use serde::{Deserialize, Serialize};

use super::RouteRule;

/// The rule that decided a route.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RuleMatch {
    pub profile: String,
    /// Its position in the profile's `rules`.
    pub rule_index: usize,
    pub rule: RouteRule,
    /// What matched: the keyword as configured, the regex's match, or the prefix as typed.
    pub matched: String,
}

/// A rule ready to match.
#[derive(Clone, Debug)]
pub(crate) enum Matcher {
    /// Lower-cased, blank ones dropped.
    Keywords(Vec<String>),
    Regex(Regex),
    Prefix(String),
}

/// Big enough for any sensible routing pattern, small enough that a pasted monster cannot make
/// every message pay for it.
const REGEX_SIZE_LIMIT: usize = 1 << 20;

impl Matcher {
    /// The matcher, or what is wrong with the rule (for a [`super::ProfileProblem`]), with the
    /// field it concerns relative to the rule.
    pub(crate) fn compile(rule: &RouteRule) -> Result<Self, (&'static str, String)> {
        match rule {
            RouteRule::Keywords { any } => {
                if any.is_empty() {
                    return Err(("any", "needs at least one keyword".to_owned()));
                }
                if let Some(i) = any.iter().position(|k| k.trim().is_empty()) {
                    return Err(("any", format!("keyword {i} is blank")));
                }
                Ok(Self::Keywords(
                    any.iter().map(|k| k.trim().to_lowercase()).collect(),
                ))
            }
            RouteRule::Regex { pattern } => {
                if pattern.is_empty() {
                    return Err(("pattern", "is empty (it would match everything)".to_owned()));
                }
                RegexBuilder::new(pattern)
                    .size_limit(REGEX_SIZE_LIMIT)
                    .build()
                    .map(Self::Regex)
                    // The regex error spans several lines with a caret under the fault; one
                    // line reads better in a list of problems.
                    .map_err(|e| ("pattern", one_line(&e.to_string())))
            }
            RouteRule::Prefix { prefix } => {
                let prefix = prefix.trim();
                if prefix.is_empty() {
                    return Err(("prefix", "is blank".to_owned()));
                }
                Ok(Self::Prefix(prefix.to_lowercase()))
            }
        }
    }

    /// What matched in `text` (`lower` is `text` lower-cased), if anything.
    pub(crate) fn find(&self, rule: &RouteRule, text: &str, lower: &str) -> Option<String> {
        match (self, rule) {
            (Self::Keywords(words), RouteRule::Keywords { any }) => words
                .iter()
                .zip(any)
                .find(|(word, _)| contains_word(lower, word))
                .map(|(_, original)| original.trim().to_owned()),
            (Self::Regex(re), _) => re.find(text).map(|m| m.as_str().to_owned()),
            (Self::Prefix(prefix), _) => {
                prefix_len(text, prefix).map(|len| text.trim_start()[..len].to_owned())
            }
            _ => None,
        }
    }
}

/// The length in bytes of `prefix` at the start of `text` (leading spaces skipped), compared
/// without case, when it is there as a whole command.
pub(crate) fn prefix_len(text: &str, prefix_lower: &str) -> Option<usize> {
    let text = text.trim_start();
    let wanted = prefix_lower.chars().count();
    // Compare char by char so a lower-casing that changes byte lengths cannot shift the cut.
    let end = text
        .char_indices()
        .nth(wanted)
        .map_or(text.len(), |(i, _)| i);
    let head = &text[..end];
    if head.chars().count() != wanted || head.to_lowercase() != prefix_lower {
        return None;
    }
    let needs_boundary = prefix_lower.chars().next_back().is_some_and(is_word_char);
    let next = text[end..].chars().next();
    if needs_boundary && next.is_some_and(|c| !c.is_whitespace()) {
        return None;
    }
    Some(end)
}

/// Whether `word` occurs in `haystack`, standing alone where it starts or ends with an ASCII
/// word character (CJK text has no spaces between words, so it matches anywhere).
fn contains_word(haystack: &str, word: &str) -> bool {
    let check_start = word.chars().next().is_some_and(is_word_char);
    let check_end = word.chars().next_back().is_some_and(is_word_char);
    haystack.match_indices(word).any(|(start, found)| {
        let before = haystack[..start].chars().next_back();
        let after = haystack[start + found.len()..].chars().next();
        let joined_before = check_start && before.is_some_and(is_word_char);
        let joined_after = check_end && after.is_some_and(is_word_char);
        !joined_before && !joined_after
    })
}

fn is_word_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_'
}

fn one_line(text: &str) -> String {
    text.lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.chars().all(|c| c == '^' || c == ' '))
        .collect::<Vec<_>>()
        .join(" ")
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use super::*;

    fn find(rule: RouteRule, text: &str) -> Option<String> {
        let m = Matcher::compile(&rule).unwrap();
        m.find(&rule, text, &text.to_lowercase())
    }

    fn keywords(words: &[&str]) -> RouteRule {
        RouteRule::Keywords {
            any: words.iter().map(|w| (*w).to_owned()).collect(),
        }
    }

    #[test]
    fn keywords_ignore_case_and_respect_ascii_words() {
        assert_eq!(
            find(keywords(&["Plan"]), "Make a PLAN."),
            Some("Plan".into())
        );
        assert_eq!(find(keywords(&["plan"]), "an airplane"), None);
        assert_eq!(find(keywords(&["plan"]), "plans"), None);
        assert_eq!(
            find(keywords(&["计划"]), "帮我做个计划吧"),
            Some("计划".into())
        );
        assert_eq!(find(keywords(&["plan"]), "plan计划"), Some("plan".into()));
        assert_eq!(
            find(keywords(&["x", "c++"]), "I write C++ daily"),
            Some("c++".into())
        );
    }

    #[test]
    fn prefixes_are_whole_commands() {
        let rule = || RouteRule::Prefix {
            prefix: "/plan".into(),
        };
        assert_eq!(find(rule(), "  /Plan a trip"), Some("/Plan".into()));
        assert_eq!(find(rule(), "/plan"), Some("/plan".into()));
        assert_eq!(find(rule(), "/planet x"), None);
        assert_eq!(find(rule(), "do /plan"), None);
        let cjk = RouteRule::Prefix {
            prefix: "翻译:".into(),
        };
        assert_eq!(find(cjk, "翻译:你好"), Some("翻译:".into()));
    }

    #[test]
    fn regexes_match_anywhere_and_bad_ones_are_refused() {
        let rule = RouteRule::Regex {
            pattern: r"(?i)\bsql\b|数据库".into(),
        };
        assert_eq!(find(rule.clone(), "查一下数据库"), Some("数据库".into()));
        assert_eq!(find(rule, "Write SQL for me"), Some("SQL".into()));
        let (field, message) = Matcher::compile(&RouteRule::Regex {
            pattern: "(unclosed".into(),
        })
        .unwrap_err();
        assert_eq!(field, "pattern");
        assert!(!message.contains('\n'), "{message}");
        assert!(message.contains("unclosed"), "{message}");
    }
}
