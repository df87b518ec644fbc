//! HTML as text on its own source lines: tags, comments, scripts and styles are blanked where
//! they stand (newlines inside them kept), entities decoded, so line N of the text is line N of
//! the file and a citation opens the file where the words are.

use super::text::decode;
use super::{ExtractError, Limits};

pub(super) fn lines(bytes: &[u8], limits: &Limits) -> Result<String, ExtractError> {
    let source = decode(bytes)?;
    let text = strip(&source);
    if text.len() > limits.max_extracted_bytes {
        return Err(ExtractError::TooMuchText {
            limit: limits.max_extracted_bytes,
        });
    }
    Ok(text)
}

/// Keeps only the newlines of `skipped`.
fn newlines_of(skipped: &str, out: &mut String) {
    out.extend(skipped.chars().filter(|&c| c == '\n'));
}

fn strip(source: &str) -> String {
    let mut out = String::with_capacity(source.len() / 2);
    let lower = source.to_ascii_lowercase();
    let mut at = 0;
    while at < source.len() {
        let rest = &source[at..];
        let Some(lt) = rest.find('<') else {
            push_text(rest, &mut out);
            break;
        };
        push_text(&rest[..lt], &mut out);
        let start = at + lt;
        let tail = &lower[start..];
        // Where the markup ends: a comment, a raw-text element, or a tag.
        let end = if tail.starts_with("<!--") {
            tail.find("-->").map_or(source.len(), |e| start + e + 3)
        } else if let Some(name) = ["<script", "<style", "<noscript", "<template"]
            .iter()
            .find(|open| tail.starts_with(**open))
        {
            let close = format!("</{}", &name[1..]);
            match tail.find(&close) {
                Some(e) => {
                    let after = start + e;
                    lower[after..]
                        .find('>')
                        .map_or(source.len(), |g| after + g + 1)
                }
                None => source.len(),
            }
        } else {
            tail.find('>').map_or(source.len(), |g| start + g + 1)
        };
        let markup = &source[start..end];
        newlines_of(markup, &mut out);
        if is_block_break(&lower[start..end]) && !out.ends_with(['\n', ' ']) {
            out.push(' ');
        }
        at = end;
    }
    out
}

fn is_block_break(tag: &str) -> bool {
    [
        "<br", "<p", "</p", "<div", "</div", "<li", "<td", "<th", "<tr", "<h",
    ]
    .iter()
    .any(|t| tag.starts_with(t))
}

fn push_text(text: &str, out: &mut String) {
    let mut rest = text;
    while let Some(amp) = rest.find('&') {
        out.push_str(&rest[..amp]);
        let after = &rest[amp..];
        let semi = after.find(';').filter(|&s| s <= 10);
        match semi.and_then(|s| entity(&after[1..s]).map(|c| (c, s))) {
            Some((c, s)) => {
                out.push(c);
                rest = &after[s + 1..];
            }
            None => {
                out.push('&');
                rest = &after[1..];
            }
        }
    }
    out.push_str(rest);
}

fn entity(name: &str) -> Option<char> {
    Some(match name {
        "amp" => '&',
        "lt" => '<',
        "gt" => '>',
        "quot" => '"',
        "apos" | "#39" => '\'',
        "nbsp" => ' ',
        _ => {
            let number = name.strip_prefix('#')?;
            let code = match number.strip_prefix(['x', 'X']) {
                Some(hex) => u32::from_str_radix(hex, 16).ok()?,
                None => number.parse().ok()?,
            };
            char::from_u32(code)?
        }
    })
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn words_stay_on_their_source_line() {
        let page = "<html><head><style>\nbody{}\n</style></head>\n<body>\n<h1>Title &amp; more</h1>\n<p>needle\nhere</p><script>var x =\n'<p>no</p>';</script>\n</body>";
        let text = lines(page.as_bytes(), &Limits::default()).unwrap();
        let found: Vec<(usize, &str)> = text
            .lines()
            .enumerate()
            .filter(|(_, l)| !l.trim().is_empty())
            .map(|(n, l)| (n + 1, l.trim()))
            .collect();
        assert_eq!(page.matches('\n').count(), text.matches('\n').count());
        assert_eq!(found, vec![(5, "Title & more"), (6, "needle"), (7, "here")]);
    }
}
