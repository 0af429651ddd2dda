//! Reading latency samples into groups, one group per stage, packet type,
//! Content Store outcome and combination of factor levels.
//!
//! Two file formats:
//!
//! * the forwarder's raw sample log, a CSV file with a header, exactly
//!   `seq,type,cs,input_ns,queue_ns,fwd_ns,output_ns,total_ns,queue_len,pit_size`
//!   (`type` is `interest`, `data` or `nack`; `cs` is `hit`, `miss` or `-`),
//!   or any CSV with a header: each chosen column is a stage (its name without
//!   `_ns`), rows are split by the `type` and `cs` columns when present; a
//!   cell `-` or empty is a missing value, skipped;
//! * a plain file of one number per line (`#` comments and blank lines
//!   skipped): one stage named after the file (or `--stage`).
//!
//! Factor levels come from a CSV column (`--by FACTOR=COLUMN`) or are given
//! per file (`--label FACTOR=V1,V2,...`, one value per file in order).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use crate::{ModelError, Result};

/// What identifies a group.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct GroupKey {
    pub stage: String,
    pub packet: String,
    pub cs: String,
    pub factors: BTreeMap<String, String>,
}

impl GroupKey {
    /// `stage/packet/cs{factor=level,...}`.
    pub fn label(&self) -> String {
        crate::model::label(&self.stage, &self.packet, &self.cs, &self.factors)
    }

    /// A file-name-safe form of the label.
    pub fn slug(&self) -> String {
        self.label()
            .chars()
            .map(|c| {
                if c.is_ascii_alphanumeric() || c == '=' || c == '.' {
                    c
                } else {
                    '-'
                }
            })
            .collect::<String>()
            .trim_matches('-')
            .to_string()
    }
}

/// The values of one group, in file order.
#[derive(Debug, Clone, PartialEq)]
pub struct Group {
    pub key: GroupKey,
    pub values: Vec<f64>,
}

/// How sample files are read.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ReadOptions {
    /// CSV columns to fit (default: every column whose name ends in `_ns`).
    pub columns: Vec<String>,
    /// Columns that split a CSV's rows (default: `type` and `cs`, those present).
    pub split: Option<Vec<String>>,
    /// Factors read from columns: (factor, column).
    pub by: Vec<(String, String)>,
    /// Factors given per file: (factor, one level per file).
    pub labels: Vec<(String, Vec<String>)>,
    /// The stage name of plain files (default: the file's stem).
    pub stage: Option<String>,
}

/// Parses `NAME=VALUE`.
pub fn parse_assignment(s: &str, what: &str) -> Result<(String, String)> {
    match s.split_once('=') {
        Some((k, v)) if !k.trim().is_empty() && !v.trim().is_empty() => {
            Ok((k.trim().to_string(), v.trim().to_string()))
        }
        _ => Err(ModelError::Usage(format!("{what} {s:?} is not NAME=VALUE"))),
    }
}

fn io(path: &Path) -> impl FnOnce(std::io::Error) -> ModelError + '_ {
    move |source| ModelError::Io {
        path: path.to_path_buf(),
        source,
    }
}

fn is_plain(text: &str) -> bool {
    text.lines()
        .map(str::trim)
        .find(|l| !l.is_empty() && !l.starts_with('#'))
        .is_some_and(|l| l.parse::<f64>().is_ok())
}

/// Reads every file into groups, sorted by key.
pub fn read_groups(files: &[PathBuf], opts: &ReadOptions) -> Result<Vec<Group>> {
    for (f, levels) in &opts.labels {
        if levels.len() != files.len() {
            return Err(ModelError::Usage(format!(
                "--label {f}= gives {} level(s) for {} file(s); give one per file, in order",
                levels.len(),
                files.len()
            )));
        }
    }
    let mut groups: BTreeMap<GroupKey, Vec<f64>> = BTreeMap::new();
    for (i, path) in files.iter().enumerate() {
        let text = std::fs::read_to_string(path).map_err(io(path))?;
        let fixed: BTreeMap<String, String> = opts
            .labels
            .iter()
            .map(|(f, levels)| (f.clone(), levels[i].clone()))
            .collect();
        if is_plain(&text) {
            read_plain(path, &text, opts, fixed, &mut groups)?;
        } else {
            read_csv(path, &text, opts, fixed, &mut groups)?;
        }
    }
    Ok(groups
        .into_iter()
        .map(|(key, values)| Group { key, values })
        .collect())
}

