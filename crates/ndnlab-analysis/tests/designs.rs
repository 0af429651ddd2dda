//! Properties and failure modes of the design analyses.

use ndnlab_analysis::{
    analyze_anova, analyze_two_level, means, AnalysisError, Dataset, Table, Transform,
};
use proptest::prelude::*;

fn ds(csv: &str, factors: &[&str], response: &str) -> Dataset {
    Dataset::from_table(
        &Table::from_csv_str(csv).unwrap(),
        factors,
        response,
        Transform::None,
    )
    .unwrap()
}

#[test]
fn unbalanced_design_names_the_cell_and_line() {
    let d = ds(
        "A,B,y\n-1,-1,1\n-1,-1,2\n1,-1,3\n1,-1,4\n-1,1,5\n-1,1,6\n1,1,7\n",
        &["A", "B"],
        "y",
    );
    let e = analyze_two_level(&d, 0.05).unwrap_err();
    assert_eq!(
        e,
        AnalysisError::Unbalanced {
            cell: "A=1, B=1".into(),
            found: 1,
            line: 8,
            reference: "A=-1, B=-1".into(),
            expected: 2
        }
    );
    assert!(e.to_string().contains("line 8"), "{e}");
}

#[test]
fn missing_cell_is_named() {
    let d = ds(
        "A,B,C,y\n-1,-1,-1,1\n1,-1,-1,2\n-1,1,-1,3\n1,1,1,4\n-1,-1,1,5\n",
        &["A", "B", "C"],
        "y",
    );
    let e = analyze_two_level(&d, 0.05).unwrap_err().to_string();
    assert!(
        e.contains("A=1, B=-1, C=1") || e.contains("no observation"),
        "{e}"
    );
    let d = ds(
        "A,B,y\nx,p,1\nx,q,2\ny,p,3\nz,q,4\nz,p,4\ny,p,5\n",
        &["A", "B"],
        "y",
    );
    let e = analyze_anova(&d, 0.05).unwrap_err().to_string();
    assert!(e.contains("A=y, B=q"), "{e}");
}

#[test]
fn three_levels_are_not_two() {
    let d = ds("A,y\na,1\nb,2\nc,3\n", &["A"], "y");
    let e = analyze_two_level(&d, 0.05).unwrap_err().to_string();
    assert!(e.contains("factor \"A\" has 3 level(s) (a, b, c)"), "{e}");
}

#[test]
fn one_factor_needs_replicates() {
    let d = ds("A,y\na,1\nb,2\nc,3\n", &["A"], "y");
    let e = analyze_anova(&d, 0.05).unwrap_err().to_string();
    assert!(
        e.contains("at least 2 replicates") && e.contains("A=a"),
        "{e}"
    );
}

#[test]
fn log_transform_rejects_non_positive_values() {
    let t = Table::from_csv_str("A,y\n-1,10\n1,0\n").unwrap();
    let e = Dataset::from_table(&t, &["A"], "y", Transform::Log10).unwrap_err();
    assert_eq!(
        e,
        AnalysisError::NotPositive {
            column: "y".into(),
            line: 3,
            value: 0.0
        }
    );
}

/// A multiplicative response y = 10 * 2^xA * 5^xB becomes additive in log10:
/// qA = log10 2, qB = log10 5, no interaction.
#[test]
fn log_transform_makes_multiplicative_effects_additive() {
    let t = Table::from_csv_str("A,B,y\n-1,-1,1\n1,-1,4\n-1,1,25\n1,1,100\n").unwrap();
    let d = Dataset::from_table(&t, &["A", "B"], "y", Transform::Log10).unwrap();
    let a = analyze_two_level(&d, 0.05).unwrap();
    assert_eq!(a.response, "log10(y)");
    assert!((a.effects[0].q - 2f64.log10()).abs() < 1e-12);
    assert!((a.effects[1].q - 5f64.log10()).abs() < 1e-12);
    assert!(a.effects[2].q.abs() < 1e-12);
}

