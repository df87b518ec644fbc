//! A recursive-descent parser for the condition language. Precedence, tightest first: NOT,
//! comparison, AND, OR. Comparisons do not chain (`a == b == c` is an error).
//!
//! Conditions come from outside the process, so nesting is limited: every `NOT`, every `(`
//! (grouping, function and method calls) and every method call chained onto a value opens a
//! level, and more than [`MAX_DEPTH`] open levels are a syntax error. `AND` and `OR` chains are
//! flat lists, not nested pairs, so the tree of an accepted condition is at most a few times
//! [`MAX_DEPTH`] deep, whatever its length: evaluating, walking and dropping it recurse that
//! deep at most.

use serde_json::Value;

use super::lexer::{Tok, Token};
use super::{ConditionError, Expr, Op};
use crate::path::{Path, Segment};

/// How many levels (`NOT`, `(`, calls) may be open at once.
pub(crate) const MAX_DEPTH: usize = 64;

pub(crate) struct Parser {
    tokens: Vec<Token>,
    at: usize,
    /// Levels open now; see [`MAX_DEPTH`].
    depth: usize,
}

impl Parser {
    pub(crate) fn new(tokens: Vec<Token>) -> Self {
        Self {
            tokens,
            at: 0,
            depth: 0,
        }
    }

    /// Opens a level at `token`; more than [`MAX_DEPTH`] is an error at its column. A level
    /// is closed with `self.depth -= 1` once parsed; after an error nothing is parsed anymore.
    fn enter(&mut self, token: &Token) -> Result<(), ConditionError> {
        if self.depth >= MAX_DEPTH {
            return self.error(
                token,
                format!("nested too deeply (more than {MAX_DEPTH} levels)"),
            );
        }
        self.depth += 1;
        Ok(())
    }

    fn peek(&self) -> &Token {
        // The token list always ends with `End`, and `advance` never moves past it.
        &self.tokens[self.at.min(self.tokens.len() - 1)]
    }

    fn peek_at(&self, ahead: usize) -> &Tok {
        &self.tokens[(self.at + ahead).min(self.tokens.len() - 1)].tok
    }

    fn advance(&mut self) -> Token {
        let t = self.peek().clone();
        if self.at < self.tokens.len() - 1 {
            self.at += 1;
        }
        t
    }

    fn error<T>(&self, token: &Token, message: String) -> Result<T, ConditionError> {
        Err(ConditionError {
            position: token.pos,
            message,
        })
    }

    fn expect(&mut self, tok: Tok, what: &str) -> Result<Token, ConditionError> {
        let t = self.peek().clone();
        if t.tok == tok {
            Ok(self.advance())
        } else {
            self.error(&t, format!("expected {what}, found {}", t.tok.describe()))
        }
    }

    pub(crate) fn parse(mut self) -> Result<Expr, ConditionError> {
        let t = self.peek().clone();
        if t.tok == Tok::End {
            return self.error(&t, "the condition is empty".into());
        }
        let expr = self.or()?;
        let t = self.peek().clone();
        if t.tok != Tok::End {
            let hint = match t.tok {
                Tok::RParen => "`)` without a matching `(`".to_owned(),
                _ => format!(
                    "expected AND, OR or the end of the condition, found {}",
                    t.tok.describe()
                ),
            };
            return self.error(&t, hint);
        }
        Ok(expr)
    }

    fn or(&mut self) -> Result<Expr, ConditionError> {
        let mut items = vec![self.and()?];
        while self.peek().tok == Tok::Or {
            self.advance();
            items.push(self.and()?);
        }
        Ok(if items.len() == 1 {
            items.remove(0)
        } else {
            Expr::Or(items)
        })
    }

    fn and(&mut self) -> Result<Expr, ConditionError> {
        let mut items = vec![self.not()?];
        while self.peek().tok == Tok::And {
            self.advance();
            items.push(self.not()?);
        }
        Ok(if items.len() == 1 {
            items.remove(0)
        } else {
            Expr::And(items)
        })
    }

    fn comparison(&mut self) -> Result<Expr, ConditionError> {
        let left = self.postfix()?;
        let Some(op) = cmp_op(&self.peek().tok) else {
            return Ok(left);
        };
        self.advance();
        let right = self.postfix()?;
        let t = self.peek().clone();
        if cmp_op(&t.tok).is_some() {
            return self.error(
                &t,
                "comparisons do not chain; join them with AND or use parentheses".into(),
            );
        }
        Ok(Expr::Cmp(op, Box::new(left), Box::new(right)))
    }

    /// `NOT` negates the whole comparison after it, as the seed's evaluator does
    /// (`startsWith("NOT ")` → `!evaluate(rest)`) and as SQL reads it: `NOT a == b` is
    /// `NOT (a == b)`.
    fn not(&mut self) -> Result<Expr, ConditionError> {
        let mut nots = 0;
        while self.peek().tok == Tok::Not {
            let not = self.advance();
            self.enter(&not)?;
            nots += 1;
        }
        let mut expr = self.comparison()?;
        for _ in 0..nots {
            expr = Expr::Not(Box::new(expr));
        }
        self.depth -= nots;
        Ok(expr)
    }

