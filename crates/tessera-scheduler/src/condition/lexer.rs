//! Tokens of the condition language. Positions are 1-based character columns.

use super::ConditionError;
use crate::path::{is_name_char, is_name_start};

#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Tok {
    Name(String),
    Str(String),
    Num(serde_json::Number),
    True,
    False,
    Null,
    And,
    Or,
    Not,
    Eq,
    Ne,
    Gt,
    Lt,
    Ge,
    Le,
    LParen,
    RParen,
    LBracket,
    RBracket,
    Dot,
    Comma,
    End,
}

impl Tok {
    /// How the token reads in an error message.
    pub(crate) fn describe(&self) -> String {
        match self {
            Tok::Name(n) => format!("`{n}`"),
            Tok::Str(s) => format!("the string '{s}'"),
            Tok::Num(n) => format!("the number {n}"),
            Tok::True => "`true`".into(),
            Tok::False => "`false`".into(),
            Tok::Null => "`null`".into(),
            Tok::And => "AND".into(),
            Tok::Or => "OR".into(),
            Tok::Not => "NOT".into(),
            Tok::Eq => "`==`".into(),
            Tok::Ne => "`!=`".into(),
            Tok::Gt => "`>`".into(),
            Tok::Lt => "`<`".into(),
            Tok::Ge => "`>=`".into(),
            Tok::Le => "`<=`".into(),
            Tok::LParen => "`(`".into(),
            Tok::RParen => "`)`".into(),
            Tok::LBracket => "`[`".into(),
            Tok::RBracket => "`]`".into(),
            Tok::Dot => "`.`".into(),
            Tok::Comma => "`,`".into(),
            Tok::End => "the end of the condition".into(),
        }
    }
}

#[derive(Clone, Debug)]
pub(crate) struct Token {
    pub tok: Tok,
    /// 1-based column of the first character.
    pub pos: usize,
}

pub(crate) fn tokenize(text: &str) -> Result<Vec<Token>, ConditionError> {
    let chars: Vec<char> = text.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    let err = |i: usize, message: String| ConditionError {
        position: i + 1,
        message,
    };
    while i < chars.len() {
        let c = chars[i];
        let start = i;
        let two = |next: char| chars.get(i + 1) == Some(&next);
        let tok = match c {
            c if c.is_whitespace() => {
                i += 1;
                continue;
            }
            '(' => {
                i += 1;
                Tok::LParen
            }
            ')' => {
                i += 1;
                Tok::RParen
            }
            '[' => {
                i += 1;
                Tok::LBracket
            }
            ']' => {
                i += 1;
                Tok::RBracket
            }
            ',' => {
                i += 1;
                Tok::Comma
            }
            '.' if !chars.get(i + 1).is_some_and(char::is_ascii_digit)
                || matches!(
                    out.last(),
                    Some(Token {
                        tok: Tok::Name(_) | Tok::RBracket | Tok::RParen,
                        pos,
                    }) if *pos < start + 1 && no_space_before(&chars, start)
                ) =>
            {
                i += 1;
                Tok::Dot
            }
            '=' if two('=') => {
                i += 2;
                Tok::Eq
            }
            '=' => return Err(err(i, "`=` is not an operator; use `==`".into())),
            '!' if two('=') => {
                i += 2;
                Tok::Ne
            }
            '!' => {
                i += 1;
                Tok::Not
            }
            '>' if two('=') => {
                i += 2;
                Tok::Ge
            }
            '>' => {
                i += 1;
                Tok::Gt
            }
            '<' if two('=') => {
                i += 2;
                Tok::Le
            }
            '<' if two('>') => {
                i += 2;
                Tok::Ne
            }
            '<' => {
                i += 1;
                Tok::Lt
            }
            '&' if two('&') => {
                i += 2;
                Tok::And
            }
            '|' if two('|') => {
                i += 2;
                Tok::Or
            }
            '\'' | '"' => {
                let quote = c;
                i += 1;
                let mut s = String::new();
                loop {
                    match chars.get(i) {
                        None => return Err(err(start, "this string is never closed".into())),
                        Some('\\') => {
                            let escaped = match chars.get(i + 1) {
                                Some('n') => '\n',
                                Some('t') => '\t',
                                Some(&e) => e,
                                None => {
                                    return Err(err(start, "this string is never closed".into()))
                                }
                            };
                            s.push(escaped);
                            i += 2;
                        }
                        Some(&ch) if ch == quote => {
                            i += 1;
                            break;
                        }
                        Some(&ch) => {
                            s.push(ch);
                            i += 1;
                        }
                    }
                }
                Tok::Str(s)
            }
            c if c.is_ascii_digit()
                || ((c == '-' || c == '.')
                    && chars
                        .get(i + 1)
                        .is_some_and(|n| n.is_ascii_digit() || *n == '.')) =>
            {
                let mut j = i + 1;
                while j < chars.len()
                    && (chars[j].is_ascii_digit()
                        || chars[j] == '.'
                        || chars[j] == 'e'
                        || chars[j] == 'E'
                        || ((chars[j] == '-' || chars[j] == '+')
                            && (chars[j - 1] == 'e' || chars[j - 1] == 'E')))
                {
                    j += 1;
                }
                let text: String = chars[i..j].iter().collect();
                let normalized = if text.starts_with('.') {
                    format!("0{text}")
                } else if text.starts_with("-.") {
                    format!("-0{}", &text[1..])
                } else {
                    text.clone()
                };
                let number = parse_number(&normalized)
                    .ok_or_else(|| err(i, format!("`{text}` is not a number")))?;
                i = j;
                Tok::Num(number)
            }
            c if is_name_start(c) => {
                let mut j = i + 1;
                while j < chars.len() && is_name_char(chars[j]) {
                    j += 1;
                }
                let word: String = chars[i..j].iter().collect();
                i = j;
                match word.to_ascii_lowercase().as_str() {
                    "and" => Tok::And,
                    "or" => Tok::Or,
                    "not" => Tok::Not,
                    "true" => Tok::True,
                    "false" => Tok::False,
                    "null" => Tok::Null,
                    _ => Tok::Name(word),
                }
            }
            other => return Err(err(i, format!("unexpected character `{other}`"))),
        };
        out.push(Token {
            tok,
            pos: start + 1,
        });
    }
    out.push(Token {
        tok: Tok::End,
        pos: chars.len() + 1,
    });
    Ok(out)
}

fn no_space_before(chars: &[char], at: usize) -> bool {
    at > 0 && !chars[at - 1].is_whitespace()
}

fn parse_number(text: &str) -> Option<serde_json::Number> {
    if let Ok(i) = text.parse::<i64>() {
        return Some(i.into());
    }
    let f = text.parse::<f64>().ok()?;
    serde_json::Number::from_f64(f)
}
