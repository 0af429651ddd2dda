//! `points.csv`: one row per finished grid point, appended whole and flushed
//! as each point finishes, read back to resume or merge.
//!
//! Columns: `point` (its index in the full grid), one column per grid key, the
//! check's `runs`, `successes` (empty for a numeric property), `estimate`,
//! the interval `lo`, `hi` and `confidence` (empty when the method gives none,
//! as SPRT), `method`, and the mean over the same runs of the observables in
//! [`KEPT`] (`mean_satisfaction`, ...). Numbers are written in Rust's shortest
//! round-trip form, so a row read back is bit for bit the row written.

use std::fs::{File, OpenOptions};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, OnceLock};

use serde::Serialize;

use super::grid::Grid;
use super::{Manifest, MANIFEST};
use crate::campaign::engine::{write_atomic, Store};
use ndnlab_model::dataplane::{Error, Result};

/// The observables whose mean over a point's runs each row keeps.
pub const KEPT: &[&str] = &[
    "satisfaction",
    "unsatisfied",
    "loss_queue",
    "loss_pushed_out",
    "latency_p50",
    "latency_p99",
    "max_queue",
    "utilization",
];

/// The file name of the rows in an exploration directory.
pub const FILE: &str = "points.csv";

/// The result of one grid point.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Row {
    /// The point's index in the full grid.
    pub point: usize,
    /// A level per grid key, in axis order.
    pub levels: Vec<String>,
    pub runs: u64,
    /// Runs satisfying a Boolean property (none for a numeric one).
    pub successes: Option<u64>,
    /// P(property), or the property's expected value.
    pub estimate: f64,
    /// The interval `(lo, hi, confidence)`, when the method gives one.
    pub interval: Option<(f64, f64, f64)>,
    pub method: String,
    /// The mean of each observable of [`KEPT`] over the runs (infinite
    /// values left out; NaN when every run's was infinite).
    pub means: Vec<f64>,
}

/// The CSV header for a grid.
pub fn header(grid: &Grid) -> Vec<String> {
    let mut h = vec!["point".to_string()];
    h.extend(grid.keys());
    for c in [
        "runs",
        "successes",
        "estimate",
        "lo",
        "hi",
        "confidence",
        "method",
    ] {
        h.push(c.to_string());
    }
    h.extend(KEPT.iter().map(|k| format!("mean_{k}")));
    h
}

fn opt<T: ToString>(v: Option<T>) -> String {
    v.map(|v| v.to_string()).unwrap_or_default()
}

impl Row {
    /// The row's CSV fields, in [`header`] order.
    pub fn record(&self) -> Vec<String> {
        let mut r = vec![self.point.to_string()];
        r.extend(self.levels.iter().cloned());
        r.push(self.runs.to_string());
        r.push(opt(self.successes));
        r.push(self.estimate.to_string());
        r.push(opt(self.interval.map(|i| i.0)));
        r.push(opt(self.interval.map(|i| i.1)));
        r.push(opt(self.interval.map(|i| i.2)));
        r.push(self.method.clone());
        r.extend(self.means.iter().map(f64::to_string));
        r
    }

    /// Reads a row from its fields; `at` names the file and line in errors.
    fn parse(grid: &Grid, f: &[&str], at: &str) -> Result<Row> {
        let k = grid.axes.len();
        let want = header(grid).len();
        if f.len() != want {
            return Err(Error::Usage(format!(
                "{at}: {} fields where the header has {want}",
                f.len()
            )));
        }
        let num = |i: usize, col: &str| -> Result<f64> {
            f[i].parse::<f64>()
                .map_err(|_| Error::Usage(format!("{at}: {col} {:?} is not a number", f[i])))
        };
        let whole = |i: usize, col: &str| -> Result<u64> {
            f[i].parse::<u64>()
                .map_err(|_| Error::Usage(format!("{at}: {col} {:?} is not a whole number", f[i])))
        };
        let levels: Vec<String> = f[1..=k].iter().map(|s| s.to_string()).collect();
        let point = whole(0, "point")? as usize;
        if grid.index_of(&levels) != Some(point) {
            return Err(Error::Usage(format!(
                "{at}: point {point} ({}) is not that point of this grid",
                grid.label(&levels)
            )));
        }
        let b = k + 1;
        let interval = if f[b + 3].is_empty() {
            None
        } else {
            Some((
                num(b + 3, "lo")?,
                num(b + 4, "hi")?,
                num(b + 5, "confidence")?,
            ))
        };
        Ok(Row {
            point,
            levels,
            runs: whole(b, "runs")?,
            successes: if f[b + 1].is_empty() {
                None
            } else {
                Some(whole(b + 1, "successes")?)
            },
            estimate: num(b + 2, "estimate")?,
            interval,
            method: f[b + 6].to_string(),
            means: (0..KEPT.len())
                .map(|j| num(b + 7 + j, &format!("mean_{}", KEPT[j])))
                .collect::<Result<_>>()?,
        })
    }
}