/// A half fraction 2^(4-1) with D = -ABC (I = -ABCD), named levels (low = the
/// first to appear), r = 2.
#[test]
fn replicated_half_fraction_with_negative_generator() {
    let mut csv = String::from("A,B,C,D,y\n");
    for i in 0..8 {
        let s = |b: usize| if i >> b & 1 == 1 { 1 } else { -1 };
        let (a, b, c) = (s(0), s(1), s(2));
        let d = -a * b * c;
        let lv = |x: i32, lo: &str, hi: &str| {
            if x > 0 {
                hi.to_string()
            } else {
                lo.to_string()
            }
        };
        let y = 50.0 + 10.0 * a as f64 - 4.0 * b as f64 + 3.0 * (a * b) as f64;
        for e in [-0.5, 0.5] {
            csv += &format!(
                "{},{},{},{},{}\n",
                lv(a, "off", "on"),
                lv(b, "s", "l"),
                lv(c, "x", "y"),
                d,
                y + e
            );
        }
    }
    let a = analyze_two_level(&ds(&csv, &["A", "B", "C", "D"], "y"), 0.05).unwrap();
    assert_eq!((a.k, a.p, a.runs, a.replicates), (4, 1, 8, 2));
    assert_eq!(a.generators, ["D = -ABC"]);
    assert_eq!(a.defining_relation, ["I = -ABCD"]);
    assert_eq!(a.resolution, Some(4));
    let ab = a.effects.iter().find(|e| e.term == "AB").unwrap();
    assert_eq!(ab.aliases, ["-CD"]);
    assert!((ab.q - 3.0).abs() < 1e-9);
    let by = |t: &str| a.effects.iter().find(|e| e.term == t).unwrap();
    assert!((by("A").q - 10.0).abs() < 1e-9 && (by("B").q + 4.0).abs() < 1e-9);
    assert_eq!(by("A").aliases, ["-BCD"]);
    assert_eq!(by("A").excludes_zero, Some(true));
    assert_eq!(by("C").excludes_zero, Some(false));
    let ranked: Vec<&str> = a
        .top_contributors(3)
        .iter()
        .map(|e| e.term.as_str())
        .collect();
    assert_eq!(ranked, ["A", "B", "AB"]);
}

#[test]
fn irregular_fraction_is_rejected() {
    // Three of the four runs of a 2^2: not a regular fraction.
    let d = ds("A,B,y\n-1,-1,1\n1,-1,2\n-1,1,3\n", &["A", "B"], "y");
    let e = analyze_two_level(&d, 0.05).unwrap_err().to_string();
    assert!(e.contains("no observation for A=1, B=1"), "{e}");
}

#[test]
fn main_effects_and_interaction_data() {
    let d = ds(
        "A,B,y\n-1,-1,15\n1,-1,45\n-1,1,25\n1,1,75\n-1,-1,17\n1,-1,47\n-1,1,27\n1,1,77\n",
        &["A", "B"],
        "y",
    );
    let me = means::main_effects(&d, 0.05).unwrap();
    assert_eq!(me[0].levels[0].summary.mean, 21.0);
    assert_eq!(me[0].levels[1].summary.mean, 61.0);
    let it = means::interactions(&d, 0.05).unwrap();
    assert_eq!(it.len(), 1);
    assert_eq!(it[0].series[1].1[1].summary.mean, 76.0);
    assert!(it[0].series[1].1[1].summary.ci.is_some());
}

