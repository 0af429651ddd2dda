//! A 2^2 r factorial design: cell means with confidence intervals, effects with
//! confidence intervals, and the allocation of variation (Jain, ch. 18).

use serde::Serialize;
use statrs::distribution::{ContinuousCDF, StudentsT};

/// Observations of one response, by cell. Cell index: `a + 2 * b` (0 = both low).
pub struct Factorial2x2 {
    a: (String, String, String),
    b: (String, String, String),
    cells: [Vec<f64>; 4],
}

/// A cell's mean and its 95% confidence interval.
#[derive(Debug, Clone, Serialize)]
pub struct Cell {
    pub a: String,
    pub b: String,
    pub n: usize,
    pub mean: f64,
    pub ci95: (f64, f64),
}

/// An effect (q) with its 95% confidence interval and share of the variation.
#[derive(Debug, Clone, Serialize)]
pub struct Effect {
    pub term: String,
    pub q: f64,
    pub ci95: (f64, f64),
    /// Fraction of the total variation explained (SSx / SST).
    pub variation: f64,
    /// False when the confidence interval contains zero.
    pub significant: bool,
}

/// The analysis of one response.
#[derive(Debug, Clone, Serialize)]
pub struct Response {
    pub response: String,
    pub replications: usize,
    pub mean: f64,
    pub cells: Vec<Cell>,
    pub effects: Vec<Effect>,
    /// Fraction of the variation left to experimental error (SSE / SST).
    pub error_variation: f64,
}

fn t975(df: usize) -> f64 {
    StudentsT::new(0.0, 1.0, df.max(1) as f64)
        .map(|t| t.inverse_cdf(0.975))
        .unwrap_or(1.96)
}

fn mean(v: &[f64]) -> f64 {
    v.iter().sum::<f64>() / v.len().max(1) as f64
}

impl Factorial2x2 {
    /// Factors as `(name, low level, high level)`.
    pub fn new(a: (&str, &str, &str), b: (&str, &str, &str)) -> Self {
        let own = |x: (&str, &str, &str)| (x.0.to_string(), x.1.to_string(), x.2.to_string());
        Factorial2x2 {
            a: own(a),
            b: own(b),
            cells: Default::default(),
        }
    }

    /// Adds one observation at the given levels (`true` = high).
    pub fn add(&mut self, a_high: bool, b_high: bool, y: f64) {
        self.cells[a_high as usize + 2 * b_high as usize].push(y);
    }

    /// Analyses the design; every cell must hold the same number `r >= 2` of observations.
    pub fn analyse(&self, response: &str) -> Response {
        let r = self.cells.iter().map(Vec::len).min().unwrap_or(0);
        let means: Vec<f64> = self.cells.iter().map(|c| mean(c)).collect();
        let t_cell = t975(r.saturating_sub(1));
        let cells = (0..4)
            .map(|i| {
                let c = &self.cells[i];
                let sd = if c.len() > 1 {
                    (c.iter().map(|y| (y - means[i]).powi(2)).sum::<f64>() / (c.len() - 1) as f64)
                        .sqrt()
                } else {
                    0.0
                };
                let half = t_cell * sd / (c.len().max(1) as f64).sqrt();
                Cell {
                    a: if i & 1 == 1 {
                        self.a.2.clone()
                    } else {
                        self.a.1.clone()
                    },
                    b: if i & 2 == 2 {
                        self.b.2.clone()
                    } else {
                        self.b.1.clone()
                    },
                    n: c.len(),
                    mean: means[i],
                    ci95: (means[i] - half, means[i] + half),
                }
            })
            .collect();
        // Sign table columns, cells in order (a-,b-), (a+,b-), (a-,b+), (a+,b+).
        let signs: [(&str, [f64; 4]); 3] = [
            (&self.a.0, [-1.0, 1.0, -1.0, 1.0]),
            (&self.b.0, [-1.0, -1.0, 1.0, 1.0]),
            ("interaction", [1.0, -1.0, -1.0, 1.0]),
        ];
        let rf = r as f64;
        let sse: f64 = (0..4)
            .map(|i| {
                self.cells[i]
                    .iter()
                    .map(|y| (y - means[i]).powi(2))
                    .sum::<f64>()
            })
            .sum();
        let qs: Vec<f64> = signs
            .iter()
            .map(|(_, s)| (0..4).map(|i| s[i] * means[i]).sum::<f64>() / 4.0)
            .collect();
        let ss: Vec<f64> = qs.iter().map(|q| 4.0 * rf * q * q).collect();
        let sst = ss.iter().sum::<f64>() + sse;
        let dof = 4 * r.saturating_sub(1);
        let s_q = (sse / dof.max(1) as f64).sqrt() / (4.0 * rf).max(1.0).sqrt();
        let t_eff = t975(dof);
        let effects = signs
            .iter()
            .zip(qs.iter().zip(&ss))
            .map(|((term, _), (&q, &ssx))| {
                let ci95 = (q - t_eff * s_q, q + t_eff * s_q);
                Effect {
                    term: term.to_string(),
                    q,
                    ci95,
                    variation: if sst > 0.0 { ssx / sst } else { 0.0 },
                    significant: ci95.0 > 0.0 || ci95.1 < 0.0,
                }
            })
            .collect();
        Response {
            response: response.to_string(),
            replications: r,
            mean: mean(&means),
            cells,
            effects,
            error_variation: if sst > 0.0 { sse / sst } else { 0.0 },
        }
    }
}