fn file_error(path: &Path, message: impl std::fmt::Display) -> Error {
    Error::File {
        path: path.to_path_buf(),
        message: message.to_string(),
    }
}

/// One CSV line (with its newline).
fn line(fields: &[String]) -> String {
    let mut w = csv::WriterBuilder::new().from_writer(Vec::new());
    w.write_record(fields).expect("writing to memory");
    String::from_utf8(w.into_inner().expect("writing to memory")).expect("UTF-8 fields")
}

/// Reads the rows of `path`. A last line cut short (a run killed while
/// writing it) is dropped, and the file cut back to its last whole line.
pub fn read(path: &Path, grid: &Grid) -> Result<Vec<Row>> {
    let mut text = std::fs::read_to_string(path).map_err(|e| file_error(path, e))?;
    if !text.is_empty() && !text.ends_with('\n') {
        let keep = text.rfind('\n').map_or(0, |i| i + 1);
        text.truncate(keep);
        std::fs::write(path, &text).map_err(|e| file_error(path, e))?;
    }
    let mut r = csv::ReaderBuilder::new()
        .has_headers(false)
        .from_reader(text.as_bytes());
    let mut rows = Vec::new();
    let want = header(grid);
    for (n, rec) in r.records().enumerate() {
        let rec = rec.map_err(|e| file_error(path, e))?;
        let fields: Vec<&str> = rec.iter().collect();
        if n == 0 {
            if fields != want.iter().map(String::as_str).collect::<Vec<_>>() {
                return Err(file_error(
                    path,
                    format!(
                        "line 1: the header is {:?}; this exploration writes {:?}",
                        fields.join(","),
                        want.join(",")
                    ),
                ));
            }
            continue;
        }
        let at = format!("{}: line {}", path.display(), n + 1);
        rows.push(Row::parse(grid, &fields, &at)?);
    }
    Ok(rows)
}

/// Appends rows to `points.csv`, each as one write of a whole line, flushed.
pub struct Appender {
    path: PathBuf,
    file: Mutex<File>,
}

impl Appender {
    /// Opens `path` for appending, writing the header if the file is new or empty.
    pub fn open(path: &Path, grid: &Grid) -> Result<Appender> {
        let mut file = OpenOptions::new()
            .create(true)
            .append(true)
            .open(path)
            .map_err(|e| file_error(path, e))?;
        let empty = file.metadata().map_err(|e| file_error(path, e))?.len() == 0;
        if empty {
            file.write_all(line(&header(grid)).as_bytes())
                .and_then(|_| file.flush())
                .map_err(|e| file_error(path, e))?;
        }
        Ok(Appender {
            path: path.to_path_buf(),
            file: Mutex::new(file),
        })
    }

    /// Appends one row.
    pub fn append(&self, row: &Row) -> Result<()> {
        let text = line(&row.record());
        let mut f = self.file.lock().expect("no writer panicked");
        f.write_all(text.as_bytes())
            .and_then(|_| f.sync_data())
            .map_err(|e| file_error(&self.path, e))
    }
}

/// Writes every row, in point order, to `path` (through a temporary file
/// renamed over it, so the file is always whole).
pub fn write_sorted(path: &Path, grid: &Grid, rows: &[Row]) -> Result<()> {
    let mut sorted: Vec<&Row> = rows.iter().collect();
    sorted.sort_by_key(|r| r.point);
    let mut text = line(&header(grid));
    for r in sorted {
        text.push_str(&line(&r.record()));
    }
    write_atomic(path, text).map_err(|e| file_error(path, format!("{e:#}")))
}

/// An exploration's rows, the campaign engine's [`Store`]: the manifest is
/// `explore.toml` ([`Manifest`], compared by [`Manifest::difference`]), the
/// rows `points.csv`, a line appended as each point finishes. Every row is
/// final; a directory that holds rows needs `--resume`.
pub struct Points<'a> {
    pub manifest: &'a Manifest,
    appender: OnceLock<Appender>,
}

