//! What a daemon run reads back from its consumers: the reports the app
//! processes print (`--json`), summed over the measurement window.

use std::path::Path;

use crate::experiment::AppSpec;
use crate::runner::Metrics;

/// Sums the consumers' interval reports inside the window.
pub(super) fn consumer_metrics(
    m: &mut Metrics,
    consumers: &[(String, AppSpec)],
    log_dir: &Path,
    warmup: f64,
) -> anyhow::Result<()> {
    let (mut interests, mut data, mut nacks, mut timeouts, mut bytes, mut secs) =
        (0.0, 0.0, 0.0, 0.0, 0.0, 0.0f64);
    let mut delay = Vec::new();
    for (name, a) in consumers {
        let path = log_dir.join(format!("{name}.json"));
        let text = std::fs::read_to_string(&path)?;
        let rows: Vec<serde_json::Value> = text
            .lines()
            .filter_map(|l| serde_json::from_str(l).ok())
            .collect();
        let f = |v: &serde_json::Value, k: &str| v[k].as_f64().unwrap_or(0.0);
        if a.pattern == "window" {
            let mut window_secs = 0.0;
            let mut last_t = warmup;
            // An interval's Data may answer Interests of the one before: count the
            // outcomes (Data, Nack, timeout), one per Interest.
            for r in rows
                .iter()
                .filter(|r| r["type"] == "interval" && f(r, "time_s") > warmup)
            {
                interests += f(r, "data") + f(r, "nacks") + f(r, "timeouts");
                data += f(r, "data");
                nacks += f(r, "nacks");
                timeouts += f(r, "timeouts");
                bytes += f(r, "bytes");
                window_secs += f(r, "time_s") - last_t;
                last_t = f(r, "time_s");
                delay.push((
                    f(r, "data"),
                    f(r, "rtt_mean_ms") * 1000.0,
                    f(r, "rtt_p50_ms") * 1000.0,
                    f(r, "rtt_p99_ms") * 1000.0,
                ));
            }
            secs = secs.max(window_secs);
        } else {
            // traffic client: one summary for the whole run
            let Some(s) = rows.last() else {
                anyhow::bail!(
                    "consumer {name} printed no summary (see {})",
                    path.display()
                );
            };
            let total = f(s, "interests").max(f(s, "sent"));
            interests += total;
            data += f(s, "data").max(f(s, "satisfied"));
            nacks += f(s, "nacks");
            timeouts += f(s, "timeouts");
            bytes += f(s, "bytes");
        }
    }
    if interests == 0.0 {
        anyhow::bail!(
            "the consumers sent no Interest in the window (see {})",
            log_dir.display()
        );
    }
    m.insert("interests".into(), interests);
    m.insert("data".into(), data);
    m.insert("nacks".into(), nacks);
    m.insert("timeouts".into(), timeouts);
    m.insert("satisfaction".into(), data / interests);
    m.insert("loss".into(), 1.0 - data / interests);
    if secs > 0.0 {
        m.insert("data_per_sec".into(), data / secs);
        m.insert("throughput_mbps".into(), bytes * 8.0 / secs / 1e6);
    }
    let weight: f64 = delay.iter().map(|d| d.0).sum();
    if weight > 0.0 {
        // Data-weighted means of the intervals' statistics.
        let wmean = |i: usize| delay.iter().map(|d| d.0 * [d.1, d.2, d.3][i]).sum::<f64>() / weight;
        m.insert("delay_mean_us".into(), wmean(0));
        m.insert("delay_p50_us".into(), wmean(1));
        m.insert("delay_p99_us".into(), wmean(2));
    }
    Ok(())
}
