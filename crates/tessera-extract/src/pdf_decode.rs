//! Stream filters undone within one document's inflation budget.

use std::borrow::Cow;
use std::collections::{HashMap, HashSet};

use lopdf::{Dictionary, Document, Object, ObjectId, Stream};

use super::inflate::{self, TooBig};
use super::ExtractError;

/// Filters chained on one stream; real files use one or two.
const MAX_FILTERS: usize = 4;

/// What is left to inflate for one document, and the cap of one stream.
pub(super) struct Inflation {
    limit: u64,
    left: u64,
}

impl Inflation {
    pub fn new(limit: u64) -> Self {
        Self { limit, left: limit }
    }

    /// The stream's bytes with its filters undone; None when a filter is not one text comes
    /// through (images, crypt), or is not a plain name (lopdf decodes none of those either).
    pub fn decode<'s>(
        &mut self,
        stream: &'s Stream,
    ) -> Result<Option<Cow<'s, [u8]>>, ExtractError> {
        let filters: Vec<&[u8]> = match stream.dict.get(b"Filter") {
            Err(_) => return Ok(Some(Cow::Borrowed(&stream.content))),
            Ok(Object::Name(name)) => vec![name],
            Ok(Object::Array(names)) => {
                match names
                    .iter()
                    .map(|n| n.as_name().ok())
                    .collect::<Option<_>>()
                {
                    Some(names) => names,
                    None => return Ok(None),
                }
            }
            Ok(_) => return Ok(None),
        };
        if filters.len() > MAX_FILTERS {
            return Ok(None);
        }
        let parms = stream.dict.get(b"DecodeParms").ok();
        let parms_of = |i: usize| match parms {
            Some(Object::Dictionary(dict)) if i == 0 => Some(dict),
            Some(Object::Array(list)) => list.get(i).and_then(|p| p.as_dict().ok()),
            _ => None,
        };
        let limit = self.limit;
        let bomb = |_: TooBig| ExtractError::Bomb { limit };
        let mut data = Cow::Borrowed(stream.content.as_slice());
        for (i, filter) in filters.into_iter().enumerate() {
            let cap = self.limit.min(self.left);
            let decoded = match filter {
                b"FlateDecode" | b"Fl" => inflate::zlib(&data, cap).map_err(bomb)?.bytes,
                b"LZWDecode" | b"LZW" => {
                    let early = parms_of(i).and_then(|p| p.get(b"EarlyChange").ok());
                    let early = early.and_then(|e| e.as_i64().ok()) != Some(0);
                    inflate::lzw(&data, early, cap).map_err(bomb)?.bytes
                }
                b"ASCIIHexDecode" | b"AHx" => inflate::ascii_hex(&data),
                b"ASCII85Decode" | b"A85" => inflate::ascii85(&data, cap).map_err(bomb)?,
                _ => return Ok(None),
            };
            let decoded = unpredict(decoded, parms_of(i), cap);
            self.left = self.left.saturating_sub(decoded.len() as u64);
            data = Cow::Owned(decoded);
        }
        Ok(Some(data))
    }
}

/// Decodes every stream named by a `/ToUnicode` into its husk: lopdf reads those itself.
pub(super) fn decode_cmaps(
    doc: &mut Document,
    streams: &HashMap<ObjectId, Stream>,
    inflation: &mut Inflation,
) -> Result<(), ExtractError> {
    let mut cmaps = HashSet::new();
    let mut pending: Vec<&Object> = doc.objects.values().collect();
    while let Some(object) = pending.pop() {
        let dict = match object {
            Object::Dictionary(dict) => dict,
            Object::Stream(stream) => &stream.dict,
            Object::Array(items) => {
                pending.extend(items);
                continue;
            }
            _ => continue,
        };
        if let Some(Ok((Some(id), _))) = dict.get(b"ToUnicode").ok().map(|t| doc.dereference(t)) {
            cmaps.insert(id);
        }
        pending.extend(dict.iter().map(|(_, value)| value));
    }
    for id in cmaps {
        let Some(stream) = streams.get(&id) else {
            continue;
        };
        let plain = inflation.decode(stream)?.map(Cow::into_owned);
        if let Some(Object::Stream(husk)) = doc.objects.get_mut(&id) {
            husk.set_content(plain.unwrap_or_default());
        }
    }
    Ok(())
}

/// Undoes a PNG predictor (common on object streams). Its output is never longer than its
/// input, so it needs no cap of its own beyond a sane row.
fn unpredict(data: Vec<u8>, parms: Option<&Dictionary>, cap: u64) -> Vec<u8> {
    let Some(parms) = parms else {
        return data;
    };
    let int = |key: &[u8], default: i64| parms.get(key).and_then(Object::as_i64).unwrap_or(default);
    if !(10..=15).contains(&int(b"Predictor", 1)) {
        return data;
    }
    let colors = int(b"Colors", 1).clamp(1, 32) as usize;
    let bits = int(b"BitsPerComponent", 8).clamp(1, 16) as usize;
    let columns = int(b"Columns", 1).clamp(1, 1 << 24) as usize;
    let pixel = (colors * bits).div_ceil(8);
    let row = (colors * bits * columns).div_ceil(8);
    if row as u64 > cap {
        return data;
    }
    match lopdf::filters::png::decode_frame(&data, pixel, row / pixel) {
        Ok(decoded) => decoded,
        Err(_) => data,
    }
}
