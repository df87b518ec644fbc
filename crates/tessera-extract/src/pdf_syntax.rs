//! PDF syntax: a lexer and an object parser for hostile input.
//!
//! The parser keeps its open arrays and dictionaries on a heap stack, never the call stack, and
//! refuses nesting deeper than [`MAX_DEPTH`]; every object it makes is charged to a budget, so
//! a file of `[[[[…` or of a million tiny numbers neither overflows the stack nor multiplies
//! into gigabytes of objects. Every loop consumes input, so none can spin.

use lopdf::{Dictionary, Object, StringFormat};
use memchr::memmem;

use super::inflate;

/// Arrays and dictionaries open inside one another; real files stay under ten.
pub(super) const MAX_DEPTH: usize = 64;

#[derive(Debug, PartialEq)]
pub(super) enum Token<'a> {
    Int(i64),
    Real(f32),
    Name(Vec<u8>),
    Str(Vec<u8>, StringFormat),
    ArrayOpen,
    ArrayClose,
    DictOpen,
    DictClose,
    /// A keyword or operator (`obj`, `stream`, `Tj`, `true`), or a stray delimiter.
    Word(&'a [u8]),
}

#[derive(Debug, PartialEq, Eq)]
pub(super) enum SyntaxError {
    TooDeep,
    TooMany,
    /// Not an object here: cut short, unbalanced, or a keyword where a value belongs.
    NotAnObject,
}

fn is_white(b: u8) -> bool {
    matches!(b, 0 | b'\t' | b'\n' | 0x0C | b'\r' | b' ')
}

fn is_delimiter(b: u8) -> bool {
    matches!(
        b,
        b'(' | b')' | b'<' | b'>' | b'[' | b']' | b'{' | b'}' | b'/' | b'%'
    )
}

pub(super) struct Lexer<'a> {
    pub buf: &'a [u8],
    pub pos: usize,
}

impl<'a> Lexer<'a> {
    pub fn new(buf: &'a [u8]) -> Self {
        Self { buf, pos: 0 }
    }

