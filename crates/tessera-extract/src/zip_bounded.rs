//! One named member out of a zip archive (DOCX, ODT), bounded.
//!
//! A general zip library reads the whole central directory before it is asked for anything,
//! and trusts the sizes it declares. Here only the directory records before the wanted name
//! are looked at (never more than [`MAX_ENTRIES`]), only that one member is read, and it is
//! inflated through a cap: no other path in the archive is ever opened.

use super::inflate::{self, TooBig};
use super::{ExtractError, Limits};

/// Most entries an archive may list. A DOCX or ODT has tens, a few hundred with many images.
const MAX_ENTRIES: u64 = 10_000;

const END_OF_DIRECTORY: &[u8] = b"PK\x05\x06";
const ZIP64_LOCATOR: &[u8] = b"PK\x06\x07";
const ZIP64_END: &[u8] = b"PK\x06\x06";
const DIRECTORY_ENTRY: &[u8] = b"PK\x01\x02";
const LOCAL_HEADER: &[u8] = b"PK\x03\x04";

/// The bytes of member `name`, inflated within `limits.max_inflated_bytes`.
pub(super) fn member(
    archive: &[u8],
    name: &str,
    format: &'static str,
    limits: &Limits,
) -> Result<Vec<u8>, ExtractError> {
    let malformed = |reason: String| ExtractError::Malformed { format, reason };
    let limit = limits.max_inflated_bytes;
    let directory = directory(archive).ok_or_else(|| malformed("not a zip archive".into()))?;
    if directory.entries > MAX_ENTRIES {
        return Err(malformed(format!(
            "its archive lists {} entries (at most {MAX_ENTRIES} are read)",
            directory.entries
        )));
    }
    let entry = find(archive, &directory, name.as_bytes())
        .map_err(|reason| malformed(reason.into()))?
        .ok_or_else(|| malformed(format!("it has no {name}")))?;
    if entry.flags & 1 != 0 {
        return Err(ExtractError::Encrypted);
    }
    // A declared size past the limit is refused at once; a smaller one proves nothing.
    if entry.uncompressed > limit {
        return Err(ExtractError::Bomb { limit });
    }
    let data =
        local_data(archive, &entry).ok_or_else(|| malformed(format!("{name} is cut short")))?;
    match entry.method {
        0 if data.len() as u64 > limit => Err(ExtractError::Bomb { limit }),
        0 => Ok(data.to_vec()),
        8 => match inflate::deflate(data, limit) {
            Err(TooBig) => Err(ExtractError::Bomb { limit }),
            Ok(inflated) => match inflated.broken {
                Some(reason) => Err(malformed(format!("{name} does not inflate ({reason})"))),
                None => Ok(inflated.bytes),
            },
        },
        method => Err(malformed(format!(
            "{name} uses compression method {method} (only stored and deflate are read)"
        ))),
    }
}

struct Directory {
    entries: u64,
    offset: u64,
}

struct Entry {
    flags: u16,
    method: u16,
    compressed: u64,
    uncompressed: u64,
    local_offset: u64,
}

fn u16_at(bytes: &[u8], at: usize) -> Option<u16> {
    let raw = bytes.get(at..at.checked_add(2)?)?;
    Some(u16::from_le_bytes([raw[0], raw[1]]))
}

fn u32_at(bytes: &[u8], at: usize) -> Option<u32> {
    let raw = bytes.get(at..at.checked_add(4)?)?;
    Some(u32::from_le_bytes([raw[0], raw[1], raw[2], raw[3]]))
}

fn u64_at(bytes: &[u8], at: usize) -> Option<u64> {
    Some(u64::from(u32_at(bytes, at)?) | u64::from(u32_at(bytes, at.checked_add(4)?)?) << 32)
}

fn usize_of(value: u64) -> Option<usize> {
    usize::try_from(value).ok()
}

/// The end-of-central-directory record nearest the end (its comment is at most 64 KiB), with
/// its ZIP64 record when the classic fields are saturated.
fn directory(archive: &[u8]) -> Option<Directory> {
    let last = archive.len().checked_sub(22)?;
    let first = last.saturating_sub(u16::MAX as usize);
    let at = (first..=last)
        .rev()
        .find(|&at| archive[at..].starts_with(END_OF_DIRECTORY))?;
    let entries = u64::from(u16_at(archive, at + 10)?);
    let offset = u64::from(u32_at(archive, at + 16)?);
    if entries != 0xFFFF && offset != 0xFFFF_FFFF {
        return Some(Directory { entries, offset });
    }
    let locator = at.checked_sub(20)?;
    if !archive[locator..].starts_with(ZIP64_LOCATOR) {
        return Some(Directory { entries, offset });
    }
    let end = usize_of(u64_at(archive, locator + 8)?)?;
    if !archive.get(end..)?.starts_with(ZIP64_END) {
        return None;
    }
    Some(Directory {
        entries: u64_at(archive, end.checked_add(32)?)?,
        offset: u64_at(archive, end.checked_add(48)?)?,
    })
}

