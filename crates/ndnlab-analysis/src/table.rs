//! A CSV table held as text: the header, the rows, and typed access to columns.

use std::io::Read;

use crate::error::{AnalysisError, Result};

/// A parsed CSV table with a header row. Cells are trimmed.
#[derive(Debug, Clone, PartialEq)]
pub struct Table {
    headers: Vec<String>,
    rows: Vec<Vec<String>>,
    /// The file line of each row (1-based, the header is line 1).
    lines: Vec<usize>,
}

impl Table {
    /// Parses CSV text with a header row.
    pub fn from_csv_str(text: &str) -> Result<Self> {
        Self::from_bytes(text.as_bytes())
    }

    /// Parses CSV from a reader with a header row.
    pub fn from_reader<R: Read>(mut reader: R) -> Result<Self> {
        let mut bytes = Vec::new();
        reader
            .read_to_end(&mut bytes)
            .map_err(|e| AnalysisError::Csv {
                line: 1,
                message: e.to_string(),
            })?;
        Self::from_bytes(&bytes)
    }

    fn from_bytes(bytes: &[u8]) -> Result<Self> {
        // Line numbers from byte offsets: blank lines count, as in an editor.
        let newlines: Vec<usize> = bytes
            .iter()
            .enumerate()
            .filter(|(_, &b)| b == b'\n')
            .map(|(i, _)| i)
            .collect();
        let line_at = |byte: u64| {
            // A record's position may include the blank lines skipped before it.
            let mut b = byte as usize;
            while b < bytes.len() && (bytes[b] == b'\n' || bytes[b] == b'\r') {
                b += 1;
            }
            newlines.partition_point(|&nl| nl < b) + 1
        };
        let reader = bytes;
        let mut rdr = csv::ReaderBuilder::new()
            .trim(csv::Trim::All)
            .flexible(false)
            .from_reader(reader);
        let csv_err = |e: csv::Error| AnalysisError::Csv {
            line: e.position().map(|p| line_at(p.byte()) as u64).unwrap_or(1),
            message: match e.kind() {
                csv::ErrorKind::UnequalLengths {
                    expected_len, len, ..
                } => format!("{len} field(s) where the header has {expected_len}"),
                _ => e.to_string(),
            },
        };
        let headers: Vec<String> = rdr
            .headers()
            .map_err(csv_err)?
            .iter()
            .map(str::to_string)
            .collect();
        if headers.is_empty() || headers.iter().all(String::is_empty) {
            return Err(AnalysisError::Empty("no header row".into()));
        }
        for (i, h) in headers.iter().enumerate() {
            if h.is_empty() {
                return Err(AnalysisError::Csv {
                    line: 1,
                    message: format!("column {} has an empty name", i + 1),
                });
            }
            if headers[..i].contains(h) {
                return Err(AnalysisError::DuplicateColumn(h.clone()));
            }
        }
        let mut rows = Vec::new();
        let mut lines = Vec::new();
        for rec in rdr.records() {
            let rec = rec.map_err(csv_err)?;
            lines.push(rec.position().map(|p| line_at(p.byte())).unwrap_or(0));
            rows.push(rec.iter().map(str::to_string).collect());
        }
        Ok(Table {
            headers,
            rows,
            lines,
        })
    }

    /// Builds a table from named columns of text (all of the same length).
    pub fn from_columns(columns: &[(&str, Vec<String>)]) -> Result<Self> {
        let n = columns.first().map(|c| c.1.len()).unwrap_or(0);
        if let Some((name, _)) = columns.iter().find(|c| c.1.len() != n) {
            return Err(AnalysisError::BadParameter(format!(
                "column {name:?} has a different length from the first column"
            )));
        }
        let headers: Vec<String> = columns.iter().map(|c| c.0.to_string()).collect();
        for (i, h) in headers.iter().enumerate() {
            if headers[..i].contains(h) {
                return Err(AnalysisError::DuplicateColumn(h.clone()));
            }
        }
        let rows = (0..n)
            .map(|r| columns.iter().map(|c| c.1[r].clone()).collect())
            .collect();
        Ok(Table {
            headers,
            rows,
            lines: (2..n + 2).collect(),
        })
    }

    /// The column names, in file order.
    pub fn headers(&self) -> &[String] {
        &self.headers
    }

    /// Number of data rows.
    pub fn len(&self) -> usize {
        self.rows.len()
    }

    /// True when the table has no data rows.
    pub fn is_empty(&self) -> bool {
        self.rows.is_empty()
    }

