//! The human table of a validation report.

use ndnlab_report::text::{num, TextTable};

use super::Report;

impl Report {
    /// The human table of `ndnlab model validate`: one row per configuration, then
    /// the mean and median absolute errors.
    pub fn table(&self) -> String {
        let r = self;
        let pct = |x: f64| {
            if x.is_finite() {
                format!("{:+.0}%", x * 100.0)
            } else {
                "-".into()
            }
        };
        let mut t = TextTable::new(
            &[
                "thr",
                "queue",
                "names",
                "rate",
                "sent/s",
                "sat meas",
                "sat model",
                "err",
                "p50 meas",
                "p50 model",
                "err",
                "p90 meas",
                "p90 model",
                "err",
                "p99 meas",
                "p99 model",
                "err",
            ],
            0,
        );
        for row in &r.rows {
            let (m, p, e) = (&row.measured, &row.model, &row.errors);
            t.row(vec![
                row.level("threads"),
                row.level("queue"),
                row.level("name_len"),
                row.level("rate"),
                num(m.sent_rate),
                format!("{:.4}", m.satisfaction),
                format!("{:.4}", p.satisfaction),
                format!("{:+.4}", e.satisfaction),
                num(m.p50_us),
                num(p.p50_us),
                pct(e.p50),
                num(m.p90_us),
                num(p.p90_us),
                pct(e.p90),
                num(m.p99_us),
                num(p.p99_us),
                pct(e.p99),
            ]);
        }
        let (a, md) = (&r.mean_abs, &r.median_abs);
        let abs = |x: f64| {
            if x.is_finite() {
                format!("{:.0}%", x * 100.0)
            } else {
                "-".into()
            }
        };
        format!(
            "{} against {} ({}), {} model runs per configuration; latencies in µs\n{}\
             |error| mean: satisfaction {:.4}, p50 {}, p90 {}, p99 {}\n\
             |error| median: satisfaction {:.4}, p50 {}, p90 {}, p99 {}{}\n",
            r.model.display(),
            r.experiment.display(),
            r.cpu_model,
            r.model_runs,
            t.render(),
            a.satisfaction,
            abs(a.p50),
            abs(a.p90),
            abs(a.p99),
            md.satisfaction,
            abs(md.p50),
            abs(md.p90),
            abs(md.p99),
            if r.failed.is_empty() {
                String::new()
            } else {
                format!("\nfailed lab runs (see measured/logs/): {:?}", r.failed)
            }
        )
    }
}
