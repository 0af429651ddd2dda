//! Factor levels compared by value: a `[reference]` level written `8192`,
//! `8192.0` or `"8192"` is the `results.csv` cell `8192`.

use ndnlab_analysis::table::parse_number;

/// A level as a number (when it reads as one) or a text.
#[derive(Debug, Clone, PartialEq)]
pub enum Level {
    Number(f64),
    Text(String),
}

impl Level {
    /// The level a `results.csv` cell holds.
    pub fn of_cell(cell: &str) -> Level {
        match parse_number(cell.trim()) {
            Some(v) => Level::Number(v),
            None => Level::Text(cell.trim().to_string()),
        }
    }

    /// The level a TOML value names.
    pub fn of_value(v: &toml::Value) -> Level {
        match v {
            toml::Value::Integer(i) => Level::Number(*i as f64),
            toml::Value::Float(f) => Level::Number(*f),
            toml::Value::String(s) => Level::of_cell(s),
            other => Level::Text(other.to_string()),
        }
    }

    /// The number, for a numeric level.
    pub fn number(&self) -> Option<f64> {
        match self {
            Level::Number(v) => Some(*v),
            Level::Text(_) => None,
        }
    }

    /// Whether two levels are the same value (numbers to a relative 1e-9).
    pub fn matches(&self, other: &Level) -> bool {
        match (self, other) {
            (Level::Number(a), Level::Number(b)) => {
                a == b || (a - b).abs() <= 1e-9 * a.abs().max(b.abs())
            }
            (Level::Text(a), Level::Text(b)) => a == b,
            _ => false,
        }
    }
}

impl std::fmt::Display for Level {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Level::Number(v) => write!(f, "{v}"),
            Level::Text(s) => f.write_str(s),
        }
    }
}

/// Whether two TOML values name the same level.
pub fn same(a: &toml::Value, b: &toml::Value) -> bool {
    Level::of_value(a).matches(&Level::of_value(b))
}

/// Whether `results.csv` cell `cell` holds level `v`.
pub fn cell_is(cell: &str, v: &toml::Value) -> bool {
    Level::of_cell(cell).matches(&Level::of_value(v))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn levels_match_by_value() {
        let i = toml::Value::Integer(8192);
        let f = toml::Value::Float(8192.0);
        let s = toml::Value::String("8192".into());
        assert!(same(&i, &f) && same(&f, &s) && same(&s, &i));
        assert!(cell_is("8192", &f) && cell_is("8192.0", &i) && cell_is(" 8192 ", &s));
        assert!(!cell_is("8193", &i));
        assert!(cell_is("digest", &toml::Value::String("digest".into())));
        assert!(!cell_is("rsa", &toml::Value::String("digest".into())));
        assert!(cell_is("true", &toml::Value::Boolean(true)));
        assert!(cell_is("0.1", &toml::Value::Float(0.1)));
    }
}
