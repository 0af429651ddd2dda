//! Worked examples of Jain, *The Art of Computer Systems Performance Analysis*,
//! reproduced to the digits the book prints, and seed 001's Table 5 -> Table 6.

use ndnlab_analysis::{analyze_anova, analyze_two_level, Dataset, Table, Transform};

fn close(got: f64, want: f64, tol: f64, what: &str) {
    assert!(
        (got - want).abs() <= tol,
        "{what}: got {got}, book prints {want}"
    );
}

fn dataset(csv: &str, factors: &[&str], response: &str) -> Dataset {
    let t = Table::from_csv_str(csv).unwrap();
    Dataset::from_table(&t, factors, response, Transform::None).unwrap()
}

/// Example 17.1: memory (A: 4, 16 Mbytes) and cache (B: 1, 2 kbytes), MIPS.
#[test]
fn ch17_memory_cache_2x2() {
    let ds = dataset(
        "memory,cache,mips\n4,1,15\n16,1,45\n4,2,25\n16,2,75\n",
        &["memory", "cache"],
        "mips",
    );
    let a = analyze_two_level(&ds, 0.1).unwrap();
    assert_eq!((a.k, a.p, a.runs, a.replicates), (2, 0, 4, 1));
    close(a.q0, 40.0, 1e-9, "q0");
    let q: Vec<(&str, f64)> = a.effects.iter().map(|e| (e.term.as_str(), e.q)).collect();
    assert_eq!(q, [("A", 20.0), ("B", 10.0), ("AB", 5.0)]);
    // SST = 2^2 (20^2 + 10^2 + 5^2) = 2100: A 76%, B 19%, AB 5%.
    close(a.sst, 2100.0, 1e-9, "SST");
    let pct: Vec<f64> = a.effects.iter().map(|e| e.percent).collect();
    close(pct[0], 76.0, 0.5, "%A");
    close(pct[1], 19.0, 0.5, "%B");
    close(pct[2], 5.0, 0.5, "%AB");
    assert!(a.error.is_none());
    // The sign table, in Jain's order of runs.
    let signs: Vec<Vec<i8>> = a.sign_table.iter().map(|r| r.signs.clone()).collect();
    assert_eq!(signs, [[-1, -1, 1], [1, -1, -1], [-1, 1, -1], [1, 1, 1]]);
    let ys: Vec<f64> = a.sign_table.iter().map(|r| r.mean).collect();
    assert_eq!(ys, [15.0, 45.0, 25.0, 75.0]);
}

const CH18: &str = "A,B,y\n-1,-1,15\n-1,-1,18\n-1,-1,12\n1,-1,45\n1,-1,48\n1,-1,51\n\
                    -1,1,25\n-1,1,28\n-1,1,19\n1,1,75\n1,1,75\n1,1,81\n";

/// Example 18.1-18.3: the same study with r = 3 replicates.
#[test]
fn ch18_replicated_2x2() {
    let a = analyze_two_level(&dataset(CH18, &["A", "B"], "y"), 0.10).unwrap();
    assert_eq!(a.replicates, 3);
    close(a.q0, 41.0, 1e-9, "q0");
    let q: Vec<f64> = a.effects.iter().map(|e| e.q).collect();
    assert_eq!(q, [21.5, 9.5, 5.0]);
    // SST = 7032 = SSA 5547 + SSB 1083 + SSAB 300 + SSE 102.
    close(a.sst, 7032.0, 1e-9, "SST");
    let ss: Vec<f64> = a.effects.iter().map(|e| e.ss).collect();
    assert_eq!(ss, [5547.0, 1083.0, 300.0]);
    let err = a.error.as_ref().unwrap();
    close(err.ss, 102.0, 1e-9, "SSE");
    // 78.88%, 15.40%, 4.27%, 1.45%.
    close(a.effects[0].percent, 78.88, 0.005, "%A");
    close(a.effects[1].percent, 15.40, 0.005, "%B");
    close(a.effects[2].percent, 4.27, 0.005, "%AB");
    close(err.percent, 1.45, 0.005, "%error");
    // s_e = 3.57, s_q = 1.03, t[0.95; 8] = 1.86, 90% CIs q ± 1.92.
    assert_eq!(err.df, 8);
    close(err.s_e, 3.57, 0.005, "s_e");
    close(err.s_q, 1.03, 0.005, "s_q");
    close(err.t, 1.86, 0.005, "t");
    let (lo, hi) = a.q0_ci.unwrap();
    close(lo, 39.08, 0.01, "q0 low");
    close(hi, 42.92, 0.01, "q0 high");
    let ci = |i: usize| a.effects[i].ci.unwrap();
    close(ci(0).0, 19.58, 0.01, "qA low");
    close(ci(0).1, 23.42, 0.01, "qA high");
    close(ci(1).0, 7.58, 0.01, "qB low");
    close(ci(1).1, 11.42, 0.01, "qB high");
    close(ci(2).0, 3.08, 0.01, "qAB low");
    close(ci(2).1, 6.92, 0.01, "qAB high");
    assert!(a.effects.iter().all(|e| e.excludes_zero == Some(true)));
    // Residuals are y minus the cell mean: 15 - 15 = 0, 18 - 15 = 3, 12 - 15 = -3.
    let res: Vec<f64> = a.residuals.iter().take(3).map(|r| r.residual).collect();
    assert_eq!(res, [0.0, 3.0, -3.0]);
    assert_eq!(a.residual_qq.len(), 12);
}