    fn rest(&self) -> &'a [u8] {
        self.buf.get(self.pos..).unwrap_or_default()
    }

    fn skip_space(&mut self) {
        while let Some(&b) = self.buf.get(self.pos) {
            if is_white(b) {
                self.pos += 1;
            } else if b == b'%' {
                let line = memchr::memchr2(b'\n', b'\r', self.rest());
                self.pos = line.map_or(self.buf.len(), |at| self.pos + at);
            } else {
                return;
            }
        }
    }

    /// The next token, None at the end of the input.
    pub fn next_token(&mut self) -> Option<Token<'a>> {
        self.skip_space();
        let start = self.pos;
        let first = *self.buf.get(start)?;
        self.pos += 1;
        let second = self.buf.get(self.pos).copied();
        Some(match first {
            b'[' => Token::ArrayOpen,
            b']' => Token::ArrayClose,
            b'<' if second == Some(b'<') => {
                self.pos += 1;
                Token::DictOpen
            }
            b'>' if second == Some(b'>') => {
                self.pos += 1;
                Token::DictClose
            }
            b'<' => {
                let body = self.rest();
                let end = memchr::memchr(b'>', body).map_or(body.len(), |at| at + 1);
                self.pos += end;
                Token::Str(inflate::ascii_hex(body), StringFormat::Hexadecimal)
            }
            b'(' => Token::Str(self.literal(), StringFormat::Literal),
            b'/' => Token::Name(self.name()),
            b')' | b'>' | b'{' | b'}' => Token::Word(&self.buf[start..self.pos]),
            _ => {
                let word = self.regular(start);
                number(word).unwrap_or(Token::Word(word))
            }
        })
    }

    fn regular(&mut self, start: usize) -> &'a [u8] {
        let body = self.buf.get(start..).unwrap_or_default();
        let len = body
            .iter()
            .position(|&b| is_white(b) || is_delimiter(b))
            .unwrap_or(body.len());
        self.pos = start + len;
        &body[..len]
    }

    fn name(&mut self) -> Vec<u8> {
        let raw = self.regular(self.pos);
        let mut name = Vec::with_capacity(raw.len());
        let mut at = 0;
        while let Some(&b) = raw.get(at) {
            let hex = raw
                .get(at + 1..at + 3)
                .filter(|_| b == b'#')
                .and_then(|h| u8::from_str_radix(std::str::from_utf8(h).ok()?, 16).ok());
            match hex {
                Some(decoded) => {
                    name.push(decoded);
                    at += 3;
                }
                None => {
                    name.push(b);
                    at += 1;
                }
            }
        }
        name
    }

    /// A literal string after its `(`; one left open runs to the end of the input.
    fn literal(&mut self) -> Vec<u8> {
        let mut out = Vec::new();
        let mut depth = 0usize;
        while let Some(&b) = self.buf.get(self.pos) {
            self.pos += 1;
            match b {
                b'(' => depth += 1,
                b')' if depth == 0 => return out,
                b')' => depth -= 1,
                b'\\' => {
                    self.escape(&mut out);
                    continue;
                }
                _ => {}
            }
            out.push(b);
        }
        out
    }

    fn escape(&mut self, out: &mut Vec<u8>) {
        let Some(&b) = self.buf.get(self.pos) else {
            return;
        };
        self.pos += 1;
        match b {
            b'n' => out.push(b'\n'),
            b'r' => out.push(b'\r'),
            b't' => out.push(b'\t'),
            b'b' => out.push(8),
            b'f' => out.push(12),
            b'0'..=b'7' => {
                let mut value = u32::from(b - b'0');
                for _ in 0..2 {
                    match self.buf.get(self.pos) {
                        Some(&d @ b'0'..=b'7') => {
                            value = value * 8 + u32::from(d - b'0');
                            self.pos += 1;
                        }
                        _ => break,
                    }
                }
                out.push(value as u8);
            }
            // A backslash before a line end continues the string on the next line.
            b'\r' => {
                if self.buf.get(self.pos) == Some(&b'\n') {
                    self.pos += 1;
                }
            }
            b'\n' => {}
            other => out.push(other),
        }
    }

    /// Skips an inline image's data, after its `ID`, to just past its `EI`.
    pub fn skip_inline_image(&mut self) {
        let data = self.pos + 1;
        let mut from = data;
        while let Some(found) = self.buf.get(from..).and_then(|b| memmem::find(b, b"EI")) {
            let at = from + found;
            let before = at.checked_sub(1).and_then(|i| self.buf.get(i));
            let after = self.buf.get(at + 2);
            if before.is_some_and(|&b| is_white(b))
                && after.is_none_or(|&b| is_white(b) || is_delimiter(b))
            {
                self.pos = at + 2;
                return;
            }
            from = at + 1;
        }
        self.pos = self.buf.len();
    }
}

fn number(word: &[u8]) -> Option<Token<'static>> {
    let text = std::str::from_utf8(word).ok()?;
    let digits = text.trim_start_matches(['+', '-']);
    if digits.is_empty()
        || !digits.bytes().all(|b| b.is_ascii_digit() || b == b'.')
        || !digits.bytes().any(|b| b.is_ascii_digit())
        || digits.bytes().filter(|&b| b == b'.').count() > 1
    {
        return None;
    }
    if !digits.contains('.') {
        if let Ok(int) = text.parse::<i64>() {
            return Some(Token::Int(int));
        }
    }
    let real = text.trim_start_matches('+').parse::<f64>().ok()?;
    Some(Token::Real(real as f32))
}

enum Open {
    Array(Vec<Object>),
    Dict(Dictionary, Option<Vec<u8>>),
}

