//! The engine on a small campaign of its own: jobs that square their id,
//! rows in a plain `rows.csv`, in temporary directories.

use std::path::{Path, PathBuf};
use std::sync::Mutex;

use super::*;

#[derive(Debug, Clone, PartialEq)]
struct Row {
    id: usize,
    value: usize,
    ok: bool,
}

/// `n` jobs; the manifest is `n` and `salt`.
struct Toy {
    n: usize,
    salt: u32,
}

impl Store for Toy {
    type Row = Row;
    fn manifest_file(&self) -> &'static str {
        "toy.toml"
    }
    fn rows_file(&self) -> &'static str {
        "rows.csv"
    }
    fn manifest(&self) -> String {
        format!("n = {}\nsalt = {}\n", self.n, self.salt)
    }
    fn differs(&self, text: &str, _path: &Path) -> anyhow::Result<Option<String>> {
        Ok((text != self.manifest()).then(|| "the salt differs".to_string()))
    }
    fn id(&self, row: &Row) -> usize {
        row.id
    }
    fn finished(&self, row: &Row) -> bool {
        row.ok
    }
    fn ids(&self) -> Vec<usize> {
        (0..self.n).collect()
    }
    fn label(&self, id: usize) -> String {
        format!("job {id}")
    }
    fn noun(&self) -> &'static str {
        "job"
    }
    fn read(&self, dir: &Path) -> anyhow::Result<Option<Vec<Row>>> {
        let Ok(text) = std::fs::read_to_string(dir.join(self.rows_file())) else {
            return Ok(None);
        };
        Ok(Some(
            text.lines()
                .map(|l| {
                    let f: Vec<&str> = l.split(',').collect();
                    Row {
                        id: f[0].parse().unwrap(),
                        value: f[1].parse().unwrap(),
                        ok: f[2] == "ok",
                    }
                })
                .collect(),
        ))
    }
    fn append(&self, dir: &Path, _row: &Row, all: &[Row]) -> anyhow::Result<()> {
        self.write(dir, all)
    }
    fn write(&self, dir: &Path, rows: &[Row]) -> anyhow::Result<()> {
        let text: String = rows
            .iter()
            .map(|r| {
                format!(
                    "{},{},{}\n",
                    r.id,
                    r.value,
                    if r.ok { "ok" } else { "failed" }
                )
            })
            .collect();
        write_atomic(&dir.join(self.rows_file()), text)
    }
}

/// A job: its id squared; a failed row for the ids in `soft`, an error for
/// those in `hard`; records when it started.
struct Square<'a> {
    id: usize,
    soft: &'a [usize],
    hard: &'a [usize],
    /// Jobs after this id do much more work.
    heavy_after: usize,
    started: &'a Mutex<Vec<usize>>,
}

impl Job for Square<'_> {
    type Row = Row;
    fn id(&self) -> usize {
        self.id
    }
    fn run(&self) -> anyhow::Result<Row> {
        self.started.lock().unwrap().push(self.id);
        // Uneven work, so that parallel jobs finish out of order.
        let mut x = self.id as u64;
        let heavy = if self.id > self.heavy_after {
            5_000_000
        } else {
            0
        };
        for _ in 0..(self.id % 4) * 30_000 + heavy {
            x = x.wrapping_mul(6364136223846793005).wrapping_add(1);
        }
        std::hint::black_box(x);
        if self.hard.contains(&self.id) {
            anyhow::bail!("job {} breaks", self.id);
        }
        Ok(Row {
            id: self.id,
            value: self.id * self.id,
            ok: !self.soft.contains(&self.id),
        })
    }
}

