//! Chunks that follow a document's structure and keep where they came from: the lines of the
//! file (or the page of a PDF), so a citation opens the file where the words are.
//!
//! A chunk closes at a hard break (a Markdown heading, a top-level item of code after a blank
//! line, a page) once it holds anything, and at a soft break (a blank line) once it is near
//! the target size; a run of text with no break is cut at the largest size, a single huge
//! line (minified code) into pieces that share its line number.

use crate::extract::{Body, Format};

/// Size a chunk aims for, in bytes (a few hundred tokens: enough context, still precise).
pub const TARGET_BYTES: usize = 1_200;
/// Size past which a chunk is closed at any line.
pub const MAX_BYTES: usize = 2_400;

/// Where a chunk is in its file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Span {
    /// Lines `start..=end`, from 1 (paragraphs for DOCX and ODT).
    Lines { start: u32, end: u32 },
    /// A page of a PDF, from 1, and lines within the page's text.
    Page { page: u32, start: u32, end: u32 },
}

/// One piece of a file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Chunk {
    pub span: Span,
    /// The heading it sits under (Markdown), or the header row (CSV).
    pub heading: Option<String>,
    pub text: String,
}

/// The chunks of a file's text.
pub fn chunks(format: Format, body: &Body) -> Vec<Chunk> {
    match body {
        Body::Lines(text) | Body::Paragraphs(text) => lines_of(format, text, None),
        Body::Pages(pages) => pages
            .iter()
            .enumerate()
            .flat_map(|(i, page)| {
                let number = u32::try_from(i + 1).unwrap_or(u32::MAX);
                lines_of(format, page, Some(number))
            })
            .collect(),
    }
}

fn is_heading(format: Format, line: &str) -> Option<String> {
    if format != Format::Markdown {
        return None;
    }
    let trimmed = line.trim_start();
    let hashes = trimmed.chars().take_while(|&c| c == '#').count();
    if (1..=6).contains(&hashes) && trimmed[hashes..].starts_with(' ') {
        return Some(trimmed[hashes..].trim().to_owned());
    }
    None
}

/// A line that starts a top-level item of code (a function, a class, an impl…).
fn starts_item(format: Format, line: &str) -> bool {
    if format != Format::Code || line.starts_with([' ', '\t', '}', ')', ']']) || line.is_empty() {
        return false;
    }
    const STARTS: &[&str] = &[
        "fn ",
        "pub ",
        "impl",
        "struct ",
        "enum ",
        "trait ",
        "mod ",
        "def ",
        "class ",
        "async ",
        "function ",
        "export ",
        "const ",
        "let ",
        "var ",
        "type ",
        "interface ",
        "func ",
        "public ",
        "private ",
        "protected ",
        "static ",
        "#[",
        "@",
        "//",
        "/*",
        "#",
    ];
    STARTS.iter().any(|s| line.starts_with(s))
}

struct Builder {
    format: Format,
    page: Option<u32>,
    heading: Option<String>,
    text: String,
    start: u32,
    end: u32,
    out: Vec<Chunk>,
}

impl Builder {
    fn close(&mut self) {
        if !self.text.trim().is_empty() {
            let span = match self.page {
                Some(page) => Span::Page {
                    page,
                    start: self.start,
                    end: self.end,
                },
                None => Span::Lines {
                    start: self.start,
                    end: self.end,
                },
            };
            self.out.push(Chunk {
                span,
                heading: self.heading.clone(),
                text: std::mem::take(&mut self.text).trim_end().to_owned(),
            });
        }
        self.text.clear();
    }

    fn push(&mut self, number: u32, line: &str) {
        if self.text.is_empty() {
            self.start = number;
        }
        // Blank lines at a chunk's end are trimmed from its text, so not counted in its span.
        if !line.trim().is_empty() {
            self.end = number;
        }
        self.text.push_str(line);
        self.text.push('\n');
    }

    /// A line longer than a chunk: pieces of it, each a chunk of its own on that line.
    fn push_long(&mut self, number: u32, line: &str) {
        self.close();
        let mut rest = line;
        while !rest.is_empty() {
            let mut cut = rest.len().min(MAX_BYTES);
            while !rest.is_char_boundary(cut) {
                cut -= 1;
            }
            self.push(number, &rest[..cut]);
            self.close();
            rest = &rest[cut..];
        }
    }
}

