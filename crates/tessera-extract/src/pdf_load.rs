//! A PDF file read into objects without handing lopdf a byte to decompress.
//!
//! lopdf decompresses without a cap while it loads a file (cross-reference streams, object
//! streams) and whenever a stream is read. So the file is scanned here
//! ([`pdf_syntax`](super::pdf_syntax)): objects are found by their `n g obj` headers, the way
//! viewers repair a broken file, and the cross-reference table is never needed; object streams
//! are unpacked through [`Inflation`]. The lopdf document built from the objects holds no
//! compressed stream at all: each stream stays behind as a husk (its dictionary, no filter, no
//! bytes) and its bytes are kept in [`Pdf::streams`], decoded within the limits only when a
//! page needs them; the font cmaps lopdf reads itself are decoded into their husks first.

use std::collections::{BTreeMap, HashMap};

use lopdf::{Dictionary, Document, Object, ObjectId, Stream};
use memchr::memmem;

use super::pdf::malformed;
use super::pdf_decode::{self, Inflation};
use super::pdf_syntax::{self, Lexer, SyntaxError, Token};
use super::ExtractError;

/// Objects parsed in one file (nested ones count). Each costs about a hundred bytes; a real
/// file has far fewer, a hostile one of `[0 0 0 …` would otherwise multiply its size fifty times.
const MAX_OBJECTS: usize = 1_000_000;

/// A document whose streams are husks in `doc`, their bytes (still filtered) in `streams`.
pub(super) struct Pdf {
    pub doc: Document,
    pub streams: HashMap<ObjectId, Stream>,
    pub root: ObjectId,
}

pub(super) fn load(bytes: &[u8], inflation: &mut Inflation) -> Result<Pdf, ExtractError> {
    if memmem::find(&bytes[..bytes.len().min(1024)], b"%PDF-").is_none() {
        return Err(malformed("it does not start with %PDF-"));
    }
    if memmem::find(&bytes[bytes.len().saturating_sub(2048)..], b"%%EOF").is_none() {
        return Err(malformed("it is cut short (no %%EOF at its end)"));
    }
    let mut budget = MAX_OBJECTS;
    let (mut objects, trailers) = scan(bytes, &mut budget)?;
    if trailers.iter().any(|trailer| trailer.has(b"Encrypt")) {
        return Err(ExtractError::Encrypted);
    }
    unpack_object_streams(&mut objects, inflation, &mut budget)?;
    let catalog = || {
        let is_catalog = |o: &Object| o.as_dict().is_ok_and(|d| d.has_type(b"Catalog"));
        objects
            .iter()
            .find(|(_, o)| is_catalog(o))
            .map(|(id, _)| *id)
    };
    let root = trailers
        .iter()
        .rev()
        .find_map(|trailer| trailer.get(b"Root").and_then(Object::as_reference).ok())
        .or_else(catalog)
        .ok_or_else(|| malformed("it has no catalog"))?;
    let mut streams = HashMap::new();
    for (id, object) in objects.iter_mut() {
        if let Object::Stream(stream) = object {
            let mut dict = stream.dict.clone();
            dict.remove(b"Filter");
            dict.remove(b"DecodeParms");
            streams.insert(
                *id,
                std::mem::replace(stream, Stream::new(dict, Vec::new())),
            );
        }
    }
    let mut doc = Document::new();
    doc.max_id = objects.keys().map(|id| id.0).max().unwrap_or(0);
    doc.objects = objects;
    pdf_decode::decode_cmaps(&mut doc, &streams, inflation)?;
    Ok(Pdf { doc, streams, root })
}