/// Two factors with replication (Jain, ch. 22): with r = 2 the error is the
/// variation within cells and the interaction is a term of its own.
#[test]
fn two_factors_with_replication() {
    let d = ds(
        "a,b,y\n1,x,10\n1,x,12\n1,y,20\n1,y,22\n2,x,30\n2,x,34\n2,y,40\n2,y,38\n3,x,11\n3,x,13\n3,y,25\n3,y,27\n",
        &["a", "b"],
        "y",
    );
    let a = analyze_anova(&d, 0.05).unwrap();
    assert_eq!(a.replicates, 2);
    assert!(a.error_is_interaction.is_none());
    let sources: Vec<&str> = a.rows.iter().map(|r| r.source.as_str()).collect();
    assert_eq!(sources, ["a", "b", "a × b"]);
    assert_eq!(a.error.df, 6);
    // Within-cell errors: pairs differing by 2 or 4: SSE = 2 * 5 + 8 = 18.
    assert!((a.error.ss - 18.0).abs() < 1e-9);
    let total: f64 = a.rows.iter().map(|r| r.ss).sum::<f64>() + a.error.ss;
    assert!((total - a.sst).abs() < 1e-9);
    // The effects of a factor sum to zero.
    for t in &a.effects {
        let s: f64 = t.effects.iter().map(|e| e.effect).sum();
        assert!(s.abs() < 1e-9, "{}", t.source);
    }
}

fn two_level_csv(k: usize, r: usize, ys: &[f64]) -> String {
    let mut csv: String = (0..k).map(|i| format!("F{i},")).collect::<String>() + "y\n";
    let mut n = 0;
    for rep in 0..r {
        for cell in 0..1usize << k {
            for f in 0..k {
                csv += if cell >> f & 1 == 1 { "1," } else { "-1," };
            }
            csv += &format!("{}\n", ys[(rep << k) + cell]);
            n += 1;
        }
    }
    assert_eq!(n, ys.len());
    csv
}

proptest! {
    /// The allocation of variation is complete: SS of effects plus SSE is SST.
    #[test]
    fn two_level_ss_sum_to_sst(k in 1usize..5, r in 1usize..4, seed in proptest::collection::vec(-1000.0f64..1000.0, 64 * 3)) {
        let ys = &seed[..(r << k)];
        let names: Vec<String> = (0..k).map(|i| format!("F{i}")).collect();
        let names: Vec<&str> = names.iter().map(String::as_str).collect();
        let a = analyze_two_level(&ds(&two_level_csv(k, r, ys), &names, "y"), 0.05).unwrap();
        let ss: f64 = a.effects.iter().map(|e| e.ss).sum::<f64>() + a.error.as_ref().map_or(0.0, |e| e.ss);
        prop_assert!((ss - a.sst).abs() <= 1e-6 * a.sst.max(1.0));
        let pct: f64 = a.effects.iter().map(|e| e.percent).sum::<f64>() + a.error.as_ref().map_or(0.0, |e| e.percent);
        prop_assert!(a.sst == 0.0 || (pct - 100.0).abs() < 1e-6);
    }

    /// The same for a multi-level ANOVA, with and without replication.
    #[test]
    fn anova_ss_sum_to_sst(la in 2usize..5, lb in 2usize..4, r in 1usize..4, seed in proptest::collection::vec(-100.0f64..100.0, 48)) {
        let mut csv = String::from("a,b,y\n");
        let mut i = 0;
        for _ in 0..r {
            for x in 0..la {
                for z in 0..lb {
                    csv += &format!("L{x},M{z},{}\n", seed[i]);
                    i += 1;
                }
            }
        }
        let a = analyze_anova(&ds(&csv, &["a", "b"], "y"), 0.05).unwrap();
        let ss: f64 = a.rows.iter().map(|r| r.ss).sum::<f64>() + a.error.ss;
        prop_assert!((ss - a.sst).abs() <= 1e-6 * a.sst.max(1.0));
        prop_assert!((a.ssy - a.ss0 - a.sst).abs() <= 1e-6 * a.ssy.max(1.0));
        let df: usize = a.rows.iter().map(|r| r.df).sum::<usize>() + a.error.df;
        prop_assert_eq!(df, a.observations - 1);
    }
}
