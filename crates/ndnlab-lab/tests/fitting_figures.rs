//! The figures of a fit (`ndnlab_lab::plots::fitting`): a group's histogram,
//! probability plots, PPCC sweeps and Box-Cox curve, and the QQ plot and
//! bihistogram of generated against measured values.

use std::path::PathBuf;

use ndnlab_analysis::fit::{Dist, FitOptions};
use ndnlab_lab::plots::fitting;
use ndnlab_model::fitting::fit_groups;
use ndnlab_model::generate::{compare, generate};
use ndnlab_model::samples::{read_groups, ReadOptions};
use rand::rngs::StdRng;
use rand::SeedableRng;

fn dir(tag: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("ndnlab-figures-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// A measured gamma sample against values generated from its fit's law.
#[test]
fn comparison_figures_are_written() {
    let d = dir("compare");
    let miss = Dist::Gamma {
        shape: 3.2,
        scale: 41.0,
    };
    let measured = miss.sample_n(&mut StdRng::seed_from_u64(1), 500);
    let gen = generate(&miss, 5000, 9);
    let c = compare(&measured, &gen);
    assert!(c.ks < 0.06, "KS {}", c.ks);
    let figs = fitting::comparison_figures(&c, &measured, &gen, "fwd/interest/miss", "ns").unwrap();
    assert_eq!(figs.len(), 2);
    let svg = fitting::write(&d, &figs[1]).unwrap();
    assert!(std::fs::read_to_string(svg).unwrap().contains("<svg"));
    assert!(d.join("compare-bihistogram.png").exists());
    let _ = std::fs::remove_dir_all(&d);
}

#[test]
fn group_figures_are_drawn() {
    let mut rng = StdRng::seed_from_u64(3);
    let x = Dist::Gamma {
        shape: 2.0,
        scale: 10.0,
    }
    .sample_n(&mut rng, 800);
    let d = dir("figs");
    let p = d.join("lat.txt");
    std::fs::write(&p, x.iter().map(|v| format!("{v}\n")).collect::<String>()).unwrap();
    let groups = read_groups(&[p], &ReadOptions::default()).unwrap();
    let fits = fit_groups(groups, &FitOptions::default()).unwrap();
    let figs = fitting::group_figures(&fits[0], "ns").unwrap();
    let ids: Vec<&str> = figs.iter().map(|f| f.id.as_str()).collect();
    for want in [
        "lat-any-any-hist",
        "lat-any-any-probplot-gamma",
        "lat-any-any-ppcc-gamma",
        "lat-any-any-boxcox",
    ] {
        assert!(ids.contains(&want), "{want} not in {ids:?}");
    }
    let _ = std::fs::remove_dir_all(&d);
}