/// Every `n g obj` object of the file (a later one replacing an earlier, as an update does),
/// and the trailer dictionaries, classic or cross-reference streams, in file order.
fn scan(
    bytes: &[u8],
    budget: &mut usize,
) -> Result<(BTreeMap<ObjectId, Object>, Vec<Dictionary>), ExtractError> {
    let mut lexer = Lexer::new(bytes);
    let mut objects = BTreeMap::new();
    let mut trailers = Vec::new();
    let mut recent: [Option<i64>; 2] = [None, None];
    while let Some(token) = lexer.next_token() {
        match token {
            Token::Int(n) => {
                recent = [recent[1], Some(n)];
                continue;
            }
            Token::Word(b"obj") => {
                let [Some(number), Some(generation)] = recent else {
                    continue;
                };
                let id = (u32::try_from(number), u16::try_from(generation));
                if let ((Ok(number), Ok(generation)), Some(object)) =
                    (id, parsed(&mut lexer, budget)?)
                {
                    let object = with_stream(bytes, &mut lexer, object);
                    if let Object::Stream(stream) = &object {
                        if stream.dict.has_type(b"XRef") {
                            trailers.push(stream.dict.clone());
                        }
                    }
                    objects.insert((number, generation), object);
                }
            }
            Token::Word(b"trailer") => {
                if let Some(Object::Dictionary(trailer)) = parsed(&mut lexer, budget)? {
                    trailers.push(trailer);
                }
            }
            _ => {}
        }
        recent = [None, None];
    }
    Ok((objects, trailers))
}

/// The object at the lexer; None for a broken one, skipped as viewers skip it.
fn parsed(lexer: &mut Lexer<'_>, budget: &mut usize) -> Result<Option<Object>, ExtractError> {
    let Some(first) = lexer.next_token() else {
        return Ok(None);
    };
    match pdf_syntax::object(lexer, first, true, budget) {
        Ok(object) => Ok(Some(object)),
        Err(SyntaxError::NotAnObject) => Ok(None),
        Err(SyntaxError::TooDeep) => Err(malformed(format!(
            "its objects nest more than {} deep",
            pdf_syntax::MAX_DEPTH
        ))),
        Err(SyntaxError::TooMany) => {
            Err(malformed(format!("it has more than {MAX_OBJECTS} objects")))
        }
    }
}

/// A dictionary followed by `stream` becomes a stream of the bytes up to `endstream`.
fn with_stream(bytes: &[u8], lexer: &mut Lexer<'_>, object: Object) -> Object {
    let Object::Dictionary(dict) = object else {
        return object;
    };
    let saved = lexer.pos;
    if lexer.next_token() != Some(Token::Word(b"stream")) {
        lexer.pos = saved;
        return Object::Dictionary(dict);
    }
    let mut start = lexer.pos;
    while matches!(bytes.get(start), Some(b' ' | b'\t')) {
        start += 1;
    }
    start += usize::from(bytes.get(start) == Some(&b'\r'));
    start += usize::from(bytes.get(start) == Some(&b'\n'));
    let declared = dict
        .get(b"Length")
        .and_then(Object::as_i64)
        .ok()
        .and_then(|length| start.checked_add(usize::try_from(length).ok()?))
        .filter(|&end| {
            // A short look only: a long scan here, once per stream, would be quadratic.
            let after = bytes
                .get(end..bytes.len().min(end + 64))
                .unwrap_or_default();
            after.trim_ascii_start().starts_with(b"endstream")
        });
    // An indirect or wrong /Length: the data runs to the next `endstream`, less its line end.
    let end = declared.unwrap_or_else(|| {
        let rest = bytes.get(start..).unwrap_or_default();
        let found = memmem::find(rest, b"endstream").map_or(bytes.len(), |at| start + at);
        let data = bytes.get(start..found).unwrap_or_default();
        let data = data.strip_suffix(b"\n").unwrap_or(data);
        start + data.strip_suffix(b"\r").unwrap_or(data).len()
    });
    lexer.pos = end;
    let data = bytes.get(start..end).unwrap_or_default().to_vec();
    Object::Stream(Stream::new(dict, data))
}

