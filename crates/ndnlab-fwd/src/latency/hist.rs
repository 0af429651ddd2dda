//! Latency histograms: one HDR histogram (hdrhistogram, 3 significant digits, 1 ns
//! to 100 s) per stage and packet class, kept per shard and merged on read; their
//! summaries (count, mean, min, p50, p90, p99, max) and their Prometheus form.

use std::fmt::Write as _;

use hdrhistogram::Histogram;

use super::{CsOutcome, PktType, Record};

/// The stages, in order (`total` is the end-to-end time).
pub const STAGES: [&str; 5] = ["input", "queue", "fwd", "output", "total"];
/// The packet classes: Interests by their CS outcome (an Interest that did not
/// reach the CS counts as a miss), Data, Nacks.
pub const CLASSES: [&str; 4] = ["interest-hit", "interest-miss", "data", "nack"];
/// The classes of the summaries: [`CLASSES`], then `all` (every class of a stage
/// merged).
pub const SUMMARY_CLASSES: [&str; 5] = ["interest-hit", "interest-miss", "data", "nack", "all"];

/// Largest value recorded (larger ones are clamped to it): 100 s.
const MAX_NS: u64 = 100_000_000_000;

/// The class of a record (an index into [`CLASSES`]).
pub fn class_of(typ: PktType, cs: CsOutcome) -> usize {
    match (typ, cs) {
        (PktType::Interest, CsOutcome::Hit) => 0,
        (PktType::Interest, _) => 1,
        (PktType::Data, _) => 2,
        (PktType::Nack, _) => 3,
    }
}

/// One histogram per stage and class.
#[derive(Debug, Clone)]
pub struct StageHists {
    h: Vec<Histogram<u64>>,
}

impl Default for StageHists {
    fn default() -> Self {
        Self::new()
    }
}

impl StageHists {
    pub fn new() -> Self {
        let one = Histogram::new_with_bounds(1, MAX_NS, 3).expect("valid histogram bounds");
        StageHists {
            h: vec![one; STAGES.len() * CLASSES.len()],
        }
    }

    fn at(&mut self, stage: usize, class: usize) -> &mut Histogram<u64> {
        &mut self.h[stage * CLASSES.len() + class]
    }

    /// The histogram of a stage and class.
    pub fn get(&self, stage: usize, class: usize) -> &Histogram<u64> {
        &self.h[stage * CLASSES.len() + class]
    }

    /// Records one sample's stages (output only when it had one).
    pub fn record(&mut self, r: &Record) {
        let c = class_of(r.typ, r.cs);
        let stages = [
            Some(r.input_ns),
            Some(r.queue_ns),
            Some(r.fwd_ns),
            r.output_ns,
            Some(r.total_ns),
        ];
        for (s, v) in stages.into_iter().enumerate() {
            if let Some(v) = v {
                self.at(s, c).saturating_record(v.clamp(1, MAX_NS));
            }
        }
    }

    /// Adds another set (merging shards).
    pub fn add(&mut self, other: &StageHists) {
        for (a, b) in self.h.iter_mut().zip(&other.h) {
            // Same bounds on both sides: adding cannot fail.
            let _ = a.add(b);
        }
    }

    /// The summaries of every stage and class that has samples, stage-major, each
    /// stage followed by its `all` class.
    pub fn summaries(&self) -> Vec<Summary> {
        let mut out = Vec::new();
        for s in 0..STAGES.len() {
            let mut all = self.get(s, 0).clone();
            all.reset();
            for c in 0..CLASSES.len() {
                let h = self.get(s, c);
                if h.is_empty() {
                    continue;
                }
                let _ = all.add(h);
                out.push(Summary::of(s, c, h));
            }
            if !all.is_empty() {
                out.push(Summary::of(s, CLASSES.len(), &all));
            }
        }
        out
    }