fn lines_of(format: Format, text: &str, page: Option<u32>) -> Vec<Chunk> {
    let mut b = Builder {
        format,
        page,
        heading: None,
        text: String::new(),
        start: 1,
        end: 1,
        out: Vec::new(),
    };
    let mut csv_header: Option<String> = None;
    let mut previous_blank = true;
    for (i, line) in text.lines().enumerate() {
        let number = u32::try_from(i + 1).unwrap_or(u32::MAX);
        let blank = line.trim().is_empty();
        if b.format == Format::Csv && csv_header.is_none() && !blank {
            csv_header = Some(line.to_owned());
            b.heading = csv_header.clone();
        }
        if let Some(heading) = is_heading(b.format, line) {
            b.close();
            b.heading = Some(heading);
        } else if (previous_blank
            && starts_item(b.format, line)
            && b.text.len() >= TARGET_BYTES / 4)
            || (blank && b.text.len() >= TARGET_BYTES)
        {
            b.close();
        }
        if line.len() > MAX_BYTES {
            b.push_long(number, line);
        } else if !(blank && b.text.is_empty()) {
            if b.text.len() + line.len() > MAX_BYTES {
                b.close();
            }
            b.push(number, line);
        }
        previous_blank = blank;
    }
    b.close();
    b.out
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    fn lines(chunk: &Chunk) -> (u32, u32) {
        match chunk.span {
            Span::Lines { start, end } => (start, end),
            Span::Page { start, end, .. } => (start, end),
        }
    }

    #[test]
    fn markdown_breaks_at_headings_and_keeps_line_numbers() {
        let text = "# One\nalpha\n\n## Two\nbeta\ngamma\n";
        let got = chunks(Format::Markdown, &Body::Lines(text.into()));
        assert_eq!(got.len(), 2);
        assert_eq!(lines(&got[0]), (1, 2));
        assert_eq!(got[0].heading.as_deref(), Some("One"));
        assert_eq!(lines(&got[1]), (4, 6));
        assert_eq!(got[1].heading.as_deref(), Some("Two"));
        // Line N of the chunk's span is line N of the text.
        let all: Vec<&str> = text.lines().collect();
        assert_eq!(got[1].text.lines().next(), Some(all[3]));
    }

    #[test]
    fn long_text_is_cut_near_the_target_at_blank_lines() {
        let paragraph = "word ".repeat(60);
        let text = vec![paragraph.as_str(); 40].join("\n\n");
        let got = chunks(Format::Text, &Body::Lines(text.clone()));
        assert!(got.len() > 5);
        for c in &got {
            assert!(c.text.len() <= MAX_BYTES, "{}", c.text.len());
            let (start, end) = lines(c);
            let expected: Vec<&str> = text
                .lines()
                .skip(start as usize - 1)
                .take((end - start + 1) as usize)
                .collect();
            assert_eq!(c.text, expected.join("\n").trim_end());
        }
    }

    #[test]
    fn a_minified_line_becomes_pieces_on_its_line_and_pages_keep_their_number() {
        let text = format!("a\n{}\nb", "x".repeat(MAX_BYTES * 2 + 10));
        let got = chunks(Format::Code, &Body::Lines(text));
        assert!(got.iter().filter(|c| lines(c) == (2, 2)).count() >= 3);
        let pages = chunks(
            Format::Pdf,
            &Body::Pages(vec!["one".into(), String::new(), "three".into()]),
        );
        assert_eq!(pages.len(), 2);
        assert_eq!(
            pages[1].span,
            Span::Page {
                page: 3,
                start: 1,
                end: 1
            }
        );
    }

    #[test]
    fn code_breaks_before_top_level_items() {
        let body = "    let x = 1;\n".repeat(30);
        let text = format!("fn a() {{\n{body}}}\n\nfn b() {{\n{body}}}\n");
        let got = chunks(Format::Code, &Body::Lines(text));
        assert!(got.iter().any(|c| c.text.starts_with("fn b()")));
    }
}