/// Moves the objects out of object streams. An object also written directly in the file wins,
/// as in lopdf's own reader.
fn unpack_object_streams(
    objects: &mut BTreeMap<ObjectId, Object>,
    inflation: &mut Inflation,
    budget: &mut usize,
) -> Result<(), ExtractError> {
    let is_object_stream =
        |o: &Object| matches!(o, Object::Stream(s) if s.dict.has_type(b"ObjStm"));
    let ids: Vec<ObjectId> = objects
        .iter()
        .filter(|(_, o)| is_object_stream(o))
        .map(|(id, _)| *id)
        .collect();
    let mut unpacked = Vec::new();
    for id in ids {
        let Some(Object::Stream(stream)) = objects.remove(&id) else {
            continue;
        };
        let count = stream.dict.get(b"N").and_then(Object::as_i64).unwrap_or(0);
        let first = stream.dict.get(b"First").and_then(Object::as_i64).ok();
        let first = first.and_then(|f| usize::try_from(f).ok());
        let (Some(first), Some(data)) = (first, inflation.decode(&stream)?) else {
            continue;
        };
        let mut header = Lexer::new(data.get(..first).unwrap_or_default());
        // Objects are read at rising offsets, each after the last one's end: offsets pointing
        // back at one large object would otherwise copy it again and again.
        let mut floor = first;
        for _ in 0..count.max(0) {
            let (Some(Token::Int(number)), Some(Token::Int(offset))) =
                (header.next_token(), header.next_token())
            else {
                break;
            };
            let at = usize::try_from(offset)
                .ok()
                .and_then(|o| first.checked_add(o));
            let (Ok(number), Some(at)) = (u32::try_from(number), at.filter(|&at| at >= floor))
            else {
                continue;
            };
            let mut lexer = Lexer::new(&data);
            lexer.pos = at;
            if let Some(object) = parsed(&mut lexer, budget)? {
                unpacked.push(((number, 0), object));
            }
            floor = lexer.pos;
        }
    }
    for (id, object) in unpacked {
        objects.entry(id).or_insert(object);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::super::pdf::pages;
    use super::super::pdf_fixtures::{self as fixtures, HELVETICA};
    use super::super::Limits;
    use super::*;

    fn small(max_inflated_bytes: u64) -> Limits {
        Limits {
            max_inflated_bytes,
            ..Limits::default()
        }
    }

    fn reason(result: Result<Vec<String>, ExtractError>) -> String {
        match result {
            Err(ExtractError::Malformed {
                format: "PDF",
                reason,
            }) => reason,
            other => panic!("not Malformed: {other:?}"),
        }
    }

    /// The process's peak resident memory so far, in bytes (Linux).
    fn peak_memory() -> Option<u64> {
        let status = std::fs::read_to_string("/proc/self/status").ok()?;
        let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
        let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
        Some(kib * 1024)
    }

    #[test]
    fn garbage_truncated_and_encrypted_files_are_told_apart() {
        let limits = Limits::default();
        let mut seed = 7u32;
        let noise: Vec<u8> = (0..4096)
            .map(|_| {
                seed = seed.wrapping_mul(1_103_515_245).wrapping_add(12_345);
                (seed >> 16) as u8
            })
            .collect();
        assert!(reason(pages(&noise, &limits)).contains("%PDF-"));
        assert!(reason(pages(b"", &limits)).contains("%PDF-"));
        let mut junk = b"%PDF-1.4\n".to_vec();
        junk.extend_from_slice(&noise);
        junk.extend_from_slice(b"\n%%EOF\n");
        assert!(reason(pages(&junk, &limits)).contains("catalog"));

        let content = fixtures::stream("", b"BT /F1 12 Tf 72 700 Td (whole) Tj ET");
        let whole = fixtures::with_pages(&[content], HELVETICA);
        assert_eq!(pages(&whole, &limits).unwrap(), ["whole"]);
        let cut = &whole[..whole.len() * 3 / 5];
        assert!(reason(pages(cut, &limits)).contains("cut short"));

        let encrypt = "/Encrypt << /Filter /Standard /V 1 /R 2 /O <00> /U <00> /P -4 >>";
        let objects = [
            b"<< /Type /Catalog /Pages 2 0 R >>".to_vec(),
            b"<< /Type /Pages /Kids [] /Count 0 >>".to_vec(),
        ];
        let encrypted = fixtures::file(&objects, encrypt);
        assert_eq!(pages(&encrypted, &limits), Err(ExtractError::Encrypted));
    }

    #[test]
    fn a_flate_bomb_is_stopped_while_inflating() {
        let sample = super::super::inflate::zlib(&fixtures::zeros_bomb(4), 8 << 20).unwrap();
        assert_eq!(sample.bytes, vec![0; 4 << 20]);
        let bomb = fixtures::zeros_bomb(1024);
        assert!(bomb.len() < 2 * 1024 * 1024, "{}", bomb.len());
        let file = fixtures::with_pages(
            &[fixtures::stream("/Filter /FlateDecode", &bomb)],
            HELVETICA,
        );
        let before = peak_memory();
        let started = std::time::Instant::now();
        let outcome = pages(&file, &small(1024 * 1024));
        assert_eq!(outcome, Err(ExtractError::Bomb { limit: 1024 * 1024 }));
        assert!(started.elapsed() < std::time::Duration::from_secs(5));
        // One GiB inflated would show; the cap allows a few MiB, other tests a little more.
        if let (Some(before), Some(after)) = (before, peak_memory()) {
            assert!(after - before < 256 * 1024 * 1024, "{before} -> {after}");
        }
    }

    #[test]
    fn streams_share_one_budget_and_object_streams_are_capped_too() {
        let page = fixtures::zlib(&[b' '; 300 * 1024]);
        let contents: Vec<Vec<u8>> = (0..5)
            .map(|_| fixtures::stream("/Filter /FlateDecode", &page))
            .collect();
        let file = fixtures::with_pages(&contents, HELVETICA);
        assert_eq!(
            pages(&file, &small(1024 * 1024)),
            Err(ExtractError::Bomb { limit: 1024 * 1024 })
        );

        let packed = fixtures::stream(
            "/Type /ObjStm /N 1 /First 4 /Filter /FlateDecode",
            &fixtures::zeros_bomb(64),
        );
        let objects = [b"<< /Type /Catalog /Pages 2 0 R >>".to_vec(), packed];
        assert_eq!(
            pages(&fixtures::file(&objects, ""), &small(1024 * 1024)),
            Err(ExtractError::Bomb { limit: 1024 * 1024 })
        );
    }

    #[test]
    fn object_streams_and_cross_reference_streams_are_read() {
        let packed = [
            "<< /Type /Catalog /Pages 2 0 R >>",
            "<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
            "<< /Type /Page /Parent 2 0 R /Contents 5 0 R /Resources << /Font << /F1 4 0 R >> >> >>",
            std::str::from_utf8(HELVETICA).unwrap(),
        ];
        let mut body = String::new();
        let mut header = String::new();
        for (n, object) in packed.iter().enumerate() {
            header.push_str(&format!("{} {} ", n + 1, body.len()));
            body.push_str(object);
            body.push('\n');
        }
        let data = fixtures::zlib(format!("{header}{body}").as_bytes());
        let object_stream = fixtures::stream(
            &format!(
                "/Type /ObjStm /N 4 /First {} /Filter /FlateDecode",
                header.len()
            ),
            &data,
        );
        let content = fixtures::zlib(b"BT /F1 12 Tf 72 700 Td (packed needle) Tj ET");
        let mut file = b"%PDF-1.5\n".to_vec();
        for (id, object) in [
            (5, fixtures::stream("/Filter /FlateDecode", &content)),
            (6, object_stream),
            (
                7,
                fixtures::stream("/Type /XRef /Size 8 /Root 1 0 R /W [1 2 1]", b"\0\0\0\0"),
            ),
        ] {
            file.extend_from_slice(format!("{id} 0 obj\n").as_bytes());
            file.extend_from_slice(&object);
            file.extend_from_slice(b"\nendobj\n");
        }
        file.extend_from_slice(b"startxref\n0\n%%EOF\n");
        assert_eq!(pages(&file, &Limits::default()).unwrap(), ["packed needle"]);
    }

    #[test]
    fn object_stream_offsets_cannot_replay_one_large_object() {
        let header: String = (1..=100_000).map(|n| format!("{n} 0 ")).collect();
        let body = format!("{header}({})", "x".repeat(1 << 20));
        let dict = format!(
            "/Type /ObjStm /N 100000 /First {} /Filter /FlateDecode",
            header.len()
        );
        let objects = [
            b"<< /Type /Catalog /Pages 3 0 R >>".to_vec(),
            fixtures::stream(&dict, &fixtures::zlib(body.as_bytes())),
        ];
        let started = std::time::Instant::now();
        let outcome = pages(&fixtures::file(&objects, ""), &Limits::default());
        assert!(
            matches!(outcome, Err(ExtractError::Malformed { .. })),
            "{outcome:?}"
        );
        assert!(started.elapsed() < std::time::Duration::from_secs(5));
    }

    #[test]
    fn deeply_nested_objects_are_refused_without_overflowing_the_stack() {
        let deep = [
            b"<< /Type /Catalog /Pages 2 0 R >>".to_vec(),
            "[".repeat(1_000_000).into_bytes(),
        ];
        let refused = reason(pages(&fixtures::file(&deep, ""), &Limits::default()));
        assert!(refused.contains("nest"), "{refused}");
    }
}
