//! A PDF font as far as text needs it: what its codes mean in Unicode, and how far each glyph
//! advances (which tells where a word or a line breaks).
//!
//! The encodings are lopdf's (the standard tables and /ToUnicode cmaps). lopdf reads a cmap
//! stream itself, so the reader hands it a document whose cmap streams were already decoded
//! within the limits and whose other streams are empty (see `pdf::load`).

use std::collections::BTreeMap;

use lopdf::{Dictionary, Document, Encoding, Object};

pub(super) struct Font<'d> {
    encoding: Option<Encoding<'d>>,
    /// The character set of a predefined CJK cmap (`/Encoding /GBK-EUC-H`), which lopdf does
    /// not decode.
    legacy: Option<&'static encoding_rs::Encoding>,
    /// Two-byte codes (a Type0 font).
    wide: bool,
    first_char: i64,
    widths: Vec<f64>,
    default_width: f64,
    /// First CID of a run → (last CID, width), from a CID font's /W.
    cid_widths: BTreeMap<u32, (u32, f64)>,
}

/// How far a string moves the pen, before font size and spacing apply.
pub(super) struct Advance {
    /// In text space units per unit of font size.
    pub width: f64,
    pub codes: usize,
    /// Single-byte code 32, which word spacing widens.
    pub spaces: usize,
}

pub(super) fn number(object: &Object) -> Option<f64> {
    match object {
        Object::Integer(n) => Some(*n as f64),
        Object::Real(r) => Some(f64::from(*r)),
        _ => None,
    }
}

fn resolve<'d>(doc: &'d Document, object: &'d Object) -> &'d Object {
    doc.dereference(object).map_or(object, |(_, target)| target)
}

fn get<'d>(doc: &'d Document, dict: &'d Dictionary, key: &[u8]) -> Option<&'d Object> {
    dict.get(key).ok().map(|value| resolve(doc, value))
}

impl<'d> Font<'d> {
    pub fn new(doc: &'d Document, dict: &'d Dictionary) -> Self {
        let wide = dict
            .get(b"Subtype")
            .and_then(Object::as_name)
            .is_ok_and(|s| s == b"Type0");
        let encoding = encoding(doc, dict);
        let legacy = match &encoding {
            Some(Encoding::SimpleEncoding(name)) => legacy(name),
            _ => None,
        };
        let mut font = Font {
            encoding,
            legacy,
            wide,
            first_char: 0,
            widths: Vec::new(),
            default_width: if wide { 1000.0 } else { 500.0 },
            cid_widths: BTreeMap::new(),
        };
        if wide {
            let descendant = get(doc, dict, b"DescendantFonts")
                .and_then(|d| d.as_array().ok())
                .and_then(|d| d.first())
                .and_then(|d| resolve(doc, d).as_dict().ok());
            if let Some(descendant) = descendant {
                if let Some(width) = get(doc, descendant, b"DW").and_then(number) {
                    font.default_width = width;
                }
                if let Some(Object::Array(w)) = get(doc, descendant, b"W") {
                    font.cid_widths = cid_widths(doc, w);
                }
            }
        } else {
            font.first_char = get(doc, dict, b"FirstChar")
                .and_then(|n| n.as_i64().ok())
                .unwrap_or(0);
            if let Some(Object::Array(widths)) = get(doc, dict, b"Widths") {
                font.widths = widths
                    .iter()
                    .map(|w| number(resolve(doc, w)).unwrap_or(0.0))
                    .collect();
            }
            let missing = get(doc, dict, b"FontDescriptor")
                .and_then(|d| d.as_dict().ok())
                .and_then(|d| get(doc, d, b"MissingWidth"))
                .and_then(number);
            if let Some(width) = missing.filter(|w| *w > 0.0) {
                font.default_width = width;
            }
        }
        font
    }

    /// What reading the font costs: the bytes of its cmap, and those plus the entries of its
    /// width arrays.
    pub fn cost(doc: &Document, dict: &Dictionary) -> (u64, u64) {
        let len = |object: Option<&Object>| match object {
            Some(Object::Stream(stream)) => stream.content.len() as u64,
            Some(Object::Array(items)) => items.len() as u64,
            _ => 0,
        };
        let descendant = get(doc, dict, b"DescendantFonts")
            .and_then(|d| d.as_array().ok())
            .and_then(|d| d.first())
            .and_then(|d| resolve(doc, d).as_dict().ok());
        let cmap = len(get(doc, dict, b"ToUnicode"));
        let widths =
            len(get(doc, dict, b"Widths")) + descendant.map_or(0, |d| len(get(doc, d, b"W")));
        (cmap, 1 + cmap + widths)
    }

