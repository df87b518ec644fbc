//! PDF: one text per page, page 1 first.
//!
//! The file is read into objects by [`pdf_load`](super::pdf_load) (no byte of it reaches a
//! decompressor without a cap), its page tree walked here, and each page's content run for its
//! text by [`pdf_text`](super::pdf_text).
//!
//! Bounds and outcomes:
//! - Decoding a stream stops one byte past `max_inflated_bytes` ⇒ `Bomb`. All the decoding of
//!   one document shares that same budget (many streams just under it are a bomb too).
//! - At most `max_pages` pages are read: the pages after them are not, and the ones read are
//!   kept (no error).
//! - Content run (a form counted each time it runs, a font's cmap and widths when first
//!   read) stops at `max_inflated_bytes`: the pages read so far are kept. At most 16 MiB of
//!   font cmaps are parsed; a font past that shows no text.
//! - Text past `max_extracted_bytes` ⇒ `TooMuchText`; pages with no text at all ⇒ `NoText`.
//! - At most 1,000,000 objects are parsed, nested at most 64 deep, without recursion.
//! - A panic anywhere in the reading (lopdf's cmap code has `unwrap`s) ⇒ `Malformed`.
//! - An `/Encrypt` in any trailer ⇒ `Encrypted`, even for files that open without a password:
//!   their streams would have to be decrypted first, and they are not.

use std::collections::HashSet;
use std::panic::{catch_unwind, AssertUnwindSafe};

use lopdf::{Dictionary, Document, Object, ObjectId};

use super::pdf_decode::Inflation;
use super::{pdf_load, pdf_text, ExtractError, Limits};

const MAX_TREE_DEPTH: usize = 64;

pub(super) fn pages(bytes: &[u8], limits: &Limits) -> Result<Vec<String>, ExtractError> {
    let read = catch_unwind(AssertUnwindSafe(|| read(bytes, limits)));
    let pages = read.unwrap_or_else(|_| Err(malformed("the PDF reader failed on it")))?;
    if pages.iter().all(|page| page.trim().is_empty()) {
        return Err(ExtractError::NoText);
    }
    Ok(pages)
}

pub(super) fn malformed(reason: impl Into<String>) -> ExtractError {
    ExtractError::Malformed {
        format: "PDF",
        reason: reason.into(),
    }
}

fn read(bytes: &[u8], limits: &Limits) -> Result<Vec<String>, ExtractError> {
    let mut inflation = Inflation::new(limits.max_inflated_bytes);
    let pdf = pdf_load::load(bytes, &mut inflation)?;
    let pages = page_list(&pdf.doc, pdf.root, limits.max_pages);
    if pages.is_empty() {
        return Err(malformed("it has no pages"));
    }
    pdf_text::page_texts(&pdf, &pages, limits, &mut inflation)
}

pub(super) type PageRef<'d> = (&'d Dictionary, Option<&'d Dictionary>);

pub(super) fn dict_of<'d>(doc: &'d Document, object: &'d Object) -> Option<&'d Dictionary> {
    doc.dereference(object).ok()?.1.as_dict().ok()
}

pub(super) fn lookup<'d>(
    doc: &'d Document,
    resources: &'d Dictionary,
    kind: &[u8],
    name: &[u8],
) -> Option<&'d Object> {
    dict_of(doc, resources.get(kind).ok()?)?.get(name).ok()
}

