//! Splits a property's text into tokens with their 1-based columns. Numbers
//! take their unit here (`10ms` → 1e7 ns, `99%` → 0.99); identifiers may
//! continue over `-` only to spell an alias such as `all-satisfied`.

use crate::error::{Result, SmcError};

/// A token of the property language.
#[derive(Debug, Clone, PartialEq)]
pub enum Tok {
    /// A number, units already applied.
    Num(f64),
    /// An identifier or alias name (keywords are separate tokens).
    Ident(String),
    /// `and`, `&&`
    And,
    /// `or`, `||`
    Or,
    /// `not`, `!`
    Not,
    /// `true`
    True,
    /// `false`
    False,
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
    /// `+`
    Plus,
    /// `-`
    Minus,
    /// `*`
    Star,
    /// `/`
    Slash,
    /// `(`
    LParen,
    /// `)`
    RParen,
    /// End of text.
    End,
}

impl Tok {
    /// How the token reads in an error message.
    pub fn describe(&self) -> String {
        match self {
            Tok::Num(v) => format!("the number {v}"),
            Tok::Ident(s) => format!("the identifier `{s}`"),
            Tok::End => "the end of the property".into(),
            Tok::And => "`and`".into(),
            Tok::Or => "`or`".into(),
            Tok::Not => "`not`".into(),
            Tok::True => "`true`".into(),
            Tok::False => "`false`".into(),
            Tok::Lt => "`<`".into(),
            Tok::Le => "`<=`".into(),
            Tok::Gt => "`>`".into(),
            Tok::Ge => "`>=`".into(),
            Tok::Eq => "`==`".into(),
            Tok::Ne => "`!=`".into(),
            Tok::Plus => "`+`".into(),
            Tok::Minus => "`-`".into(),
            Tok::Star => "`*`".into(),
            Tok::Slash => "`/`".into(),
            Tok::LParen => "`(`".into(),
            Tok::RParen => "`)`".into(),
        }
    }
}

/// Time units and their factor to nanoseconds, and `%`.
pub const UNITS: [(&str, f64); 5] = [
    ("ns", 1.0),
    ("us", 1e3),
    ("ms", 1e6),
    ("s", 1e9),
    ("%", 0.01),
];

fn ident_start(c: char) -> bool {
    c.is_ascii_alphabetic() || c == '_'
}

fn ident_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_'
}

/// Tokenises `text`. `alias_names` lets `a-b` read as one identifier when
/// some alias is spelled `a-b` or starts with `a-b-`.
pub fn lex(text: &str, alias_names: &[&str]) -> Result<Vec<(Tok, usize)>> {
    let chars: Vec<char> = text.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    let syntax = |i: usize, message: String| SmcError::Syntax {
        column: i + 1,
        message,
    };
    while i < chars.len() {
        let c = chars[i];
        let col = i + 1;
        if c.is_whitespace() {
            i += 1;
            continue;
        }
        if c.is_ascii_digit() || (c == '.' && chars.get(i + 1).is_some_and(|d| d.is_ascii_digit()))
        {
            let start = i;
            while i < chars.len() && (chars[i].is_ascii_digit() || chars[i] == '.') {
                i += 1;
            }
            // Exponent: e or E, optional sign, digits.
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
                }
            }
            let digits: String = chars[start..i].iter().collect();
            let mut value: f64 = digits
                .parse()
                .map_err(|_| syntax(start, format!("`{digits}` is not a number")))?;
            let unit_start = i;
            if i < chars.len() && chars[i] == '%' {
                i += 1;
            } else {
                while i < chars.len() && ident_char(chars[i]) {
                    i += 1;
                }
            }
            if i > unit_start {
                let unit: String = chars[unit_start..i].iter().collect();
                match UNITS.iter().find(|(u, _)| *u == unit) {
                    Some((_, factor)) => value *= factor,
                    None => {
                        return Err(syntax(
                            unit_start,
                            format!("unknown unit `{unit}` after {digits}; units are ns, us, ms, s (converted to nanoseconds) and %"),
                        ))
                    }
                }
            }
            out.push((Tok::Num(value), col));
            continue;
        }
        if ident_start(c) {
            let start = i;
            while i < chars.len() && ident_char(chars[i]) {
                i += 1;
            }
            // Extend over `-word` while the result still spells (part of) an alias.
            loop {
                if i + 1 < chars.len() && chars[i] == '-' && ident_start(chars[i + 1]) {
                    let mut j = i + 1;
                    while j < chars.len() && ident_char(chars[j]) {
                        j += 1;
                    }
                    let candidate: String = chars[start..j].iter().collect();
                    let prefix = format!("{candidate}-");
                    if alias_names
                        .iter()
                        .any(|a| *a == candidate || a.starts_with(&prefix))
                    {
                        i = j;
                        continue;
                    }
                }
                break;
            }
            let word: String = chars[start..i].iter().collect();
            let tok = match word.as_str() {
                "and" => Tok::And,
                "or" => Tok::Or,
                "not" => Tok::Not,
                "true" => Tok::True,
                "false" => Tok::False,
                _ => Tok::Ident(word),
            };
            out.push((tok, col));
            continue;
        }
        let next = chars.get(i + 1).copied();
        let (tok, len) = match (c, next) {
            ('<', Some('=')) => (Tok::Le, 2),
            ('>', Some('=')) => (Tok::Ge, 2),
            ('=', Some('=')) => (Tok::Eq, 2),
            ('!', Some('=')) => (Tok::Ne, 2),
            ('&', Some('&')) => (Tok::And, 2),
            ('|', Some('|')) => (Tok::Or, 2),
            ('<', _) => (Tok::Lt, 1),
            ('>', _) => (Tok::Gt, 1),
            ('!', _) => (Tok::Not, 1),
            ('+', _) => (Tok::Plus, 1),
            ('-', _) => (Tok::Minus, 1),
            ('*', _) => (Tok::Star, 1),
            ('/', _) => (Tok::Slash, 1),
            ('(', _) => (Tok::LParen, 1),
            (')', _) => (Tok::RParen, 1),
            ('=', _) => {
                return Err(syntax(
                    i,
                    "`=` is not an operator; write `==` to compare".into(),
                ))
            }
            ('&', _) => {
                return Err(syntax(
                    i,
                    "`&` is not an operator; write `&&` or `and`".into(),
                ))
            }
            ('|', _) => {
                return Err(syntax(
                    i,
                    "`|` is not an operator; write `||` or `or`".into(),
                ))
            }
            _ => return Err(syntax(i, format!("unexpected character `{c}`"))),
        };
        out.push((tok, col));
        i += len;
    }
    out.push((Tok::End, chars.len() + 1));
    Ok(out)
}
