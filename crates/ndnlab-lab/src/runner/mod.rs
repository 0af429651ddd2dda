//! Runners: how one run of an experiment is executed.
//!
//! A runner takes a [`RunPlan`] (the experiment with this run's factor levels
//! applied, its topology and routes, its seed) and a directory of its own, and
//! returns the run's metrics. Raw samples go to files in that directory. The
//! runners are `inproc` (this process), `processes` (one `ndnlab fwd` process per
//! node) and `netns` (those processes in network namespaces of their own, joined
//! by veth pairs) and `slurm` (those processes on the hosts of a Slurm
//! allocation, [`slurm`]); the last three share [`daemons`]; and `sim` ([`sim`]): the
//! same forwarder code, links and applications in virtual time. A campaign
//! whose runner is a factor runs each point on its own ([`per_point`]).

pub mod daemons;
pub mod inproc;
pub mod links;
pub mod netns;
pub mod per_point;
pub mod processes;
pub mod sim;
pub mod slurm;
pub mod summary;

use std::collections::BTreeMap;
use std::path::Path;

use crate::experiment::Experiment;
use crate::topology::Topology;

/// Everything a runner needs for one run.
#[derive(Debug, Clone)]
pub struct RunPlan {
    pub run_id: usize,
    pub seed: u64,
    pub exp: Experiment,
    pub topology: Topology,
    /// Node → (prefix, next-hop node, cost).
    pub routes: BTreeMap<String, Vec<(String, String, u64)>>,
    /// The largest Data the producers send, in bytes
    /// ([`crate::apps::data_size`]).
    pub largest_data: usize,
}

impl RunPlan {
    /// The plan of an experiment: topology and routes toward every producer.
    pub fn new(run_id: usize, seed: u64, exp: Experiment) -> Result<RunPlan, String> {
        let topology = Topology::of(&exp)?;
        let mut producers = Vec::new();
        for (name, a) in &exp.apps {
            let nodes = topology
                .select(&a.nodes)
                .map_err(|e| format!("apps.{name}.nodes: {e}"))?;
            if a.is_producer() {
                for n in nodes {
                    producers.extend(a.prefixes_on(&n).into_iter().map(|p| (p, n.clone())));
                }
            }
        }
        let mut routes = if exp.routes.mode == "shortest" {
            topology.routes(&producers, &exp.routes.metric, exp.routes.multipath)
        } else {
            BTreeMap::new()
        };
        for (i, r) in exp.routes.fixed.iter().enumerate() {
            let linked = topology
                .links
                .iter()
                .any(|l| (l.a == r.node && l.b == r.via) || (l.b == r.node && l.a == r.via));
            if !linked {
                return Err(format!(
                    "routes.static[{i}]: no link between '{}' and '{}'",
                    r.node, r.via
                ));
            }
            routes.entry(r.node.clone()).or_default().push((
                r.prefix.clone(),
                r.via.clone(),
                r.cost,
            ));
        }
        let largest_data = crate::apps::data_size::largest_data(&exp, &topology)?;
        Ok(RunPlan {
            run_id,
            seed,
            exp,
            topology,
            routes,
            largest_data,
        })
    }
}

impl RunPlan {
    /// The packet size limit of an ndnlab forwarder `f` of this run
    /// ([`Experiment::packet_limit`]).
    pub fn packet_limit(&self, f: &crate::experiment::ForwarderSpec) -> usize {
        self.exp.packet_limit(f, self.largest_data)
    }

    /// The size of the object a put publishes under `prefix`, if one does.
    pub fn put_size(&self, prefix: &str) -> Option<u64> {
        self.exp
            .apps
            .values()
            .filter(|a| a.kind == "put")
            .find_map(|a| {
                let nodes = self.topology.select(&a.nodes).ok()?;
                nodes
                    .iter()
                    .any(|n| a.prefix_on(n) == prefix)
                    .then_some(a.size)
            })
    }
}

/// `data_verified` and `data_refused` from every forwarder's counters, when some
/// node of the plan verifies Data.
/// `counts` gives each shard's (verified, refused), as
/// [`ndnlab_fwd::verify::counts`] reads them.
pub(crate) fn verify_metrics(
    plan: &RunPlan,
    counts: impl Iterator<Item = (u64, u64)>,
    m: &mut Metrics,
) {
    let on = plan
        .topology
        .nodes
        .iter()
        .any(|n| plan.exp.forwarder_of(n).verify_data != "none");
    if !on {
        return;
    }
    let (mut verified, mut refused) = (0u64, 0u64);
    for (v, r) in counts {
        verified += v;
        refused += r;
    }
    m.insert("data_verified".into(), verified as f64);
    m.insert("data_refused".into(), refused as f64);
}

