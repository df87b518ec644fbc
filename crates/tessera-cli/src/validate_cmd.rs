//! `tessera validate <kind> <file|->`: check a document (or an NDJSON file, line by line) against
//! the protocol rules and report every problem with its JSON path.

use std::{io::Read, path::Path};

use serde_json::Value;
use tessera_protocol::{validate, DocumentKind, Problem};
use thiserror::Error;

#[derive(Debug, Error)]
pub enum ValidateCmdError {
    #[error("cannot read {path}: {source}")]
    Read {
        path: String,
        source: std::io::Error,
    },
    #[error("{path} is not UTF-8 text (byte {offset}); documents must be UTF-8 JSON")]
    NotUtf8 { path: String, offset: usize },
}

/// The verdict on one input: the lines to print and whether it was valid.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Report {
    pub lines: Vec<String>,
    pub valid: bool,
}

/// Reads `source` (a path, or `-` for standard input) and checks it.
pub fn run(kind: DocumentKind, source: &str) -> Result<Report, ValidateCmdError> {
    let bytes = if source == "-" {
        let mut buf = Vec::new();
        std::io::stdin()
            .read_to_end(&mut buf)
            .map_err(|e| ValidateCmdError::Read {
                path: "standard input".into(),
                source: e,
            })?;
        buf
    } else {
        std::fs::read(source).map_err(|e| ValidateCmdError::Read {
            path: source.into(),
            source: e,
        })?
    };
    let text = String::from_utf8(bytes).map_err(|e| ValidateCmdError::NotUtf8 {
        path: source.into(),
        offset: e.utf8_error().valid_up_to(),
    })?;
    let force_ndjson = Path::new(source)
        .extension()
        .and_then(|e| e.to_str())
        .is_some_and(|e| e.eq_ignore_ascii_case("ndjson") || e.eq_ignore_ascii_case("jsonl"));
    Ok(check_text(kind, &text, force_ndjson))
}

/// Checks text that holds one JSON document, or one per line (NDJSON).
pub fn check_text(kind: DocumentKind, text: &str, force_ndjson: bool) -> Report {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    if !force_ndjson {
        match serde_json::from_str::<Value>(text) {
            Ok(doc) => return single(validate(kind, &doc)),
            Err(err) if !looks_like_ndjson(text) => {
                return single(vec![malformed(&err, err.line(), err.column())]);
            }
            Err(_) => {}
        }
    }
    ndjson(kind, text)
}

fn single(problems: Vec<Problem>) -> Report {
    if problems.is_empty() {
        Report {
            lines: vec!["ok".into()],
            valid: true,
        }
    } else {
        Report {
            lines: problems.iter().map(ToString::to_string).collect(),
            valid: false,
        }
    }
}

/// Several non-empty lines of which the first is a whole JSON value on its own.
fn looks_like_ndjson(text: &str) -> bool {
    let mut lines = text.lines().filter(|l| !l.trim().is_empty());
    let Some(first) = lines.next() else {
        return false;
    };
    lines.next().is_some() && serde_json::from_str::<Value>(first).is_ok()
}

fn ndjson(kind: DocumentKind, text: &str) -> Report {
    let mut lines = Vec::new();
    let mut documents = 0usize;
    for (i, line) in text.lines().enumerate() {
        let n = i + 1;
        if line.trim().is_empty() {
            continue;
        }
        documents += 1;
        let problems = match serde_json::from_str::<Value>(line) {
            Ok(doc) => validate(kind, &doc),
            Err(err) => vec![malformed(&err, n, err.column())],
        };
        lines.extend(problems.iter().map(|p| format!("line {n}: {p}")));
    }
    if documents == 0 {
        lines.push(format!(
            "$: {}",
            "empty input: expected a JSON document or one per line"
        ));
    }
    if lines.is_empty() {
        Report {
            lines: vec!["ok".into()],
            valid: true,
        }
    } else {
        Report {
            lines,
            valid: false,
        }
    }
}

fn malformed(err: &serde_json::Error, line: usize, column: usize) -> Problem {
    let what = err.to_string();
    // serde_json appends " at line L column C"; we say it our way.
    let what = what
        .rsplit_once(" at line ")
        .map_or(what.as_str(), |(head, _)| head);
    Problem {
        path: "$".into(),
        message: format!("malformed JSON at line {line}, column {column}: {what}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn malformed_json_names_line_and_column() {
        let r = check_text(DocumentKind::Event, "{\n  \"a\": 1,\n  oops\n}", false);
        assert!(!r.valid);
        assert_eq!(r.lines.len(), 1);
        assert!(
            r.lines[0].starts_with("$: malformed JSON at line 3, column 3"),
            "{:?}",
            r.lines
        );
    }

    #[test]
    fn empty_input_is_a_problem_not_a_crash() {
        let r = check_text(DocumentKind::Event, "", false);
        assert!(!r.valid);
        let r = check_text(DocumentKind::Event, "\n\n", true);
        assert!(!r.valid);
        assert!(r.lines[0].contains("empty input"));
    }

    #[test]
    fn ndjson_lines_are_numbered() {
        let text = "{\"x\":1}\n\nnot json\n";
        let r = check_text(DocumentKind::Event, text, false);
        assert!(!r.valid);
        assert!(r.lines.iter().any(|l| l.starts_with("line 1: ")));
        assert!(r
            .lines
            .iter()
            .any(|l| l.starts_with("line 3: $: malformed JSON at line 3, column 2")));
        assert!(!r.lines.iter().any(|l| l.starts_with("line 2: ")));
    }
}