fn tmp(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("ndnlab-engine-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    d
}

/// Runs the jobs `ids` of `store` into `dir`: the rows, and the ids started.
fn campaign(
    store: &Toy,
    dir: &Path,
    shard: Option<(usize, usize)>,
    resume: bool,
    workers: usize,
    soft: &[usize],
) -> anyhow::Result<(Ran<Row>, Vec<usize>)> {
    let started = Mutex::new(Vec::new());
    let ids: Vec<usize> = store
        .ids()
        .into_iter()
        .filter(|&i| in_shard(i, shard))
        .collect();
    let jobs: Vec<Square> = ids
        .iter()
        .map(|&id| Square {
            id,
            soft,
            hard: &[],
            heavy_after: usize::MAX,
            started: &started,
        })
        .collect();
    let refs: Vec<&Square> = jobs.iter().collect();
    let s = Session::open(store, Some(dir), resume, &ids)?;
    let ran = s.run(&refs, workers, &mut |_| Ok(()))?;
    let started = started.into_inner().unwrap();
    Ok((ran, started))
}

#[test]
fn shards_cover_every_id_exactly_once() {
    for n in 1..7 {
        for id in 0..100 {
            let hits = (0..n).filter(|&i| in_shard(id, Some((i, n)))).count();
            assert_eq!(hits, 1, "id {id}, {n} shards");
        }
    }
    assert!(in_shard(5, None));
    assert_eq!(parse_shard("1/3"), Ok((1, 3)));
    assert_eq!(parse_shard(" 0 / 2"), Ok((0, 2)));
    for bad in ["2/2", "1", "0/0", "a/2", "-1/2"] {
        let e = parse_shard(bad).unwrap_err();
        assert!(e.contains(&format!("'{bad}'")) && e.contains("I/N"), "{e}");
    }
    // The shards' directories merged are the unsharded run's.
    let store = Toy { n: 11, salt: 1 };
    let base = tmp("shards");
    let (whole, _) = campaign(&store, &base.join("whole"), None, false, 3, &[]).unwrap();
    let slices: Vec<PathBuf> = (0..3).map(|i| base.join(format!("s{i}"))).collect();
    for (i, d) in slices.iter().enumerate() {
        let (ran, started) = campaign(&store, d, Some((i, 3)), false, 2, &[]).unwrap();
        assert!(ran.rows.iter().all(|r| r.id % 3 == i));
        assert!(started.iter().all(|id| id % 3 == i));
    }
    let m = merge(&store, &slices, &base.join("merged"), true).unwrap();
    assert_eq!(m.rows, whole.rows);
    assert!(m.missing.is_empty());
    assert_eq!(m.slices.iter().map(|s| s.1).sum::<usize>(), 11);
    let rows = |d: &Path| std::fs::read(d.join("rows.csv")).unwrap();
    assert_eq!(rows(&base.join("merged")), rows(&base.join("whole")));
    let _ = std::fs::remove_dir_all(&base);
}

#[test]
fn rows_are_in_id_order_whatever_the_workers() {
    let store = Toy { n: 17, salt: 1 };
    let base = tmp("order");
    let (one, _) = campaign(&store, &base.join("one"), None, false, 1, &[3]).unwrap();
    let (four, _) = campaign(&store, &base.join("four"), None, false, 4, &[3]).unwrap();
    assert_eq!(one.rows, four.rows);
    assert!(one.rows.windows(2).all(|w| w[0].id < w[1].id));
    let rows = |d: &str| std::fs::read(base.join(d).join("rows.csv")).unwrap();
    assert_eq!(rows("one"), rows("four"));
    let _ = std::fs::remove_dir_all(&base);
}

#[test]
fn resume_skips_done_ids_and_refuses_a_changed_manifest() {
    let store = Toy { n: 9, salt: 1 };
    let dir = tmp("resume");
    let (first, started) = campaign(&store, &dir, None, false, 2, &[2, 5]).unwrap();
    assert_eq!(started.len(), 9);
    assert_eq!(first.rows.iter().filter(|r| !r.ok).count(), 2);
    // The directory holds rows: refused without --resume.
    let e = campaign(&store, &dir, None, false, 2, &[])
        .unwrap_err()
        .to_string();
    assert!(e.contains("--resume") && e.contains("rows.csv"), "{e}");
    // Only the unfinished jobs run again.
    let (again, mut started) = campaign(&store, &dir, None, true, 2, &[]).unwrap();
    started.sort_unstable();
    assert_eq!(started, [2, 5]);
    assert_eq!((again.resumed, again.ran), (7, 2));
    assert!(again.rows.iter().all(|r| r.ok) && again.rows.len() == 9);
    // Nothing left: nothing runs.
    let (done, started) = campaign(&store, &dir, None, true, 2, &[]).unwrap();
    assert!(started.is_empty());
    assert_eq!(done.rows, again.rows);
    // Another design in that directory: refused, naming the manifest.
    let other = Toy { n: 9, salt: 2 };
    let e = campaign(&other, &dir, None, true, 2, &[])
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("toy.toml") && e.contains("salt differs") && e.contains("--resume"),
        "{e}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn merge_refuses_duplicates_and_missing_ids_naming_them() {
    let store = Toy { n: 6, salt: 1 };
    let base = tmp("merge");
    let (s0, s1) = (base.join("s0"), base.join("s1"));
    campaign(&store, &s0, Some((0, 2)), false, 1, &[4]).unwrap();
    campaign(&store, &s1, Some((1, 2)), false, 1, &[]).unwrap();
    // A missing shard: the ids and the slices named, nothing written.
    let out = base.join("out");
    let e = merge(&store, std::slice::from_ref(&s0), &out, true)
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("3 of 6 jobs")
            && e.contains("job 1; job 3; job 5")
            && e.contains(&s0.display().to_string()),
        "{e}"
    );
    assert!(!out.join("rows.csv").exists());
    // ... listed when the caller takes a partial merge.
    let m = merge(&store, std::slice::from_ref(&s0), &out, false).unwrap();
    assert_eq!(m.missing, [1, 3, 5]);
    // Into a directory with rows: refused.
    let e = merge(&store, &[s0.clone(), s1.clone()], &out, true)
        .unwrap_err()
        .to_string();
    assert!(e.contains("already holds results"), "{e}");
    // The same slice twice: the finished ids found twice, and where.
    let e = merge(&store, &[s0.clone(), s0.clone()], &base.join("x"), true)
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("2 job(s) found twice")
            && e.contains("job 0 (in ")
            && e.contains("job 2 (in ")
            && !e.contains("job 4 (in ")
            && e.contains(&s0.display().to_string()),
        "{e}"
    );
    // An unfinished row gives way to a finished one of the same id.
    let redo = base.join("redo");
    std::fs::create_dir_all(&redo).unwrap();
    std::fs::write(redo.join("toy.toml"), store.manifest()).unwrap();
    std::fs::write(redo.join("rows.csv"), "4,16,ok\n").unwrap();
    let m = merge(
        &store,
        &[s0.clone(), s1.clone(), redo.clone()],
        &base.join("y"),
        true,
    )
    .unwrap();
    assert!(m.rows.iter().all(|r| r.ok) && m.rows.len() == 6);
    assert_eq!(m.slices[2], (redo.clone(), 1));
    // A slice of another campaign: refused, naming both manifests.
    let other = base.join("other");
    std::fs::create_dir_all(&other).unwrap();
    std::fs::write(other.join("toy.toml"), Toy { n: 6, salt: 9 }.manifest()).unwrap();
    std::fs::write(other.join("rows.csv"), "").unwrap();
    let e = merge(&store, &[s0.clone(), other.clone()], &base.join("z"), true)
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("salt differs") && e.contains(&other.join("toy.toml").display().to_string()),
        "{e}"
    );
    let _ = std::fs::remove_dir_all(&base);
}