/// Example 19.1: a 2^(7-4) design with D = AB, E = AC, F = BC, G = ABC.
#[test]
fn ch19_fraction_7_4() {
    let mut csv = String::from("A,B,C,D,E,F,G,y\n");
    let ys = [20, 35, 7, 42, 36, 50, 45, 82];
    for (i, y) in ys.iter().enumerate() {
        let s = |bit: usize| if i >> bit & 1 == 1 { 1 } else { -1 };
        let (a, b, c) = (s(0), s(1), s(2));
        csv += &format!(
            "{a},{b},{c},{},{},{},{},{y}\n",
            a * b,
            a * c,
            b * c,
            a * b * c
        );
    }
    let a = analyze_two_level(
        &dataset(&csv, &["A", "B", "C", "D", "E", "F", "G"], "y"),
        0.1,
    )
    .unwrap();
    assert_eq!((a.k, a.p, a.runs), (7, 4, 8));
    assert_eq!(a.generators, ["D = AB", "E = AC", "F = BC", "G = ABC"]);
    assert_eq!(a.resolution, Some(3));
    assert_eq!(a.defining_relation.len(), 15);
    close(a.q0, 39.625, 1e-9, "q0");
    let by = |t: &str| a.effects.iter().find(|e| e.term == t).unwrap().clone();
    // The effects (totals / 8) and the allocation of variation of Table 19.3.
    for (t, q, pct) in [
        ("A", 12.625, 37.26),
        ("B", 4.375, 4.47),
        ("C", 13.625, 43.40),
        ("D", 5.375, 6.75),
        ("E", 0.125, 0.00),
        ("F", 5.875, 8.07),
        ("G", 0.375, 0.03),
    ] {
        let e = by(t);
        close(e.q, q, 1e-9, t);
        close(e.percent, pct, 0.01, t);
    }
    // D = AB, so D is confounded with AB (and, through the other words, more).
    assert!(by("D").aliases.contains(&"AB".to_string()));
}

const CH20: &str = "processor,code_size\nR,144\nR,120\nR,176\nR,288\nR,144\n\
                    V,101\nV,144\nV,211\nV,288\nV,72\nZ,130\nZ,180\nZ,141\nZ,374\nZ,302\n";

/// Example 20.1-20.3: code size on three processors R, V, Z, five workloads each.
#[test]
fn ch20_one_factor_code_size() {
    let a = analyze_anova(&dataset(CH20, &["processor"], "code_size"), 0.10).unwrap();
    close(a.mean, 187.7, 0.05, "mu");
    let eff: Vec<f64> = a.effects[0].effects.iter().map(|e| e.effect).collect();
    close(eff[0], -13.3, 0.05, "alpha_R");
    close(eff[1], -24.5, 0.05, "alpha_V");
    close(eff[2], 37.7, 0.05, "alpha_Z");
    close(a.ssy, 633_639.0, 1e-6, "SSY");
    close(a.ss0, 528_281.7, 0.05, "SS0");
    close(a.sst, 105_357.3, 0.05, "SST");
    close(a.rows[0].ss, 10_992.1, 0.05, "SSA");
    close(a.error.ss, 94_365.2, 0.05, "SSE");
    close(a.rows[0].percent, 10.4, 0.05, "% processors");
    assert_eq!((a.rows[0].df, a.error.df), (2, 12));
    close(a.rows[0].f.unwrap(), 0.7, 0.005, "F");
    close(a.rows[0].f_critical.unwrap(), 2.81, 0.005, "F[0.90; 2, 12]");
    assert_eq!(a.rows[0].significant, Some(false));
    close(a.s_e, 88.68, 0.01, "s_e");
}

