//! ndnlab's fit statistics against reference implementations:
//!
//! * the normal PPCC's null distribution (simulated) against Filliben's
//!   published critical values;
//! * PPCC, Box-Cox λ (by PPCC and by likelihood), Anderson-Darling and
//!   Kolmogorov-Smirnov statistics and the gamma, Weibull and lognormal MLEs
//!   against scipy on the same data (`interop/fit_reference.py`, run with
//!   `$NDNLAB_PYTHON`, which `scripts/test.sh` sets to the venv of
//!   `scripts/python-venv.sh`; the scipy test skips, saying so, when it is unset).

use std::path::PathBuf;
use std::process::Command;

use ndnlab_analysis::fit::boxcox;
use ndnlab_analysis::fit::dist::z;
use ndnlab_analysis::fit::gof::{anderson_darling, kolmogorov_smirnov};
use ndnlab_analysis::fit::mle::fit;
use ndnlab_analysis::fit::ppcc::{correlation, filliben_medians, normal_ppcc, PlotData};
use ndnlab_analysis::fit::{Dist, Family};
use ndnlab_analysis::summary::{mean, percentile, std_dev};
use rand::rngs::StdRng;
use rand::SeedableRng;
use rand_distr::{Distribution, StandardNormal};

/// Filliben (1975), Table 1 (also the NIST/SEMATECH e-Handbook's table of
/// critical values of the normal PPCC): (n, 1% point, 5% point).
const FILLIBEN: [(usize, f64, f64); 4] = [
    (10, 0.880, 0.918),
    (20, 0.927, 0.951),
    (50, 0.966, 0.977),
    (100, 0.982, 0.987),
];

#[test]
fn normal_ppcc_critical_values_match_filliben() {
    let mut rng = StdRng::seed_from_u64(1975);
    let reps = 4000;
    for (n, c01, c05) in FILLIBEN {
        let zs: Vec<f64> = filliben_medians(n).iter().map(|&p| z(p)).collect();
        let mut r: Vec<f64> = (0..reps)
            .map(|_| {
                let mut x: Vec<f64> = (0..n).map(|_| StandardNormal.sample(&mut rng)).collect();
                x.sort_by(f64::total_cmp);
                correlation(&zs, &x)
            })
            .collect();
        r.sort_by(f64::total_cmp);
        let (q01, q05) = (percentile(&r, 1.0), percentile(&r, 5.0));
        assert!(
            (q05 - c05).abs() < 0.003,
            "n={n}: simulated 5% point {q05}, Filliben {c05}"
        );
        assert!(
            (q01 - c01).abs() < 0.006,
            "n={n}: simulated 1% point {q01}, Filliben {c01}"
        );
    }
}

fn python() -> Option<PathBuf> {
    std::env::var_os("NDNLAB_PYTHON")
        .filter(|p| !p.is_empty())
        .map(PathBuf::from)
}

