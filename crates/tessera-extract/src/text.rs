//! Text-like files: UTF-8 (a BOM dropped), UTF-16 with a BOM, else refused as binary when a NUL
//! byte or too many control bytes show; invalid UTF-8 elsewhere is replaced, not refused.

use super::{ExtractError, Limits};

pub(super) fn lines(bytes: &[u8], limits: &Limits) -> Result<String, ExtractError> {
    let text = decode(bytes)?;
    if text.len() > limits.max_extracted_bytes {
        return Err(ExtractError::TooMuchText {
            limit: limits.max_extracted_bytes,
        });
    }
    Ok(text)
}

/// The text of `bytes`, or Binary.
pub(super) fn decode(bytes: &[u8]) -> Result<String, ExtractError> {
    if let Some(rest) = bytes.strip_prefix(&[0xEF, 0xBB, 0xBF]) {
        return Ok(String::from_utf8_lossy(rest).into_owned());
    }
    let utf16 = |rest: &[u8], little: bool| {
        let units = rest.chunks_exact(2).map(|pair| {
            if little {
                u16::from_le_bytes([pair[0], pair[1]])
            } else {
                u16::from_be_bytes([pair[0], pair[1]])
            }
        });
        char::decode_utf16(units)
            .map(|c| c.unwrap_or(char::REPLACEMENT_CHARACTER))
            .collect::<String>()
    };
    if let Some(rest) = bytes.strip_prefix(&[0xFF, 0xFE]) {
        return Ok(utf16(rest, true));
    }
    if let Some(rest) = bytes.strip_prefix(&[0xFE, 0xFF]) {
        return Ok(utf16(rest, false));
    }
    let head = &bytes[..bytes.len().min(8192)];
    if head.contains(&0) {
        return Err(ExtractError::Binary);
    }
    let controls = head
        .iter()
        .filter(|&&b| b < 0x20 && !matches!(b, b'\n' | b'\r' | b'\t' | 0x0C | 0x1B))
        .count();
    if controls * 20 > head.len().max(1) {
        return Err(ExtractError::Binary);
    }
    Ok(String::from_utf8_lossy(bytes).into_owned())
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn text_is_decoded_and_binary_refused() {
        let limits = Limits::default();
        assert_eq!(lines(b"\xEF\xBB\xBFa\nb", &limits).unwrap(), "a\nb");
        assert_eq!(
            lines(&[0xFF, 0xFE, b'h', 0, b'i', 0], &limits).unwrap(),
            "hi"
        );
        assert_eq!(lines("续订\n".as_bytes(), &limits).unwrap(), "续订\n");
        assert_eq!(lines(b"\x7fELF\0\0\0", &limits), Err(ExtractError::Binary));
        let small = Limits {
            max_extracted_bytes: 3,
            ..Limits::default()
        };
        assert!(matches!(
            lines(b"abcd", &small),
            Err(ExtractError::TooMuchText { .. })
        ));
    }
}