    fn postfix(&mut self) -> Result<Expr, ConditionError> {
        let mut expr = self.primary()?;
        // Each method call wraps the value so far: a chain of them nests like parentheses.
        let mut calls = 0;
        loop {
            match self.peek().tok.clone() {
                Tok::Dot => {
                    let dot = self.advance();
                    let name_tok = self.advance();
                    let name = match &name_tok.tok {
                        Tok::Name(n) => n.clone(),
                        Tok::Num(n) if n.is_u64() => n.to_string(),
                        Tok::True => "true".into(),
                        Tok::False => "false".into(),
                        Tok::Null => "null".into(),
                        other => {
                            return self.error(
                                &name_tok,
                                format!("expected a name after `.`, found {}", other.describe()),
                            )
                        }
                    };
                    if self.peek().tok == Tok::LParen {
                        self.enter(&name_tok)?;
                        calls += 1;
                        expr = self.method(expr, &name, &name_tok)?;
                    } else if let Expr::Path(path, _) = &mut expr {
                        path.0.push(Segment::Key(name));
                    } else {
                        return self.error(
                            &dot,
                            "only paths have fields; `.contains(…)` and `.isEmpty()` work on any value"
                                .into(),
                        );
                    }
                }
                Tok::LBracket => {
                    let open = self.advance();
                    let index_tok = self.advance();
                    let index = match &index_tok.tok {
                        Tok::Num(n) => n.as_u64().and_then(|n| usize::try_from(n).ok()),
                        _ => None,
                    };
                    let Some(index) = index else {
                        return self.error(
                            &index_tok,
                            format!(
                                "expected an index (0, 1, …) after `[`, found {}",
                                index_tok.tok.describe()
                            ),
                        );
                    };
                    self.expect(Tok::RBracket, "`]`")?;
                    if let Expr::Path(path, _) = &mut expr {
                        path.0.push(Segment::Index(index));
                    } else {
                        return self.error(&open, "only paths can be indexed".into());
                    }
                }
                _ => {
                    self.depth -= calls;
                    return Ok(expr);
                }
            }
        }
    }

    fn method(
        &mut self,
        target: Expr,
        name: &str,
        name_tok: &Token,
    ) -> Result<Expr, ConditionError> {
        // The caller opened this call's level (it stays open along the chain).
        self.expect(Tok::LParen, "`(`")?;
        match name.to_ascii_lowercase().as_str() {
            "contains" => {
                let arg = self.or()?;
                self.expect(Tok::RParen, "`)` closing contains(")?;
                Ok(Expr::Contains(Box::new(target), Box::new(arg)))
            }
            "isempty" => {
                self.expect(Tok::RParen, "`)`: isEmpty() takes no argument here")?;
                Ok(Expr::IsEmpty(Box::new(target)))
            }
            _ => self.error(
                name_tok,
                format!("unknown function `{name}`; the functions are contains and isEmpty"),
            ),
        }
    }

    fn primary(&mut self) -> Result<Expr, ConditionError> {
        let t = self.advance();
        match t.tok.clone() {
            Tok::Str(s) => Ok(Expr::Lit(Value::String(s))),
            Tok::Num(n) => Ok(Expr::Lit(Value::Number(n))),
            Tok::True => Ok(Expr::Lit(Value::Bool(true))),
            Tok::False => Ok(Expr::Lit(Value::Bool(false))),
            Tok::Null => Ok(Expr::Lit(Value::Null)),
            Tok::LParen => {
                self.enter(&t)?;
                let inner = self.or()?;
                self.depth -= 1;
                let close = self.peek().clone();
                if close.tok != Tok::RParen {
                    return self.error(
                        &close,
                        format!(
                            "expected `)` closing the `(` at column {}, found {}",
                            t.pos,
                            close.tok.describe()
                        ),
                    );
                }
                self.advance();
                Ok(inner)
            }
            Tok::Name(name) if *self.peek_at(0) == Tok::LParen => self.function(&name, &t),
            Tok::Name(name) => Ok(Expr::Path(Path(vec![Segment::Key(name)]), t.pos)),
            other => self.error(&t, format!("expected a value, found {}", other.describe())),
        }
    }

    fn function(&mut self, name: &str, name_tok: &Token) -> Result<Expr, ConditionError> {
        let open = self.expect(Tok::LParen, "`(`")?;
        self.enter(&open)?;
        let expr = self.function_args(name, name_tok)?;
        self.depth -= 1;
        Ok(expr)
    }

    fn function_args(&mut self, name: &str, name_tok: &Token) -> Result<Expr, ConditionError> {
        match name.to_ascii_lowercase().as_str() {
            "contains" => {
                let a = self.or()?;
                self.expect(Tok::Comma, "`,`: contains takes two arguments")?;
                let b = self.or()?;
                self.expect(Tok::RParen, "`)` closing contains(")?;
                Ok(Expr::Contains(Box::new(a), Box::new(b)))
            }
            "isempty" => {
                let a = self.or()?;
                self.expect(Tok::RParen, "`)`: isEmpty takes one argument")?;
                Ok(Expr::IsEmpty(Box::new(a)))
            }
            _ => self.error(
                name_tok,
                format!("unknown function `{name}`; the functions are contains and isEmpty"),
            ),
        }
    }
}

fn cmp_op(tok: &Tok) -> Option<Op> {
    Some(match tok {
        Tok::Eq => Op::Eq,
        Tok::Ne => Op::Ne,
        Tok::Gt => Op::Gt,
        Tok::Lt => Op::Lt,
        Tok::Ge => Op::Ge,
        Tok::Le => Op::Le,
        _ => return None,
    })
}