impl<'a> Points<'a> {
    pub fn new(manifest: &'a Manifest) -> Points<'a> {
        Points {
            manifest,
            appender: OnceLock::new(),
        }
    }
}

impl Store for Points<'_> {
    type Row = Row;

    fn manifest_file(&self) -> &'static str {
        MANIFEST
    }

    fn rows_file(&self) -> &'static str {
        FILE
    }

    fn manifest(&self) -> String {
        self.manifest.to_toml()
    }

    fn differs(&self, text: &str, path: &Path) -> anyhow::Result<Option<String>> {
        let old = Manifest::parse(text, path)?;
        Ok(self
            .manifest
            .difference(&old)
            .map(|what| format!("{what} differs")))
    }

    fn id(&self, row: &Row) -> usize {
        row.point
    }

    fn ids(&self) -> Vec<usize> {
        (0..self.manifest.grid.len()).collect()
    }

    fn label(&self, id: usize) -> String {
        let grid = &self.manifest.grid;
        grid.label(&grid.point(id).levels)
    }

    fn noun(&self) -> &'static str {
        "point"
    }

    /// `points.csv` with its header, for the rows to come.
    fn open(&self, dir: &Path) -> anyhow::Result<()> {
        let a = Appender::open(&dir.join(FILE), &self.manifest.grid)?;
        let _ = self.appender.set(a);
        Ok(())
    }

    fn read(&self, dir: &Path) -> anyhow::Result<Option<Vec<Row>>> {
        let path = dir.join(FILE);
        if !path.exists() {
            return Ok(None);
        }
        Ok(Some(read(&path, &self.manifest.grid)?))
    }

    fn append(&self, _dir: &Path, row: &Row, _all: &[Row]) -> anyhow::Result<()> {
        let a = self.appender.get().expect("opened before any row");
        Ok(a.append(row)?)
    }

    fn write(&self, dir: &Path, rows: &[Row]) -> anyhow::Result<()> {
        Ok(write_sorted(&dir.join(FILE), &self.manifest.grid, rows)?)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::explore::grid::parse_axis;

    fn grid() -> Grid {
        Grid {
            axes: vec![
                parse_axis("threads=1..2").unwrap(),
                parse_axis("placement=P1,P2").unwrap(),
            ],
        }
    }

    fn row(point: usize) -> Row {
        Row {
            point,
            levels: grid().point(point).levels,
            runs: 150,
            successes: Some(148),
            estimate: 148.0 / 150.0,
            interval: Some((0.1 + 1.0 / 3.0, 1.0, 0.9)),
            method: "chernoff".into(),
            means: vec![0.1, 2.0, f64::NAN, f64::INFINITY, 1e-9, 3.5e7, 4.0, 0.25],
        }
    }

    #[test]
    fn rows_read_back_bit_for_bit_and_a_cut_line_is_dropped() {
        let dir = std::env::temp_dir().join(format!("ndnlab-points-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join(FILE);
        let _ = std::fs::remove_file(&path);
        let a = Appender::open(&path, &grid()).unwrap();
        a.append(&row(3)).unwrap();
        let mut r1 = row(1);
        r1.successes = None;
        r1.interval = None;
        a.append(&r1).unwrap();
        drop(a);
        // A killed writer's half line.
        let mut f = OpenOptions::new().append(true).open(&path).unwrap();
        f.write_all(b"2,2,P1,150,1").unwrap();
        let back = read(&path, &grid()).unwrap();
        assert_eq!(back.len(), 2);
        assert_eq!(back[0].record(), row(3).record());
        assert_eq!(back[1].record(), r1.record());
        assert!(back[0].means[2].is_nan() && back[0].means[3].is_infinite());
        assert!(std::fs::read_to_string(&path).unwrap().ends_with('\n'));
        write_sorted(&path, &grid(), &back).unwrap();
        let sorted = read(&path, &grid()).unwrap();
        assert_eq!(sorted[0].point, 1);
        // A row whose levels are not its point's.
        let mut text = std::fs::read_to_string(&path).unwrap();
        text.push_str("0,2,P2,150,,1,,,,chernoff,1,1,1,1,1,1,1,1\n");
        std::fs::write(&path, text).unwrap();
        let e = read(&path, &grid()).unwrap_err().to_string();
        assert!(
            e.contains("line 4") && e.contains("threads=2 placement=P2"),
            "{e}"
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
