//! `ndnlab ctl latency`: the forwarder's data-plane latency histograms (the
//! `/localhost/nfd/ndnlab/latency` dataset of `ndnlab fwd --latency-sample N`), as
//! a table of stage x packet class (count, mean, p50, p90, p99, max) or `--json`.

use ndnlab_app::client::blocking::BlockingClient;
use ndnlab_fwd::latency::dataset::LatencyReport;

/// Fetches the dataset and prints it.
pub fn run(c: &mut BlockingClient, json: bool) -> anyhow::Result<()> {
    let payload = c.dataset("ndnlab", "latency")?;
    let report = LatencyReport::decode(&payload)
        .map_err(|e| anyhow::anyhow!("cannot decode ndnlab/latency: {e}"))?;
    if json {
        println!("{}", serde_json::to_string_pretty(&report)?);
    } else {
        print!("{}", table(&report));
    }
    Ok(())
}

/// Microseconds with two decimals.
fn us(ns: u64) -> String {
    format!("{:.2}", ns as f64 / 1000.0)
}

/// The human table.
pub fn table(r: &LatencyReport) -> String {
    if !r.enabled {
        return "latency instrumentation is off (start the forwarder with --latency-sample N \
                or [latency] sample = N)\n"
            .into();
    }
    let keep = match r.keep {
        0 => "all".to_string(),
        k => k.to_string(),
    };
    let mut s = format!(
        "latency: 1 packet in {} timed (skip {}, keep {keep}); {} packets seen, {} samples, {} log drops\n",
        r.sample_every, r.skip, r.packets_seen, r.samples_recorded, r.log_drops
    );
    s += &format!(
        "{:<7} {:<14} {:>9} {:>10} {:>10} {:>10} {:>10} {:>10}\n",
        "stage", "class", "count", "mean(us)", "p50(us)", "p90(us)", "p99(us)", "max(us)"
    );
    if r.entries.is_empty() {
        s += "(no samples yet)\n";
    }
    for e in &r.entries {
        s += &format!(
            "{:<7} {:<14} {:>9} {:>10} {:>10} {:>10} {:>10} {:>10}\n",
            e.stage_name(),
            e.class_name(),
            e.count,
            us(e.mean_ns),
            us(e.p50_ns),
            us(e.p90_ns),
            us(e.p99_ns),
            us(e.max_ns)
        );
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use ndnlab_fwd::latency::hist::Summary;

    #[test]
    fn table_rows_and_off() {
        assert!(table(&LatencyReport::default()).contains("off"));
        let r = LatencyReport {
            enabled: true,
            sample_every: 64,
            entries: vec![Summary {
                stage: 2,
                class: 1,
                count: 7,
                mean_ns: 1500,
                p50_ns: 1400,
                p90_ns: 2000,
                p99_ns: 3000,
                max_ns: 4000,
                ..Default::default()
            }],
            ..Default::default()
        };
        let t = table(&r);
        assert!(t.starts_with("latency: 1 packet in 64 timed (skip 0, keep all)"));
        let row = t.lines().nth(2).unwrap();
        let cols: Vec<&str> = row.split_whitespace().collect();
        assert_eq!(
            cols,
            [
                "fwd",
                "interest-miss",
                "7",
                "1.50",
                "1.40",
                "2.00",
                "3.00",
                "4.00"
            ]
        );
    }
}
