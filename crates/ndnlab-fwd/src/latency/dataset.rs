//! The `/localhost/nfd/ndnlab/latency` status dataset: the latency histograms of
//! every shard merged, summarized. Served like NFD's datasets (versioned,
//! segmented), only to local faces; documented in docs/LATENCY.md.
//!
//! Its content is one `LatencyInfo` followed by one `LatencyEntry` per stage and
//! packet class that has samples (TLV types in the application range 128-252):
//!
//! ```text
//! LatencyInfo  = 200 { SampleEvery(201) Skip(202) Keep(203) PacketsSeen(204)
//!                      SamplesRecorded(205) LogDrops(206) }           all NNI
//! LatencyEntry = 210 { Stage(211) Class(212) Count(213) MeanNs(214) MinNs(215)
//!                      P50Ns(216) P90Ns(217) P99Ns(218) MaxNs(219) }  all NNI
//! Stage: 0 input, 1 queue, 2 fwd, 3 output, 4 total
//! Class: 0 interest-hit, 1 interest-miss, 2 data, 3 nack, 4 all (the stage's
//!        classes merged)
//! ```
//!
//! With the instrumentation off the content is empty.

use bytes::Bytes;
use ndnlab_proto::mgmt::codec::{fields, TlvWriter};

use super::hist::{Summary, STAGES, SUMMARY_CLASSES};
use super::Latency;

/// TLV types of the dataset.
pub mod tt {
    pub const LATENCY_INFO: u64 = 200;
    pub const SAMPLE_EVERY: u64 = 201;
    pub const SKIP: u64 = 202;
    pub const KEEP: u64 = 203;
    pub const PACKETS_SEEN: u64 = 204;
    pub const SAMPLES_RECORDED: u64 = 205;
    pub const LOG_DROPS: u64 = 206;
    pub const LATENCY_ENTRY: u64 = 210;
    pub const STAGE: u64 = 211;
    pub const CLASS: u64 = 212;
    pub const COUNT: u64 = 213;
    pub const MEAN_NS: u64 = 214;
    pub const MIN_NS: u64 = 215;
    pub const P50_NS: u64 = 216;
    pub const P90_NS: u64 = 217;
    pub const P99_NS: u64 = 218;
    pub const MAX_NS: u64 = 219;
}

/// The dataset decoded.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize)]
pub struct LatencyReport {
    /// Whether the instrumentation is on (the dataset has a `LatencyInfo`).
    pub enabled: bool,
    pub sample_every: u64,
    pub skip: u64,
    pub keep: u64,
    pub packets_seen: u64,
    pub samples_recorded: u64,
    pub log_drops: u64,
    pub entries: Vec<Summary>,
}

impl LatencyReport {
    /// The report of a running instrumentation (`None`: off).
    pub fn of(lat: Option<&Latency>) -> LatencyReport {
        let Some(l) = lat else {
            return LatencyReport::default();
        };
        let (skip, keep) = l.windows();
        LatencyReport {
            enabled: true,
            sample_every: l.every(),
            skip,
            keep,
            packets_seen: l.seen(),
            samples_recorded: l.recorded.load(std::sync::atomic::Ordering::Relaxed),
            log_drops: l.log_drops(),
            entries: l.merged().summaries(),
        }
    }

    /// The dataset content.
    pub fn encode(&self) -> Bytes {
        let mut w = TlvWriter::new();
        if !self.enabled {
            return w.finish();
        }
        w.nested(tt::LATENCY_INFO, |w| {
            w.nni(tt::SAMPLE_EVERY, self.sample_every)
                .nni(tt::SKIP, self.skip)
                .nni(tt::KEEP, self.keep)
                .nni(tt::PACKETS_SEEN, self.packets_seen)
                .nni(tt::SAMPLES_RECORDED, self.samples_recorded)
                .nni(tt::LOG_DROPS, self.log_drops);
        });
        for e in &self.entries {
            w.nested(tt::LATENCY_ENTRY, |w| {
                w.nni(tt::STAGE, e.stage as u64)
                    .nni(tt::CLASS, e.class as u64)
                    .nni(tt::COUNT, e.count)
                    .nni(tt::MEAN_NS, e.mean_ns)
                    .nni(tt::MIN_NS, e.min_ns)
                    .nni(tt::P50_NS, e.p50_ns)
                    .nni(tt::P90_NS, e.p90_ns)
                    .nni(tt::P99_NS, e.p99_ns)
                    .nni(tt::MAX_NS, e.max_ns);
            });
        }
        w.finish()
    }

