//! Selectors on evidence refs (seed 004 `refs[].selector`): which part of an evidence's
//! `content` a message or block cites.
//!
//! Grammar: comma-separated parts, each at most once, applied in this order whatever the order
//! written:
//! - `field:<path>`, or the bare path (seed 004: 片段/字段路径, e.g. `data.summary`): a path into
//!   structured content, `data.items[0].name` (keys separated by `.`, array indexes in `[n]`, a
//!   leading `[n]` allowed);
//! - `lines:A-B` or `lines:A`: lines A to B, 1-based and inclusive, as an editor numbers them
//!   (lines end at `\n`; a trailing newline does not start another line);
//! - `chars:A-B`: characters (Unicode scalar values) A to B, 0-based and half-open like a
//!   string slice; combined with `lines`, counted within the selected lines.
//!
//! `lines` and `chars` need text: the content itself, or the value `field` selected, must be a
//! string. Every failure is a [`SelectorError`]; a selector never silently yields nothing.

use std::fmt;

use crate::wire::kind_of;
use serde_json::Value;

/// Why a selector cannot be read or applied.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum SelectorError {
    #[error("malformed selector {selector:?}: {reason}")]
    Malformed { selector: String, reason: String },
    #[error("selector {selector:?} is out of range: {reason}")]
    OutOfRange { selector: String, reason: String },
    #[error("selector {selector:?}: no field {at:?} in the evidence content")]
    FieldNotFound { selector: String, at: String },
    #[error("selector {selector:?} selects text, but the value is {found}")]
    NotText {
        selector: String,
        found: &'static str,
    },
    #[error("selector {selector:?}: the evidence has no content to select from")]
    NoContent { selector: String },
}

/// One step of a field path.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FieldStep {
    Key(String),
    Index(usize),
}

/// A parsed selector.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Selector {
    pub field: Option<Vec<FieldStep>>,
    /// 1-based, inclusive.
    pub lines: Option<(usize, usize)>,
    /// 0-based, half-open.
    pub chars: Option<(usize, usize)>,
}

impl Selector {
    /// Reads a selector; see the module documentation for the grammar.
    pub fn parse(text: &str) -> Result<Self, SelectorError> {
        let malformed = |reason: String| SelectorError::Malformed {
            selector: text.to_owned(),
            reason,
        };
        if text.is_empty() {
            return Err(malformed("empty selector".into()));
        }
        let mut selector = Selector::default();
        for part in text.split(',') {
            // A part without a name is a field path (seed 004 §2: 字段路径).
            let (name, arg) = part.split_once(':').unwrap_or(("field", part));
            match name {
                "field" => {
                    if selector.field.is_some() {
                        return Err(malformed("`field` given twice".into()));
                    }
                    selector.field = Some(parse_field(arg).map_err(malformed)?);
                }
                "lines" => {
                    if selector.lines.is_some() {
                        return Err(malformed("`lines` given twice".into()));
                    }
                    let (from, to) = parse_range(arg, true).map_err(malformed)?;
                    if from == 0 {
                        return Err(malformed("lines are numbered from 1".into()));
                    }
                    if from > to {
                        return Err(malformed(format!("lines {from}-{to} run backwards")));
                    }
                    selector.lines = Some((from, to));
                }
                "chars" => {
                    if selector.chars.is_some() {
                        return Err(malformed("`chars` given twice".into()));
                    }
                    let (from, to) = parse_range(arg, false).map_err(malformed)?;
                    if from >= to {
                        return Err(malformed(format!(
                            "chars {from}-{to} select nothing (the end is exclusive)"
                        )));
                    }
                    selector.chars = Some((from, to));
                }
                other => {
                    return Err(malformed(format!(
                        "unknown part {other:?}; expected field, lines or chars"
                    )))
                }
            }
        }
        Ok(selector)
    }