    /// The Unicode text of a shown string; codes that mean nothing are left out.
    pub fn text(&self, bytes: &[u8]) -> String {
        let text = if let Some(legacy) = self.legacy {
            legacy.decode_without_bom_handling(bytes).0.into_owned()
        } else if let Some(Ok(text)) = self
            .encoding
            .as_ref()
            .map(|encoding| Document::decode_text(encoding, bytes))
        {
            text
        } else if self.wide {
            // Two-byte codes with no map to Unicode: guessing would index nonsense.
            String::new()
        } else {
            bytes.iter().map(|&b| char::from(b)).collect()
        };
        text.chars()
            .filter(|&c| !c.is_control() && c != char::REPLACEMENT_CHARACTER)
            .collect()
    }

    pub fn advance(&self, bytes: &[u8]) -> Advance {
        let mut advance = Advance {
            width: 0.0,
            codes: 0,
            spaces: 0,
        };
        if self.wide {
            for pair in bytes.chunks(2) {
                let cid = pair.iter().fold(0u32, |cid, &b| cid << 8 | u32::from(b));
                let width = self
                    .cid_widths
                    .range(..=cid)
                    .next_back()
                    .filter(|(_, (last, _))| cid <= *last)
                    .map_or(self.default_width, |(_, (_, width))| *width);
                advance.width += width / 1000.0;
                advance.codes += 1;
            }
        } else {
            for &code in bytes {
                let width = i64::from(code)
                    .checked_sub(self.first_char)
                    .and_then(|at| usize::try_from(at).ok())
                    .and_then(|at| self.widths.get(at))
                    .copied()
                    .filter(|w| *w > 0.0)
                    .unwrap_or(self.default_width);
                advance.width += width / 1000.0;
                advance.codes += 1;
                advance.spaces += usize::from(code == b' ');
            }
        }
        advance
    }
}

fn encoding<'d>(doc: &'d Document, dict: &'d Dictionary) -> Option<Encoding<'d>> {
    // A /ToUnicode says what each code means more surely than a named encoding does, but lopdf
    // prefers the name: ask it about the font without one.
    if dict.has(b"ToUnicode") {
        let mut bare = dict.clone();
        bare.remove(b"Encoding");
        bare.set("Type", Object::Name(b"Font".to_vec()));
        if let Ok(Encoding::UnicodeMapEncoding(map)) = bare.get_font_encoding(doc) {
            return Some(Encoding::UnicodeMapEncoding(map));
        }
    }
    dict.get_font_encoding(doc).ok()
}

/// The character set behind a predefined cmap's name.
fn legacy(name: &[u8]) -> Option<&'static encoding_rs::Encoding> {
    let name = std::str::from_utf8(name).ok()?;
    Some(
        if name.starts_with("Uni") && (name.contains("UCS2") || name.contains("UTF16")) {
            encoding_rs::UTF_16BE
        } else if name.starts_with("Uni") && name.contains("UTF8") {
            encoding_rs::UTF_8
        } else if name.starts_with("GBK2K") {
            encoding_rs::GB18030
        } else if name.starts_with("GB") {
            encoding_rs::GBK
        } else if name.contains("B5") {
            encoding_rs::BIG5
        } else if name.contains("RKSJ") {
            encoding_rs::SHIFT_JIS
        } else if name.starts_with("KSC") {
            encoding_rs::EUC_KR
        } else if name.starts_with("EUC") {
            encoding_rs::EUC_JP
        } else {
            return None;
        },
    )
}

/// A CID font's /W: `c [w1 w2 …]` gives consecutive CIDs their widths, `c1 c2 w` a range one.
fn cid_widths(doc: &Document, w: &[Object]) -> BTreeMap<u32, (u32, f64)> {
    let cid = |o: &Object| o.as_i64().ok().and_then(|n| u32::try_from(n).ok());
    let mut widths = BTreeMap::new();
    let mut items = w.iter().map(|item| resolve(doc, item));
    while let Some(first) = items.next().and_then(cid) {
        match items.next() {
            Some(Object::Array(list)) => {
                for (offset, width) in list.iter().enumerate() {
                    let Some(cid) = u32::try_from(offset)
                        .ok()
                        .and_then(|o| first.checked_add(o))
                    else {
                        break;
                    };
                    if let Some(width) = number(resolve(doc, width)) {
                        widths.insert(cid, (cid, width));
                    }
                }
            }
            Some(last) => {
                let (Some(last), Some(width)) = (cid(last), items.next().and_then(number)) else {
                    break;
                };
                widths.insert(first, (last, width));
            }
            None => break,
        }
    }
    widths
}
