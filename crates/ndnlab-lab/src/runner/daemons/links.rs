//! The links of a daemon run: each `ndnlab fwd` emulates what its faces toward
//! its neighbours send, so direction `a`→`b` of a link is node `a`'s face toward
//! `b`. [`LinkSampler`] reads every node's `ndnlab/links` management dataset
//! (one line per face with an emulated link, `ndnlab_fwd::face::emu::LinkRecord`)
//! while the run sleeps, and at its end, into the run's
//! [`crate::runner::links::Recorder`]. A link without emulated parameters has no
//! emulator on its faces, and no counters; NFD nodes report none.

use std::collections::BTreeMap;
use std::path::Path;
use std::time::{Duration, Instant};

use anyhow::Context;
use ndnlab_app::client::blocking::BlockingClient;
use ndnlab_fwd::face::emu::LinkRecord;

use crate::runner::links::{LinkSample, Recorder};
use crate::runner::{Metrics, RunPlan};

/// Shortest time between two samples (each reads a dataset from every node).
const MIN_EVERY: Duration = Duration::from_millis(50);

/// A direction of a link: (link `a`, `b`), (from, to).
type Dir = ((String, String), (String, String));

/// See the module documentation.
pub(super) struct LinkSampler<'a> {
    clients: Vec<(&'a String, &'a BlockingClient)>,
    /// (node, face id) → the direction that face sends on.
    dirs: BTreeMap<(String, u64), Dir>,
    start: Instant,
    every: Duration,
    rec: Recorder,
}

impl<'a> LinkSampler<'a> {
    /// The sampler of `plan`'s links, whose faces are `face_ids` ((node, peer) →
    /// face id); times are counted from `start`. `ndnlab` nodes are read through
    /// `clients`.
    pub(super) fn new(
        plan: &RunPlan,
        clients: impl IntoIterator<Item = (&'a String, &'a BlockingClient)>,
        face_ids: &BTreeMap<(String, String), u64>,
        start: Instant,
    ) -> LinkSampler<'a> {
        let mut dirs = BTreeMap::new();
        for l in &plan.topology.links {
            let link = (l.a.clone(), l.b.clone());
            for (from, to) in [(&l.a, &l.b), (&l.b, &l.a)] {
                if let Some(&id) = face_ids.get(&(from.clone(), to.clone())) {
                    dirs.insert(
                        (from.clone(), id),
                        (link.clone(), (from.clone(), to.clone())),
                    );
                }
            }
        }
        let every = Duration::from_secs_f64(plan.exp.experiment.sample_interval_ms / 1e3);
        LinkSampler {
            clients: clients.into_iter().collect(),
            dirs,
            start,
            every: every.max(MIN_EVERY),
            rec: Recorder::default(),
        }
    }

    /// Reads every node's links once.
    pub(super) fn sample(&mut self) -> anyhow::Result<()> {
        let t = self.start.elapsed().as_secs_f64();
        for (node, c) in &self.clients {
            let text = c
                .dataset("ndnlab", "links")
                .with_context(|| format!("ndnlab/links of forwarder {node}"))?;
            let text = String::from_utf8_lossy(&text);
            for line in text.lines().filter(|l| !l.trim().is_empty()) {
                let r = LinkRecord::parse_line(line)
                    .map_err(|e| anyhow::anyhow!("ndnlab/links of forwarder {node}: {e}"))?;
                let Some((link, dir)) = self.dirs.get(&((*node).clone(), r.face)) else {
                    continue;
                };
                let s = LinkSample {
                    queue_frames: r.queue_frames,
                    queue_bytes: r.queue_bytes,
                    counters: ndnlab_proto::emu::EmuCounters {
                        sent_frames: r.sent_frames,
                        sent_bytes: r.sent_bytes,
                        delivered_frames: r.delivered_frames,
                        delivered_bytes: r.delivered_bytes,
                        queue_drops: r.queue_drops,
                        lost: r.lost,
                        over_mtu: r.over_mtu,
                        ..Default::default()
                    },
                };
                self.rec.push(t, (&link.0, &link.1), (&dir.0, &dir.1), s);
            }
        }
        Ok(())
    }

    /// Sleeps for `d`, sampling the links on the way.
    pub(super) fn sleep(&mut self, d: Duration) -> anyhow::Result<()> {
        let until = Instant::now() + d;
        loop {
            let left = until.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return Ok(());
            }
            std::thread::sleep(left.min(self.every));
            self.sample()?;
        }
    }

    /// Takes the last sample (the end-of-run counters), adds the `link_*`
    /// metrics and writes `samples/links/<run>.csv`.
    pub(super) fn finish(
        mut self,
        m: &mut Metrics,
        dir: &Path,
        run_id: usize,
    ) -> anyhow::Result<()> {
        self.sample()?;
        self.rec.metrics(m);
        self.rec.write(dir, run_id)
    }
}
