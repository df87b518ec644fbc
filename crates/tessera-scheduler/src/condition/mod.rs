//! The condition language of instruction sets (seed 000 §5.1, §6.2), parsed by a real grammar
//! and evaluated over JSON; nothing is ever `eval`ed.
//!
//! - `AND`, `OR`, `NOT` in any case, also `&&`, `||`, `!`; parentheses.
//! - `==`, `!=` (also `<>`), `>`, `<`, `>=`, `<=`; comparisons do not chain.
//! - Dotted paths with indices: `dependencies.inst_1.result.items[0].name`.
//! - Literals: strings in single or double quotes (they may hold AND, OR, parentheses; `\'`
//!   escapes), numbers, `true`, `false`, `null` (any case).
//! - Functions: `contains(x, y)`, `isEmpty(x)`, also as methods `x.contains(y)`, `x.isEmpty()`.
//!
//! Precedence, tightest first: NOT, comparison, AND, OR. A missing path is `null`. Equality
//! between different types is false (`!=` true); ordering between different types is false.
//! Comparing a path ending in `status` with `'SUCCESS'` reads it as `'COMPLETED'` (seed 000
//! §5.1 uses SUCCESS for an instruction's state). A bare value used as a boolean is true unless
//! it is `false`, `null`, `0`, `""`, `[]` or `{}`.
//!
//! At most 64 levels may be open at once (each `NOT`, `(`, function or method call opens one);
//! deeper is a syntax error, so a condition from outside cannot exhaust the stack.

mod lexer;
mod parser;

use std::borrow::Cow;
use std::cmp::Ordering;
use std::fmt;

use serde_json::Value;

use crate::path::{Path, Segment};

/// A syntax error with its 1-based column.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("syntax error at column {position}: {message}")]
pub struct ConditionError {
    /// 1-based character column.
    pub position: usize,
    pub message: String,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Op {
    Eq,
    Ne,
    Gt,
    Lt,
    Ge,
    Le,
}

#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Expr {
    Lit(Value),
    /// A path and the column it starts at.
    Path(Path, usize),
    Not(Box<Expr>),
    /// Two or more operands, in order: chains are flat so that their length adds no depth.
    And(Vec<Expr>),
    /// Two or more operands, in order.
    Or(Vec<Expr>),
    Cmp(Op, Box<Expr>, Box<Expr>),
    Contains(Box<Expr>, Box<Expr>),
    IsEmpty(Box<Expr>),
}

/// A parsed condition.
#[derive(Clone, Debug, PartialEq)]
pub struct Condition {
    source: String,
    expr: Expr,
    paths: Vec<Path>,
}

impl Condition {
    /// Parses a condition; a syntax error carries its column.
    pub fn parse(text: &str) -> Result<Self, ConditionError> {
        let tokens = lexer::tokenize(text)?;
        let expr = parser::Parser::new(tokens).parse()?;
        let mut paths = Vec::new();
        collect_paths(&expr, &mut paths);
        Ok(Self {
            source: text.to_owned(),
            expr,
            paths,
        })
    }

    /// The text as written.
    pub fn source(&self) -> &str {
        &self.source
    }

    /// Every path the condition reads, in order of appearance.
    pub fn paths(&self) -> &[Path] {
        &self.paths
    }

    /// The ids named right after `root.` (`dependencies.inst_1.…` gives `inst_1`).
    pub fn referenced_ids(&self, root: &str) -> Vec<String> {
        let mut ids: Vec<String> = Vec::new();
        for p in &self.paths {
            if p.head() == Some(root) {
                if let Some(id) = p.second() {
                    if !ids.iter().any(|known| known == id) {
                        ids.push(id.to_owned());
                    }
                }
            }
        }
        ids
    }

    /// Whether the condition reads `<root>.<id>.status` for one of `roots`: it then decides
    /// itself what a failed or skipped `id` means.
    pub fn tests_status_of(&self, roots: &[&str], id: &str) -> bool {
        self.paths.iter().any(|p| {
            matches!(p.0.as_slice(),
                [Segment::Key(r), Segment::Key(i), Segment::Key(s)]
                    if roots.contains(&r.as_str()) && i == id && s == "status")
        })
    }

    /// Evaluates against `context` (paths are looked up from its root).
    pub fn evaluate(&self, context: &Value) -> bool {
        truthy(&eval(&self.expr, context))
    }
}

impl fmt::Display for Condition {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.source)
    }
}

