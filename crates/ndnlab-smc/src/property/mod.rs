//! The property language: a small expression language over the scalar
//! observables of one bounded run. A Boolean property gives a probability,
//! a numeric one an expectation.
//!
//! ```text
//! property   := or
//! or         := and  (("or"  | "||") and)*
//! and        := not  (("and" | "&&") not)*
//! not        := ("not" | "!") not | comparison
//! comparison := sum [("<" | "<=" | ">" | ">=" | "==" | "!=") sum]   (no chaining)
//! sum        := product (("+" | "-") product)*
//! product    := unary (("*" | "/") unary)*
//! unary      := "-" unary | atom
//! atom       := NUMBER [UNIT] | IDENT | "true" | "false" | "(" property ")"
//! UNIT       := "ns" | "us" | "ms" | "s"   (the value becomes nanoseconds)
//!             | "%"                       (the value is divided by 100)
//! ```
//!
//! Identifiers are the caller's observables (e.g. `satisfaction`,
//! `latency_p99`, `max_queue`, `first_loss`) or aliases, which expand to an
//! expression: `all-satisfied` is `unsatisfied == 0`, and callers may add
//! their own with [`Aliases::with`]. Identifiers resolve to indices when the
//! property is parsed, so evaluating it once per run costs a walk of a small
//! tree and no string look-up.

mod lexer;
mod parser;

use crate::error::{Result, SmcError};
pub use parser::{ArithOp, CmpOp, Expr};
use serde::Serialize;
use std::fmt;

/// Whether a property gives a probability or an expectation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum Kind {
    /// True or false per run: its probability is estimated.
    Boolean,
    /// A number per run: its expectation is estimated.
    Numeric,
}

/// Names that expand to expressions, e.g. `all-satisfied` → `unsatisfied == 0`.
#[derive(Debug, Clone, PartialEq)]
pub struct Aliases {
    table: Vec<(String, String)>,
}

impl Default for Aliases {
    /// The built-in aliases: `all-satisfied` = `unsatisfied == 0`.
    fn default() -> Aliases {
        Aliases {
            table: vec![("all-satisfied".into(), "unsatisfied == 0".into())],
        }
    }
}

impl Aliases {
    /// No aliases at all.
    pub fn empty() -> Aliases {
        Aliases { table: Vec::new() }
    }

    /// Adds (or replaces) the alias `name` = `expansion`. A name is an
    /// identifier, optionally with `-` between words.
    pub fn with(mut self, name: &str, expansion: &str) -> Aliases {
        self.table.retain(|(n, _)| n != name);
        self.table.push((name.to_string(), expansion.to_string()));
        self
    }

    /// The expansion of `name`.
    pub fn get(&self, name: &str) -> Option<&str> {
        self.table
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, e)| e.as_str())
    }

    /// The alias names.
    pub fn names(&self) -> impl Iterator<Item = &str> {
        self.table.iter().map(|(n, _)| n.as_str())
    }
}

/// The values of one run's observables, indexed like the `known` list the
/// property was parsed against.
pub trait Observables {
    /// The value of observable `index`.
    fn value(&self, index: usize) -> f64;
}

impl Observables for [f64] {
    fn value(&self, index: usize) -> f64 {
        self[index]
    }
}

impl Observables for Vec<f64> {
    fn value(&self, index: usize) -> f64 {
        self[index]
    }
}

impl<const N: usize> Observables for [f64; N] {
    fn value(&self, index: usize) -> f64 {
        self[index]
    }
}

/// A parsed, type-checked property.
#[derive(Debug, Clone, PartialEq)]
pub struct Property {
    text: String,
    known: Vec<String>,
    expr: Expr,
    kind: Kind,
}

impl Property {
    /// Parses `text` with the built-in aliases; `known` lists the observables
    /// the model produces, in the order [`Observables`] indexes them.
    pub fn parse(text: &str, known: &[&str]) -> Result<Property> {
        Property::parse_with(text, known, &Aliases::default())
    }

