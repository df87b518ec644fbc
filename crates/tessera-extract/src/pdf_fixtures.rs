//! PDF files written by the tests, byte by byte, so each can be as broken as a test needs
//! (feature `fixtures`, for the suites of the crates that read attachments).

#![allow(clippy::unwrap_used)]

use std::io::Write;

/// A file of `objects` (numbered from 1; object 1 is the catalog) with a cross-reference table
/// and a trailer holding `trailer_extra` besides /Size and /Root.
pub fn file(objects: &[Vec<u8>], trailer_extra: &str) -> Vec<u8> {
    let mut out = b"%PDF-1.7\n%\xE2\xE3\xCF\xD3\n".to_vec();
    let mut offsets = Vec::new();
    for (n, body) in objects.iter().enumerate() {
        offsets.push(out.len());
        out.extend_from_slice(format!("{} 0 obj\n", n + 1).as_bytes());
        out.extend_from_slice(body);
        out.extend_from_slice(b"\nendobj\n");
    }
    let xref = out.len();
    let size = objects.len() + 1;
    out.extend_from_slice(format!("xref\n0 {size}\n0000000000 65535 f \n").as_bytes());
    for offset in offsets {
        out.extend_from_slice(format!("{offset:010} 00000 n \n").as_bytes());
    }
    out.extend_from_slice(
        format!(
            "trailer\n<< /Size {size} /Root 1 0 R {trailer_extra} >>\nstartxref\n{xref}\n%%EOF\n"
        )
        .as_bytes(),
    );
    out
}

/// A stream object: `dict` entries (without /Length) and its bytes as stored.
pub fn stream(dict: &str, data: &[u8]) -> Vec<u8> {
    let mut out = format!("<< {dict} /Length {} >>\nstream\n", data.len()).into_bytes();
    out.extend_from_slice(data);
    out.extend_from_slice(b"\nendstream");
    out
}

pub fn zlib(data: &[u8]) -> Vec<u8> {
    let mut encoder = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::default());
    encoder.write_all(data).unwrap();
    encoder.finish().unwrap()
}

/// A zlib stream inflating to `megabytes` MiB of zeros, made in milliseconds: one MiB is
/// compressed after a first one, and its blocks, which only refer back into zeros, repeated.
pub fn zeros_bomb(megabytes: usize) -> Vec<u8> {
    use flate2::{Compress, Compression, FlushCompress};
    let chunk = vec![0u8; 1 << 20];
    let mut compress = Compress::new(Compression::best(), true);
    let mut out = Vec::with_capacity(64 * 1024);
    let mut add = |out: &mut Vec<u8>| {
        let before = out.len();
        let mut consumed = 0;
        while consumed < chunk.len() {
            out.reserve(64 * 1024);
            let read = compress.total_in();
            compress
                .compress_vec(&chunk[consumed..], out, FlushCompress::Sync)
                .unwrap();
            consumed += (compress.total_in() - read) as usize;
        }
        out.reserve(64 * 1024);
        compress
            .compress_vec(&[], out, FlushCompress::Sync)
            .unwrap();
        out[before..].to_vec()
    };
    add(&mut out);
    let repeated = add(&mut out);
    for _ in 2..megabytes {
        out.extend_from_slice(&repeated);
    }
    out
}

/// The usual skeleton: 1 catalog, 2 page tree, then one page per content (objects 3, 5, …)
/// each followed by its content stream, all using font /F1 = `font` (the last object).
pub fn with_pages(contents: &[Vec<u8>], font: &[u8]) -> Vec<u8> {
    let font_id = 3 + 2 * contents.len();
    let kids: Vec<String> = (0..contents.len())
        .map(|n| format!("{} 0 R", 3 + 2 * n))
        .collect();
    let mut objects = vec![
        b"<< /Type /Catalog /Pages 2 0 R >>".to_vec(),
        format!(
            "<< /Type /Pages /Kids [{}] /Count {} /Resources << /Font << /F1 {font_id} 0 R >> >> >>",
            kids.join(" "),
            contents.len()
        )
        .into_bytes(),
    ];
    for (n, content) in contents.iter().enumerate() {
        objects.push(
            format!(
                "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents {} 0 R >>",
                4 + 2 * n
            )
            .into_bytes(),
        );
        objects.push(content.clone());
    }
    objects.push(font.to_vec());
    file(&objects, "")
}

pub const HELVETICA: &[u8] =
    b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>";
