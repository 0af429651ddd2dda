//! What one run of the model shows: the observables a property is written
//! over, and the optional trace of queue lengths and PIT size over time.
//!
//! Every observable is a number (an `f64`) named in [`NAMES`]; times are in
//! virtual nanoseconds from the first Interest. Only Interests after the
//! warm-up count.

use serde::Serialize;

/// Why an Interest went unsatisfied: where its Interest or its Data was lost.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Cause {
    /// An input thread's receive queue was full.
    InputFull,
    /// A forwarding thread's queue was full.
    QueueFull,
    /// Pushed out of a forwarding queue by a Data (`data-first`).
    PushedOut,
    /// An output thread's queue was full.
    OutputFull,
    /// The Data came after the Interest lifetime (or its PIT entry expired).
    Expired,
}

/// The observables of one run.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Observables {
    /// Interests sent (after the warm-up).
    pub sent: f64,
    pub satisfied: f64,
    pub unsatisfied: f64,
    /// satisfied / sent.
    pub satisfaction: f64,
    pub loss_input: f64,
    pub loss_queue: f64,
    pub loss_pushed_out: f64,
    pub loss_output: f64,
    pub loss_expired: f64,
    /// Delivery time (Interest sent to Data received) of satisfied Interests, ns.
    pub latency_mean: f64,
    pub latency_p50: f64,
    pub latency_p90: f64,
    pub latency_p99: f64,
    pub latency_p999: f64,
    pub latency_max: f64,
    /// The longest any forwarding thread's queue has been (packets waiting).
    pub max_queue: f64,
    pub max_input_queue: f64,
    /// Time-average packets waiting in the forwarding queues (all threads).
    pub queue_mean: f64,
    /// Time-average packets waiting in the input queues.
    pub input_queue_mean: f64,
    /// The busiest forwarding thread's busy fraction.
    pub utilization: f64,
    pub max_pit: f64,
    /// When the first packet was lost, ns; infinite when none was.
    pub first_loss: f64,
    /// When the last observed Data arrived, ns.
    pub duration: f64,
    /// Satisfied Interests per second of `duration`.
    pub throughput: f64,
    /// Packets the forwarder received (Interests and Data, warm-up included).
    pub packets: f64,
}

impl Default for Observables {
    fn default() -> Self {
        Observables {
            sent: 0.0,
            satisfied: 0.0,
            unsatisfied: 0.0,
            satisfaction: 0.0,
            loss_input: 0.0,
            loss_queue: 0.0,
            loss_pushed_out: 0.0,
            loss_output: 0.0,
            loss_expired: 0.0,
            latency_mean: 0.0,
            latency_p50: 0.0,
            latency_p90: 0.0,
            latency_p99: 0.0,
            latency_p999: 0.0,
            latency_max: 0.0,
            max_queue: 0.0,
            max_input_queue: 0.0,
            queue_mean: 0.0,
            input_queue_mean: 0.0,
            utilization: 0.0,
            max_pit: 0.0,
            first_loss: f64::INFINITY,
            duration: 0.0,
            throughput: 0.0,
            packets: 0.0,
        }
    }
}

/// The observables' names, in [`Observables::values`] order.
pub const NAMES: &[&str] = &[
    "sent",
    "satisfied",
    "unsatisfied",
    "satisfaction",
    "loss_input",
    "loss_queue",
    "loss_pushed_out",
    "loss_output",
    "loss_expired",
    "latency_mean",
    "latency_p50",
    "latency_p90",
    "latency_p99",
    "latency_p999",
    "latency_max",
    "max_queue",
    "max_input_queue",
    "queue_mean",
    "input_queue_mean",
    "utilization",
    "max_pit",
    "first_loss",
    "duration",
    "throughput",
    "packets",
];

impl Observables {
    /// Every observable, in [`NAMES`] order.
    pub fn values(&self) -> [f64; 25] {
        [
            self.sent,
            self.satisfied,
            self.unsatisfied,
            self.satisfaction,
            self.loss_input,
            self.loss_queue,
            self.loss_pushed_out,
            self.loss_output,
            self.loss_expired,
            self.latency_mean,
            self.latency_p50,
            self.latency_p90,
            self.latency_p99,
            self.latency_p999,
            self.latency_max,
            self.max_queue,
            self.max_input_queue,
            self.queue_mean,
            self.input_queue_mean,
            self.utilization,
            self.max_pit,
            self.first_loss,
            self.duration,
            self.throughput,
            self.packets,
        ]
    }