fn read_plain(
    path: &Path,
    text: &str,
    opts: &ReadOptions,
    factors: BTreeMap<String, String>,
    groups: &mut BTreeMap<GroupKey, Vec<f64>>,
) -> Result<()> {
    if !opts.by.is_empty() {
        return Err(ModelError::Usage(format!(
            "{}: --by reads factors from CSV columns, but this is a plain file of numbers; use --label",
            path.display()
        )));
    }
    let stage = opts.stage.clone().unwrap_or_else(|| {
        path.file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_else(|| "sample".into())
    });
    let key = GroupKey {
        stage,
        packet: "any".into(),
        cs: "any".into(),
        factors,
    };
    let values = groups.entry(key).or_default();
    for (n, line) in text.lines().enumerate() {
        let l = line.trim();
        if l.is_empty() || l.starts_with('#') {
            continue;
        }
        match l.parse::<f64>() {
            Ok(v) if v.is_finite() => values.push(v),
            _ => {
                return Err(ModelError::Samples {
                    path: path.to_path_buf(),
                    line: n + 1,
                    message: format!("{l:?} is not a number"),
                })
            }
        }
    }
    Ok(())
}

fn read_csv(
    path: &Path,
    text: &str,
    opts: &ReadOptions,
    fixed: BTreeMap<String, String>,
    groups: &mut BTreeMap<GroupKey, Vec<f64>>,
) -> Result<()> {
    let bad = |line: usize, message: String| ModelError::Samples {
        path: path.to_path_buf(),
        line,
        message,
    };
    let mut rdr = csv::ReaderBuilder::new()
        .trim(csv::Trim::All)
        .comment(Some(b'#'))
        .from_reader(text.as_bytes());
    let headers: Vec<String> = rdr
        .headers()
        .map_err(|e| bad(1, e.to_string()))?
        .iter()
        .map(str::to_string)
        .collect();
    let col = |name: &str, what: &str| {
        headers.iter().position(|h| h == name).ok_or_else(|| {
            bad(
                1,
                format!(
                    "no column {name:?} ({what}); columns: {}",
                    headers.join(",")
                ),
            )
        })
    };
    let columns: Vec<String> = if opts.columns.is_empty() {
        headers
            .iter()
            .filter(|h| h.ends_with("_ns"))
            .cloned()
            .collect()
    } else {
        opts.columns.clone()
    };
    if columns.is_empty() {
        return Err(bad(
            1,
            "no column ends in _ns; name the columns to fit with --column".into(),
        ));
    }
    let stage_cols: Vec<(usize, String)> = columns
        .iter()
        .map(|c| {
            Ok((
                col(c, "--column")?,
                c.strip_suffix("_ns").unwrap_or(c).to_string(),
            ))
        })
        .collect::<Result<_>>()?;
    let split: Vec<String> = match &opts.split {
        Some(s) => s.clone(),
        None => ["type", "cs"]
            .iter()
            .filter(|c| headers.iter().any(|h| h == *c))
            .map(|c| c.to_string())
            .collect(),
    };
    let mut split_idx = (None, None);
    for s in &split {
        let i = col(s, "--split")?;
        match s.as_str() {
            "type" => split_idx.0 = Some(i),
            "cs" => split_idx.1 = Some(i),
            other => {
                return Err(ModelError::Usage(format!(
                    "--split takes type and cs, not {other:?}; factor columns go in --by FACTOR={other}"
                )))
            }
        }
    }
    let by: Vec<(String, usize)> = opts
        .by
        .iter()
        .map(|(f, c)| Ok((f.clone(), col(c, "--by")?)))
        .collect::<Result<_>>()?;
    for (row, rec) in rdr.records().enumerate() {
        let line = row + 2;
        let rec = rec.map_err(|e| bad(line, e.to_string()))?;
        let cell = |i: usize| rec.get(i).unwrap_or("");
        let norm = |v: &str| {
            if v.is_empty() || v == "-" {
                "any".to_string()
            } else {
                v.to_string()
            }
        };
        let packet = split_idx
            .0
            .map(|i| norm(cell(i)))
            .unwrap_or_else(|| "any".into());
        let cs = split_idx
            .1
            .map(|i| norm(cell(i)))
            .unwrap_or_else(|| "any".into());
        let mut factors = fixed.clone();
        for (f, i) in &by {
            factors.insert(f.clone(), cell(*i).to_string());
        }
        for (i, stage) in &stage_cols {
            let v = cell(*i);
            if v.is_empty() || v == "-" {
                continue;
            }
            let x: f64 = v
                .parse()
                .ok()
                .filter(|x: &f64| x.is_finite())
                .ok_or_else(|| {
                    bad(
                        line,
                        format!("column {:?}: {v:?} is not a number", headers[*i]),
                    )
                })?;
            groups
                .entry(GroupKey {
                    stage: stage.clone(),
                    packet: packet.clone(),
                    cs: cs.clone(),
                    factors: factors.clone(),
                })
                .or_default()
                .push(x);
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write(name: &str, text: &str) -> PathBuf {
        let d = std::env::temp_dir().join(format!("ndnlab-model-samples-{}", std::process::id()));
        std::fs::create_dir_all(&d).unwrap();
        let p = d.join(name);
        std::fs::write(&p, text).unwrap();
        p
    }

    #[test]
    fn forwarder_csv_is_split_by_type_and_cs() {
        let p = write(
            "fwd.csv",
            "seq,type,cs,input_ns,queue_ns,fwd_ns,output_ns,total_ns,queue_len,pit_size\n\
             1,interest,miss,10,20,30,40,100,0,1\n\
             2,interest,hit,11,21,31,-,63,0,1\n\
             3,data,-,12,22,32,42,108,1,0\n",
        );
        let g = read_groups(&[p], &ReadOptions::default()).unwrap();
        let labels: Vec<String> = g.iter().map(|g| g.key.label()).collect();
        assert!(labels.contains(&"fwd/interest/miss".to_string()));
        assert!(labels.contains(&"total/data/any".to_string()));
        // output_ns "-" for the CS hit is skipped.
        assert!(!labels.contains(&"output/interest/hit".to_string()));
        assert_eq!(g.len(), 5 * 3 - 1);
    }

    #[test]
    fn bad_cells_and_labels_are_named() {
        let p = write("bad.csv", "type,x_ns\ninterest,1\ninterest,abc\n");
        let e = read_groups(std::slice::from_ref(&p), &ReadOptions::default())
            .unwrap_err()
            .to_string();
        assert!(
            e.ends_with("bad.csv:3: column \"x_ns\": \"abc\" is not a number"),
            "{e}"
        );
        let opts = ReadOptions {
            labels: vec![("threads".into(), vec!["1".into(), "2".into()])],
            ..Default::default()
        };
        let e = read_groups(&[p], &opts).unwrap_err().to_string();
        assert!(e.contains("2 level(s) for 1 file(s)"), "{e}");
    }

    #[test]
    fn plain_files_with_labels() {
        let a = write("a.txt", "# latencies\n1.5\n2\n\n3\n");
        let b = write("b.txt", "4\n5\n6\n");
        let opts = ReadOptions {
            labels: vec![("threads".into(), vec!["1".into(), "2".into()])],
            stage: Some("fwd".into()),
            ..Default::default()
        };
        let g = read_groups(&[a, b], &opts).unwrap();
        assert_eq!(g.len(), 2);
        assert_eq!(g[0].key.label(), "fwd/any/any{threads=1}");
        assert_eq!(g[0].values, vec![1.5, 2.0, 3.0]);
    }
}