/// The columns of `samples/faces/<run_id>.csv`, under every runner that writes it.
pub const FACE_COLUMNS: [&str; 12] = [
    "node",
    "face",
    "remote",
    "in_interests",
    "in_data",
    "in_nacks",
    "out_interests",
    "out_data",
    "out_nacks",
    "in_bytes",
    "out_bytes",
    "drops",
];

/// A run's measurements: metric name → value (the columns of `results.csv`).
pub type Metrics = BTreeMap<String, f64>;

/// The metrics runners report, with their meaning. Some also come per node or
/// per consumer as `name.<node>` / `name.<app>@<node>`.
pub const METRICS: &[(&str, &str)] = &[
    (
        "interests",
        "Interests the consumers sent in the measurement window",
    ),
    ("data", "Data they received for those"),
    ("nacks", "Nacks they received for those"),
    (
        "timeouts",
        "Interests of the window left unanswered for their lifetime",
    ),
    (
        "retransmissions",
        "Interests sent again by gets (with a get or congestion control only)",
    ),
    (
        "marks",
        "Data carrying a congestion mark (with a get or congestion control only)",
    ),
    ("satisfaction", "data / interests"),
    ("loss", "1 - satisfaction"),
    (
        "data_per_sec",
        "Data received per second of the window (per consumer too)",
    ),
    (
        "throughput_mbps",
        "content bytes of those Data (the Content field's value, no packet or link headers) per second of the window, in Mbit/s",
    ),
    (
        "delay_mean_us",
        "mean delivery time (Interest sent to Data received) of the window's Data",
    ),
    (
        "delay_p50_us",
        "median delivery time (nearest rank over every sample, not a mean of percentiles)",
    ),
    ("delay_p99_us", "99th percentile of the delivery time (nearest rank)"),
    (
        "download_time_s",
        "counted consumers: window opening to last answer (CDoT)",
    ),
    (
        "distribution_time_s",
        "the slowest counted consumer's download time (CDiT)",
    ),
    (
        "fwd_interests_per_sec",
        "Interests the forwarders received per second (per node too)",
    ),
    ("cs_hit_ratio", "CS hits / (hits + misses), all forwarders"),
    ("pit_max", "largest PIT size sampled on any forwarder"),
    (
        "data_verified",
        "with forwarder.verify_data: Data the forwarders checked on arrival, over the whole run",
    ),
    (
        "data_refused",
        "with forwarder.verify_data: Data they dropped for a bad signature, an unknown key or a wrong signature type",
    ),
    (
        "cpu_cores",
        "CPU time of the runner's process(es) per second of the window; per forwarder and per app as cpu_cores.<node>, cpu_cores.<app>@<node>",
    ),
    (
        "sign_mean_us",
        "producers (sign_mean_us.<app>@<node>): mean time to sign one Data",
    ),
    ("sign_p50_us", "producers: median time to sign one Data"),
    (
        "sign_p99_us",
        "producers: 99th percentile of the time to sign one Data",
    ),
    (
        "sign_cores",
        "producers: CPU seconds spent signing per second of the window",
    ),
    (
        "sign_cores_needed",
        "producers: cores the measured Data rate needs, sign_mean_us x Data/s",
    ),
    (
        "serve_mean_us",
        "producers (serve_mean_us.<app>@<node>): mean time from an Interest in to its Data out",
    ),
    ("serve_p50_us", "producers: median time from Interest in to Data out"),
    (
        "serve_p99_us",
        "producers: 99th percentile of the time from Interest in to Data out",
    ),
    (
        "bringup_s",
        "seconds to bring the topology up (processes, netns, slurm)",
    ),
    ("hosts", "slurm: hosts of the allocation the topology ran on"),
    (
        "cut_links",
        "slurm: links between nodes on different hosts (placement.json lists them)",
    ),
    (
        "link_frames",
        "per direction of each link (`.<from>-<to>`), over the whole run: frames its transmitter took (NDNLPv2 fragments with an mtu; lost ones included)",
    ),
    ("link_bytes", "per link direction: bytes of those frames"),
    (
        "link_drops_queue",
        "per link direction: frames refused by its full transmit queue (`queue`)",
    ),
    (
        "link_drops_loss",
        "per link direction: frames lost at random (`loss_pct`)",
    ),
    (
        "link_drops_mtu",
        "per link direction: frames larger than the link's `mtu`",
    ),
    (
        "link_queue_max",
        "per link direction: the longest transmit queue sampled, in frames",
    ),
];

