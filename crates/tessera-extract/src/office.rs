//! DOCX and ODT: their paragraphs, one per line, so line N of the text is paragraph N of the
//! document (headings and table cells are paragraphs too; empty paragraphs keep their line).
//!
//! Only the one XML member holding the body is read (`word/document.xml`, `content.xml`),
//! through [`zip_bounded`](super::zip_bounded). The XML reader is a pull parser: no recursion,
//! no DTD, and entities other than the five predefined ones and character references are
//! dropped, so a document cannot expand itself.

use quick_xml::events::Event;

use super::zip_bounded;
use super::{ExtractError, Limits};

pub(super) fn docx_paragraphs(bytes: &[u8], limits: &Limits) -> Result<String, ExtractError> {
    let xml = zip_bounded::member(bytes, "word/document.xml", "DOCX", limits)?;
    paragraphs(&xml, &DOCX, limits)
}

pub(super) fn odt_paragraphs(bytes: &[u8], limits: &Limits) -> Result<String, ExtractError> {
    let xml = zip_bounded::member(bytes, "content.xml", "ODT", limits)?;
    paragraphs(&xml, &ODT, limits)
}

/// How one format marks its paragraphs and their text.
struct Dialect {
    format: &'static str,
    paragraphs: &'static [&'static str],
    /// Text counts only inside one of these (None: anywhere inside a paragraph).
    text: Option<&'static str>,
    /// Elements that stand for a space (runs of spaces read as one).
    spaces: &'static [&'static str],
    /// Subtrees whose text is not the document's (tab stops, deleted text, fallbacks).
    skipped: &'static [&'static str],
}

const DOCX: Dialect = Dialect {
    format: "DOCX",
    paragraphs: &["w:p"],
    text: Some("w:t"),
    spaces: &["w:tab", "w:br", "w:cr"],
    skipped: &["w:pPr", "w:rPr", "mc:Fallback", "w:del", "w:moveFrom"],
};

const ODT: Dialect = Dialect {
    format: "ODT",
    paragraphs: &["text:p", "text:h"],
    text: None,
    spaces: &["text:tab", "text:line-break", "text:s"],
    skipped: &[
        "office:annotation",
        "text:tracked-changes",
        "text:note-citation",
    ],
};

fn paragraphs(xml: &[u8], dialect: &Dialect, limits: &Limits) -> Result<String, ExtractError> {
    let xml = String::from_utf8_lossy(xml);
    let mut reader = quick_xml::Reader::from_str(&xml);
    let mut out = Paragraphs::new(limits.max_extracted_bytes);
    // Depth inside a skipped subtree, and inside text-bearing elements (DOCX `w:t`).
    let mut skipping = 0usize;
    let mut in_text = 0usize;
    loop {
        let event = reader.read_event().map_err(|e| ExtractError::Malformed {
            format: dialect.format,
            reason: format!("its XML is broken at byte {}: {e}", reader.error_position()),
        })?;
        match event {
            Event::Start(start) => {
                let name = start.name();
                let name = name.as_ref();
                if skipping > 0 || dialect.skipped.contains(&name) {
                    skipping += 1;
                } else if dialect.paragraphs.contains(&name) {
                    out.open();
                } else if dialect.text == Some(name) {
                    in_text += 1;
                } else if dialect.spaces.contains(&name) {
                    out.push(" ")?;
                }
            }
            Event::Empty(empty) => {
                let name = empty.name();
                let name = name.as_ref();
                if skipping > 0 || dialect.skipped.contains(&name) {
                    continue;
                }
                if dialect.paragraphs.contains(&name) {
                    out.open();
                    out.close()?;
                } else if dialect.spaces.contains(&name) {
                    out.push(" ")?;
                }
            }
            Event::End(end) => {
                let name = end.name();
                let name = name.as_ref();
                if skipping > 0 {
                    skipping -= 1;
                } else if dialect.paragraphs.contains(&name) {
                    out.close()?;
                } else if dialect.text == Some(name) {
                    in_text = in_text.saturating_sub(1);
                }
            }
            Event::Text(text) if skipping == 0 && (dialect.text.is_none() || in_text > 0) => {
                out.push(&text.xml10_content())?;
            }
            Event::CData(text) if skipping == 0 && (dialect.text.is_none() || in_text > 0) => {
                out.push(&text.xml10_content())?;
            }
            Event::GeneralRef(entity)
                if skipping == 0 && (dialect.text.is_none() || in_text > 0) =>
            {
                if let Some(c) = resolve(&entity) {
                    out.push(c.encode_utf8(&mut [0; 4]))?;
                }
            }
            Event::Eof => break,
            _ => {}
        }
    }
    Ok(out.finish())
}