    /// Appends the Prometheus histograms (`ndnlab_latency_seconds{stage,class}`).
    pub fn render_prometheus(&self, out: &mut String) {
        const BUCKETS_NS: [u64; 16] = [
            1_000,
            2_000,
            5_000,
            10_000,
            20_000,
            50_000,
            100_000,
            200_000,
            500_000,
            1_000_000,
            2_000_000,
            5_000_000,
            10_000_000,
            50_000_000,
            100_000_000,
            1_000_000_000,
        ];
        let _ = writeln!(
            out,
            "# HELP ndnlab_latency_seconds time spent per stage by sampled packets\n\
             # TYPE ndnlab_latency_seconds histogram"
        );
        for (s, stage) in STAGES.iter().enumerate() {
            for (c, class) in CLASSES.iter().enumerate() {
                let h = self.get(s, c);
                if h.is_empty() {
                    continue;
                }
                let labels = format!("stage=\"{stage}\",class=\"{class}\"");
                for b in BUCKETS_NS {
                    let n = h.count_between(0, b);
                    let _ = writeln!(
                        out,
                        "ndnlab_latency_seconds_bucket{{{labels},le=\"{}\"}} {n}",
                        b as f64 / 1e9
                    );
                }
                let _ = writeln!(
                    out,
                    "ndnlab_latency_seconds_bucket{{{labels},le=\"+Inf\"}} {}\n\
                     ndnlab_latency_seconds_sum{{{labels}}} {}\n\
                     ndnlab_latency_seconds_count{{{labels}}} {}",
                    h.len(),
                    h.mean() * h.len() as f64 / 1e9,
                    h.len()
                );
            }
        }
    }
}

/// One stage and class, summarized (the latency dataset's entry).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize)]
pub struct Summary {
    /// Index into [`STAGES`].
    #[serde(serialize_with = "stage_name")]
    pub stage: usize,
    /// Index into [`SUMMARY_CLASSES`].
    #[serde(serialize_with = "class_name")]
    pub class: usize,
    pub count: u64,
    pub mean_ns: u64,
    pub min_ns: u64,
    pub p50_ns: u64,
    pub p90_ns: u64,
    pub p99_ns: u64,
    pub max_ns: u64,
}

impl Summary {
    fn of(stage: usize, class: usize, h: &Histogram<u64>) -> Summary {
        Summary {
            stage,
            class,
            count: h.len(),
            mean_ns: h.mean().round() as u64,
            min_ns: h.min(),
            p50_ns: h.value_at_quantile(0.50),
            p90_ns: h.value_at_quantile(0.90),
            p99_ns: h.value_at_quantile(0.99),
            max_ns: h.max(),
        }
    }

    pub fn stage_name(&self) -> &'static str {
        STAGES.get(self.stage).copied().unwrap_or("?")
    }

    pub fn class_name(&self) -> &'static str {
        SUMMARY_CLASSES.get(self.class).copied().unwrap_or("?")
    }
}

fn stage_name<S: serde::Serializer>(v: &usize, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(STAGES.get(*v).copied().unwrap_or("?"))
}

fn class_name<S: serde::Serializer>(v: &usize, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(SUMMARY_CLASSES.get(*v).copied().unwrap_or("?"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rec(typ: PktType, cs: CsOutcome, output: Option<u64>) -> Record {
        Record {
            seq: 0,
            typ,
            cs,
            input_ns: 100,
            queue_ns: 200,
            fwd_ns: 300,
            output_ns: output,
            total_ns: 600 + output.unwrap_or(0),
            queue_len: 0,
            pit_size: 0,
        }
    }

    #[test]
    fn classes_stages_and_merge() {
        let mut a = StageHists::new();
        a.record(&rec(PktType::Interest, CsOutcome::Hit, Some(400)));
        a.record(&rec(PktType::Interest, CsOutcome::None, None));
        let mut b = StageHists::new();
        b.record(&rec(PktType::Data, CsOutcome::None, Some(400)));
        a.add(&b);
        let s = a.summaries();
        // Interest hit: 5 stages; Interest miss: 4 (no output); Data: 5; all: 5.
        assert_eq!(s.len(), 19);
        let all_total = s
            .iter()
            .find(|x| x.stage_name() == "total" && x.class_name() == "all")
            .unwrap();
        assert_eq!(all_total.count, 3);
        let fwd_data = s
            .iter()
            .find(|x| x.stage_name() == "fwd" && x.class_name() == "data")
            .unwrap();
        assert_eq!((fwd_data.count, fwd_data.p50_ns), (1, 300));
        assert!(!s
            .iter()
            .any(|x| x.stage_name() == "output" && x.class_name() == "interest-miss"));
        let mut prom = String::new();
        a.render_prometheus(&mut prom);
        assert!(
            prom.contains("ndnlab_latency_seconds_count{stage=\"total\",class=\"interest-hit\"} 1")
        );
        assert!(prom.contains(
            "ndnlab_latency_seconds_bucket{stage=\"fwd\",class=\"data\",le=\"0.000001\"} 1"
        ));
    }
}
