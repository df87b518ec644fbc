//! Images a tool hands back, by the engine's convention (`tessera_engine::tools::ToolImage`
//! under `TOOL_IMAGES_KEY`): stored as attachments, then evidences, image parts for the model
//! and pictures in the chat.

use serde_json::Value;
use tessera_engine::tools::{attach_image, ToolFailure, ToolFailureCode};
use tessera_store::Store;

pub use tessera_engine::tools::TOOL_IMAGES_KEY as IMAGES_KEY;

/// Stores `bytes` and describes them as an entry of a result's `images`.
pub fn attach(
    store: &Store,
    bytes: &[u8],
    mime_type: &str,
    size: (u32, u32),
    name: &str,
) -> Result<Value, ToolFailure> {
    let mut image =
        attach_image(store, bytes, mime_type, Some(size.0), Some(size.1)).map_err(|error| {
            ToolFailure::new(
                ToolFailureCode::StorageFailed,
                format!("the image could not be stored: {error}"),
            )
        })?;
    image.name = Some(name.to_owned());
    serde_json::to_value(image)
        .map_err(|error| ToolFailure::new(ToolFailureCode::StorageFailed, error.to_string()))
}

/// The widest or tallest image decoded (a 16K screen is 15,360 pixels wide).
pub const MAX_DECODED_SIDE: u32 = 16_384;
/// The most memory decoding one image may take: an 8K screen in RGBA is 128 MiB.
pub const MAX_DECODED_BYTES: u64 = 256 * 1024 * 1024;

/// An image decoded under [`MAX_DECODED_SIDE`] and [`MAX_DECODED_BYTES`]: a small file that
/// announces a huge canvas (a decompression bomb) is refused before its pixels are allocated,
/// naming the limit. `what` names the image in the error ("the attachment").
pub fn decode_bounded(bytes: &[u8], what: &str) -> Result<image::DynamicImage, String> {
    let mut reader = image::ImageReader::new(std::io::Cursor::new(bytes))
        .with_guessed_format()
        .map_err(|e| format!("{what} could not be read: {e}"))?;
    let mut limits = image::Limits::default();
    limits.max_image_width = Some(MAX_DECODED_SIDE);
    limits.max_image_height = Some(MAX_DECODED_SIDE);
    limits.max_alloc = Some(MAX_DECODED_BYTES);
    reader.limits(limits);
    reader.decode().map_err(|e| match e {
        image::ImageError::Limits(_) => format!(
            "{what} is larger than Tessera decodes (at most {MAX_DECODED_SIDE}×{MAX_DECODED_SIDE} \
             pixels and {} MiB): {e}",
            MAX_DECODED_BYTES >> 20
        ),
        e => format!("{what} is not a readable image: {e}"),
    })
}

/// PNG bytes of an RGBA image.
pub fn encode_png(image: &image::RgbaImage) -> Result<Vec<u8>, ToolFailure> {
    let mut out = std::io::Cursor::new(Vec::new());
    image
        .write_to(&mut out, image::ImageFormat::Png)
        .map_err(|error| {
            ToolFailure::new(
                ToolFailureCode::EncodeFailed,
                format!("PNG encoding failed: {error}"),
            )
        })?;
    Ok(out.into_inner())
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    /// A PNG of `width`×`height` RGBA pixels as its header announces; no pixel data follows.
    fn png_announcing(width: u32, height: u32) -> Vec<u8> {
        fn crc32(bytes: &[u8]) -> u32 {
            let mut crc = !0u32;
            for &b in bytes {
                crc ^= u32::from(b);
                for _ in 0..8 {
                    crc = if crc & 1 == 1 {
                        (crc >> 1) ^ 0xEDB8_8320
                    } else {
                        crc >> 1
                    };
                }
            }
            !crc
        }
        let mut out = b"\x89PNG\r\n\x1a\n".to_vec();
        let mut add = |kind: &[u8], data: &[u8]| {
            let mut chunk = kind.to_vec();
            chunk.extend_from_slice(data);
            out.extend_from_slice(&(data.len() as u32).to_be_bytes());
            out.extend_from_slice(&chunk);
            out.extend_from_slice(&crc32(&chunk).to_be_bytes());
        };
        let mut header = width.to_be_bytes().to_vec();
        header.extend_from_slice(&height.to_be_bytes());
        header.extend_from_slice(&[8, 6, 0, 0, 0]);
        add(b"IHDR", &header);
        // A zlib stream of one stored block of 16 zeros (adler32 of 16 zeros: 0x00100001).
        let mut idat = vec![0x78, 0x01, 0x01, 16, 0, !16, 0xFF];
        idat.extend_from_slice(&[0; 16]);
        idat.extend_from_slice(&0x0010_0001u32.to_be_bytes());
        add(b"IDAT", &idat);
        add(b"IEND", &[]);
        out
    }

    #[test]
    fn an_image_announcing_a_huge_canvas_is_refused_before_its_pixels_exist() {
        // 60,000 × 60,000 RGBA would be 13 GiB.
        let why = decode_bounded(&png_announcing(60_000, 60_000), "the attachment")
            .err()
            .unwrap();
        assert!(why.contains("larger than Tessera decodes"), "{why}");
        assert!(why.contains("16384×16384"), "{why}");
        // Within the sides but past the memory: 16,000 × 16,000 RGBA is 976 MiB.
        let why = decode_bounded(&png_announcing(16_000, 16_000), "the attachment")
            .err()
            .unwrap();
        assert!(why.contains("256 MiB"), "{why}");
        let mut png = Vec::new();
        image::RgbaImage::from_pixel(3, 2, image::Rgba([1, 2, 3, 255]))
            .write_to(&mut std::io::Cursor::new(&mut png), image::ImageFormat::Png)
            .unwrap();
        assert_eq!(decode_bounded(&png, "x").unwrap().width(), 3);
    }
}