/// The first `max` pages in order, each with the resources it inherits. A node met twice (a
/// cycle, or a kid listed twice) is read once.
fn page_list(doc: &Document, root: ObjectId, max: usize) -> Vec<PageRef<'_>> {
    let Some(top) = doc
        .get_object(root)
        .and_then(Object::as_dict)
        .and_then(|catalog| catalog.get(b"Pages"))
        .ok()
    else {
        return Vec::new();
    };
    let mut seen = HashSet::new();
    let mut pending = vec![(top, None, 0usize)];
    let mut pages = Vec::new();
    while let Some((node, inherited, depth)) = pending.pop() {
        let Ok((id, node)) = doc.dereference(node) else {
            continue;
        };
        if id.is_some_and(|id| !seen.insert(id)) {
            continue;
        }
        let Ok(dict) = node.as_dict() else {
            continue;
        };
        let resources = dict
            .get(b"Resources")
            .ok()
            .and_then(|r| dict_of(doc, r))
            .or(inherited);
        // A kids array shared by several nodes (by reference) is listed once: pushing it for
        // each would cost nodes × kids.
        let kids = match dict.get(b"Kids").map(|k| doc.dereference(k)) {
            Ok(Ok((id, kids))) if id.is_none_or(|id| seen.insert(id)) => kids.as_array().ok(),
            _ => None,
        };
        match kids {
            Some(kids) if !dict.has_type(b"Page") => {
                if depth < MAX_TREE_DEPTH {
                    pending.extend(kids.iter().rev().map(|kid| (kid, resources, depth + 1)));
                }
            }
            _ => {
                if pages.len() >= max {
                    break;
                }
                pages.push((dict, resources));
            }
        }
    }
    pages
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::super::pdf_fixtures::{self as fixtures, HELVETICA};
    use super::*;

    /// Three pages written by lopdf, the last one's content compressed.
    fn three_pages() -> Vec<u8> {
        use lopdf::content::{Content, Operation};
        use lopdf::{dictionary, Stream};
        let mut doc = lopdf::Document::with_version("1.5");
        let pages_id = doc.new_object_id();
        let font =
            dictionary! { "Type" => "Font", "Subtype" => "Type1", "BaseFont" => "Helvetica" };
        let font_id = doc.add_object(font);
        let resources_id =
            doc.add_object(dictionary! { "Font" => dictionary! { "F1" => font_id } });
        let mut kids: Vec<Object> = Vec::new();
        let words = [
            "first page needle-alpha",
            "the middle page",
            "last page needle-omega",
        ];
        for (n, words) in words.into_iter().enumerate() {
            let operations = vec![
                Operation::new("BT", vec![]),
                Operation::new("Tf", vec!["F1".into(), 12.into()]),
                Operation::new("Td", vec![72.into(), 700.into()]),
                Operation::new("Tj", vec![Object::string_literal(words)]),
                Operation::new("ET", vec![]),
            ];
            let content = Content { operations }.encode().unwrap();
            let stream = match n {
                2 => Stream::new(
                    dictionary! { "Filter" => "FlateDecode" },
                    fixtures::zlib(&content),
                ),
                _ => Stream::new(dictionary! {}, content),
            };
            let content_id = doc.add_object(stream);
            let page =
                dictionary! { "Type" => "Page", "Parent" => pages_id, "Contents" => content_id };
            kids.push(doc.add_object(page).into());
        }
        let media_box: Vec<Object> = vec![0.into(), 0.into(), 612.into(), 792.into()];
        let tree = dictionary! { "Type" => "Pages", "Kids" => kids, "Count" => 3, "Resources" => resources_id, "MediaBox" => media_box };
        doc.objects.insert(pages_id, Object::Dictionary(tree));
        let catalog_id = doc.add_object(dictionary! { "Type" => "Catalog", "Pages" => pages_id });
        doc.trailer.set("Root", catalog_id);
        let mut bytes = Vec::new();
        doc.save_to(&mut bytes).unwrap();
        bytes
    }

    #[test]
    fn three_pages_hold_their_needles() {
        let texts = pages(&three_pages(), &Limits::default()).unwrap();
        assert_eq!(
            texts,
            [
                "first page needle-alpha",
                "the middle page",
                "last page needle-omega"
            ]
        );
        let two = Limits {
            max_pages: 2,
            ..Limits::default()
        };
        assert_eq!(pages(&three_pages(), &two).unwrap().len(), 2);
        let tiny = Limits {
            max_extracted_bytes: 30,
            ..Limits::default()
        };
        assert_eq!(
            pages(&three_pages(), &tiny),
            Err(ExtractError::TooMuchText { limit: 30 })
        );
    }

    #[test]
    fn words_and_lines_break_where_the_pen_moves() {
        let content =
            b"BT /F1 12 Tf 72 700 Td (Hello) Tj 40 0 Td (world) Tj 0 -14 Td (next line) Tj \
            0 -14 Td [(kern) -50 (ed) -400 (gap)] TJ ET";
        let file = fixtures::with_pages(&[fixtures::stream("", content)], HELVETICA);
        assert_eq!(
            pages(&file, &Limits::default()).unwrap(),
            ["Hello world\nnext line\nkerned gap"]
        );
        let drawing = fixtures::stream("", b"0 0 m 100 100 l S");
        let blank = fixtures::with_pages(&[drawing], HELVETICA);
        assert_eq!(pages(&blank, &Limits::default()), Err(ExtractError::NoText));
    }

    #[test]
    fn chinese_reads_through_a_tounicode_cmap() {
        let cmap = b"/CIDInit /ProcSet findresource begin 12 dict begin begincmap\n\
/CIDSystemInfo << /Registry (Adobe) /Ordering (UCS) /Supplement 0 >> def\n\
/CMapName /Adobe-Identity-UCS def /CMapType 2 def\n\
1 begincodespacerange\n<0000> <FFFF>\nendcodespacerange\n\
5 beginbfchar\n<0001> <5305>\n<0002> <5468>\n<0003> <671F>\n<0004> <7EED>\n<0005> <8BA2>\nendbfchar\n\
endcmap CMapName currentdict /CMap defineresource pop end end\n";
        let content =
            b"BT /F1 12 Tf 72 700 Td <00010002000300040005> Tj /F2 12 Tf 0 -20 Td (renewal) Tj ET";
        let objects = [
            b"<< /Type /Catalog /Pages 2 0 R >>".to_vec(),
            b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>".to_vec(),
            b"<< /Type /Page /Parent 2 0 R /Contents 4 0 R /Resources << /Font << /F1 5 0 R /F2 8 0 R >> >> >>".to_vec(),
            fixtures::stream("", content),
            b"<< /Type /Font /Subtype /Type0 /BaseFont /SimSun /Encoding /Identity-H /DescendantFonts [6 0 R] /ToUnicode 7 0 R >>".to_vec(),
            b"<< /Type /Font /Subtype /CIDFontType2 /BaseFont /SimSun /DW 1000 /CIDSystemInfo << /Registry (Adobe) /Ordering (Identity) /Supplement 0 >> >>".to_vec(),
            fixtures::stream("/Filter /FlateDecode", &fixtures::zlib(cmap)),
            HELVETICA.to_vec(),
        ];
        let file = fixtures::file(&objects, "");
        assert_eq!(
            pages(&file, &Limits::default()).unwrap(),
            ["包周期续订\nrenewal"]
        );
    }

    #[test]
    fn cycles_in_the_page_tree_and_in_forms_end() {
        let form = |content: &[u8]| {
            fixtures::stream("/Type /XObject /Subtype /Form /BBox [0 0 612 792]", content)
        };
        let objects = [
            b"<< /Type /Catalog /Pages 2 0 R >>".to_vec(),
            b"<< /Type /Pages /Kids [3 0 R 2 0 R 3 0 R] /Count 3 /Resources << /Font << /F1 7 0 R >> /XObject << /Fm1 5 0 R /Fm2 6 0 R >> >> >>".to_vec(),
            b"<< /Type /Page /Parent 2 0 R /Contents 4 0 R >>".to_vec(),
            fixtures::stream("", b"/Fm1 Do"),
            form(b"BT /F1 12 Tf 72 700 Td (in the form) Tj ET /Fm1 Do /Fm2 Do"),
            form(b"/Fm1 Do /Fm2 Do"),
            HELVETICA.to_vec(),
        ];
        let file = fixtures::file(&objects, "");
        assert_eq!(pages(&file, &Limits::default()).unwrap(), ["in the form"]);
    }

    #[test]
    fn a_fan_out_of_forms_stops_at_the_work_budget() {
        let depth = 40;
        let names: Vec<String> = (0..=depth)
            .map(|n| format!("/F{n} {} 0 R", 5 + n))
            .collect();
        let mut objects = vec![
            b"<< /Type /Catalog /Pages 2 0 R >>".to_vec(),
            format!(
                "<< /Type /Pages /Kids [3 0 R] /Count 1 /Resources << /Font << /F1 {} 0 R >> /XObject << {} >> >> >>",
                6 + depth,
                names.join(" ")
            )
            .into_bytes(),
            b"<< /Type /Page /Parent 2 0 R /Contents 4 0 R >>".to_vec(),
            fixtures::stream("", b"/F0 Do"),
        ];
        for n in 0..=depth {
            let content = format!(
                "BT /F1 12 Tf (x) Tj ET /F{next} Do /F{next} Do",
                next = n + 1
            );
            objects.push(fixtures::stream("/Subtype /Form", content.as_bytes()));
        }
        objects.push(HELVETICA.to_vec());
        let limits = Limits {
            max_inflated_bytes: 256 * 1024,
            ..Limits::default()
        };
        let started = std::time::Instant::now();
        let texts = pages(&fixtures::file(&objects, ""), &limits).unwrap();
        assert!(texts[0].starts_with("xxx"));
        assert!(started.elapsed() < std::time::Duration::from_secs(10));
    }

    #[test]
    fn a_deeply_nested_operand_is_dropped_and_reading_goes_on() {
        let mut content = "[".repeat(1_000_000);
        content.push_str(&"]".repeat(1_000_000));
        content.push_str(" pop BT /F1 12 Tf (after) Tj ET");
        let file = fixtures::with_pages(&[fixtures::stream("", content.as_bytes())], HELVETICA);
        assert_eq!(pages(&file, &Limits::default()).unwrap(), ["after"]);
    }
}