/// Formats a number with precision suited to its magnitude.
fn num(x: f64) -> String {
    if x.abs() >= 100.0 {
        format!("{x:.0}")
    } else {
        format!("{x:.4}")
    }
}

fn ci(c: (f64, f64)) -> String {
    format!("[{}, {}]", num(c.0), num(c.1))
}

impl Response {
    /// Prints the cell means and the allocation of variation as tables.
    pub fn print(&self) {
        println!(
            "\n== {} (r = {}, 95% confidence intervals)",
            self.response, self.replications
        );
        println!(
            "{:<16} {:<12} {:>12}  {:<28}",
            "level A", "level B", "mean", "95% CI"
        );
        for c in &self.cells {
            println!(
                "{:<16} {:<12} {:>12}  {:<28}",
                c.a,
                c.b,
                num(c.mean),
                ci(c.ci95)
            );
        }
        println!(
            "{:<29} {:>12}  {:<28} {:>9}",
            "effect", "q", "95% CI", "variation"
        );
        for e in &self.effects {
            println!(
                "{:<29} {:>12}  {:<28} {:>8.1}%{}",
                e.term,
                num(e.q),
                ci(e.ci95),
                100.0 * e.variation,
                if e.significant {
                    ""
                } else {
                    "  (CI contains 0)"
                }
            );
        }
        println!(
            "{:<29} {:>12}  {:<28} {:>8.1}%",
            "error",
            "",
            "",
            100.0 * self.error_variation
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Jain's example 18.1 (memory-cache study): y = 15 18 12 / 45 48 51 / 25 28 19 / 75 75 81,
    /// q0 = 41, qA = 21.5, qB = 9.5, qAB = 5; SSA 5547, SSB 1083, SSAB 300, SSE 102.
    #[test]
    fn matches_jain_example() {
        let mut d = Factorial2x2::new(("A", "-", "+"), ("B", "-", "+"));
        for y in [15.0, 18.0, 12.0] {
            d.add(false, false, y);
        }
        for y in [45.0, 48.0, 51.0] {
            d.add(true, false, y);
        }
        for y in [25.0, 28.0, 19.0] {
            d.add(false, true, y);
        }
        for y in [75.0, 75.0, 81.0] {
            d.add(true, true, y);
        }
        let r = d.analyse("y");
        assert!((r.mean - 41.0).abs() < 1e-9);
        let q: Vec<f64> = r.effects.iter().map(|e| e.q).collect();
        assert!(
            (q[0] - 21.5).abs() < 1e-9 && (q[1] - 9.5).abs() < 1e-9 && (q[2] - 5.0).abs() < 1e-9
        );
        let sst = 5547.0 + 1083.0 + 300.0 + 102.0;
        assert!((r.effects[0].variation - 5547.0 / sst).abs() < 1e-9);
        assert!((r.error_variation - 102.0 / sst).abs() < 1e-9);
        // s_e = sqrt(102/8) = 3.57, s_q = 3.57/sqrt(12) = 1.03, t(0.975, 8) = 2.306
        let half = r.effects[0].ci95.1 - r.effects[0].q;
        assert!((half - 2.306 * (102.0f64 / 8.0).sqrt() / 12f64.sqrt()).abs() < 0.01);
        assert!(r.effects.iter().all(|e| e.significant));
    }
}