fn resolve(entity: &quick_xml::events::BytesRef<'_>) -> Option<char> {
    if let Ok(Some(c)) = entity.resolve_char_ref() {
        return Some(c);
    }
    match entity.xml10_content().as_ref() {
        "amp" => Some('&'),
        "lt" => Some('<'),
        "gt" => Some('>'),
        "quot" => Some('"'),
        "apos" => Some('\''),
        _ => None,
    }
}

/// Paragraph lines being built. A paragraph nested in another (a text box, a footnote) becomes
/// its own line, written when it closes; the text around it stays on its parent's line.
struct Paragraphs {
    lines: String,
    open: Vec<String>,
    /// Bytes in the open paragraphs, kept as a sum: adding them up on each push would be
    /// quadratic in a document of deeply nested paragraphs.
    pending: usize,
    written: bool,
    limit: usize,
}

impl Paragraphs {
    fn new(limit: usize) -> Self {
        Self {
            lines: String::new(),
            open: Vec::new(),
            pending: 0,
            written: false,
            limit,
        }
    }

    fn open(&mut self) {
        self.open.push(String::new());
    }

    /// Adds text to the innermost open paragraph; tabs and newlines read as spaces.
    fn push(&mut self, text: &str) -> Result<(), ExtractError> {
        let Some(line) = self.open.last_mut() else {
            return Ok(());
        };
        let before = line.len();
        line.extend(
            text.chars()
                .map(|c| if c.is_whitespace() { ' ' } else { c }),
        );
        self.pending += line.len() - before;
        if self.lines.len() + self.pending > self.limit {
            return Err(ExtractError::TooMuchText { limit: self.limit });
        }
        Ok(())
    }

    fn close(&mut self) -> Result<(), ExtractError> {
        let Some(line) = self.open.pop() else {
            return Ok(());
        };
        self.pending -= line.len();
        if self.written {
            self.lines.push('\n');
        }
        self.written = true;
        self.lines.push_str(collapse(&line).trim());
        if self.lines.len() > self.limit {
            return Err(ExtractError::TooMuchText { limit: self.limit });
        }
        Ok(())
    }

    fn finish(self) -> String {
        self.lines
    }
}

