//! Recursive-descent parser of the property language, type-checking as it
//! goes: every sub-expression is Boolean or Numeric, identifiers are resolved
//! to indices into the caller's list of known observables, aliases are
//! expanded in place.

use super::lexer::{lex, Tok, UNITS};
use super::{Aliases, Kind};
use crate::error::{Result, SmcError};

/// Comparison operators.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CmpOp {
    /// `<`
    Lt,
    /// `<=`
    Le,
    /// `>`
    Gt,
    /// `>=`
    Ge,
    /// `==`
    Eq,
    /// `!=`
    Ne,
}

/// Arithmetic operators.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ArithOp {
    /// `+`
    Add,
    /// `-`
    Sub,
    /// `*`
    Mul,
    /// `/`
    Div,
}

/// A type-checked expression; `Var` holds an index into the known names.
#[derive(Debug, Clone, PartialEq)]
pub enum Expr {
    /// A number (units applied).
    Num(f64),
    /// `true` or `false`.
    Bool(bool),
    /// An observable, by index.
    Var(usize),
    /// Unary minus.
    Neg(Box<Expr>),
    /// Logical not.
    Not(Box<Expr>),
    /// Logical and (short-circuit).
    And(Box<Expr>, Box<Expr>),
    /// Logical or (short-circuit).
    Or(Box<Expr>, Box<Expr>),
    /// Comparison of two numbers.
    Cmp(CmpOp, Box<Expr>, Box<Expr>),
    /// Arithmetic on two numbers.
    Arith(ArithOp, Box<Expr>, Box<Expr>),
}

/// Parses `text` against `known` observables and `aliases`.
pub fn parse(text: &str, known: &[&str], aliases: &Aliases) -> Result<(Expr, Kind)> {
    let names: Vec<&str> = aliases.names().collect();
    let toks = lex(text, &names)?;
    let mut p = Parser {
        toks,
        pos: 0,
        known,
        aliases,
        depth: 0,
    };
    let (e, k, _) = p.or()?;
    p.expect_end()?;
    Ok((e, k))
}

/// The expression, its kind and the column where it starts.
type Typed = (Expr, Kind, usize);

struct Parser<'a> {
    toks: Vec<(Tok, usize)>,
    pos: usize,
    known: &'a [&'a str],
    aliases: &'a Aliases,
    depth: usize,
}

fn kind_words(k: Kind) -> &'static str {
    match k {
        Kind::Boolean => "a Boolean",
        Kind::Numeric => "a number",
    }
}

