//! Finds where a JSON value ends while it is still arriving, without building it.
//!
//! The streaming parser must know when a call's JSON is complete (Llama and Mistral calls
//! have no closing tag) and should give up early on prose that merely starts like a call
//! ("use <tool_call> tags"), instead of holding back the rest of the answer. This scanner
//! tracks strings, escapes and bracket depth with a counter, so its cost is linear and its
//! stack use constant however deep the input nests. It only checks structure coarsely: any
//! byte outside a string that cannot appear in JSON ends the scan, and serde_json has the
//! final word on the completed text.

/// Deeper than serde_json's default recursion limit is refused here, where it costs nothing,
/// rather than after buffering the whole value.
pub(crate) const MAX_DEPTH: usize = 128;

/// What the scanner knows after the bytes seen so far.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Scan {
    /// The value is not finished.
    NeedMore,
    /// The value ends just before this byte offset.
    Complete(usize),
    /// This cannot be JSON (or nests deeper than [`MAX_DEPTH`]).
    Invalid,
}

#[derive(Debug, Default)]
pub(crate) struct JsonScanner {
    depth: usize,
    in_string: bool,
    escaped: bool,
}

impl JsonScanner {
    /// Scans `text[from..]`, where `text` starts with the value's opening `{` or `[`.
    /// Returns the verdict and the offset to resume from next time.
    pub(crate) fn scan(&mut self, text: &str, from: usize) -> (Scan, usize) {
        let bytes = text.as_bytes();
        let mut i = from;
        while i < bytes.len() {
            let b = bytes[i];
            i += 1;
            if self.in_string {
                if self.escaped {
                    self.escaped = false;
                } else if b == b'\\' {
                    self.escaped = true;
                } else if b == b'"' {
                    self.in_string = false;
                } else if b < 0x20 {
                    // Raw control characters (a literal newline) are not allowed in strings.
                    return (Scan::Invalid, i);
                }
                continue;
            }
            match b {
                b'"' => self.in_string = true,
                b'{' | b'[' => {
                    self.depth += 1;
                    if self.depth > MAX_DEPTH {
                        return (Scan::Invalid, i);
                    }
                }
                b'}' | b']' => {
                    if self.depth == 0 {
                        return (Scan::Invalid, i);
                    }
                    self.depth -= 1;
                    if self.depth == 0 {
                        return (Scan::Complete(i), i);
                    }
                }
                b',' | b':' | b' ' | b'\t' | b'\n' | b'\r' | b'0'..=b'9' | b'-' | b'+' | b'.' => {}
                // The letters of `true`, `false`, `null` and exponents.
                b't' | b'r' | b'u' | b'e' | b'f' | b'a' | b'l' | b's' | b'n' | b'E' => {}
                _ => return (Scan::Invalid, i),
            }
        }
        (Scan::NeedMore, i)
    }
}

#[cfg(test)]
mod tests {
    use super::{JsonScanner, Scan};

    fn scan_all(text: &str) -> Scan {
        JsonScanner::default().scan(text, 0).0
    }

    #[test]
    fn finds_the_end_of_a_value() {
        assert_eq!(
            scan_all(r#"{"a": [1, {"b": "}"}]} tail"#),
            Scan::Complete(22)
        );
        assert_eq!(scan_all(r#"{"a": "\"}"}"#), Scan::Complete(12));
        assert_eq!(
            scan_all(r#"[{"x": true}, {"y": null}]"#),
            Scan::Complete(26)
        );
        assert_eq!(scan_all(r#"{"a": "中文 😀"}"#), Scan::Complete(20));
    }

    #[test]
    fn resumes_where_it_stopped() {
        let text = r#"{"a": "x\"y", "b": [1, 2]}"#;
        for split in 0..text.len() {
            let mut scanner = JsonScanner::default();
            let (first, resume) = scanner.scan(&text[..split], 0);
            assert_eq!(first, Scan::NeedMore, "split at {split}");
            assert_eq!(scanner.scan(text, resume).0, Scan::Complete(text.len()));
        }
    }

    #[test]
    fn rejects_prose_and_depth() {
        assert_eq!(scan_all("{ is how a call starts"), Scan::Invalid);
        assert_eq!(scan_all("{\"a\": \"line\nbreak\"}"), Scan::Invalid);
        assert_eq!(scan_all(&"[".repeat(10_000)), Scan::Invalid);
        assert_eq!(scan_all("{\"a\": 1"), Scan::NeedMore);
    }
}