    /// Selects from `content`: the value at `field`, narrowed to `lines`, then `chars`.
    pub fn apply(&self, content: &Value) -> Result<Value, SelectorError> {
        let mut value = content;
        if let Some(steps) = &self.field {
            value = walk(value, steps).map_err(|at| SelectorError::FieldNotFound {
                selector: self.to_string(),
                at,
            })?;
        }
        if self.lines.is_none() && self.chars.is_none() {
            return Ok(value.clone());
        }
        let Value::String(text) = value else {
            return Err(SelectorError::NotText {
                selector: self.to_string(),
                found: kind_of(value),
            });
        };
        Ok(Value::String(self.apply_to_text(text)?.to_owned()))
    }

    /// Applies `lines` and `chars` to a text (the `field` part is ignored).
    pub fn apply_to_text<'t>(&self, text: &'t str) -> Result<&'t str, SelectorError> {
        let mut slice = text;
        if let Some((from, to)) = self.lines {
            slice = select_lines(text, from, to).map_err(|reason| SelectorError::OutOfRange {
                selector: self.to_string(),
                reason,
            })?;
        }
        if let Some((from, to)) = self.chars {
            slice = select_chars(slice, from, to).map_err(|reason| SelectorError::OutOfRange {
                selector: self.to_string(),
                reason,
            })?;
        }
        Ok(slice)
    }
}

impl fmt::Display for Selector {
    /// The canonical form: `field`, `lines`, `chars`, in that order.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut parts = Vec::new();
        if let Some(steps) = &self.field {
            let mut path = String::new();
            for step in steps {
                match step {
                    FieldStep::Key(key) => {
                        if !path.is_empty() {
                            path.push('.');
                        }
                        path.push_str(key);
                    }
                    FieldStep::Index(i) => path.push_str(&format!("[{i}]")),
                }
            }
            parts.push(format!("field:{path}"));
        }
        if let Some((from, to)) = self.lines {
            parts.push(format!("lines:{from}-{to}"));
        }
        if let Some((from, to)) = self.chars {
            parts.push(format!("chars:{from}-{to}"));
        }
        f.write_str(&parts.join(","))
    }
}

/// Parses and applies in one go.
pub fn select(selector: &str, content: &Value) -> Result<Value, SelectorError> {
    Selector::parse(selector)?.apply(content)
}

fn parse_number(text: &str) -> Result<usize, String> {
    if text.is_empty() || !text.bytes().all(|b| b.is_ascii_digit()) {
        return Err(format!("{text:?} is not a number"));
    }
    text.parse::<usize>()
        .map_err(|_| format!("{text} is too large"))
}

fn parse_range(arg: &str, single_allowed: bool) -> Result<(usize, usize), String> {
    match arg.split_once('-') {
        Some((from, to)) => Ok((parse_number(from)?, parse_number(to)?)),
        None if single_allowed => {
            let n = parse_number(arg)?;
            Ok((n, n))
        }
        None => Err(format!("{arg:?} is not a range A-B")),
    }
}

fn parse_field(path: &str) -> Result<Vec<FieldStep>, String> {
    if path.is_empty() {
        return Err("empty field path".into());
    }
    let mut steps = Vec::new();
    for (i, segment) in path.split('.').enumerate() {
        let (key, mut rest) = match segment.find('[') {
            Some(at) => segment.split_at(at),
            None => (segment, ""),
        };
        // Only the first segment may start with an index (`[0].name`).
        let leading_index = i == 0 && !rest.is_empty();
        if key.is_empty() && !leading_index {
            return Err(format!("empty key in field path {path:?}"));
        }
        if key.contains(']') {
            return Err(format!("stray `]` in field path {path:?}"));
        }
        if !key.is_empty() {
            steps.push(FieldStep::Key(key.to_owned()));
        }
        while !rest.is_empty() {
            let Some(inner) = rest.strip_prefix('[') else {
                return Err(format!("unexpected {rest:?} in field path {path:?}"));
            };
            let Some((index, after)) = inner.split_once(']') else {
                return Err(format!("unclosed `[` in field path {path:?}"));
            };
            steps.push(FieldStep::Index(
                parse_number(index).map_err(|e| format!("array index: {e}"))?,
            ));
            rest = after;
        }
    }
    Ok(steps)
}

