//! Per-link counters of a run, under every runner: each direction of each
//! link (`<from>-<to>`, one emulated link each way) counts the frames and bytes
//! its transmitter took and its drops by cause, and its transmit queue is
//! sampled over the run. The runners read them from the emulators (`inproc`,
//! `sim`) or from each daemon's `ndnlab/links` management dataset (`processes`,
//! `netns`: the faces' emulated links).
//!
//! [`Recorder`] collects the samples and writes `samples/links/<run>.csv`
//! (pandas: `t_s, link, direction, queue_frames, queue_bytes`, then the
//! direction's counters so far; the last row of a direction holds its
//! end-of-run counters); [`Recorder::metrics`] adds the `link_*` metrics from
//! the last sample of each direction, over the whole run (warm-up included).

use std::collections::BTreeMap;
use std::path::Path;

use ndnlab_proto::emu::EmuCounters;

use super::Metrics;

/// One sample of one direction of a link.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct LinkSample {
    pub queue_frames: u64,
    pub queue_bytes: u64,
    pub counters: EmuCounters,
}

/// The samples of a run's links.
#[derive(Debug, Default)]
pub struct Recorder {
    /// (t_s, link `a-b`, direction `from-to`, sample), in sampling order.
    rows: Vec<(f64, String, String, LinkSample)>,
    /// Direction → the largest queue sampled, in frames.
    queue_max: BTreeMap<String, u64>,
}

impl Recorder {
    /// Records direction `from`→`to` of link `a-b` at `t_s`.
    pub fn push<S: AsRef<str>>(&mut self, t_s: f64, link: (S, S), from_to: (S, S), s: LinkSample) {
        let (link, from_to) = (
            (link.0.as_ref(), link.1.as_ref()),
            (from_to.0.as_ref(), from_to.1.as_ref()),
        );
        let dir = format!("{}-{}", from_to.0, from_to.1);
        let m = self.queue_max.entry(dir.clone()).or_default();
        *m = (*m).max(s.queue_frames);
        self.rows
            .push((t_s, format!("{}-{}", link.0, link.1), dir, s));
    }

    /// The last sample of each direction.
    fn last(&self) -> BTreeMap<&str, &LinkSample> {
        self.rows
            .iter()
            .map(|(_, _, d, s)| (d.as_str(), s))
            .collect()
    }

    /// Adds `link_*.<from>-<to>` for every direction sampled.
    pub fn metrics(&self, m: &mut Metrics) {
        for (dir, s) in self.last() {
            let c = &s.counters;
            for (k, v) in [
                ("link_frames", c.sent_frames),
                ("link_bytes", c.sent_bytes),
                ("link_drops_queue", c.queue_drops),
                ("link_drops_loss", c.lost),
                ("link_drops_mtu", c.over_mtu),
                ("link_queue_max", self.queue_max[dir]),
            ] {
                m.insert(format!("{k}.{dir}"), v as f64);
            }
        }
    }

    /// Writes `samples/links/<run_id>.csv` under `dir` (nothing without links).
    pub fn write(&self, dir: &Path, run_id: usize) -> anyhow::Result<()> {
        if self.rows.is_empty() {
            return Ok(());
        }
        let d = dir.join("samples").join("links");
        std::fs::create_dir_all(&d)?;
        let mut w = csv::Writer::from_path(d.join(format!("{run_id}.csv")))?;
        w.write_record([
            "t_s",
            "link",
            "direction",
            "queue_frames",
            "queue_bytes",
            "frames",
            "bytes",
            "delivered_frames",
            "delivered_bytes",
            "drops_queue",
            "drops_loss",
            "drops_mtu",
        ])?;
        for (t, link, dir, s) in &self.rows {
            let c = &s.counters;
            let mut rec = vec![format!("{t:.3}"), link.clone(), dir.clone()];
            rec.extend(
                [
                    s.queue_frames,
                    s.queue_bytes,
                    c.sent_frames,
                    c.sent_bytes,
                    c.delivered_frames,
                    c.delivered_bytes,
                    c.queue_drops,
                    c.lost,
                    c.over_mtu,
                ]
                .iter()
                .map(u64::to_string),
            );
            w.write_record(&rec)?;
        }
        w.flush()?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_last_sample_of_each_direction_makes_the_metrics() {
        let mut r = Recorder::default();
        let s = |q, sent, lost| LinkSample {
            queue_frames: q,
            queue_bytes: q * 100,
            counters: EmuCounters {
                sent_frames: sent,
                sent_bytes: sent * 100,
                lost,
                ..Default::default()
            },
        };
        r.push(0.1, ("a", "b"), ("a", "b"), s(5, 10, 1));
        r.push(0.1, ("a", "b"), ("b", "a"), s(0, 3, 0));
        r.push(0.2, ("a", "b"), ("a", "b"), s(2, 20, 4));
        let mut m = Metrics::new();
        r.metrics(&mut m);
        assert_eq!(m["link_frames.a-b"], 20.0);
        assert_eq!(m["link_bytes.a-b"], 2000.0);
        assert_eq!(m["link_drops_loss.a-b"], 4.0);
        assert_eq!(m["link_queue_max.a-b"], 5.0);
        assert_eq!(m["link_frames.b-a"], 3.0);
        let dir = ndnlab_testkit::temp_dir("lab-links");
        r.write(&dir, 7).unwrap();
        let text = std::fs::read_to_string(dir.join("samples/links/7.csv")).unwrap();
        let lines: Vec<_> = text.lines().collect();
        assert_eq!(lines.len(), 4);
        assert!(lines[0].starts_with("t_s,link,direction,queue_frames,queue_bytes,"));
        assert_eq!(lines[3], "0.200,a-b,a-b,2,200,20,2000,0,0,0,4,0");
    }
}