    /// True when the table has a column of that name.
    pub fn has_column(&self, name: &str) -> bool {
        self.headers.iter().any(|h| h == name)
    }

    /// The index of a column, or an error naming it and the available ones.
    pub fn column_index(&self, name: &str) -> Result<usize> {
        self.headers
            .iter()
            .position(|h| h == name)
            .ok_or_else(|| AnalysisError::MissingColumn {
                column: name.to_string(),
                available: self.headers.join(", "),
            })
    }

    /// The cell at a row and column index.
    pub fn cell(&self, row: usize, col: usize) -> &str {
        &self.rows[row][col]
    }

    /// The file line of a row.
    pub fn line(&self, row: usize) -> usize {
        self.lines[row]
    }

    /// The text cells of a column.
    pub fn text(&self, name: &str) -> Result<Vec<&str>> {
        let c = self.column_index(name)?;
        Ok(self.rows.iter().map(|r| r[c].as_str()).collect())
    }

    /// The cells of a column as finite numbers; the first bad cell is an error
    /// naming the column and the line.
    pub fn numbers(&self, name: &str) -> Result<Vec<f64>> {
        let c = self.column_index(name)?;
        self.rows
            .iter()
            .enumerate()
            .map(|(i, r)| {
                parse_number(&r[c]).ok_or_else(|| AnalysisError::NotANumber {
                    column: name.to_string(),
                    line: self.lines[i],
                    value: r[c].clone(),
                })
            })
            .collect()
    }

    /// True when every cell of the column parses as a finite number.
    pub fn is_numeric(&self, name: &str) -> bool {
        match self.column_index(name) {
            Ok(c) => {
                !self.rows.is_empty() && self.rows.iter().all(|r| parse_number(&r[c]).is_some())
            }
            Err(_) => false,
        }
    }

    /// The columns, other than `exclude`, that hold exactly `levels` distinct values.
    pub fn columns_with_levels(&self, levels: usize, exclude: &[&str]) -> Vec<String> {
        (0..self.headers.len())
            .filter(|&c| !exclude.contains(&self.headers[c].as_str()))
            .filter(|&c| {
                let mut seen: Vec<&str> = Vec::new();
                for r in &self.rows {
                    if !seen.contains(&r[c].as_str()) {
                        seen.push(&r[c]);
                        if seen.len() > levels {
                            return false;
                        }
                    }
                }
                seen.len() == levels
            })
            .map(|c| self.headers[c].clone())
            .collect()
    }

    /// The rows for which `keep(row index)` holds, as a new table (lines preserved).
    pub fn filter(&self, mut keep: impl FnMut(usize) -> bool) -> Table {
        let idx: Vec<usize> = (0..self.rows.len()).filter(|&i| keep(i)).collect();
        Table {
            headers: self.headers.clone(),
            rows: idx.iter().map(|&i| self.rows[i].clone()).collect(),
            lines: idx.iter().map(|&i| self.lines[i]).collect(),
        }
    }
}

/// Parses a finite number (`+1` and `-1` included); `None` otherwise.
pub fn parse_number(s: &str) -> Option<f64> {
    s.trim().parse::<f64>().ok().filter(|x| x.is_finite())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_and_reports_lines() {
        let t = Table::from_csv_str("a, b\n\n1, x\n2,y\n").unwrap();
        assert_eq!(t.headers(), ["a", "b"]);
        assert_eq!(t.numbers("a").unwrap(), [1.0, 2.0]);
        assert_eq!(t.line(0), 3);
        match t.numbers("b") {
            Err(AnalysisError::NotANumber { column, line, .. }) => {
                assert_eq!((column.as_str(), line), ("b", 3))
            }
            other => panic!("{other:?}"),
        }
        let e = t.column_index("c").unwrap_err().to_string();
        assert!(e.contains("\"c\"") && e.contains("a, b"), "{e}");
    }

    #[test]
    fn ragged_rows_name_the_line() {
        let e = Table::from_csv_str("a,b\n1,2\n3\n").unwrap_err();
        assert_eq!(
            e,
            AnalysisError::Csv {
                line: 3,
                message: "1 field(s) where the header has 2".into()
            }
        );
        assert!(matches!(
            Table::from_csv_str("a,a\n1,2\n"),
            Err(AnalysisError::DuplicateColumn(_))
        ));
        assert!(matches!(
            Table::from_csv_str(""),
            Err(AnalysisError::Empty(_))
        ));
    }
}