fn collect_paths(expr: &Expr, out: &mut Vec<Path>) {
    match expr {
        Expr::Lit(_) => {}
        Expr::Path(p, _) => out.push(p.clone()),
        Expr::Not(a) | Expr::IsEmpty(a) => collect_paths(a, out),
        Expr::And(items) | Expr::Or(items) => {
            for item in items {
                collect_paths(item, out);
            }
        }
        Expr::Cmp(_, a, b) | Expr::Contains(a, b) => {
            collect_paths(a, out);
            collect_paths(b, out);
        }
    }
}

const NULL: Value = Value::Null;

fn eval<'a>(expr: &'a Expr, ctx: &'a Value) -> Cow<'a, Value> {
    match expr {
        Expr::Lit(v) => Cow::Borrowed(v),
        Expr::Path(p, _) => Cow::Borrowed(p.lookup(ctx).unwrap_or(&NULL)),
        Expr::Not(a) => Cow::Owned(Value::Bool(!truthy(&eval(a, ctx)))),
        Expr::And(items) => Cow::Owned(Value::Bool(items.iter().all(|e| truthy(&eval(e, ctx))))),
        Expr::Or(items) => Cow::Owned(Value::Bool(items.iter().any(|e| truthy(&eval(e, ctx))))),
        Expr::Cmp(op, a, b) => {
            let (mut left, mut right) = (eval(a, ctx), eval(b, ctx));
            if matches!(op, Op::Eq | Op::Ne) {
                if is_status_path(a) && right.as_str() == Some("SUCCESS") {
                    right = Cow::Owned(Value::String("COMPLETED".into()));
                }
                if is_status_path(b) && left.as_str() == Some("SUCCESS") {
                    left = Cow::Owned(Value::String("COMPLETED".into()));
                }
            }
            Cow::Owned(Value::Bool(compare(*op, &left, &right)))
        }
        Expr::Contains(a, b) => Cow::Owned(Value::Bool(contains(&eval(a, ctx), &eval(b, ctx)))),
        Expr::IsEmpty(a) => Cow::Owned(Value::Bool(is_empty(&eval(a, ctx)))),
    }
}

fn is_status_path(expr: &Expr) -> bool {
    matches!(expr, Expr::Path(p, _) if matches!(p.0.last(), Some(Segment::Key(k)) if k == "status"))
}

/// Whether a value counts as true.
pub fn truthy(v: &Value) -> bool {
    match v {
        Value::Null => false,
        Value::Bool(b) => *b,
        Value::Number(n) => n.as_f64().is_some_and(|f| f != 0.0),
        Value::String(s) => !s.is_empty(),
        Value::Array(a) => !a.is_empty(),
        Value::Object(o) => !o.is_empty(),
    }
}

fn json_eq(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => match (x.as_i64(), y.as_i64()) {
            (Some(i), Some(j)) => i == j,
            _ => x.as_f64() == y.as_f64(),
        },
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(p, q)| json_eq(p, q))
        }
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len()
                && x.iter()
                    .all(|(k, v)| y.get(k).is_some_and(|w| json_eq(v, w)))
        }
        _ => a == b,
    }
}

fn ordering(a: &Value, b: &Value) -> Option<Ordering> {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => match (x.as_i64(), y.as_i64()) {
            (Some(i), Some(j)) => Some(i.cmp(&j)),
            _ => x.as_f64()?.partial_cmp(&y.as_f64()?),
        },
        (Value::String(x), Value::String(y)) => Some(x.cmp(y)),
        _ => None,
    }
}

fn compare(op: Op, a: &Value, b: &Value) -> bool {
    match op {
        Op::Eq => json_eq(a, b),
        Op::Ne => !json_eq(a, b),
        Op::Gt => ordering(a, b) == Some(Ordering::Greater),
        Op::Lt => ordering(a, b) == Some(Ordering::Less),
        Op::Ge => matches!(ordering(a, b), Some(Ordering::Greater | Ordering::Equal)),
        Op::Le => matches!(ordering(a, b), Some(Ordering::Less | Ordering::Equal)),
    }
}

fn contains(haystack: &Value, needle: &Value) -> bool {
    match (haystack, needle) {
        (Value::String(h), Value::String(n)) => h.contains(n.as_str()),
        (Value::Array(items), n) => items.iter().any(|item| json_eq(item, n)),
        (Value::Object(map), Value::String(key)) => map.contains_key(key),
        _ => false,
    }
}

fn is_empty(v: &Value) -> bool {
    match v {
        Value::Null => true,
        // As the seed's evaluator: `value.trim().length === 0`.
        Value::String(s) => s.trim().is_empty(),
        Value::Array(a) => a.is_empty(),
        Value::Object(o) => o.is_empty(),
        Value::Bool(_) | Value::Number(_) => false,
    }
}

#[cfg(test)]
mod tests;
