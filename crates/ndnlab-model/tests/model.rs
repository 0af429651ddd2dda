//! From a forwarder sample CSV to a model file and back: reading, fitting,
//! the model file's round trip and its errors, the generator. The figures of
//! a fit are the laboratory's (`crates/ndnlab-lab/tests/fitting_figures.rs`).

use std::fmt::Write;
use std::path::PathBuf;

use ndnlab_analysis::fit::{Dist, Family, FitOptions};
use ndnlab_model::effects::{stage_effects, Stat};
use ndnlab_model::fitting::{fit_groups, model_of};
use ndnlab_model::generate::{compare, generate};
use ndnlab_model::samples::{read_groups, ReadOptions};
use ndnlab_model::{ModelFile, Selector};
use rand::rngs::StdRng;
use rand::SeedableRng;

fn dir(tag: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("ndnlab-model-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// A sample log like the forwarder's: Interests (CS miss: gamma fwd time,
/// CS hit: shorter normal) and Data (shifted exponential), threads = `threads`.
fn sample_csv(path: &PathBuf, seed: u64, slow: f64) {
    let mut rng = StdRng::seed_from_u64(seed);
    let miss = Dist::Gamma {
        shape: 3.2,
        scale: 41.0 * slow,
    };
    let hit = Dist::Normal {
        mean: 300.0 * slow,
        sd: 20.0,
    };
    let data = Dist::Exponential {
        scale: 120.0,
        location: 400.0 * slow,
    };
    let mut s = String::from(
        "seq,type,cs,input_ns,queue_ns,fwd_ns,output_ns,total_ns,queue_len,pit_size\n",
    );
    for i in 0..1500 {
        let (t, cs, d) = match i % 3 {
            0 => ("interest", "miss", &miss),
            1 => ("interest", "hit", &hit),
            _ => ("data", "-", &data),
        };
        let f = d.sample(&mut rng);
        writeln!(s, "{i},{t},{cs},-,-,{f},-,{},0,0", f + 100.0).unwrap();
    }
    std::fs::write(path, s).unwrap();
}

#[test]
fn fit_write_read_generate() {
    let d = dir("e2e");
    let a = d.join("t1.csv");
    let b = d.join("t2.csv");
    sample_csv(&a, 1, 1.0);
    sample_csv(&b, 2, 1.5);
    let read = ReadOptions {
        columns: vec!["fwd_ns".into()],
        labels: vec![("threads".into(), vec!["1".into(), "2".into()])],
        ..Default::default()
    };
    let groups = read_groups(&[a.clone(), b], &read).unwrap();
    assert_eq!(
        groups.len(),
        6,
        "{:?}",
        groups.iter().map(|g| g.key.label()).collect::<Vec<_>>()
    );
    let effects = stage_effects(&groups, Stat::Median).unwrap();
    assert_eq!(effects.len(), 1);
    let threads = &effects[0].effects[0];
    assert_eq!(threads.factor, "threads");
    assert!(threads.levels[1].summary.mean > threads.levels[0].summary.mean);

    let opts = FitOptions {
        unit: "ns".into(),
        diagnostics: false,
        ..Default::default()
    };
    let fits = fit_groups(groups, &opts).unwrap();
    let model = model_of(&fits, "ns", vec![a.display().to_string()]);
    let path = d.join("model.toml");
    model.save(&path).unwrap();
    let back = ModelFile::load(&path).unwrap();
    assert_eq!(back, model);

    let pick = |packet: &str, cs: &str| {
        back.select(&Selector {
            stage: Some("fwd".into()),
            packet: Some(packet.into()),
            cs: Some(cs.into()),
            factors: [("threads".to_string(), "1".to_string())].into(),
        })
        .unwrap()
    };
    let miss = pick("interest", "miss");
    assert_eq!(miss.dist.family(), Family::Gamma, "{}", miss.verdict);
    assert_eq!(pick("interest", "hit").dist.family(), Family::Normal);
    assert_eq!(
        pick("data", "any").dist.family(),
        Family::ShiftedExponential
    );
    // Ambiguous selectors are refused with the candidates.
    let e = back
        .select(&Selector {
            stage: Some("fwd".into()),
            ..Default::default()
        })
        .unwrap_err();
    assert!(e.to_string().contains("6 entries match"), "{e}");

    let gen = generate(&miss.dist, 5000, 9);
    let measured = &fits
        .iter()
        .find(|f| f.group.key.label() == miss.label())
        .unwrap()
        .group
        .values;
    let c = compare(measured, &gen);
    assert!(c.ks < 0.06, "KS {}", c.ks);
    let _ = std::fs::remove_dir_all(&d);
}

#[test]
fn bad_model_files_name_the_entry_and_key() {
    let p = PathBuf::from("m.toml");
    let ok = "format = \"ndnlab-model/1\"\nunit = \"ns\"\n\n[[entry]]\nstage = \"fwd\"\nn = 10\nverdict = \"\"\n\
              [entry.dist]\nfamily = \"gamma\"\nshape = SHAPE\nscale = 2.0\n\
              [entry.fit]\nppcc = 0.99\nad = 0.1\nks = 0.01\n\
              [entry.stats]\nmin = 1.0\nmean = 2.0\nmedian = 2.0\np99 = 5.0\nmax = 6.0\n";
    let m = ModelFile::from_toml(&ok.replace("SHAPE", "1.5"), &p).unwrap();
    assert_eq!(m.entries[0].packet, "any");
    let e = ModelFile::from_toml(&ok.replace("SHAPE", "-1.0"), &p)
        .unwrap_err()
        .to_string();
    assert_eq!(
        e,
        "m.toml: entry 1 (fwd/any/any): dist: gamma shape must be a positive number, got -1"
    );
    let ok = ok.replace("SHAPE", "1.5");
    let e = ModelFile::from_toml(&ok.replace("family = \"gamma\"", "family = \"cauchy\""), &p)
        .unwrap_err()
        .to_string();
    assert!(e.contains("cauchy"), "{e}");
    let e = ModelFile::from_toml(&ok.replace("ndnlab-model/1", "ndnlab-model/9"), &p)
        .unwrap_err()
        .to_string();
    assert!(e.contains("this version reads"), "{e}");
    let e = ModelFile::from_toml(&ok.replace("n = 10", "n = 10\ncolour = 1"), &p)
        .unwrap_err()
        .to_string();
    assert!(e.contains("colour"), "{e}");
}