#[test]
fn fail_fast_stops_at_the_first_error() {
    let jobs =
        |hard: &'static [usize], started: &'static Mutex<Vec<usize>>| -> Vec<Square<'static>> {
            (0..40)
                .map(|id| Square {
                    id,
                    soft: &[],
                    hard,
                    heavy_after: 5,
                    started,
                })
                .collect()
        };
    for workers in [1, 3] {
        // A job's error.
        let started: &'static Mutex<Vec<usize>> = Box::leak(Box::default());
        let list = jobs(&[5], started);
        let refs: Vec<&Square> = list.iter().collect();
        let mut seen = Vec::new();
        let e = execute(&refs, workers, &mut |m| {
            if let Msg::Done(i, row) = m {
                assert_eq!(refs[i].id, row.id);
                seen.push(row.id);
            }
            Ok(())
        })
        .unwrap_err();
        assert!(e.to_string().contains("job 5 breaks"), "{e}");
        assert!(!seen.contains(&5));
        let started = started.lock().unwrap().clone();
        if workers == 1 {
            assert_eq!(started, (0..=5).collect::<Vec<_>>());
        } else {
            // The jobs after it are slow: the ones the other workers had
            // taken finish, and no more start.
            assert!(started.len() < 40, "{started:?}");
        }
        // An error of the caller's stops the pool the same way.
        let started: &'static Mutex<Vec<usize>> = Box::leak(Box::default());
        let list = jobs(&[], started);
        let refs: Vec<&Square> = list.iter().collect();
        let e = execute(&refs, workers, &mut |m| match m {
            Msg::Done(_, row) if row.id == 2 => anyhow::bail!("stop at 2"),
            _ => Ok(()),
        })
        .unwrap_err();
        assert_eq!(e.to_string(), "stop at 2");
        let started = started.lock().unwrap().clone();
        if workers == 1 {
            assert_eq!(started, [0, 1, 2]);
        } else {
            assert!(started.len() < 40, "{started:?}");
        }
    }
}

#[test]
fn write_atomic_leaves_no_temporary_file() {
    let dir = tmp("atomic");
    std::fs::create_dir_all(&dir).unwrap();
    let p = dir.join("a.csv");
    write_atomic(&p, "one\n").unwrap();
    write_atomic(&p, "two\n").unwrap();
    assert_eq!(std::fs::read_to_string(&p).unwrap(), "two\n");
    let names: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(names, ["a.csv"]);
    let _ = std::fs::remove_dir_all(&dir);
}