    /// Parses `text` with the caller's alias table.
    pub fn parse_with(text: &str, known: &[&str], aliases: &Aliases) -> Result<Property> {
        if text.trim().is_empty() {
            return Err(SmcError::Syntax {
                column: 1,
                message: "the property is empty".into(),
            });
        }
        let (expr, kind) = parser::parse(text, known, aliases)?;
        Ok(Property {
            text: text.to_string(),
            known: known.iter().map(|s| s.to_string()).collect(),
            expr,
            kind,
        })
    }

    /// Boolean (a probability) or Numeric (an expectation).
    pub fn kind(&self) -> Kind {
        self.kind
    }

    /// The text the property was parsed from.
    pub fn text(&self) -> &str {
        &self.text
    }

    /// The type-checked tree.
    pub fn expr(&self) -> &Expr {
        &self.expr
    }

    /// Indices (into `known`) of the observables the property reads, sorted.
    pub fn used(&self) -> Vec<usize> {
        fn walk(e: &Expr, out: &mut Vec<usize>) {
            match e {
                Expr::Var(i) => out.push(*i),
                Expr::Num(_) | Expr::Bool(_) => {}
                Expr::Neg(a) | Expr::Not(a) => walk(a, out),
                Expr::And(a, b) | Expr::Or(a, b) | Expr::Cmp(_, a, b) | Expr::Arith(_, a, b) => {
                    walk(a, out);
                    walk(b, out);
                }
            }
        }
        let mut out = Vec::new();
        walk(&self.expr, &mut out);
        out.sort_unstable();
        out.dedup();
        out
    }

    /// Evaluates a Boolean property (a numeric one is true when non-zero).
    pub fn eval_bool<O: Observables + ?Sized>(&self, obs: &O) -> bool {
        truth(&self.expr, obs)
    }

    /// Evaluates a numeric property (a Boolean one gives 1 or 0).
    pub fn eval_num<O: Observables + ?Sized>(&self, obs: &O) -> f64 {
        number(&self.expr, obs)
    }

    /// Evaluates with values looked up by name (slower: for one-off use).
    pub fn eval_bool_by_name(&self, lookup: &dyn Fn(&str) -> f64) -> bool {
        self.eval_bool(&self.values_by_name(lookup))
    }

    /// Evaluates with values looked up by name (slower: for one-off use).
    pub fn eval_num_by_name(&self, lookup: &dyn Fn(&str) -> f64) -> f64 {
        self.eval_num(&self.values_by_name(lookup))
    }

    fn values_by_name(&self, lookup: &dyn Fn(&str) -> f64) -> Vec<f64> {
        self.known.iter().map(|k| lookup(k)).collect()
    }
}

impl fmt::Display for Property {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text)
    }
}

fn truth<O: Observables + ?Sized>(e: &Expr, obs: &O) -> bool {
    match e {
        Expr::Bool(b) => *b,
        Expr::Not(a) => !truth(a, obs),
        Expr::And(a, b) => truth(a, obs) && truth(b, obs),
        Expr::Or(a, b) => truth(a, obs) || truth(b, obs),
        Expr::Cmp(op, a, b) => {
            let (x, y) = (number(a, obs), number(b, obs));
            match op {
                CmpOp::Lt => x < y,
                CmpOp::Le => x <= y,
                CmpOp::Gt => x > y,
                CmpOp::Ge => x >= y,
                CmpOp::Eq => x == y,
                CmpOp::Ne => x != y,
            }
        }
        numeric => number(numeric, obs) != 0.0,
    }
}

fn number<O: Observables + ?Sized>(e: &Expr, obs: &O) -> f64 {
    match e {
        Expr::Num(v) => *v,
        Expr::Var(i) => obs.value(*i),
        Expr::Neg(a) => -number(a, obs),
        Expr::Arith(op, a, b) => {
            let (x, y) = (number(a, obs), number(b, obs));
            match op {
                ArithOp::Add => x + y,
                ArithOp::Sub => x - y,
                ArithOp::Mul => x * y,
                ArithOp::Div => x / y,
            }
        }
        boolean => f64::from(u8::from(truth(boolean, obs))),
    }
}
