//! Markdown as the plain text a person reads, for search snippets: no `#`, `**`, backticks,
//! fences, quote or list markers, and links as their words. Not a Markdown parser: it drops the
//! marks a snippet would otherwise show, and leaves text that only looks like a mark alone
//! (`snake_case`, `2 * 3` are kept).

/// `markdown` without its marks, its lines that hold text joined by newlines.
pub fn plain_text(markdown: &str) -> String {
    let mut out = String::with_capacity(markdown.len());
    for line in markdown.lines() {
        let trimmed = line.trim_start();
        if trimmed.is_empty() || trimmed.starts_with("```") || trimmed.starts_with("~~~") {
            continue;
        }
        if !out.is_empty() {
            out.push('\n');
        }
        inline(strip_line_marks(trimmed), &mut out);
    }
    out
}

/// A line without its heading, quote and list marks.
fn strip_line_marks(mut line: &str) -> &str {
    loop {
        let before = line;
        if let Some(rest) = line.strip_prefix('>') {
            line = rest.trim_start();
        }
        let hashes = line.chars().take_while(|&c| c == '#').count();
        if (1..=6).contains(&hashes) && line[hashes..].starts_with(' ') {
            line = line[hashes..].trim_start();
        }
        for marker in ["- ", "* ", "+ "] {
            if let Some(rest) = line.strip_prefix(marker) {
                line = rest;
            }
        }
        let digits = line.chars().take_while(char::is_ascii_digit).count();
        if digits > 0 && line[digits..].starts_with(". ") {
            line = &line[digits + 2..];
        }
        if line == before {
            return line;
        }
    }
}

/// Appends `line` with links as their words and emphasis and code marks dropped.
fn inline(line: &str, out: &mut String) {
    let chars: Vec<char> = line.chars().collect();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        // `[words](target)` and `![alt](target)`: the words.
        if c == '[' || (c == '!' && chars.get(i + 1) == Some(&'[')) {
            let open = if c == '!' { i + 1 } else { i };
            if let Some((words, end)) = link_at(&chars, open) {
                out.extend(words);
                i = end;
                continue;
            }
        }
        let doubled = chars.get(i + 1) == Some(&c);
        match c {
            '`' => {}
            '*' | '~' if doubled => i += 1,
            '_' if doubled => i += 1,
            // A lone `*` hugging a word is emphasis; one between spaces is a sign.
            '*' if next_is_word(&chars, i) || prev_is_word(&chars, i) => {}
            other => out.push(other),
        }
        i += 1;
    }
}

fn next_is_word(chars: &[char], i: usize) -> bool {
    chars.get(i + 1).is_some_and(|c| !c.is_whitespace())
}

fn prev_is_word(chars: &[char], i: usize) -> bool {
    i > 0 && chars.get(i - 1).is_some_and(|c| !c.is_whitespace())
}

/// The words of a link opening at `open` (`[`), and where the link ends.
fn link_at(chars: &[char], open: usize) -> Option<(&[char], usize)> {
    let close = open + 1 + chars[open + 1..].iter().position(|&c| c == ']')?;
    if chars.get(close + 1) != Some(&'(') {
        return None;
    }
    let end = close + 2 + chars[close + 2..].iter().position(|&c| c == ')')?;
    Some((&chars[open + 1..close], end + 1))
}

#[cfg(test)]
mod tests {
    use super::plain_text;

    #[test]
    fn marks_go_and_words_stay() {
        let md = "# Plan\n\n> **Note:** see [the docs](https://x.y/z) and `cargo test`\n\n\
                  - first *item*\n2. second ~~old~~ item\n```rust\nlet snake_case = 2 * 3;\n```\n\
                  ![a chart](blob:1)";
        assert_eq!(
            plain_text(md),
            "Plan\nNote: see the docs and cargo test\nfirst item\nsecond old item\n\
             let snake_case = 2 * 3;\na chart"
        );
    }

    #[test]
    fn text_that_only_looks_like_a_mark_is_left_alone() {
        assert_eq!(plain_text("#hashtag [x] (y)"), "#hashtag [x] (y)");
        assert_eq!(plain_text("包周期续订的接口是？"), "包周期续订的接口是？");
    }
}