impl Parser<'_> {
    fn peek(&self) -> &Tok {
        &self.toks[self.pos].0
    }

    fn col(&self) -> usize {
        self.toks[self.pos].1
    }

    fn bump(&mut self) -> (Tok, usize) {
        let t = self.toks[self.pos].clone();
        if self.pos + 1 < self.toks.len() {
            self.pos += 1;
        }
        t
    }

    fn syntax(&self, message: String) -> SmcError {
        SmcError::Syntax {
            column: self.col(),
            message,
        }
    }

    fn expect_end(&self) -> Result<()> {
        match self.peek() {
            Tok::End => Ok(()),
            Tok::Ident(u) if UNITS.iter().any(|(name, _)| name == u) => Err(self.syntax(format!(
                "unexpected unit `{u}`: write it right after the number, as in `10{u}`"
            ))),
            Tok::RParen => Err(self.syntax("`)` without a matching `(`".into())),
            t => Err(self.syntax(format!(
                "expected an operator or the end of the property, found {}",
                t.describe()
            ))),
        }
    }

    fn need(&self, kind: Kind, (e, k, col): Typed, what: &str) -> Result<Expr> {
        if k == kind {
            Ok(e)
        } else {
            Err(SmcError::Type {
                column: col,
                message: format!("{what} needs {}, found {}", kind_words(kind), kind_words(k)),
            })
        }
    }

    fn or(&mut self) -> Result<Typed> {
        let mut left = self.and()?;
        while *self.peek() == Tok::Or {
            let (_, col) = self.bump();
            let l = self.need(Kind::Boolean, left, &format!("`or` at column {col}"))?;
            let right = self.and()?;
            let r = self.need(Kind::Boolean, right, &format!("`or` at column {col}"))?;
            left = (Expr::Or(Box::new(l), Box::new(r)), Kind::Boolean, col);
        }
        Ok(left)
    }

    fn and(&mut self) -> Result<Typed> {
        let mut left = self.not()?;
        while *self.peek() == Tok::And {
            let (_, col) = self.bump();
            let l = self.need(Kind::Boolean, left, &format!("`and` at column {col}"))?;
            let right = self.not()?;
            let r = self.need(Kind::Boolean, right, &format!("`and` at column {col}"))?;
            left = (Expr::And(Box::new(l), Box::new(r)), Kind::Boolean, col);
        }
        Ok(left)
    }

    fn not(&mut self) -> Result<Typed> {
        if *self.peek() == Tok::Not {
            let (_, col) = self.bump();
            let inner = self.not()?;
            let e = self.need(Kind::Boolean, inner, &format!("`not` at column {col}"))?;
            return Ok((Expr::Not(Box::new(e)), Kind::Boolean, col));
        }
        self.cmp()
    }

    fn cmp(&mut self) -> Result<Typed> {
        let left = self.sum()?;
        let op = match self.peek() {
            Tok::Lt => CmpOp::Lt,
            Tok::Le => CmpOp::Le,
            Tok::Gt => CmpOp::Gt,
            Tok::Ge => CmpOp::Ge,
            Tok::Eq => CmpOp::Eq,
            Tok::Ne => CmpOp::Ne,
            _ => return Ok(left),
        };
        let (tok, col) = self.bump();
        let what = format!("the comparison {} at column {col}", tok.describe());
        let start = left.2;
        let l = self.need(Kind::Numeric, left, &what)?;
        let right = self.sum()?;
        let r = self.need(Kind::Numeric, right, &what)?;
        if matches!(
            self.peek(),
            Tok::Lt | Tok::Le | Tok::Gt | Tok::Ge | Tok::Eq | Tok::Ne
        ) {
            return Err(self.syntax(format!(
                "comparisons do not chain: {} follows a comparison; join them with `and`",
                self.peek().describe()
            )));
        }
        Ok((
            Expr::Cmp(op, Box::new(l), Box::new(r)),
            Kind::Boolean,
            start,
        ))
    }

    fn sum(&mut self) -> Result<Typed> {
        let mut left = self.product()?;
        loop {
            let op = match self.peek() {
                Tok::Plus => ArithOp::Add,
                Tok::Minus => ArithOp::Sub,
                _ => return Ok(left),
            };
            left = self.arith(op, left, Self::product)?;
        }
    }

    fn product(&mut self) -> Result<Typed> {
        let mut left = self.unary()?;
        loop {
            let op = match self.peek() {
                Tok::Star => ArithOp::Mul,
                Tok::Slash => ArithOp::Div,
                _ => return Ok(left),
            };
            left = self.arith(op, left, Self::unary)?;
        }
    }

    fn arith(
        &mut self,
        op: ArithOp,
        left: Typed,
        next: fn(&mut Self) -> Result<Typed>,
    ) -> Result<Typed> {
        let (tok, col) = self.bump();
        let what = format!("{} at column {col}", tok.describe());
        let start = left.2;
        let l = self.need(Kind::Numeric, left, &what)?;
        let right = next(self)?;
        let r = self.need(Kind::Numeric, right, &what)?;
        Ok((
            Expr::Arith(op, Box::new(l), Box::new(r)),
            Kind::Numeric,
            start,
        ))
    }

    fn unary(&mut self) -> Result<Typed> {
        if *self.peek() == Tok::Minus {
            let (_, col) = self.bump();
            let inner = self.unary()?;
            let e = self.need(Kind::Numeric, inner, &format!("`-` at column {col}"))?;
            return Ok((Expr::Neg(Box::new(e)), Kind::Numeric, col));
        }
        self.atom()
    }

    fn atom(&mut self) -> Result<Typed> {
        let col = self.col();
        match self.peek().clone() {
            Tok::Num(v) => {
                self.bump();
                Ok((Expr::Num(v), Kind::Numeric, col))
            }
            Tok::True | Tok::False => {
                let (t, _) = self.bump();
                Ok((Expr::Bool(t == Tok::True), Kind::Boolean, col))
            }
            Tok::LParen => {
                self.bump();
                let (e, k, _) = self.or()?;
                if *self.peek() != Tok::RParen {
                    return Err(self.syntax(format!(
                        "expected `)` to close the `(` at column {col}, found {}",
                        self.peek().describe()
                    )));
                }
                self.bump();
                Ok((e, k, col))
            }
            Tok::Ident(name) => {
                self.bump();
                self.identifier(&name, col)
            }
            t => Err(self.syntax(format!(
                "expected a number, an identifier, `not` or `(`, found {}",
                t.describe()
            ))),
        }
    }

    fn identifier(&mut self, name: &str, col: usize) -> Result<Typed> {
        if let Some(i) = self.known.iter().position(|k| *k == name) {
            return Ok((Expr::Var(i), Kind::Numeric, col));
        }
        if let Some(expansion) = self.aliases.get(name) {
            if self.depth >= 16 {
                return Err(SmcError::Syntax {
                    column: col,
                    message: format!(
                        "alias `{name}` expands into itself (more than 16 nested aliases)"
                    ),
                });
            }
            let names: Vec<&str> = self.aliases.names().collect();
            let toks =
                lex(expansion, &names).map_err(|e| self.in_alias(e, name, expansion, col))?;
            let mut inner = Parser {
                toks,
                pos: 0,
                known: self.known,
                aliases: self.aliases,
                depth: self.depth + 1,
            };
            let (e, k, _) = inner
                .or()
                .and_then(|t| inner.expect_end().map(|_| t))
                .map_err(|e| self.in_alias(e, name, expansion, col))?;
            return Ok((e, k, col));
        }
        let mut listed: Vec<String> = self.known.iter().map(|s| s.to_string()).collect();
        listed.extend(self.aliases.names().map(|a| format!("{a} (alias)")));
        Err(SmcError::UnknownIdentifier {
            column: col,
            name: name.to_string(),
            context: String::new(),
            known: listed.join(", "),
        })
    }

    /// Re-anchors an error inside an alias expansion at the alias's column.
    fn in_alias(&self, e: SmcError, alias: &str, expansion: &str, col: usize) -> SmcError {
        let within = format!("in alias `{alias}` = `{expansion}`");
        match e {
            SmcError::UnknownIdentifier { name, known, .. } => SmcError::UnknownIdentifier {
                column: col,
                name,
                context: format!(" ({within})"),
                known,
            },
            SmcError::Syntax { column, message } => SmcError::Syntax {
                column: col,
                message: format!("{within}, column {column}: {message}"),
            },
            SmcError::Type { column, message } => SmcError::Type {
                column: col,
                message: format!("{within}, column {column}: {message}"),
            },
            other => other,
        }
    }
}