/// The directory record of `name`, reading records only up to it.
fn find(archive: &[u8], directory: &Directory, name: &[u8]) -> Result<Option<Entry>, &'static str> {
    const BROKEN: &str = "its zip directory is broken";
    let mut at = usize_of(directory.offset).ok_or(BROKEN)?;
    for _ in 0..directory.entries {
        if !archive
            .get(at..)
            .ok_or(BROKEN)?
            .starts_with(DIRECTORY_ENTRY)
        {
            return Err(BROKEN);
        }
        let field = |offset: usize| u16_at(archive, at + offset).map(usize::from).ok_or(BROKEN);
        let (name_len, extra_len, comment_len) = (field(28)?, field(30)?, field(32)?);
        let name_at = at + 46;
        let extra_at = name_at + name_len;
        let next = extra_at + extra_len + comment_len;
        if archive.get(name_at..extra_at).ok_or(BROKEN)? == name {
            let mut entry = Entry {
                flags: u16_at(archive, at + 8).ok_or(BROKEN)?,
                method: u16_at(archive, at + 10).ok_or(BROKEN)?,
                compressed: u64::from(u32_at(archive, at + 20).ok_or(BROKEN)?),
                uncompressed: u64::from(u32_at(archive, at + 24).ok_or(BROKEN)?),
                local_offset: u64::from(u32_at(archive, at + 42).ok_or(BROKEN)?),
            };
            let extra = archive.get(extra_at..extra_at + extra_len).ok_or(BROKEN)?;
            zip64_sizes(extra, &mut entry).ok_or(BROKEN)?;
            return Ok(Some(entry));
        }
        at = next;
    }
    Ok(None)
}

/// Fills the fields a ZIP64 extra block carries (those saturated at 0xFFFFFFFF, in order).
fn zip64_sizes(mut extra: &[u8], entry: &mut Entry) -> Option<()> {
    while extra.len() >= 4 {
        let (id, len) = (u16_at(extra, 0)?, usize::from(u16_at(extra, 2)?));
        let body = extra.get(4..4 + len)?;
        if id == 1 {
            let mut at = 0;
            for field in [
                &mut entry.uncompressed,
                &mut entry.compressed,
                &mut entry.local_offset,
            ] {
                if *field == 0xFFFF_FFFF {
                    *field = u64_at(body, at)?;
                    at += 8;
                }
            }
        }
        extra = &extra[4 + len..];
    }
    Some(())
}

/// The member's stored bytes, after its local header.
fn local_data<'a>(archive: &'a [u8], entry: &Entry) -> Option<&'a [u8]> {
    let at = usize_of(entry.local_offset)?;
    if !archive.get(at..)?.starts_with(LOCAL_HEADER) {
        return None;
    }
    let name_len = usize::from(u16_at(archive, at + 26)?);
    let extra_len = usize::from(u16_at(archive, at + 28)?);
    let start = at.checked_add(30 + name_len + extra_len)?;
    archive.get(start..start.checked_add(usize_of(entry.compressed)?)?)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use std::io::Write;
    use zip::write::SimpleFileOptions;

    fn archive(members: &[(&str, &[u8], zip::CompressionMethod)]) -> Vec<u8> {
        let mut writer = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
        for (name, data, method) in members {
            let options = SimpleFileOptions::default().compression_method(*method);
            writer.start_file(*name, options).unwrap();
            writer.write_all(data).unwrap();
        }
        writer.finish().unwrap().into_inner()
    }

    #[test]
    fn only_the_named_member_is_read() {
        let stored = zip::CompressionMethod::Stored;
        let deflated = zip::CompressionMethod::Deflated;
        let bytes = archive(&[
            ("a.txt", b"first", stored),
            ("../evil.xml", b"never read", deflated),
            ("b.xml", b"second", deflated),
        ]);
        let limits = Limits::default();
        assert_eq!(member(&bytes, "a.txt", "ZIP", &limits).unwrap(), b"first");
        assert_eq!(member(&bytes, "b.xml", "ZIP", &limits).unwrap(), b"second");
        assert!(matches!(
            member(&bytes, "c.xml", "ZIP", &limits),
            Err(ExtractError::Malformed { .. })
        ));
        let cut = &bytes[..bytes.len() - 30];
        assert!(matches!(
            member(cut, "a.txt", "ZIP", &limits),
            Err(ExtractError::Malformed { .. })
        ));
    }
}