/// Runs of spaces as one: XML indentation between runs is not the document's spacing.
fn collapse(line: &str) -> String {
    let mut out = String::with_capacity(line.len());
    for c in line.chars() {
        if c == ' ' && out.ends_with(' ') {
            continue;
        }
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use std::io::Write;
    use zip::write::SimpleFileOptions;

    fn zip_of(members: &[(&str, &[u8])]) -> Vec<u8> {
        let mut writer = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
        for (name, data) in members {
            writer
                .start_file(*name, SimpleFileOptions::default())
                .unwrap();
            writer.write_all(data).unwrap();
        }
        writer.finish().unwrap().into_inner()
    }

    const CONTENT_TYPES: &[u8] = br#"<?xml version="1.0" encoding="UTF-8"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="xml" ContentType="application/xml"/><Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/></Types>"#;

    fn docx(body: &str) -> Vec<u8> {
        let document = format!(
            r#"<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:body>{body}</w:body></w:document>"#
        );
        zip_of(&[
            ("[Content_Types].xml", CONTENT_TYPES),
            ("word/document.xml", document.as_bytes()),
        ])
    }

    fn lines(text: &str) -> Vec<&str> {
        text.split('\n').collect()
    }

    #[test]
    fn docx_paragraphs_are_lines() {
        let body = r#"
<w:p><w:pPr><w:pStyle w:val="Heading1"/><w:tabs><w:tab w:val="left" w:pos="720"/></w:tabs></w:pPr><w:r><w:t>Renewal policy</w:t></w:r></w:p>
<w:p><w:r><w:t xml:space="preserve">The needle </w:t></w:r><w:r><w:rPr><w:b/></w:rPr><w:t>haystack</w:t><w:tab/><w:t>&amp; more</w:t><w:br/><w:t>next</w:t></w:r></w:p>
<w:p/>
<w:tbl><w:tr><w:tc><w:p><w:r><w:t>cell one</w:t></w:r></w:p></w:tc><w:tc><w:p><w:r><w:t>包周期续订</w:t></w:r></w:p></w:tc></w:tr></w:tbl>
<w:p><w:del><w:r><w:delText>gone</w:delText></w:r></w:del><w:r><w:instrText>PAGE</w:instrText><w:t>last</w:t></w:r></w:p>"#;
        let text = docx_paragraphs(&docx(body), &Limits::default()).unwrap();
        assert_eq!(
            lines(&text),
            [
                "Renewal policy",
                "The needle haystack & more next",
                "",
                "cell one",
                "包周期续订",
                "last"
            ]
        );
    }

    #[test]
    fn odt_paragraphs_are_lines() {
        let content = r#"<?xml version="1.0" encoding="UTF-8"?>
<office:document-content xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0" xmlns:table="urn:oasis:names:tc:opendocument:xmlns:table:1.0"><office:body><office:text>
<text:h text:outline-level="1">Renewal policy</text:h>
<text:p>The <text:span>needle</text:span><text:s text:c="3"/>haystack<text:tab/>tab<text:line-break/>break &#x4E2D;</text:p>
<table:table><table:table-row><table:table-cell><text:p>cell one</text:p></table:table-cell><table:table-cell><text:p>包周期续订</text:p></table:table-cell></table:table-row></table:table>
<text:p>note<text:note><text:note-citation>1</text:note-citation><text:note-body><text:p>a footnote</text:p></text:note-body></text:note> after</text:p>
</office:text></office:body></office:document-content>"#;
        let odt = zip_of(&[
            ("mimetype", b"application/vnd.oasis.opendocument.text"),
            ("content.xml", content.as_bytes()),
        ]);
        let text = odt_paragraphs(&odt, &Limits::default()).unwrap();
        assert_eq!(
            lines(&text),
            [
                "Renewal policy",
                "The needle haystack tab break 中",
                "cell one",
                "包周期续订",
                "a footnote",
                "note after"
            ]
        );
    }

    #[test]
    fn a_zip_bomb_is_stopped_while_inflating() {
        let small = Limits {
            max_inflated_bytes: 1024 * 1024,
            ..Limits::default()
        };
        let padding = " ".repeat(16 * 1024 * 1024);
        let mut bomb = docx(&format!("<w:p><w:r><w:t>x</w:t></w:r></w:p>{padding}"));
        assert!(bomb.len() < 100 * 1024, "{}", bomb.len());
        // The directory claims 100 bytes: only inflating can tell.
        understate(&mut bomb);
        let started = std::time::Instant::now();
        assert_eq!(
            docx_paragraphs(&bomb, &small),
            Err(ExtractError::Bomb { limit: 1024 * 1024 })
        );
        assert!(started.elapsed() < std::time::Duration::from_secs(5));
    }

    /// Makes every central-directory record claim 100 bytes, as a hostile archive would.
    fn understate(archive: &mut [u8]) {
        let mut at = 0;
        while let Some(found) = memchr::memmem::find(&archive[at..], b"PK\x01\x02") {
            let record = at + found;
            archive[record + 24..record + 28].copy_from_slice(&100u32.to_le_bytes());
            at = record + 4;
        }
    }

    #[test]
    fn a_declared_size_is_not_trusted_either_way() {
        let mut honest_but_understated = docx(&format!(
            "<w:p><w:r><w:t>{}</w:t></w:r></w:p>",
            "a".repeat(2 * 1024 * 1024)
        ));
        understate(&mut honest_but_understated);
        let text = docx_paragraphs(&honest_but_understated, &Limits::default()).unwrap();
        assert_eq!(text.len(), 2 * 1024 * 1024);
    }

    #[test]
    fn too_much_text_is_refused() {
        let small = Limits {
            max_extracted_bytes: 10,
            ..Limits::default()
        };
        let body = "<w:p><w:r><w:t>0123456789abcdef</w:t></w:r></w:p>";
        assert_eq!(
            docx_paragraphs(&docx(body), &small),
            Err(ExtractError::TooMuchText { limit: 10 })
        );
    }

    #[test]
    fn a_zip_of_a_hundred_thousand_entries_is_refused() {
        let mut writer = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
        let stored =
            SimpleFileOptions::default().compression_method(zip::CompressionMethod::Stored);
        for n in 0..100_000 {
            writer.start_file(format!("{n}"), stored).unwrap();
        }
        writer.start_file("word/document.xml", stored).unwrap();
        writer.write_all(b"<w:document/>").unwrap();
        let many = writer.finish().unwrap().into_inner();
        let refused = docx_paragraphs(&many, &Limits::default());
        assert!(
            matches!(&refused, Err(ExtractError::Malformed { reason, .. }) if reason.contains("100001 entries")),
            "{refused:?}"
        );
    }

    #[test]
    fn not_a_zip_or_not_xml_is_malformed() {
        for bytes in [&b"plain text, not a zip"[..], b"", b"PK\x05\x06"] {
            assert!(matches!(
                docx_paragraphs(bytes, &Limits::default()),
                Err(ExtractError::Malformed { format: "DOCX", .. })
            ));
        }
        let broken = docx("<w:p><w:r><w:t>open</w:r></w:p>");
        assert!(matches!(
            docx_paragraphs(&broken, &Limits::default()),
            Err(ExtractError::Malformed { format: "DOCX", .. })
        ));
        let odt_without_content =
            zip_of(&[("mimetype", b"application/vnd.oasis.opendocument.text")]);
        assert!(matches!(
            odt_paragraphs(&odt_without_content, &Limits::default()),
            Err(ExtractError::Malformed { format: "ODT", .. })
        ));
    }
}