    /// One observable by name.
    pub fn get(&self, name: &str) -> Option<f64> {
        NAMES
            .iter()
            .position(|n| *n == name)
            .map(|i| self.values()[i])
    }

    pub(crate) fn count_loss(&mut self, cause: Cause) {
        *match cause {
            Cause::InputFull => &mut self.loss_input,
            Cause::QueueFull => &mut self.loss_queue,
            Cause::PushedOut => &mut self.loss_pushed_out,
            Cause::OutputFull => &mut self.loss_output,
            Cause::Expired => &mut self.loss_expired,
        } += 1.0;
    }

    /// Fills the ratios and the latency statistics at the end of a run.
    pub(crate) fn finish(&mut self, sent: f64, latencies: &mut [u32]) {
        self.sent = sent;
        self.unsatisfied = sent - self.satisfied;
        self.satisfaction = self.satisfied / sent;
        if self.duration > 0.0 {
            self.throughput = self.satisfied / self.duration * 1e9;
        }
        if latencies.is_empty() {
            return;
        }
        let n = latencies.len();
        self.latency_mean = latencies.iter().map(|&l| f64::from(l)).sum::<f64>() / n as f64;
        // Nearest rank, from the highest down so each selection narrows the next.
        let mut hi = n;
        for (p, out) in [
            (1.0, &mut self.latency_max),
            (0.999, &mut self.latency_p999),
            (0.99, &mut self.latency_p99),
            (0.9, &mut self.latency_p90),
            (0.5, &mut self.latency_p50),
        ] {
            let k = ((p * n as f64).ceil() as usize).clamp(1, n) - 1;
            let (_, v, _) = latencies[..hi].select_nth_unstable(k);
            *out = f64::from(*v);
            hi = k + 1;
        }
    }
}

/// Forwarding-queue lengths and PIT size, sampled at a fixed interval.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Trace {
    pub interval_ns: u64,
    /// Sample times, ns.
    pub at: Vec<u64>,
    /// `queues[k][i]`: thread k's queue at sample i.
    pub queues: Vec<Vec<u32>>,
    pub pit: Vec<u32>,
    #[serde(skip)]
    pub(crate) next_at: u64,
}

impl Trace {
    pub(crate) fn new(interval_ns: u64, threads: usize) -> Trace {
        Trace {
            interval_ns,
            at: Vec::new(),
            queues: vec![Vec::new(); threads],
            pit: Vec::new(),
            next_at: 0,
        }
    }

    pub(crate) fn push(&mut self, at: u64, queues: impl Iterator<Item = u32>, pit: u32) {
        self.at.push(at);
        for (k, q) in queues.enumerate() {
            self.queues[k].push(q);
        }
        self.pit.push(pit);
    }

    /// The trace as CSV: `t_ns,pit,queue0,queue1,...`.
    pub fn to_csv(&self) -> String {
        let mut s = String::from("t_ns,pit");
        for k in 0..self.queues.len() {
            s += &format!(",queue{k}");
        }
        s.push('\n');
        for (i, t) in self.at.iter().enumerate() {
            s += &format!("{t},{}", self.pit[i]);
            for q in &self.queues {
                s += &format!(",{}", q[i]);
            }
            s.push('\n');
        }
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_and_values_agree() {
        let o = Observables {
            loss_queue: 3.0,
            max_pit: 7.0,
            ..Observables::default()
        };
        assert_eq!(NAMES.len(), o.values().len());
        assert_eq!(o.get("loss_queue"), Some(3.0));
        assert_eq!(o.get("max_pit"), Some(7.0));
        assert_eq!(o.get("nope"), None);
    }

    #[test]
    fn nearest_rank_percentiles() {
        let mut o = Observables {
            satisfied: 100.0,
            ..Observables::default()
        };
        let mut l: Vec<u32> = (1..=100).rev().collect();
        o.finish(100.0, &mut l);
        assert_eq!(o.latency_p50, 50.0);
        assert_eq!(o.latency_p90, 90.0);
        assert_eq!(o.latency_p99, 99.0);
        assert_eq!(o.latency_max, 100.0);
        assert_eq!(o.latency_mean, 50.5);
        assert_eq!(o.satisfaction, 1.0);
    }
}
