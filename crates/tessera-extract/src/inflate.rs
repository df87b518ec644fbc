//! Bounded decompression, shared by the zip and PDF readers.
//!
//! Every decoder writes through a cap checked while it produces output: a declared size in a
//! header is never trusted, so a stream that inflates a thousandfold is stopped one byte past
//! its limit, having allocated at most the limit.

use std::io::Read;

/// The output passed its limit.
#[derive(Debug, PartialEq, Eq)]
pub(super) struct TooBig;

/// What a decoder gave within its limit.
#[derive(Debug, PartialEq, Eq)]
pub(super) struct Inflated {
    pub bytes: Vec<u8>,
    /// Why decoding ended early (corrupt or truncated data); the bytes before it are kept,
    /// as PDF viewers keep them.
    pub broken: Option<String>,
}

/// Output that refuses to pass its limit, and whose buffer never grows past it either: a
/// `Vec` doubling on its own would hold twice the limit just before refusing.
struct Capped {
    bytes: Vec<u8>,
    limit: usize,
}

impl Capped {
    fn new(limit: u64) -> Self {
        Self {
            bytes: Vec::new(),
            limit: usize::try_from(limit).unwrap_or(usize::MAX),
        }
    }

    fn push(&mut self, data: &[u8]) -> Result<(), TooBig> {
        if data.len() > self.limit - self.bytes.len() {
            return Err(TooBig);
        }
        let needed = self.bytes.len() + data.len();
        if needed > self.bytes.capacity() {
            // Past a MiB the buffer takes the whole limit at once: pages of a fresh mapping
            // cost memory only once written, while each doubling would copy, and hold, the
            // old buffer beside the new one.
            let grown = if needed > 1 << 20 {
                self.limit
            } else {
                (self.bytes.capacity() * 2).max(needed).min(self.limit)
            };
            self.bytes.reserve_exact(grown - self.bytes.len());
        }
        self.bytes.extend_from_slice(data);
        Ok(())
    }
}

/// Reads `reader` to its end, stopping with TooBig once it has given more than `limit` bytes.
pub(super) fn read_bounded(mut reader: impl Read, limit: u64) -> Result<Inflated, TooBig> {
    let mut out = Capped::new(limit);
    let mut chunk = vec![0u8; 64 * 1024];
    let broken = loop {
        match reader.read(&mut chunk) {
            Ok(0) => break None,
            Ok(n) => out.push(chunk.get(..n).unwrap_or_default())?,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => break Some(e.to_string()),
        }
    };
    Ok(Inflated {
        bytes: out.bytes,
        broken,
    })
}

/// A raw DEFLATE stream (a zip member).
pub(super) fn deflate(data: &[u8], limit: u64) -> Result<Inflated, TooBig> {
    read_bounded(flate2::bufread::DeflateDecoder::new(data), limit)
}

/// A zlib stream (PDF FlateDecode). Some writers omit the zlib header, so a stream whose
/// header is refused outright is read again as raw DEFLATE.
pub(super) fn zlib(data: &[u8], limit: u64) -> Result<Inflated, TooBig> {
    let inflated = read_bounded(flate2::bufread::ZlibDecoder::new(data), limit)?;
    if inflated.bytes.is_empty() && inflated.broken.is_some() {
        return deflate(data, limit);
    }
    Ok(inflated)
}

/// PDF LZWDecode. `early_change` is the stream's /EarlyChange (1 unless it says 0).
pub(super) fn lzw(data: &[u8], early_change: bool, limit: u64) -> Result<Inflated, TooBig> {
    use weezl::{decode::Decoder, BitOrder, LzwStatus};
    let mut decoder = if early_change {
        Decoder::with_tiff_size_switch(BitOrder::Msb, 8)
    } else {
        Decoder::new(BitOrder::Msb, 8)
    };
    let mut out = Capped::new(limit);
    let mut chunk = [0u8; 16 * 1024];
    let mut input = data;
    let broken = loop {
        let result = decoder.decode_bytes(input, &mut chunk);
        input = input.get(result.consumed_in..).unwrap_or_default();
        out.push(chunk.get(..result.consumed_out).unwrap_or_default())?;
        match result.status {
            Ok(LzwStatus::Done | LzwStatus::NoProgress) => break None,
            // A decoder that neither reads nor writes would spin: treat it as the end.
            Ok(LzwStatus::Ok) if result.consumed_in == 0 && result.consumed_out == 0 => break None,
            Ok(LzwStatus::Ok) => {}
            Err(e) => break Some(e.to_string()),
        }
    };
    Ok(Inflated {
        bytes: out.bytes,
        broken,
    })
}