    /// Decodes the dataset content; the error names the TLV at fault.
    pub fn decode(payload: &Bytes) -> Result<LatencyReport, String> {
        let mut r = LatencyReport::default();
        for f in fields(payload)? {
            match f.typ {
                tt::LATENCY_INFO => {
                    r.enabled = true;
                    for c in f.children()? {
                        let v = c.nni()?;
                        match c.typ {
                            tt::SAMPLE_EVERY => r.sample_every = v,
                            tt::SKIP => r.skip = v,
                            tt::KEEP => r.keep = v,
                            tt::PACKETS_SEEN => r.packets_seen = v,
                            tt::SAMPLES_RECORDED => r.samples_recorded = v,
                            tt::LOG_DROPS => r.log_drops = v,
                            _ => {} // later additions
                        }
                    }
                }
                tt::LATENCY_ENTRY => {
                    let mut e = Summary::default();
                    let (mut stage, mut class) = (None, None);
                    for c in f.children()? {
                        let v = c.nni()?;
                        match c.typ {
                            tt::STAGE => stage = Some(v),
                            tt::CLASS => class = Some(v),
                            tt::COUNT => e.count = v,
                            tt::MEAN_NS => e.mean_ns = v,
                            tt::MIN_NS => e.min_ns = v,
                            tt::P50_NS => e.p50_ns = v,
                            tt::P90_NS => e.p90_ns = v,
                            tt::P99_NS => e.p99_ns = v,
                            tt::MAX_NS => e.max_ns = v,
                            _ => {}
                        }
                    }
                    e.stage = stage
                        .filter(|s| (*s as usize) < STAGES.len())
                        .ok_or("LatencyEntry without a valid Stage (211)")?
                        as usize;
                    e.class = class
                        .filter(|c| (*c as usize) < SUMMARY_CLASSES.len())
                        .ok_or("LatencyEntry without a valid Class (212)")?
                        as usize;
                    r.entries.push(e);
                }
                t => return Err(format!("unexpected TLV {t} in the latency dataset")),
            }
        }
        Ok(r)
    }

    /// The human table of `ndnlab ctl latency`: a header line, then a row per
    /// stage and packet class (count, mean, p50, p90, p99, max in microseconds).
    pub fn table(&self) -> String {
        if !self.enabled {
            return "latency instrumentation is off (start the forwarder with --latency-sample N \
                    or [latency] sample = N)\n"
                .into();
        }
        let keep = match self.keep {
            0 => "all".to_string(),
            k => k.to_string(),
        };
        let mut s = format!(
            "latency: 1 packet in {} timed (skip {}, keep {keep}); {} packets seen, {} samples, {} log drops\n",
            self.sample_every, self.skip, self.packets_seen, self.samples_recorded, self.log_drops
        );
        s += &format!(
            "{:<7} {:<14} {:>9} {:>10} {:>10} {:>10} {:>10} {:>10}\n",
            "stage", "class", "count", "mean(us)", "p50(us)", "p90(us)", "p99(us)", "max(us)"
        );
        if self.entries.is_empty() {
            s += "(no samples yet)\n";
        }
        for e in &self.entries {
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
}

/// Microseconds with two decimals.
fn us(ns: u64) -> String {
    format!("{:.2}", ns as f64 / 1000.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn report() -> LatencyReport {
        LatencyReport {
            enabled: true,
            sample_every: 64,
            skip: 10,
            keep: 1000,
            packets_seen: 123_456,
            samples_recorded: 1000,
            log_drops: 3,
            entries: vec![
                Summary {
                    stage: 2,
                    class: 1,
                    count: 900,
                    mean_ns: 1500,
                    min_ns: 700,
                    p50_ns: 1400,
                    p90_ns: 2100,
                    p99_ns: 5000,
                    max_ns: 90_000,
                },
                Summary {
                    stage: 4,
                    class: 3,
                    count: 1,
                    ..Default::default()
                },
            ],
        }
    }

    #[test]
    fn round_trip() {
        let r = report();
        assert_eq!(LatencyReport::decode(&r.encode()).unwrap(), r);
        let off = LatencyReport::default();
        assert!(off.encode().is_empty());
        assert_eq!(LatencyReport::decode(&Bytes::new()).unwrap(), off);
    }

    /// Annotated vector: LatencyInfo{SampleEvery=64} then one entry.
    #[test]
    fn decodes_a_hand_written_vector() {
        let wire = Bytes::from_static(&[
            200, 3, // LatencyInfo
            201, 1, 64, // SampleEvery 64
            210, 9, // LatencyEntry
            211, 1, 2, // Stage fwd
            212, 1, 0, // Class interest-hit
            213, 1, 5, // Count 5
        ]);
        let r = LatencyReport::decode(&wire).unwrap();
        assert!(r.enabled);
        assert_eq!(r.sample_every, 64);
        assert_eq!(r.entries.len(), 1);
        assert_eq!(r.entries[0].stage_name(), "fwd");
        assert_eq!(r.entries[0].class_name(), "interest-hit");
        assert_eq!(r.entries[0].count, 5);
    }

    #[test]
    fn table_rows_and_off() {
        assert!(LatencyReport::default().table().contains("off"));
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
        let t = r.table();
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

    #[test]
    fn bad_input_names_the_problem() {
        let no_stage = Bytes::from_static(&[210, 3, 212, 1, 0]);
        let e = LatencyReport::decode(&no_stage).unwrap_err();
        assert!(e.contains("Stage (211)"), "{e}");
        let bad_stage = Bytes::from_static(&[210, 6, 211, 1, 9, 212, 1, 0]);
        let bad_class = Bytes::from_static(&[210, 6, 211, 1, 0, 212, 1, 5]);
        assert!(LatencyReport::decode(&bad_class).is_err());
        assert!(LatencyReport::decode(&bad_stage).is_err());
        let stranger = Bytes::from_static(&[150, 0]);
        let e = LatencyReport::decode(&stranger).unwrap_err();
        assert!(e.contains("150"), "{e}");
        let truncated = Bytes::from_static(&[200, 5, 201]);
        assert!(LatencyReport::decode(&truncated).is_err());
    }
}