/// Follows `steps`; on failure, the path walked up to and including the missing step.
fn walk<'v>(mut value: &'v Value, steps: &[FieldStep]) -> Result<&'v Value, String> {
    let mut walked = String::new();
    for step in steps {
        let next = match step {
            FieldStep::Key(key) => {
                if !walked.is_empty() {
                    walked.push('.');
                }
                walked.push_str(key);
                value.as_object().and_then(|object| object.get(key))
            }
            FieldStep::Index(i) => {
                walked.push_str(&format!("[{i}]"));
                value.as_array().and_then(|array| array.get(*i))
            }
        };
        value = next.ok_or_else(|| walked.clone())?;
    }
    Ok(value)
}

fn select_lines(text: &str, from: usize, to: usize) -> Result<&str, String> {
    // Byte offsets where each line starts; a final `\n` does not open another line.
    let mut starts = vec![0];
    starts.extend(
        text.match_indices('\n')
            .map(|(at, _)| at + 1)
            .filter(|&at| at < text.len()),
    );
    let count = if text.is_empty() { 0 } else { starts.len() };
    if to > count {
        return Err(format!(
            "lines {from}-{to} asked, the text has {count} line(s)"
        ));
    }
    let start = starts[from - 1];
    let end = match starts.get(to) {
        Some(&next) => next - 1,
        None => text.strip_suffix('\n').map_or(text.len(), str::len),
    };
    let slice = &text[start..end];
    Ok(slice.strip_suffix('\r').unwrap_or(slice))
}