/// PDF ASCIIHexDecode: never longer than its input, so it needs no cap.
pub(super) fn ascii_hex(data: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(data.len() / 2);
    let mut high: Option<u8> = None;
    for &byte in data {
        if byte == b'>' {
            break;
        }
        let Some(digit) = (byte as char).to_digit(16) else {
            continue;
        };
        let digit = digit as u8;
        match high.take() {
            Some(h) => out.push(h << 4 | digit),
            None => high = Some(digit),
        }
    }
    if let Some(h) = high {
        out.push(h << 4);
    }
    out
}

/// PDF ASCII85Decode. `z` makes four bytes of one, so it is capped like the others.
pub(super) fn ascii85(data: &[u8], limit: u64) -> Result<Vec<u8>, TooBig> {
    let mut out = Capped::new(limit);
    let mut group = [0u32; 5];
    let mut count = 0;
    let push = |out: &mut Capped, group: &[u32; 5], count: usize| {
        let value = group
            .iter()
            .fold(0u32, |acc, &d| acc.wrapping_mul(85).wrapping_add(d));
        out.push(&value.to_be_bytes()[..count.saturating_sub(1)])
    };
    for &byte in data {
        match byte {
            b'~' => break,
            b'z' if count == 0 => out.push(&[0; 4])?,
            b'!'..=b'u' => {
                group[count] = u32::from(byte - b'!');
                count += 1;
                if count == 5 {
                    push(&mut out, &group, 5)?;
                    count = 0;
                }
            }
            _ => continue,
        }
    }
    if count > 1 {
        group[count..].fill(84);
        push(&mut out, &group, count)?;
    }
    Ok(out.bytes)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use std::io::Write;

    fn zlib_of(data: &[u8]) -> Vec<u8> {
        let mut encoder =
            flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::default());
        encoder.write_all(data).unwrap();
        encoder.finish().unwrap()
    }

    #[test]
    fn inflation_stops_one_byte_past_the_limit() {
        let packed = zlib_of(&vec![0u8; 4 * 1024 * 1024]);
        assert_eq!(zlib(&packed, 1024 * 1024), Err(TooBig));
        // Exactly the limit is taken, and the buffer never held more than it.
        let exact = zlib(&packed, 4 * 1024 * 1024).unwrap();
        assert!(exact.bytes.capacity() <= 4 * 1024 * 1024);
        let whole = zlib(&packed, 4 * 1024 * 1024).unwrap();
        assert_eq!((whole.bytes.len(), whole.broken), (4 * 1024 * 1024, None));
        let truncated = zlib(&packed[..packed.len() / 2], 8 * 1024 * 1024).unwrap();
        assert!(truncated.broken.is_some());
    }

    #[test]
    fn the_ascii_filters_and_lzw_decode() {
        assert_eq!(ascii_hex(b"48 65 6c6C6f 7>"), b"Hellop");
        assert_eq!(
            ascii85(b"87cURD]i,\"Ebo80~>", 100).unwrap(),
            b"Hello World!"
        );
        assert_eq!(ascii85(b"zzzz", 8), Err(TooBig));
        let mut encoder = weezl::encode::Encoder::with_tiff_size_switch(weezl::BitOrder::Msb, 8);
        let packed = encoder.encode(&[7u8; 100_000]).unwrap();
        assert_eq!(
            lzw(&packed, true, 200_000).unwrap().bytes,
            vec![7u8; 100_000]
        );
        assert_eq!(lzw(&packed, true, 10_000), Err(TooBig));
    }
}
