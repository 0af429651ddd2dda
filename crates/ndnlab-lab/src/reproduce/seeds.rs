//! The seed directories: where they are, which ones a command names, their
//! `paper.toml` and their files in file-name order.

use std::path::{Path, PathBuf};

use ndnlab_report::reproduction::Paper;
use serde::Deserialize;

/// A seed directory (`experiments/seed000`).
#[derive(Debug, Clone)]
pub struct SeedDir {
    /// `seed000`.
    pub name: String,
    pub dir: PathBuf,
}

/// What a seed directory holds to run, in file-name order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Item {
    /// An experiment file (`*.toml` other than paper.toml): one campaign.
    Campaign(PathBuf),
    /// A model exploration file (`*.model`, [`super::model`]).
    Model(PathBuf),
}

impl Item {
    pub fn path(&self) -> &Path {
        match self {
            Item::Campaign(p) | Item::Model(p) => p,
        }
    }

    /// The file's stem: the name of its output directory.
    pub fn stem(&self) -> String {
        self.path()
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default()
    }
}

/// The experiments directory: `given`, else `experiments/` under the current
/// directory when it holds a seed directory, else the repository's.
pub fn experiments_dir(given: Option<&Path>) -> PathBuf {
    if let Some(d) = given {
        return d.to_path_buf();
    }
    let here = PathBuf::from("experiments");
    if list(&here).map(|s| !s.is_empty()).unwrap_or(false) {
        return here;
    }
    let repo = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../experiments");
    repo.canonicalize().unwrap_or(repo)
}

/// Every `seedNNN` directory of `dir`, by name.
pub fn list(dir: &Path) -> Result<Vec<SeedDir>, String> {
    let entries = std::fs::read_dir(dir)
        .map_err(|e| format!("experiments directory {}: {e}", dir.display()))?;
    let mut out: Vec<SeedDir> = entries
        .filter_map(|e| e.ok())
        .filter(|e| e.path().is_dir())
        .filter_map(|e| {
            let name = e.file_name().to_string_lossy().into_owned();
            let digits = name.strip_prefix("seed")?;
            (!digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit())).then(|| SeedDir {
                name,
                dir: e.path(),
            })
        })
        .collect();
    out.sort_by(|a, b| a.name.cmp(&b.name));
    Ok(out)
}

/// The seed directories a command names: `000`, `seed000`, `0` or `all`
/// (none: all); an unknown name is an error listing the known ones.
pub fn select(known: &[SeedDir], names: &[String]) -> Result<Vec<SeedDir>, String> {
    if names.is_empty() || names.iter().any(|n| n == "all") {
        return Ok(known.to_vec());
    }
    let number = |s: &str| s.strip_prefix("seed").unwrap_or(s).parse::<u64>().ok();
    let mut out: Vec<SeedDir> = Vec::new();
    for n in names {
        let found = known
            .iter()
            .find(|s| *s.name == **n || (number(n).is_some() && number(&s.name) == number(n)));
        match found {
            Some(s) if !out.iter().any(|o| o.name == s.name) => out.push(s.clone()),
            Some(_) => {}
            None => {
                let names: Vec<&str> = known.iter().map(|s| s.name.as_str()).collect();
                return Err(format!(
                    "unknown seed {n:?}: the known seeds are {} (or all)",
                    if names.is_empty() {
                        "none".to_string()
                    } else {
                        names.join(", ")
                    }
                ));
            }
        }
    }
    Ok(out)
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct PaperFile {
    paper: Paper,
}

/// Reads `dir/paper.toml`; errors name the file.
pub fn paper(dir: &Path) -> Result<Paper, String> {
    let path = dir.join("paper.toml");
    let text = std::fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
    let f: PaperFile =
        toml::from_str(&text).map_err(|e| format!("{}: {}", path.display(), e.message()))?;
    Ok(f.paper)
}

/// The files of a seed directory to run, in file-name order.
pub fn items(dir: &Path) -> Result<Vec<Item>, String> {
    let entries = std::fs::read_dir(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let mut paths: Vec<PathBuf> = entries
        .filter_map(|e| e.ok())
        .map(|e| e.path())
        .filter(|p| p.is_file())
        .collect();
    paths.sort();
    Ok(paths
        .into_iter()
        .filter_map(|p| match p.extension().and_then(|e| e.to_str()) {
            Some("toml") if p.file_name().is_some_and(|n| n != "paper.toml") => {
                Some(Item::Campaign(p))
            }
            Some("model") => Some(Item::Model(p)),
            _ => None,
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn seeds(names: &[&str]) -> Vec<SeedDir> {
        names
            .iter()
            .map(|n| SeedDir {
                name: n.to_string(),
                dir: PathBuf::from(n),
            })
            .collect()
    }

    #[test]
    fn select_by_any_spelling() {
        let k = seeds(&["seed000", "seed004"]);
        let pick = |n: &[&str]| {
            select(&k, &n.iter().map(|s| s.to_string()).collect::<Vec<_>>())
                .map(|v| v.into_iter().map(|s| s.name).collect::<Vec<_>>())
        };
        assert_eq!(pick(&["000"]).unwrap(), ["seed000"]);
        assert_eq!(
            pick(&["4", "seed000", "0"]).unwrap(),
            ["seed004", "seed000"]
        );
        assert_eq!(pick(&["all"]).unwrap(), ["seed000", "seed004"]);
        assert_eq!(pick(&[]).unwrap(), ["seed000", "seed004"]);
        let e = pick(&["007"]).unwrap_err();
        assert!(
            e.contains("\"007\"") && e.contains("seed000, seed004"),
            "{e}"
        );
    }

    #[test]
    fn paper_toml_denies_unknown_keys() {
        let dir = std::env::temp_dir().join(format!("ndnlab-paper-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(
            dir.join("paper.toml"),
            "[paper]\nauthors = \"A\"\ntitel = \"x\"\n",
        )
        .unwrap();
        let e = paper(&dir).unwrap_err();
        assert!(e.contains("paper.toml") && e.contains("titel"), "{e}");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