/// The object starting with `first`. With `references`, `1 0 R` reads as a reference (file
/// objects); content streams have none. Each object made costs one from `budget`.
pub(super) fn object(
    lexer: &mut Lexer<'_>,
    first: Token<'_>,
    references: bool,
    budget: &mut usize,
) -> Result<Object, SyntaxError> {
    let mut open: Vec<Open> = Vec::new();
    let mut token = Some(first);
    loop {
        *budget = budget.checked_sub(1).ok_or(SyntaxError::TooMany)?;
        let value = match token.take().ok_or(SyntaxError::NotAnObject)? {
            Token::ArrayOpen | Token::DictOpen if open.len() >= MAX_DEPTH => {
                return Err(SyntaxError::TooDeep)
            }
            Token::ArrayOpen => {
                open.push(Open::Array(Vec::new()));
                token = lexer.next_token();
                continue;
            }
            Token::DictOpen => {
                open.push(Open::Dict(Dictionary::new(), None));
                token = lexer.next_token();
                continue;
            }
            Token::ArrayClose => match open.pop() {
                Some(Open::Array(items)) => Object::Array(items),
                _ => return Err(SyntaxError::NotAnObject),
            },
            // A key left without its value is dropped, as viewers do.
            Token::DictClose => match open.pop() {
                Some(Open::Dict(dict, _)) => Object::Dictionary(dict),
                _ => return Err(SyntaxError::NotAnObject),
            },
            Token::Int(n) if references => reference_or_int(lexer, n),
            Token::Int(n) => Object::Integer(n),
            Token::Real(r) => Object::Real(r),
            Token::Name(name) => Object::Name(name),
            Token::Str(bytes, format) => Object::String(bytes, format),
            Token::Word(b"true") => Object::Boolean(true),
            Token::Word(b"false") => Object::Boolean(false),
            Token::Word(b"null") => Object::Null,
            Token::Word(_) => return Err(SyntaxError::NotAnObject),
        };
        match open.last_mut() {
            None => return Ok(value),
            Some(Open::Array(items)) => items.push(value),
            Some(Open::Dict(dict, key)) => match (key.take(), value) {
                (Some(k), value) => dict.set(k, value),
                (None, Object::Name(name)) => *key = Some(name),
                (None, _) => return Err(SyntaxError::NotAnObject),
            },
        }
        token = lexer.next_token();
    }
}

/// `n g R` when the two tokens after `n` make it a reference, else the integer `n`.
fn reference_or_int(lexer: &mut Lexer<'_>, n: i64) -> Object {
    let saved = lexer.pos;
    if let (Ok(number), Some(Token::Int(generation))) = (u32::try_from(n), lexer.next_token()) {
        if let (Ok(generation), Some(Token::Word(b"R"))) =
            (u16::try_from(generation), lexer.next_token())
        {
            return Object::Reference((number, generation));
        }
    }
    lexer.pos = saved;
    Object::Integer(n)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    fn parse(text: &[u8]) -> Result<Object, SyntaxError> {
        let mut lexer = Lexer::new(text);
        let first = lexer.next_token().unwrap();
        object(&mut lexer, first, true, &mut 1000)
    }

    #[test]
    fn objects_parse() {
        let dict = parse(b"<< /Type /Pag#65 /Kids [3 0 R 4 0 R] /N -1.5 /S (a\\(b\\)\\101\\\n(c)) /H <48 69> /E [] /B true % note\n /Z null >>").unwrap();
        let dict = dict.as_dict().unwrap();
        assert_eq!(dict.get(b"Type").unwrap().as_name().unwrap(), b"Page");
        let kids = dict.get(b"Kids").unwrap().as_array().unwrap();
        assert_eq!(kids[1].as_reference().unwrap(), (4, 0));
        assert_eq!(dict.get(b"N").unwrap().as_float().unwrap(), -1.5);
        assert_eq!(dict.get(b"S").unwrap().as_str().unwrap(), b"a(b)A(c)");
        assert_eq!(dict.get(b"H").unwrap().as_str().unwrap(), b"Hi");
        assert_eq!(dict.get(b"Z").unwrap(), &Object::Null);
        assert_eq!(parse(b"[1 2]").unwrap().as_array().unwrap().len(), 2);
    }

    #[test]
    fn deep_nesting_and_floods_are_refused_without_recursion() {
        let deep = "[".repeat(1_000_000);
        assert_eq!(parse(deep.as_bytes()), Err(SyntaxError::TooDeep));
        let flood = format!("[{}]", "1 ".repeat(5000));
        assert_eq!(parse(flood.as_bytes()), Err(SyntaxError::TooMany));
        assert_eq!(parse(b"<< /A 1 endobj"), Err(SyntaxError::NotAnObject));
        assert_eq!(
            parse(b"(never closed"),
            Ok(Object::string_literal("never closed"))
        );
    }

    #[test]
    fn inline_images_are_skipped() {
        let mut lexer = Lexer::new(b"BI /W 1 ID \x00EI\xffEI\nEI (after) Tj");
        while lexer.next_token() != Some(Token::Word(b"ID")) {}
        lexer.skip_inline_image();
        assert_eq!(
            lexer.next_token(),
            Some(Token::Str(b"after".to_vec(), StringFormat::Literal))
        );
    }
}