fn reference(x: &[f64], tag: &str, py: &PathBuf) -> serde_json::Value {
    let dir = std::env::temp_dir().join(format!("ndnlab-fitref-{}-{tag}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("data.txt");
    let text: String = x.iter().map(|v| format!("{v:e}\n")).collect();
    std::fs::write(&file, text).unwrap();
    let script = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../interop/fit_reference.py");
    let out = Command::new(py)
        .arg(&script)
        .arg(&file)
        .output()
        .unwrap_or_else(|e| {
            panic!(
                "cannot run {} ({e}): run scripts/python-venv.sh",
                py.display()
            )
        });
    assert!(
        out.status.success(),
        "{} {} failed (does the venv have scipy? run scripts/python-venv.sh): {}",
        py.display(),
        script.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    let _ = std::fs::remove_dir_all(&dir);
    serde_json::from_slice(&out.stdout).expect("JSON from fit_reference.py")
}

fn num(v: &serde_json::Value, path: &[&str]) -> f64 {
    let mut v = v;
    for p in path {
        v = &v[*p];
    }
    v.as_f64()
        .unwrap_or_else(|| panic!("no number at {path:?} in {v}"))
}

fn rel(a: f64, b: f64) -> f64 {
    ((a - b) / b).abs()
}

#[test]
fn statistics_match_scipy() {
    let Some(py) = python() else {
        eprintln!("SKIPPED: NDNLAB_PYTHON is unset, so the scipy reference comparison did not run (scripts/test.sh sets it; or NDNLAB_PYTHON=$(scripts/python-venv.sh))");
        return;
    };
    let samples = [
        (
            "gamma",
            Dist::Gamma {
                shape: 3.2,
                scale: 41.0,
            },
            500,
            5e-9,
        ),
        (
            "lognormal",
            Dist::Lognormal {
                mu: 4.0,
                sigma: 0.4,
            },
            1500,
            5e-9,
        ),
        // Above 2000 values the PPCC interpolates interior quantiles.
        (
            "weibull",
            Dist::Weibull {
                shape: 1.4,
                scale: 90.0,
                location: 0.0,
            },
            4000,
            2e-5,
        ),
    ];
    for (seed, (tag, d, n, ppcc_tol)) in samples.into_iter().enumerate() {
        let mut rng = StdRng::seed_from_u64(100 + seed as u64);
        let mut x = d.sample_n(&mut rng, n);
        let r = reference(&x, tag, &py);
        x.sort_by(f64::total_cmp);
        let pd = PlotData::new(&x);
        let ctx = format!("{tag}, n={n}: ours vs scipy {r}");

        let p = normal_ppcc(&pd);
        assert!(
            (p - num(&r, &["normal_ppcc"])).abs() < ppcc_tol,
            "normal PPCC {p}; {ctx}"
        );

        let bc = boxcox::analyse(&x);
        let lr = num(&r, &["boxcox_lambda_pearsonr"]);
        assert!(
            (bc.lambda - lr).abs() < 2e-3,
            "Box-Cox λ {}; {ctx}",
            bc.lambda
        );
        assert!(
            (bc.ppcc - num(&r, &["boxcox_ppcc"])).abs() < ppcc_tol + 1e-7,
            "Box-Cox PPCC {}; {ctx}",
            bc.ppcc
        );
        assert!(
            (bc.lambda_mle - num(&r, &["boxcox_lambda_mle"])).abs() < 2e-3,
            "Box-Cox MLE λ {}; {ctx}",
            bc.lambda_mle
        );

        let normal = Dist::Normal {
            mean: mean(&x),
            sd: std_dev(&x).unwrap(),
        };
        let ad = anderson_darling(&normal, &x);
        assert!(
            rel(ad, num(&r, &["ad_norm"])) < 1e-6,
            "AD normal {ad}; {ctx}"
        );
        let expo = fit(Family::Exponential, &x).unwrap();
        let ad = anderson_darling(&expo, &x);
        assert!(
            rel(ad, num(&r, &["ad_expon"])) < 1e-6,
            "AD exponential {ad}; {ctx}"
        );

        let g = fit(Family::Gamma, &x).unwrap();
        let Dist::Gamma { shape, scale } = g else {
            panic!()
        };
        assert!(
            rel(shape, num(&r, &["gamma", "shape"])) < 1e-3,
            "gamma shape {shape}; {ctx}"
        );
        assert!(
            rel(scale, num(&r, &["gamma", "scale"])) < 1e-3,
            "gamma scale {scale}; {ctx}"
        );
        let sg = Dist::Gamma {
            shape: num(&r, &["gamma", "shape"]),
            scale: num(&r, &["gamma", "scale"]),
        };
        let ks = kolmogorov_smirnov(&sg, &x);
        assert!(
            rel(ks, num(&r, &["ks_gamma"])) < 1e-6,
            "KS gamma {ks}; {ctx}"
        );

        let w = fit(Family::Weibull, &x).unwrap();
        let Dist::Weibull { shape, scale, .. } = w else {
            panic!()
        };
        assert!(
            rel(shape, num(&r, &["weibull", "shape"])) < 1e-3,
            "Weibull shape {shape}; {ctx}"
        );
        assert!(
            rel(scale, num(&r, &["weibull", "scale"])) < 1e-3,
            "Weibull scale {scale}; {ctx}"
        );
        let sw = Dist::Weibull {
            shape: num(&r, &["weibull", "shape"]),
            scale: num(&r, &["weibull", "scale"]),
            location: 0.0,
        };
        let ks = kolmogorov_smirnov(&sw, &x);
        assert!(
            rel(ks, num(&r, &["ks_weibull"])) < 1e-6,
            "KS Weibull {ks}; {ctx}"
        );

        let Dist::Lognormal { mu, sigma } = fit(Family::Lognormal, &x).unwrap() else {
            panic!()
        };
        assert!(
            (mu - num(&r, &["lognormal", "mu"])).abs() < 1e-4,
            "lognormal mu {mu}; {ctx}"
        );
        assert!(
            rel(sigma, num(&r, &["lognormal", "sigma"])) < 1e-3,
            "lognormal sigma {sigma}; {ctx}"
        );
    }
}
