//! Dotted paths with array indices (`results.call_1.result.items[0].name`), shared by `${…}`
//! references and the condition language.

use std::fmt;

use serde_json::Value;

/// One step of a path.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Segment {
    /// `.name` (or the first name).
    Key(String),
    /// `[3]`.
    Index(usize),
}

/// A path into a JSON value.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct Path(pub Vec<Segment>);

/// Why a path does not parse.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("bad path `{text}` at character {position}: {message}")]
pub struct PathError {
    pub text: String,
    /// 1-based character position.
    pub position: usize,
    pub message: String,
}

/// Whether `c` may start a path name.
pub fn is_name_start(c: char) -> bool {
    c.is_alphabetic() || c == '_' || c == '$'
}

/// Whether `c` may continue a path name (ids like `call-1` keep their hyphen).
pub fn is_name_char(c: char) -> bool {
    c.is_alphanumeric() || c == '_' || c == '-' || c == '$'
}

impl Path {
    /// Parses `a.b[0].c`.
    pub fn parse(text: &str) -> Result<Path, PathError> {
        let err = |position: usize, message: &str| PathError {
            text: text.to_owned(),
            position: position + 1,
            message: message.to_owned(),
        };
        let chars: Vec<char> = text.chars().collect();
        let mut segments = Vec::new();
        let mut i = 0;
        let mut expect_name = true;
        while i < chars.len() {
            let c = chars[i];
            if expect_name {
                if !is_name_start(c) && !c.is_ascii_digit() {
                    return Err(err(i, "expected a name"));
                }
                let start = i;
                while i < chars.len() && is_name_char(chars[i]) {
                    i += 1;
                }
                segments.push(Segment::Key(chars[start..i].iter().collect()));
                expect_name = false;
            } else if c == '.' {
                i += 1;
                expect_name = true;
                if i == chars.len() {
                    return Err(err(i, "expected a name after `.`"));
                }
            } else if c == '[' {
                let start = i + 1;
                let mut j = start;
                while j < chars.len() && chars[j].is_ascii_digit() {
                    j += 1;
                }
                if j == start || j >= chars.len() || chars[j] != ']' {
                    return Err(err(i, "expected `[<index>]`"));
                }
                let digits: String = chars[start..j].iter().collect();
                let index = digits
                    .parse::<usize>()
                    .map_err(|_| err(start, "index too large"))?;
                segments.push(Segment::Index(index));
                i = j + 1;
            } else {
                return Err(err(i, "expected `.` or `[`"));
            }
        }
        if segments.is_empty() {
            return Err(err(0, "empty path"));
        }
        Ok(Path(segments))
    }

    /// The value at this path under `root`, if every step exists.
    pub fn lookup<'a>(&self, root: &'a Value) -> Option<&'a Value> {
        lookup_segments(&self.0, root)
    }

    /// The first segment's name, if it is a key.
    pub fn head(&self) -> Option<&str> {
        match self.0.first() {
            Some(Segment::Key(k)) => Some(k),
            _ => None,
        }
    }

    /// The second segment's name, if it is a key (the call or instruction id of a reference).
    pub fn second(&self) -> Option<&str> {
        match self.0.get(1) {
            Some(Segment::Key(k)) => Some(k),
            _ => None,
        }
    }
}

/// Follows `segments` from `root`.
pub fn lookup_segments<'a>(segments: &[Segment], root: &'a Value) -> Option<&'a Value> {
    let mut cur = root;
    for seg in segments {
        cur = match (seg, cur) {
            (Segment::Key(k), Value::Object(map)) => map.get(k)?,
            (Segment::Index(i), Value::Array(items)) => items.get(*i)?,
            _ => return None,
        };
    }
    Some(cur)
}

impl fmt::Display for Path {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, seg) in self.0.iter().enumerate() {
            match seg {
                Segment::Key(k) if i == 0 => write!(f, "{k}")?,
                Segment::Key(k) => write!(f, ".{k}")?,
                Segment::Index(n) => write!(f, "[{n}]")?,
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn parses_names_and_indices() -> Result<(), PathError> {
        let p = Path::parse("results.call-1.result.items[0].name")?;
        assert_eq!(p.to_string(), "results.call-1.result.items[0].name");
        assert_eq!(p.0.len(), 6);
        let doc = json!({"results": {"call-1": {"result": {"items": [{"name": "x"}]}}}});
        assert_eq!(p.lookup(&doc), Some(&json!("x")));
        Ok(())
    }

    #[test]
    fn missing_steps_and_wrong_types_give_none() -> Result<(), PathError> {
        let doc = json!({"a": {"b": [1, 2]}});
        assert_eq!(Path::parse("a.b[2]")?.lookup(&doc), None);
        assert_eq!(Path::parse("a.b.c")?.lookup(&doc), None);
        assert_eq!(Path::parse("a[0]")?.lookup(&doc), None);
        assert_eq!(Path::parse("a.b[1]")?.lookup(&doc), Some(&json!(2)));
        Ok(())
    }

    #[test]
    fn malformed_paths_are_rejected_with_a_position() {
        for (text, position) in [("a..b", 3), ("a.", 3), ("a[x]", 2), ("a b", 2), ("", 1)] {
            match Path::parse(text) {
                Err(e) => assert_eq!(e.position, position, "{text}: {e}"),
                Ok(p) => panic!("{text} parsed as {p}"),
            }
        }
    }
}