/// The metrics a runner cannot measure: the CPU ones under `sim`, whose
/// virtual time charges nothing for signing or forwarding.
pub const UNMEASURED: &[(&str, &[&str])] = &[(
    "sim",
    &[
        "cpu_cores",
        "sign_mean_us",
        "sign_p50_us",
        "sign_p99_us",
        "sign_cores",
        "sign_cores_needed",
        "serve_mean_us",
        "serve_p50_us",
        "serve_p99_us",
    ],
)];

/// Refuses a plan whose `experiment.metrics` names a metric `runner` cannot
/// measure (see [`UNMEASURED`]), naming it.
pub fn refuse_unmeasured(runner: &str, plan: &RunPlan) -> anyhow::Result<()> {
    let cannot = UNMEASURED
        .iter()
        .filter(|(r, _)| *r == runner)
        .flat_map(|(_, m)| m.iter());
    for name in cannot {
        if plan.exp.experiment.metrics.iter().any(|w| w == name) {
            anyhow::bail!(
                "experiment.metrics: '{name}' is not measured by the {runner} runner (virtual time charges no CPU); use inproc, processes or netns"
            );
        }
    }
    Ok(())
}

/// Keeps the metrics an experiment asked for (all when it names none).
pub fn select(metrics: Metrics, wanted: &[String]) -> Metrics {
    if wanted.is_empty() {
        return metrics;
    }
    metrics
        .into_iter()
        .filter(|(k, _)| {
            let base = k.split('.').next().unwrap_or(k);
            wanted.iter().any(|w| w == base)
        })
        .collect()
}

/// Runs one run. Runners are shared by the campaign's worker threads.
pub trait Runner: Send + Sync {
    /// The runner's name, as `experiment.runner` and `--runner` spell it.
    fn name(&self) -> &'static str;
    /// Runs `plan`, writing its samples under the campaign's `dir`.
    fn run(&self, plan: &RunPlan, dir: &Path) -> anyhow::Result<Metrics>;
    /// Whether runs may execute at the same time, one per core (`--jobs`):
    /// true for runners whose runs are independent and CPU-bound in virtual
    /// time; false (the default) for runners that measure real time, which
    /// other runs on the same cores would disturb.
    fn parallel_safe(&self) -> bool {
        false
    }
}

/// The runner called `name`, or why it is not available here.
pub fn by_name(name: &str) -> anyhow::Result<Box<dyn Runner>> {
    match name {
        "inproc" => Ok(Box::new(inproc::InProc)),
        "processes" => Ok(Box::new(processes::Processes::new()?)),
        "netns" => Ok(Box::new(netns::Netns::new()?)),
        "slurm" => Ok(Box::new(slurm::Slurm::new()?)),
        "sim" => Ok(Box::new(sim::Sim)),
        other => anyhow::bail!("no runner '{other}' (inproc, processes, netns, slurm, sim)"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn select_keeps_named_metrics_and_their_variants() {
        let m: Metrics = [
            ("data", 1.0),
            ("data_per_sec", 2.0),
            ("data_per_sec.c@r0", 3.0),
            ("loss", 0.0),
        ]
        .into_iter()
        .map(|(k, v)| (k.to_string(), v))
        .collect();
        let kept = select(m.clone(), &["data_per_sec".to_string()]);
        assert_eq!(
            kept.keys().collect::<Vec<_>>(),
            vec!["data_per_sec", "data_per_sec.c@r0"]
        );
        assert_eq!(select(m.clone(), &[]), m);
    }

    #[test]
    fn sim_refuses_cpu_metrics_by_name() {
        let text = "[experiment]\nmetrics = [\"data\", \"sign_mean_us\"]\n[apps.c]\nkind = \"consumer\"\n[apps.p]\nkind = \"producer\"\n";
        let (_, exp) = crate::experiment::parse(text, "t.toml").unwrap();
        let plan = RunPlan::new(0, 1, exp).unwrap();
        let e = refuse_unmeasured("sim", &plan).unwrap_err().to_string();
        assert!(e.contains("'sign_mean_us'") && e.contains("sim"), "{e}");
        refuse_unmeasured("inproc", &plan).unwrap();
        let known: Vec<_> = METRICS.iter().map(|(k, _)| *k).collect();
        for (_, names) in UNMEASURED {
            assert!(names.iter().all(|n| known.contains(n)), "{names:?}");
        }
    }
}