fn select_chars(text: &str, from: usize, to: usize) -> Result<&str, String> {
    let mut boundaries = text.char_indices().map(|(at, _)| at).chain([text.len()]);
    let count = text.chars().count();
    if to > count {
        return Err(format!(
            "chars {from}-{to} asked, the text has {count} character(s)"
        ));
    }
    let start = boundaries.nth(from).unwrap_or(text.len());
    let end = if to == from {
        start
    } else {
        boundaries.nth(to - from - 1).unwrap_or(text.len())
    };
    Ok(&text[start..end])
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn text(lines: usize) -> String {
        (1..=lines).map(|n| format!("line {n}\n")).collect()
    }

    #[test]
    fn lines_are_one_based_and_inclusive() {
        let content = json!(text(20));
        assert_eq!(
            select("lines:12-14", &content).unwrap(),
            json!("line 12\nline 13\nline 14")
        );
        assert_eq!(select("lines:20", &content).unwrap(), json!("line 20"));
        assert_eq!(select("lines:1-1", &json!("only")).unwrap(), json!("only"));
    }

    #[test]
    fn chars_are_zero_based_half_open_and_count_characters() {
        let content = json!("包周期续订的接口是？");
        assert_eq!(select("chars:3-5", &content).unwrap(), json!("续订"));
        assert_eq!(
            select("chars:0-10", &content).unwrap(),
            content,
            "the whole text"
        );
    }

    #[test]
    fn chars_within_lines() {
        let content = json!("first line\nsecond line\nthird line\n");
        assert_eq!(
            select("lines:2-3,chars:7-17", &content).unwrap(),
            json!("line\nthird")
        );
        // The order written does not matter.
        assert_eq!(
            select("chars:7-17,lines:2-3", &content).unwrap(),
            json!("line\nthird")
        );
    }

    #[test]
    fn field_paths_into_structured_content() {
        let content = json!({"data": {"items": [{"name": "a"}, {"name": "b", "text": "x\ny"}]}});
        assert_eq!(
            select("field:data.items[1].name", &content).unwrap(),
            json!("b")
        );
        assert_eq!(
            select("field:data.items[0]", &content).unwrap(),
            json!({"name": "a"})
        );
        assert_eq!(
            select("field:data.items[1].text,lines:2", &content).unwrap(),
            json!("y")
        );
        assert_eq!(select("field:[0]", &json!([7, 8])).unwrap(), json!(7));
        assert_eq!(
            select("field:m[1][0]", &json!({"m": [[1], [2, 3]]})).unwrap(),
            json!(2)
        );
    }

    #[test]
    fn canonical_form_round_trips() {
        for text in [
            "lines:12-18,chars:120-260",
            "field:data.items[0].name",
            "field:[2].x,lines:1-3,chars:0-2",
        ] {
            assert_eq!(Selector::parse(text).unwrap().to_string(), text);
        }
        assert_eq!(Selector::parse("lines:4").unwrap().to_string(), "lines:4-4");
        // Seed 004 §2: a bare field path (片段/字段路径) is a `field:` part.
        assert_eq!(
            Selector::parse("data.summary").unwrap(),
            Selector::parse("field:data.summary").unwrap()
        );
        assert_eq!(
            Selector::parse("data.text,lines:2").unwrap().to_string(),
            "field:data.text,lines:2-2"
        );
    }

    #[test]
    fn malformed_selectors_are_typed_errors() {
        for bad in [
            "",
            "lines:",
            "lines:a-b",
            "lines:0-3",
            "lines:5-2",
            "lines:-3",
            "lines:+1-2",
            "lines:1-2,lines:3-4",
            "chars:5",
            "chars:5-5",
            "chars:9-3",
            "rows:1-2",
            "lines:1-2,",
            "a..b",
            "a[x]",
            "field:",
            "field:a..b",
            "field:a[",
            "field:a[x]",
            "field:a]b",
            "field:a[1]b",
            "lines:99999999999999999999999-1",
        ] {
            let err = Selector::parse(bad).unwrap_err();
            assert!(
                matches!(err, SelectorError::Malformed { .. }),
                "{bad:?}: {err}"
            );
        }
    }

    #[test]
    fn out_of_range_is_an_error_never_an_empty_string() {
        let content = json!("one\ntwo\n");
        let err = select("lines:2-3", &content).unwrap_err();
        assert!(matches!(err, SelectorError::OutOfRange { .. }), "{err}");
        assert!(err.to_string().contains("2 line(s)"), "{err}");
        let err = select("chars:0-9", &content).unwrap_err();
        assert!(matches!(err, SelectorError::OutOfRange { .. }), "{err}");
        let err = select("lines:2,chars:0-4", &content).unwrap_err();
        assert!(matches!(err, SelectorError::OutOfRange { .. }), "{err}");
        let err = select("lines:1", &json!("")).unwrap_err();
        assert!(matches!(err, SelectorError::OutOfRange { .. }), "{err}");
    }

    #[test]
    fn missing_fields_and_non_text_are_errors() {
        let content = json!({"data": {"items": [1]}});
        let err = select("field:data.items[3]", &content).unwrap_err();
        assert_eq!(
            err,
            SelectorError::FieldNotFound {
                selector: "field:data.items[3]".into(),
                at: "data.items[3]".into()
            }
        );
        let err = select("field:data.nothing.deeper", &content).unwrap_err();
        assert!(matches!(err, SelectorError::FieldNotFound { ref at, .. } if at == "data.nothing"));
        let err = select("lines:1", &content).unwrap_err();
        assert!(matches!(
            err,
            SelectorError::NotText {
                found: "an object",
                ..
            }
        ));
        let err = select("field:data.items[0],chars:0-1", &content).unwrap_err();
        assert!(matches!(
            err,
            SelectorError::NotText {
                found: "a number",
                ..
            }
        ));
    }

    #[test]
    fn crlf_lines_drop_the_carriage_return() {
        assert_eq!(select("lines:1", &json!("a\r\nb\r\n")).unwrap(), json!("a"));
    }
}
