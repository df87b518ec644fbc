//! The calculator's language: a tokenizer and a recursive-descent evaluator over `f64`. No
//! eval of any kind: only the operators and functions listed here exist.
//!
//! Precedence, loosest first: `+ -`, `* / %`, unary `- +`, `^` (also `**`, right-associative,
//! so `-2^2` is -4 and `2^3^2` is 512). Literals: `12`, `0.5`, `.5`, `1e-3`, `6.02E23`.
//! Functions: sqrt, abs, round (x, digits?), floor, ceil, min, max (one or more arguments),
//! ln, log10, sin, cos, tan (radians); constants pi and e (`pi()` works too).

/// Why an expression has no value; `column` is 1-based, in characters.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("column {column}: {message}")]
pub struct CalcError {
    pub column: usize,
    pub message: String,
}

/// Longest expression accepted, in characters.
pub(crate) const MAX_EXPRESSION_CHARS: usize = 500;
/// Deepest nesting of parentheses and unary signs: keeps the recursion far from the stack's end.
const MAX_DEPTH: usize = 64;

const FUNCTIONS: &str = "sqrt, abs, round, floor, ceil, min, max, ln, log10, sin, cos, tan";

#[derive(Clone, Debug, PartialEq)]
enum Tok {
    Num(f64),
    Ident(String),
    /// `+ - * / % ^` (`**` becomes `^`).
    Op(char),
    LParen,
    RParen,
    Comma,
    End,
}

fn err(column: usize, message: impl Into<String>) -> CalcError {
    CalcError {
        column,
        message: message.into(),
    }
}

fn describe(t: &Tok) -> String {
    match t {
        Tok::Num(n) => format!("the number {n}"),
        Tok::Ident(name) => format!("`{name}`"),
        Tok::Op(op) => format!("`{op}`"),
        Tok::LParen => "`(`".into(),
        Tok::RParen => "`)`".into(),
        Tok::Comma => "`,`".into(),
        Tok::End => "the end of the expression".into(),
    }
}

/// Tokens with their 1-based columns; the last is always `End`.
fn tokenize(text: &str) -> Result<Vec<(Tok, usize)>, CalcError> {
    let chars: Vec<char> = text.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        let col = i + 1;
        if c.is_whitespace() {
            i += 1;
            continue;
        }
        if c.is_ascii_digit() || (c == '.' && chars.get(i + 1).is_some_and(char::is_ascii_digit)) {
            let start = i;
            while i < chars.len() && chars[i].is_ascii_digit() {
                i += 1;
            }
            if i < chars.len() && chars[i] == '.' {
                i += 1;
                while i < chars.len() && chars[i].is_ascii_digit() {
                    i += 1;
                }
            }
            if i < chars.len() && (chars[i] == 'e' || chars[i] == 'E') {
                let mut j = i + 1;
                if j < chars.len() && (chars[j] == '+' || chars[j] == '-') {
                    j += 1;
                }
                if j < chars.len() && chars[j].is_ascii_digit() {
                    while j < chars.len() && chars[j].is_ascii_digit() {
                        j += 1;
                    }
                    i = j;
                } else {
                    return Err(err(i + 1, "the exponent has no digits"));
                }
            }
            let literal: String = chars[start..i].iter().collect();
            let value: f64 = literal
                .parse()
                .map_err(|_| err(col, format!("`{literal}` is not a number")))?;
            if !value.is_finite() {
                return Err(err(col, format!("the number `{literal}` is too large")));
            }
            out.push((Tok::Num(value), col));
            continue;
        }
        if c.is_ascii_alphabetic() {
            let start = i;
            while i < chars.len() && (chars[i].is_ascii_alphanumeric() || chars[i] == '_') {
                i += 1;
            }
            let name: String = chars[start..i].iter().collect();
            out.push((Tok::Ident(name.to_ascii_lowercase()), col));
            continue;
        }
        let tok = match c {
            '*' if chars.get(i + 1) == Some(&'*') => {
                i += 1;
                Tok::Op('^')
            }
            '+' | '-' | '*' | '/' | '%' | '^' => Tok::Op(c),
            '(' => Tok::LParen,
            ')' => Tok::RParen,
            ',' => Tok::Comma,
            other => return Err(err(col, format!("unexpected character `{other}`"))),
        };
        out.push((tok, col));
        i += 1;
    }
    out.push((Tok::End, chars.len() + 1));
    Ok(out)
}