const CH21: &str = "workload,cache,time\n\
    ASM,two,54\nASM,one,55\nASM,none,106\n\
    TECO,two,60\nTECO,one,60\nTECO,none,123\n\
    SIEVE,two,43\nSIEVE,one,43\nSIEVE,none,120\n\
    DHRYSTONE,two,49\nDHRYSTONE,one,52\nDHRYSTONE,none,111\n\
    SORT,two,49\nSORT,one,50\nSORT,none,108\n";

/// Example 21.1-21.3: caches (two, one, none) against five workloads, no replication.
#[test]
fn ch21_two_factors_without_replication() {
    let a = analyze_anova(&dataset(CH21, &["cache", "workload"], "time"), 0.10).unwrap();
    assert_eq!(a.replicates, 1);
    assert_eq!(a.error_is_interaction.as_deref(), Some("cache × workload"));
    close(a.mean, 72.2, 1e-9, "mu");
    let cache: Vec<f64> = a.effects[0].effects.iter().map(|e| e.effect).collect();
    close(cache[0], -21.2, 1e-9, "two caches");
    close(cache[1], -20.2, 1e-9, "one cache");
    close(cache[2], 41.4, 1e-9, "no cache");
    let wl: Vec<(String, f64)> = a.effects[1]
        .effects
        .iter()
        .map(|e| (e.levels[0].clone(), e.effect))
        .collect();
    close(wl[0].1, -0.5, 0.05, "ASM");
    close(wl[1].1, 8.8, 0.05, "TECO");
    close(wl[2].1, -3.5, 0.05, "SIEVE");
    close(wl[3].1, -1.5, 0.05, "DHRYSTONE");
    close(wl[4].1, -3.2, 0.05, "SORT");
    close(a.ssy, 91_595.0, 1e-6, "SSY");
    close(a.ss0, 78_192.6, 0.05, "SS0");
    close(a.sst, 13_402.4, 0.05, "SST");
    close(a.rows[0].ss, 12_857.2, 0.05, "SSA");
    close(a.rows[1].ss, 308.4, 0.05, "SSB");
    close(a.error.ss, 236.8, 0.05, "SSE");
    close(a.rows[0].percent, 95.9, 0.05, "% caches");
    close(a.rows[1].percent, 2.3, 0.05, "% workloads");
    close(a.error.percent, 1.8, 0.05, "% error");
    assert_eq!((a.rows[0].df, a.rows[1].df, a.error.df), (2, 4, 8));
    assert_eq!(a.rows[0].significant, Some(true));
    close(a.s_e, 5.44, 0.005, "s_e");
}

/// Seed 001, Table 5 (16 throughputs of a 2^4 design) -> Table 6 (top five
/// contributors: C 51%, B 22%, BC 9.5%, D 9%, CD 5.6%).
#[test]
fn seed001_table5_to_table6() {
    let csv = "run,A,B,C,D,Mbps\n\
        1,-1,-1,-1,-1,25\n2,1,-1,-1,-1,27\n3,-1,1,-1,-1,21\n4,1,1,-1,-1,18\n\
        5,-1,-1,1,-1,97\n6,1,-1,1,-1,103\n7,-1,1,1,-1,46\n8,1,1,1,-1,48\n\
        9,-1,-1,-1,1,26\n10,1,-1,-1,1,24\n11,-1,1,-1,1,15\n12,1,1,-1,1,13\n\
        13,-1,-1,1,1,61\n14,1,-1,1,1,59\n15,-1,1,1,1,31\n16,1,1,1,1,28\n";
    let a = analyze_two_level(&dataset(csv, &["A", "B", "C", "D"], "Mbps"), 0.05).unwrap();
    let top: Vec<(&str, f64)> = a
        .top_contributors(5)
        .iter()
        .map(|e| (e.term.as_str(), e.percent))
        .collect();
    let terms: Vec<&str> = top.iter().map(|t| t.0).collect();
    assert_eq!(terms, ["C", "B", "BC", "D", "CD"]);
    for ((t, got), want) in top.iter().zip([51.0, 22.0, 9.5, 9.0, 5.6]) {
        // Table 6 rounds to two significant digits.
        close(*got, want, 0.5, t);
    }
    // Factor A does not matter: under 1% of the variation.
    let a_pct = a.effects.iter().find(|e| e.term == "A").unwrap().percent;
    assert!(a_pct < 1.0, "{a_pct}");
    // Unreplicated: Lenth's margin of error separates C and B from the noise.
    assert!(a.lenth.is_some());
    assert!(
        a.effects
            .iter()
            .find(|e| e.term == "C")
            .unwrap()
            .lenth_active
            == Some(true)
    );
}