struct Parser {
    toks: Vec<(Tok, usize)>,
    pos: usize,
    depth: usize,
}

/// The value, unless it is NaN or infinite: then an error at `column`.
fn finite(value: f64, column: usize, what: impl FnOnce() -> String) -> Result<f64, CalcError> {
    if value.is_finite() {
        Ok(value)
    } else {
        Err(err(column, format!("{} is not a finite number", what())))
    }
}

fn show(x: f64) -> String {
    format!("{x}")
}

impl Parser {
    fn peek(&self) -> &Tok {
        &self.toks[self.pos.min(self.toks.len() - 1)].0
    }

    fn bump(&mut self) -> (Tok, usize) {
        let t = self.toks[self.pos.min(self.toks.len() - 1)].clone();
        if self.pos < self.toks.len() - 1 {
            self.pos += 1;
        }
        t
    }

    /// One level deeper; `column` is where the new level starts.
    fn enter(&mut self, column: usize) -> Result<(), CalcError> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return Err(err(
                column,
                format!("the expression is nested more than {MAX_DEPTH} levels deep"),
            ));
        }
        Ok(())
    }

    fn expr(&mut self) -> Result<f64, CalcError> {
        let mut value = self.term()?;
        while let Tok::Op(op @ ('+' | '-')) = *self.peek() {
            let (_, col) = self.bump();
            let rhs = self.term()?;
            let sum = if op == '+' { value + rhs } else { value - rhs };
            value = finite(sum, col, || format!("`{} {op} {}`", show(value), show(rhs)))?;
        }
        Ok(value)
    }

    fn term(&mut self) -> Result<f64, CalcError> {
        let mut value = self.unary()?;
        while let Tok::Op(op @ ('*' | '/' | '%')) = *self.peek() {
            let (_, col) = self.bump();
            let rhs = self.unary()?;
            let result = match op {
                '*' => value * rhs,
                _ if rhs == 0.0 => {
                    let what = if op == '/' { "division" } else { "modulo" };
                    return Err(err(col, format!("{what} by zero")));
                }
                '/' => value / rhs,
                _ => value % rhs,
            };
            value = finite(result, col, || {
                format!("`{} {op} {}`", show(value), show(rhs))
            })?;
        }
        Ok(value)
    }

    fn unary(&mut self) -> Result<f64, CalcError> {
        if let Tok::Op(op @ ('-' | '+')) = *self.peek() {
            let (_, col) = self.bump();
            self.enter(col)?;
            let value = self.unary()?;
            self.depth -= 1;
            return Ok(if op == '-' { -value } else { value });
        }
        self.power()
    }

    fn power(&mut self) -> Result<f64, CalcError> {
        let base = self.primary()?;
        if *self.peek() == Tok::Op('^') {
            let (_, col) = self.bump();
            // The exponent may carry its own sign (`2^-1`) and chains to the right.
            self.enter(col)?;
            let exponent = self.unary()?;
            self.depth -= 1;
            return finite(base.powf(exponent), col, || {
                format!("`{} ^ {}`", show(base), show(exponent))
            });
        }
        Ok(base)
    }

    fn primary(&mut self) -> Result<f64, CalcError> {
        let (tok, col) = self.bump();
        match tok {
            Tok::Num(n) => Ok(n),
            Tok::LParen => {
                self.enter(col)?;
                let value = self.expr()?;
                self.depth -= 1;
                self.expect_close(col)?;
                Ok(value)
            }
            Tok::Ident(name) => self.name(&name, col),
            other => Err(err(
                col,
                format!(
                    "expected a number, a name or `(`, found {}",
                    describe(&other)
                ),
            )),
        }
    }

    fn expect_close(&mut self, open_col: usize) -> Result<(), CalcError> {
        match self.bump() {
            (Tok::RParen, _) => Ok(()),
            (other, col) => Err(err(
                col,
                format!(
                    "expected `)` to close the `(` at column {open_col}, found {}",
                    describe(&other)
                ),
            )),
        }
    }

    fn arguments(&mut self) -> Result<Vec<f64>, CalcError> {
        let (_, open) = self.bump();
        self.enter(open)?;
        let mut args = Vec::new();
        if *self.peek() != Tok::RParen {
            loop {
                args.push(self.expr()?);
                if *self.peek() == Tok::Comma {
                    self.bump();
                } else {
                    break;
                }
            }
        }
        self.depth -= 1;
        self.expect_close(open)?;
        Ok(args)
    }

    fn name(&mut self, name: &str, col: usize) -> Result<f64, CalcError> {
        let called = *self.peek() == Tok::LParen;
        let constant = match name {
            "pi" => Some(std::f64::consts::PI),
            "e" => Some(std::f64::consts::E),
            _ => None,
        };
        if let Some(value) = constant {
            if called {
                let args = self.arguments()?;
                if !args.is_empty() {
                    return Err(err(
                        col,
                        format!("`{name}` is a constant: it takes no arguments"),
                    ));
                }
            }
            return Ok(value);
        }
        if !FUNCTIONS.split(", ").any(|f| f == name) {
            return Err(err(
                col,
                format!("unknown name `{name}` (functions: {FUNCTIONS}; constants: pi, e)"),
            ));
        }
        if !called {
            return Err(err(col, format!("`{name}` is a function: write {name}(…)")));
        }
        let args = self.arguments()?;
        let arity = |range: std::ops::RangeInclusive<usize>, shown: &str| {
            if range.contains(&args.len()) {
                Ok(())
            } else {
                Err(err(
                    col,
                    format!("`{name}` takes {shown}, got {}", args.len()),
                ))
            }
        };
        let value = match name {
            "min" | "max" => {
                arity(1..=usize::MAX, "one or more arguments")?;
                let fold = if name == "min" { f64::min } else { f64::max };
                args.iter().copied().fold(args[0], fold)
            }
            "round" => {
                arity(1..=2, "one or two arguments (value, digits)")?;
                let digits = args.get(1).copied().unwrap_or(0.0);
                if digits.fract() != 0.0 || !(0.0..=15.0).contains(&digits) {
                    return Err(err(
                        col,
                        "`round` digits must be a whole number from 0 to 15",
                    ));
                }
                let scale = 10f64.powi(digits as i32);
                (args[0] * scale).round() / scale
            }
            _ => {
                arity(1..=1, "one argument")?;
                let x = args[0];
                match name {
                    "sqrt" => x.sqrt(),
                    "abs" => x.abs(),
                    "floor" => x.floor(),
                    "ceil" => x.ceil(),
                    "ln" => x.ln(),
                    "log10" => x.log10(),
                    "sin" => x.sin(),
                    "cos" => x.cos(),
                    _ => x.tan(),
                }
            }
        };
        finite(value, col, || {
            let shown: Vec<String> = args.iter().map(|a| show(*a)).collect();
            format!("`{name}({})`", shown.join(", "))
        })
    }
}

/// Evaluates an expression.
pub fn evaluate(text: &str) -> Result<f64, CalcError> {
    let length = text.chars().count();
    if length > MAX_EXPRESSION_CHARS {
        return Err(err(
            MAX_EXPRESSION_CHARS + 1,
            format!("the expression is longer than {MAX_EXPRESSION_CHARS} characters"),
        ));
    }
    let toks = tokenize(text)?;
    if toks.len() == 1 {
        return Err(err(1, "the expression is empty"));
    }
    let mut parser = Parser {
        toks,
        pos: 0,
        depth: 0,
    };
    let value = parser.expr()?;
    match parser.bump() {
        (Tok::End, _) => Ok(value),
        (Tok::RParen, col) => Err(err(col, "`)` without a matching `(`")),
        (other, col) => Err(err(
            col,
            format!("expected an operator, found {}", describe(&other)),
        )),
    }
}
