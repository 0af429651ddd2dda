//! The experiment file: a TOML document declaring the forwarders, the links
//! between them, the applications on them, the factors to vary and the design.
//!
//! Every table denies unknown keys, and every value is checked by
//! [`Experiment::validate`] before anything starts; errors name the file, the line
//! (for TOML and type errors) and the key. Factors address any key by its dotted
//! path (`forwarder.cs_capacity`, `apps.server.payload`, `topology.n`): a run is the
//! document with each factor's key set to one of its levels, parsed again.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::LabError;

mod link;
mod slurm;
pub use link::{LinkEntry, LinkSpec};
pub use slurm::{HostRef, PlacementSpec, SlurmSpec};

/// A whole experiment (one run's view once factor levels are applied).
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Experiment {
    #[serde(default)]
    pub experiment: Meta,
    #[serde(default)]
    pub topology: TopologySpec,
    /// Defaults of every link.
    #[serde(default)]
    pub link: LinkSpec,
    /// Explicit links (`topology.kind = "explicit"`), or overrides of generated
    /// links between the same two nodes.
    #[serde(default)]
    pub links: Vec<LinkEntry>,
    /// Defaults of every forwarder.
    #[serde(default)]
    pub forwarder: ForwarderSpec,
    /// Per-node overrides of `forwarder`, by node name.
    #[serde(default)]
    pub nodes: BTreeMap<String, ForwarderOverride>,
    #[serde(default)]
    pub routes: RoutesSpec,
    /// Application groups by name (`apps.<name>.<key>` in factor paths).
    #[serde(default)]
    pub apps: BTreeMap<String, AppSpec>,
    /// Factor path → levels.
    #[serde(default)]
    pub factors: BTreeMap<String, Vec<toml::Value>>,
    #[serde(default)]
    pub design: DesignSpec,
    /// The paper's numbers this experiment reproduces (`[reference]`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reference: Option<ndnlab_report::reference::Reference>,
    /// Where the `slurm` runner puts each node (`[placement]`).
    #[serde(default, skip_serializing_if = "PlacementSpec::is_default")]
    pub placement: PlacementSpec,
    /// The `slurm` runner's allocation (`[slurm]`).
    #[serde(default, skip_serializing_if = "SlurmSpec::is_default")]
    pub slurm: SlurmSpec,
}

/// `[experiment]`: the campaign's name, runner and timing.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct Meta {
    pub name: String,
    pub description: String,
    /// `inproc`, `processes`, `netns` or `sim`.
    pub runner: String,
    /// Seconds measured in each run.
    pub duration_s: f64,
    /// Seconds run before measuring (traffic flows, nothing is counted).
    pub warmup_s: f64,
    /// Repetitions of every design point, each with its own seed.
    pub repetitions: u32,
    /// Seed of the first run; run i uses `seed + i`.
    pub seed: u64,
    /// Shuffle the run order (with `seed`), as Jain recommends against drift.
    pub randomize: bool,
    /// The scaled-down values `--quick` applies (any key path → value).
    pub quick: BTreeMap<String, toml::Value>,
    /// The metrics to keep in the results (names from
    /// [`crate::runner::METRICS`]; a name also keeps its per-node and per-app
    /// variants `name.<node>`); empty keeps every one.
    pub metrics: Vec<String>,
    /// Milliseconds between samples of the PIT and CS sizes and face queue
    /// lengths (the `sim` runner's time series; `inproc` samples every 100 ms).
    pub sample_interval_ms: f64,
}

impl Default for Meta {
    fn default() -> Self {
        Meta {
            name: "experiment".into(),
            description: String::new(),
            runner: "inproc".into(),
            duration_s: 5.0,
            warmup_s: 1.0,
            repetitions: 1,
            seed: 1,
            randomize: false,
            quick: BTreeMap::new(),
            metrics: Vec::new(),
            sample_interval_ms: 100.0,
        }
    }
}

/// `[topology]`: a generated topology, or an imported file.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct TopologySpec {
    /// `line`, `star`, `dumbbell`, `tree`, `grid`, `random`, `explicit`,
    /// `minindn`, `ndnsim`.
    pub kind: String,
    /// Forwarders: of the line, the star's leaves, each side of the dumbbell, the
    /// tree's depth, the grid's side, the random graph's nodes.
    pub n: u32,
    /// `random`: the mean node degree (links = n * degree / 2, at least a
    /// spanning tree's n - 1).
    pub degree: f64,
    /// `random`: the seed of the graph (the same seed, the same graph in every
    /// run, whatever the run's own seed).
    pub seed: u64,
    /// A Mini-NDN or ndnSIM topology file (relative to the experiment file).
    pub file: Option<String>,
    /// `explicit` topologies: node names in order (the order `first` and `last`
    /// refer to); a node listed here needs no link.
    pub nodes: Vec<String>,
    /// The directory `file` is relative to: the experiment file's own, set by
    /// whoever read the file (not a key of the format).
    #[serde(skip)]
    pub base_dir: Option<PathBuf>,
}

impl Default for TopologySpec {
    fn default() -> Self {
        TopologySpec {
            kind: "line".into(),
            n: 1,
            degree: 3.0,
            seed: 1,
            file: None,
            nodes: Vec::new(),
            base_dir: None,
        }
    }
}

impl TopologySpec {
    /// `file` resolved against the experiment file's directory.
    pub fn file_path(&self) -> Option<PathBuf> {
        let f = Path::new(self.file.as_ref()?);
        Some(match &self.base_dir {
            Some(base) if f.is_relative() => base.join(f),
            _ => f.to_path_buf(),
        })
    }
}

/// A forwarder's configuration.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct ForwarderSpec {
    /// Which forwarder runs the node: `ndnlab` (`ndnlab fwd`) or `nfd` (NFD,
    /// under the `processes` and `netns` runners; see
    /// `crate::runner::daemons::nfd`).
    pub kind: String,
    /// Forwarding threads (shards).
    pub threads: usize,
    /// Content Store capacity in Data packets; 0 turns caching off.
    pub cs_capacity: usize,
    /// `lru`, `priority-fifo` or `tinylfu`.
    pub cs_policy: String,
    /// Input queue of each shard, in packets.
    pub queue_capacity: usize,
    /// Leading name components the Name Dispatch Table hashes to choose an
    /// Interest's forwarding thread (`[forwarder] dispatch_components`).
    pub dispatch_components: usize,
    /// With one forwarding thread, run it on the face readers (`true`) or on a
    /// thread of its own behind its queue (`[forwarder] inline`).
    pub inline: bool,
    /// What the forwarder checks on every Data it receives: `none`, `digest`
    /// (its implicit SHA-256 digest) or `signature` (against the producers'
    /// keys, which the runner gives it as trusted keys).
    pub verify_data: String,
    /// Largest packet the forwarder accepts, in bytes (`ndnlab fwd`'s
    /// `[forwarder] max_packet_size`); 0 (the default): NDN's 8800, raised to
    /// the largest producer payload plus [`DATA_OVERHEAD`] when that is more.
    pub max_packet_size: usize,
    /// Strategy per prefix (NFD strategy names).
    pub strategy: BTreeMap<String, String>,
    /// Time one packet in N in the forwarder (`[latency] sample`); 0 = off. See
    /// `crate::latency` for what a run collects.
    pub latency_sample: u64,
    /// Samples skipped first (warm-up).
    pub latency_skip: u64,
    /// Samples kept after the warm-up; 0 = all.
    pub latency_keep: u64,
    /// Service time of each packet in a forwarding thread, for the `sim`
    /// runner (`ndnlab_sim::cost`): "zero" (the default), "constant:2us",
    /// "exp:5us", "model:<file>", or a table per packet class. The other
    /// runners measure the real cost and ignore it.
    pub cost: ndnlab_sim::CostSpec,
}

impl Default for ForwarderSpec {
    fn default() -> Self {
        ForwarderSpec {
            kind: "ndnlab".into(),
            threads: 1,
            cs_capacity: 65536,
            cs_policy: "lru".into(),
            queue_capacity: 65536,
            dispatch_components: 1,
            inline: true,
            verify_data: "none".into(),
            max_packet_size: 0,
            strategy: BTreeMap::new(),
            latency_sample: 0,
            latency_skip: 0,
            latency_keep: 0,
            cost: ndnlab_sim::CostSpec::zero(),
        }
    }
}

/// Per-node overrides of [`ForwarderSpec`].
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct ForwarderOverride {
    pub kind: Option<String>,
    pub threads: Option<usize>,
    pub cs_capacity: Option<usize>,
    pub cs_policy: Option<String>,
    pub queue_capacity: Option<usize>,
    pub dispatch_components: Option<usize>,
    pub inline: Option<bool>,
    pub verify_data: Option<String>,
    pub max_packet_size: Option<usize>,
    #[serde(default)]
    pub strategy: BTreeMap<String, String>,
}

/// Most prefixes of one app (`apps.<name>.prefixes`).
pub const MAX_PREFIXES: u32 = 4096;

/// NDN's packet size limit (NFD's `MAX_NDN_PACKET_SIZE`).
pub const NDN_MAX_PACKET: usize = 8800;
/// Largest producer payload (`apps.<name>.payload`), in bytes: 64 KiB.
pub const MAX_PAYLOAD: usize = 65536;
/// Bytes a Data needs beyond its payload (name, MetaInfo, signature).
pub use ndnlab_fwd::config::DATA_OVERHEAD;

impl Experiment {
    /// The largest payload of the experiment's producers (0 without one).
    pub fn largest_payload(&self) -> usize {
        self.apps
            .values()
            .filter(|a| a.is_producer())
            .map(|a| a.payload)
            .max()
            .unwrap_or(0)
    }

    /// The largest Data the experiment's producers send, in bytes on the wire
    /// ([`crate::apps::data_size`]); 0 without a producer.
    pub fn largest_data(&self) -> Result<usize, String> {
        crate::apps::data_size::largest_data(self, &crate::topology::Topology::of(self)?)
    }

    /// The packet size limit of an ndnlab forwarder `f` in this experiment,
    /// whose producers' largest Data is `largest_data` bytes: its
    /// `max_packet_size`, or (0) NDN's 8800 raised to the largest payload plus
    /// [`DATA_OVERHEAD`] (headroom for names and signatures), and at least the
    /// largest Data.
    pub fn packet_limit(&self, f: &ForwarderSpec, largest_data: usize) -> usize {
        match f.max_packet_size {
            0 => ndnlab_fwd::config::max_packet_size_for(self.largest_payload()).max(largest_data),
            n => n,
        }
    }

    /// The forwarder of `node`: `[forwarder]` with the node's overrides.
    pub fn forwarder_of(&self, node: &str) -> ForwarderSpec {
        self.nodes
            .get(node)
            .map(|o| o.apply(&self.forwarder))
            .unwrap_or_else(|| self.forwarder.clone())
    }
}

impl ForwarderOverride {
    pub fn apply(&self, base: &ForwarderSpec) -> ForwarderSpec {
        let mut strategy = base.strategy.clone();
        strategy.extend(self.strategy.clone());
        ForwarderSpec {
            kind: self.kind.clone().unwrap_or_else(|| base.kind.clone()),
            threads: self.threads.unwrap_or(base.threads),
            cs_capacity: self.cs_capacity.unwrap_or(base.cs_capacity),
            cs_policy: self
                .cs_policy
                .clone()
                .unwrap_or_else(|| base.cs_policy.clone()),
            queue_capacity: self.queue_capacity.unwrap_or(base.queue_capacity),
            dispatch_components: self.dispatch_components.unwrap_or(base.dispatch_components),
            inline: self.inline.unwrap_or(base.inline),
            verify_data: self
                .verify_data
                .clone()
                .unwrap_or_else(|| base.verify_data.clone()),
            max_packet_size: self.max_packet_size.unwrap_or(base.max_packet_size),
            strategy,
            ..base.clone()
        }
    }
}

/// `[routes]`: how FIBs are filled.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct RoutesSpec {
    /// `shortest` (computed toward every producer prefix) or `static` only.
    pub mode: String,
    /// `cost` or `delay`.
    pub metric: String,
    /// Every neighbour on some shortest path is a next hop (else the first).
    pub multipath: bool,
    /// Routes added as given.
    #[serde(rename = "static")]
    pub fixed: Vec<StaticRoute>,
}

impl Default for RoutesSpec {
    fn default() -> Self {
        RoutesSpec {
            mode: "shortest".into(),
            metric: "cost".into(),
            multipath: false,
            fixed: Vec::new(),
        }
    }
}

/// One static route: on `node`, `prefix` via the link toward `via`.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct StaticRoute {
    pub node: String,
    pub prefix: String,
    pub via: String,
    #[serde(default)]
    pub cost: u64,
}

/// The application kinds: what requests and what answers.
pub const APP_KINDS: &[(&str, &str)] = &[
    (
        "consumer",
        "requests names from a catalogue (perf and traffic clients)",
    ),
    ("ping", "ndnping: one fresh, unique Interest every 1/rate s"),
    (
        "get",
        "fetches a put's object once, segment by segment (ndncatchunks)",
    ),
    (
        "producer",
        "answers every Interest under its prefix (perf and traffic servers)",
    ),
    (
        "repository",
        "holds a fixed catalogue of contents, signed once",
    ),
    (
        "put",
        "publishes an object of `size` bytes as segments (ndnputchunks)",
    ),
];

/// An application group: one app of this kind on each node it names.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct AppSpec {
    /// One of [`APP_KINDS`].
    pub kind: String,
    /// Where: node names, or `first`, `last`, `all`, `leaves`.
    pub nodes: Vec<String>,
    /// Name prefix served or requested. In a producer, repository or put,
    /// `{node}` stands for the node's name (one prefix per node).
    pub prefix: String,
    /// Distinct prefixes under `prefix` (NDN-DPDK's producer prefixes): with N
    /// above 1 a producer serves and registers `<prefix>/0` ... `<prefix>/N-1`,
    /// and a consumer asks for content `i` under `<prefix>/<i mod N>`.
    pub prefixes: u32,
    // --- consumers ---
    /// `window` (keep `window` Interests in flight), `poisson` (`rate` per second,
    /// exponential gaps), `constant` (`rate` per second, even gaps) or `burst`
    /// (`burst` Interests at once, `rate` per second on average).
    pub pattern: String,
    pub window: usize,
    pub rate: f64,
    /// Interests per burst (`pattern = "burst"`).
    pub burst: u32,
    /// Congestion control of a window consumer or a get: `fixed` (the window
    /// stays `window`), `aimd` or `cubic` (ndn-tools' adaptive pipelines,
    /// reacting to timeouts, congestion Nacks and congestion marks).
    pub cc: String,
    /// Ask for the contents of this repository or producer group (the names it
    /// holds on every node it is on) instead of `prefix`.
    pub from: String,
    /// Distinct contents requested (seed 001's content diversity).
    pub catalogue: u64,
    /// Zipf exponent of popularity; 0 is uniform.
    pub zipf: f64,
    /// Name components of each requested name, prefix included (seed 004).
    pub name_components: usize,
    /// InterestLifetime in milliseconds.
    pub lifetime_ms: u64,
    /// Ask for fresh Data only (defeats caches of stale copies).
    pub must_be_fresh: bool,
    /// Interests to satisfy, then stop (0: keep asking for the whole run). With a
    /// count the consumer starts when the measurement window opens, and the run
    /// reports its content download time (seed 001's CDoT) and the system's
    /// content distribution time (CDiT, the slowest consumer's).
    pub count: u64,
    // --- producers ---
    /// Content bytes of each Data (of each segment, for a put).
    pub payload: usize,
    /// FreshnessPeriod in milliseconds.
    pub freshness_ms: u64,
    /// `digest` (DigestSha256), or a key type (`ecdsa-p256`, `rsa-2048`,
    /// `ed25519`, `hmac`, ...), as `ndnlab put --sign` takes.
    pub signature: String,
    /// Whether the run's forwarders trust this producer's key (with
    /// `forwarder.verify_data = "signature"`); `false` signs with a key no
    /// forwarder is given, so a verifying forwarder refuses its Data
    /// (`data_refused`). Needs a key `signature`.
    pub trusted: bool,
    /// Keep each signed Data and serve it again (`ndnlab perf server --cache`).
    pub presign: bool,
    /// Signing threads of a producer (`ndnlab perf server --threads`).
    pub threads: usize,
    /// Bytes of a put's object.
    pub size: u64,
}

impl AppSpec {
    /// Whether this app answers Interests (producer, repository, put).
    pub fn is_producer(&self) -> bool {
        matches!(self.kind.as_str(), "producer" | "repository" | "put")
    }

    /// Whether this app sends Interests (consumer, ping, get).
    pub fn is_consumer(&self) -> bool {
        !self.is_producer()
    }

    /// The prefix on `node`: `{node}` replaced by the node's name.
    pub fn prefix_on(&self, node: &str) -> String {
        self.prefix.replace("{node}", node)
    }

    /// The prefixes this app serves or asks under on `node`: `prefix_on(node)`,
    /// or its `prefixes` children `<prefix>/0` ... `<prefix>/N-1`.
    pub fn prefixes_on(&self, node: &str) -> Vec<String> {
        let p = self.prefix_on(node);
        if self.prefixes <= 1 {
            return vec![p];
        }
        let base = p.trim_end_matches('/');
        (0..self.prefixes).map(|k| format!("{base}/{k}")).collect()
    }
}

impl Default for AppSpec {
    fn default() -> Self {
        AppSpec {
            kind: "consumer".into(),
            nodes: vec!["first".into()],
            prefix: "/lab".into(),
            prefixes: 1,
            pattern: "window".into(),
            window: 16,
            rate: 1000.0,
            burst: 8,
            cc: "fixed".into(),
            from: String::new(),
            catalogue: 10_000,
            zipf: 0.0,
            name_components: 3,
            lifetime_ms: 2000,
            must_be_fresh: false,
            count: 0,
            payload: 1000,
            freshness_ms: 10_000,
            signature: "digest".into(),
            trusted: true,
            presign: false,
            threads: 1,
            size: 1_000_000,
        }
    }
}

/// `[design]`: which combinations of factor levels run.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct DesignSpec {
    /// `full` (every combination), `2k` (two levels each, full), `fractional`
    /// (2^(k-p) with `generators`) or `sweep` (one factor at a time, the others at
    /// their first level).
    pub kind: String,
    /// Fractional designs: `D = ABC` style generators over factor letters in
    /// declaration order (A is the first factor in `[factors]` order).
    pub generators: Vec<String>,
}

impl Default for DesignSpec {
    fn default() -> Self {
        DesignSpec {
            kind: "full".into(),
            generators: Vec::new(),
        }
    }
}

/// Parses an experiment, naming `file` and the line of a syntax or type error.
pub fn parse(text: &str, file: &str) -> Result<(toml::Value, Experiment), LabError> {
    let doc: toml::Value = toml::from_str(text).map_err(|e| located(file, text, &e))?;
    let mut exp: Experiment = toml::from_str(text).map_err(|e| located(file, text, &e))?;
    exp.topology.base_dir = base_dir_of(file);
    exp.validate().map_err(|m| LabError::Invalid {
        file: file.to_string(),
        msg: m,
    })?;
    Ok((doc, exp))
}

/// Reads and parses an experiment file.
pub fn load(path: &Path) -> Result<(toml::Value, Experiment), LabError> {
    let text = std::fs::read_to_string(path).map_err(|e| LabError::Io {
        path: path.display().to_string(),
        err: e.to_string(),
    })?;
    parse(&text, &path.display().to_string())
}

/// The directory a topology file named in experiment file `file` is relative to.
pub fn base_dir_of(file: &str) -> Option<PathBuf> {
    Path::new(file)
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .map(Path::to_path_buf)
}

fn located(file: &str, text: &str, e: &toml::de::Error) -> LabError {
    let line = e
        .span()
        .map(|s| text[..s.start.min(text.len())].matches('\n').count() + 1);
    LabError::Syntax {
        file: file.to_string(),
        line,
        msg: e.message().to_string(),
    }
}

impl Experiment {
    /// Checks every value; the message names the key.
    pub fn validate(&self) -> Result<(), String> {
        let m = &self.experiment;
        if !["inproc", "processes", "netns", "slurm", "sim"].contains(&m.runner.as_str()) {
            return Err(format!(
                "experiment.runner: '{}' is not a runner (inproc, processes, netns, slurm, sim)",
                m.runner
            ));
        }
        if m.sample_interval_ms.is_nan() || m.sample_interval_ms < 0.001 {
            return Err("experiment.sample_interval_ms must be at least 0.001".into());
        }
        if m.duration_s.is_nan() || m.duration_s <= 0.0 {
            return Err("experiment.duration_s must be positive".into());
        }
        if m.warmup_s < 0.0 || m.warmup_s.is_nan() {
            return Err("experiment.warmup_s must not be negative".into());
        }
        if m.repetitions == 0 {
            return Err("experiment.repetitions must be at least 1".into());
        }
        for name in &m.metrics {
            if !is_known_metric(name) {
                let known = crate::runner::METRICS.iter().chain(crate::latency::METRICS);
                return Err(format!(
                    "experiment.metrics: no metric '{name}' (known: {})",
                    known.map(|(k, _)| *k).collect::<Vec<_>>().join(", ")
                ));
            }
        }
        let kinds = [
            "line", "star", "dumbbell", "tree", "grid", "random", "explicit", "minindn", "ndnsim",
        ];
        if !kinds.contains(&self.topology.kind.as_str()) {
            return Err(format!(
                "topology.kind: '{}' is not one of {}",
                self.topology.kind,
                kinds.join(", ")
            ));
        }
        if self.topology.n == 0
            && !["explicit", "minindn", "ndnsim"].contains(&self.topology.kind.as_str())
        {
            return Err("topology.n must be at least 1".into());
        }
        if !self.topology.nodes.is_empty() && self.topology.kind != "explicit" {
            return Err(format!(
                "topology.nodes: a node list is for kind = \"explicit\", not '{}'",
                self.topology.kind
            ));
        }
        if matches!(self.topology.kind.as_str(), "minindn" | "ndnsim")
            && self.topology.file.is_none()
        {
            return Err(format!(
                "topology.file is required for kind '{}'",
                self.topology.kind
            ));
        }
        self.link.check("link")?;
        for (i, l) in self.links.iter().enumerate() {
            l.apply(&self.link)
                .check(&format!("links[{i}] ({}-{})", l.a, l.b))?;
        }
        check_forwarder("forwarder", &self.forwarder)?;
        for (name, o) in &self.nodes {
            check_forwarder(&format!("nodes.{name}"), &o.apply(&self.forwarder))?;
        }
        check_kind_runner(self)?;
        check_packet_sizes(self)?;
        if !["shortest", "static"].contains(&self.routes.mode.as_str()) {
            return Err(format!(
                "routes.mode: '{}' (shortest or static)",
                self.routes.mode
            ));
        }
        if !["cost", "delay"].contains(&self.routes.metric.as_str()) {
            return Err(format!(
                "routes.metric: '{}' (cost or delay)",
                self.routes.metric
            ));
        }
        for (i, r) in self.routes.fixed.iter().enumerate() {
            if !r.prefix.starts_with('/') {
                return Err(format!(
                    "routes.static[{i}].prefix: '{}' is not a name",
                    r.prefix
                ));
            }
        }
        if self.apps.is_empty() {
            return Err("apps: declare at least one consumer and one producer".into());
        }
        for (name, a) in &self.apps {
            check_app(&format!("apps.{name}"), a)?;
        }
        if !self.apps.values().any(|a| a.is_consumer()) {
            return Err("apps: no consumer (consumer, ping or get)".into());
        }
        if !self.apps.values().any(|a| a.is_producer()) {
            return Err("apps: no producer (producer, repository or put)".into());
        }
        for (name, a) in &self.apps {
            if a.from.is_empty() {
                continue;
            }
            match self.apps.get(&a.from) {
                Some(g) if matches!(g.kind.as_str(), "producer" | "repository") => {}
                Some(g) => {
                    return Err(format!(
                        "apps.{name}.from: '{}' is a {}, not a producer or repository",
                        a.from, g.kind
                    ))
                }
                None => return Err(format!("apps.{name}.from: no app group '{}'", a.from)),
            }
        }
        for (path, levels) in &self.factors {
            if levels.is_empty() {
                return Err(format!("factors.\"{path}\": no levels"));
            }
        }
        if !["full", "2k", "fractional", "sweep"].contains(&self.design.kind.as_str()) {
            return Err(format!(
                "design.kind: '{}' (full, 2k, fractional, sweep)",
                self.design.kind
            ));
        }
        if let Some(r) = &self.reference {
            check_reference(self, r)?;
        }
        self.placement.validate()?;
        self.slurm.validate()?;
        let points = crate::design::count_points(self).unwrap_or(u64::MAX);
        let runs = points.saturating_mul(u64::from(m.repetitions));
        if runs > crate::design::MAX_RUNS {
            return Err(format!(
                "factors and experiment.repetitions: {points} design points x {} repetitions \
                 is more than {} runs",
                m.repetitions,
                crate::design::MAX_RUNS
            ));
        }
        Ok(())
    }
}

/// Whether `name` is one of the metrics runners report (a summary metric of
/// [`crate::runner::METRICS`] or [`crate::latency::METRICS`]).
fn is_known_metric(name: &str) -> bool {
    crate::runner::METRICS
        .iter()
        .chain(crate::latency::METRICS)
        .any(|(k, _)| *k == name)
}

/// `[reference]` against the factors, the metrics kept and the quick scale:
/// a metric is a known one or its `name.<node>` / `name.<app>` variant, and
/// every factor it uses is a factor at both scales.
fn check_reference(
    exp: &Experiment,
    r: &ndnlab_report::reference::Reference,
) -> Result<(), String> {
    let kept = &exp.experiment.metrics;
    let is_metric = |name: &str| {
        let base = name.split('.').next().unwrap_or(name);
        is_known_metric(base) && (kept.is_empty() || kept.iter().any(|k| k == base))
    };
    let factors: Vec<String> = exp.factors.keys().cloned().collect();
    r.validate(&factors, &is_metric).map_err(|e| {
        match r.metrics().into_iter().find(|(_, m)| !is_metric(m)) {
            Some((_, m)) if is_known_metric(m.split('.').next().unwrap_or(m)) => {
                format!("{e} (experiment.metrics does not keep it)")
            }
            _ => e,
        }
    })?;
    if let Some(toml::Value::Table(quick)) = exp.experiment.quick.get("factors") {
        let quick: Vec<String> = quick.keys().cloned().collect();
        r.validate(&quick, &is_metric).map_err(|e| {
            format!("{e}: under --quick, [experiment.quick].factors replaces [factors] and must keep every factor [reference] uses")
        })?;
    }
    Ok(())
}

/// Every forwarder can carry the largest producer's Data: an explicit
/// `max_packet_size` below it refuses the experiment, naming both keys, whatever
/// the links' MTU (NDNLPv2 fragments are reassembled before the limit applies).
/// NFD nodes are checked by [`check_kind_runner`].
fn check_packet_sizes(exp: &Experiment) -> Result<(), String> {
    let Some(app) = exp
        .apps
        .iter()
        .filter(|(_, a)| a.is_producer())
        .max_by_key(|(_, a)| a.payload)
        .map(|(n, _)| n)
    else {
        return Ok(());
    };
    let mut at = vec![("forwarder".to_string(), exp.forwarder.clone())];
    for name in exp.nodes.keys() {
        at.push((format!("nodes.{name}"), exp.forwarder_of(name)));
    }
    at.retain(|(_, f)| f.max_packet_size != 0);
    if at.is_empty() {
        return Ok(());
    }
    let need = exp.largest_data()?;
    for (key, f) in at {
        if f.max_packet_size < need {
            return Err(format!(
                "apps.{app}.payload = {}: the producers' largest Data is {need} bytes, \
                 more than {key}.max_packet_size = {}, even over links with an mtu (fragments are \
                 reassembled before the limit applies); raise it, or set it to 0 to size it from the payload",
                exp.apps[app].payload, f.max_packet_size
            ));
        }
    }
    Ok(())
}

/// NFD nodes run under the runners that start daemons only, and carry NDN's
/// packets of at most 8800 bytes.
/// The shortest window with NFD nodes: NFD's status datasets are cached for
/// 1 s, and the two ends of a window must read fresh counters.
pub const NFD_MIN_WINDOW_S: f64 = 1.5;

fn check_kind_runner(exp: &Experiment) -> Result<(), String> {
    let mut nfd = vec![("forwarder".to_string(), exp.forwarder.clone())];
    for (name, o) in &exp.nodes {
        nfd.push((format!("nodes.{name}"), o.apply(&exp.forwarder)));
    }
    for (at, f) in nfd.iter().filter(|(_, f)| f.kind == "nfd") {
        let need = match f.max_packet_size {
            0 => exp.largest_data()?,
            n => n,
        };
        if need > NDN_MAX_PACKET {
            return Err(format!(
                "{at}.kind: NFD carries packets of at most {NDN_MAX_PACKET} bytes; \
                 the producers' largest Data (or {at}.max_packet_size) is {need}"
            ));
        }
        if exp.experiment.duration_s < NFD_MIN_WINDOW_S {
            return Err(format!(
                "experiment.duration_s: {} s is too short for an NFD node ({at}.kind = \"nfd\"): \
                 NFD answers its counters from a cache fresh for 1 s, so both ends of the window \
                 would read the same ones; at least {NFD_MIN_WINDOW_S}",
                exp.experiment.duration_s
            ));
        }
        if f.verify_data != "none" {
            return Err(format!(
                "{at}.verify_data: '{}': NFD does not check Data (kind = \"nfd\")",
                f.verify_data
            ));
        }
    }
    let runner = exp.experiment.runner.as_str();
    if matches!(runner, "processes" | "netns") {
        return Ok(());
    }
    let mut at = vec![("forwarder.kind".to_string(), &exp.forwarder.kind)];
    for (name, o) in &exp.nodes {
        if let Some(k) = &o.kind {
            at.push((format!("nodes.{name}.kind"), k));
        }
    }
    match at.into_iter().find(|(_, k)| *k == "nfd") {
        Some((key, _)) => Err(format!(
            "{key}: 'nfd' runs under the processes and netns runners, not '{runner}'"
        )),
        None => Ok(()),
    }
}

fn check_forwarder(at: &str, f: &ForwarderSpec) -> Result<(), String> {
    if f.dispatch_components == 0 {
        return Err(format!("{at}.dispatch_components must be at least 1"));
    }
    if f.kind == "nfd" && f.verify_data != "none" {
        return Err(format!(
            "{at}.verify_data: NFD does not verify Data (verify_data = \"none\" with kind = \"nfd\")"
        ));
    }
    if !ndnlab_fwd::verify::MODES.contains(&f.verify_data.as_str()) {
        return Err(format!(
            "{at}.verify_data: '{}' ({})",
            f.verify_data,
            ndnlab_fwd::verify::MODES.join(", ")
        ));
    }
    if !["ndnlab", "nfd"].contains(&f.kind.as_str()) {
        return Err(format!("{at}.kind: '{}' (ndnlab, nfd)", f.kind));
    }
    if f.kind == "nfd" {
        if f.threads != 1 {
            return Err(format!(
                "{at}.threads: NFD forwards in one thread (threads = 1 with kind = \"nfd\")"
            ));
        }
        if !["lru", "priority-fifo"].contains(&f.cs_policy.as_str()) {
            return Err(format!(
                "{at}.cs_policy: '{}': NFD has lru and priority-fifo",
                f.cs_policy
            ));
        }
        if f.latency_sample > 0 {
            return Err(format!(
                "{at}.latency_sample: NFD has no per-stage latency instrumentation"
            ));
        }
    }
    if f.threads == 0 || f.threads > 64 {
        return Err(format!("{at}.threads must be within 1..=64"));
    }
    if !["lru", "priority-fifo", "tinylfu"].contains(&f.cs_policy.as_str()) {
        return Err(format!(
            "{at}.cs_policy: '{}' (lru, priority-fifo, tinylfu)",
            f.cs_policy
        ));
    }
    if f.queue_capacity == 0 {
        return Err(format!("{at}.queue_capacity must be positive"));
    }
    let frame = ndnlab_proto::framing::MAX_FRAME;
    if f.max_packet_size != 0 && !(1024..=frame).contains(&f.max_packet_size) {
        return Err(format!(
            "{at}.max_packet_size must be 0 (sized from the payloads) or within 1024..={frame}"
        ));
    }
    for (prefix, s) in &f.strategy {
        if !prefix.starts_with('/') {
            return Err(format!("{at}.strategy: '{prefix}' is not a name"));
        }
        if !s.starts_with("/localhost/nfd/strategy/") {
            return Err(format!(
                "{at}.strategy.\"{prefix}\": '{s}' is not a strategy name"
            ));
        }
    }
    Ok(())
}

fn check_app(at: &str, a: &AppSpec) -> Result<(), String> {
    if !APP_KINDS.iter().any(|(k, _)| *k == a.kind) {
        let kinds: Vec<_> = APP_KINDS.iter().map(|(k, _)| *k).collect();
        return Err(format!("{at}.kind: '{}' ({})", a.kind, kinds.join(", ")));
    }
    if a.prefixes == 0 || a.prefixes > MAX_PREFIXES {
        return Err(format!("{at}.prefixes must be within 1..={MAX_PREFIXES}"));
    }
    if a.prefixes > 1 && !matches!(a.kind.as_str(), "consumer" | "producer") {
        return Err(format!(
            "{at}.prefixes: several prefixes are for a consumer or a producer, not a {}",
            a.kind
        ));
    }
    if a.prefixes > 1 && !a.from.is_empty() {
        return Err(format!(
            "{at}.prefixes: a consumer with `from` asks under the group's prefixes"
        ));
    }
    if a.nodes.is_empty() {
        return Err(format!("{at}.nodes: name at least one node"));
    }
    let prefix = a.prefix_on("node");
    if !prefix.starts_with('/') || ndnlab_wire::Name::from_uri(&prefix).is_err() {
        return Err(format!("{at}.prefix: '{}' is not a name", a.prefix));
    }
    if a.is_consumer() && a.prefix.contains("{node}") {
        return Err(format!(
            "{at}.prefix: '{{node}}' is for producers; a consumer asks for a group's contents with `from`"
        ));
    }
    if !["fixed", "aimd", "cubic"].contains(&a.cc.as_str()) {
        return Err(format!("{at}.cc: '{}' (fixed, aimd, cubic)", a.cc));
    }
    if a.cc != "fixed" && !(a.kind == "get" || (a.kind == "consumer" && a.pattern == "window")) {
        return Err(format!(
            "{at}.cc: congestion control is for a window consumer or a get"
        ));
    }
    if !a.from.is_empty() && a.kind != "consumer" {
        return Err(format!(
            "{at}.from: only a consumer asks for a group's contents"
        ));
    }
    if a.kind == "ping" && (a.rate.is_nan() || a.rate <= 0.0) {
        return Err(format!("{at}.rate must be positive"));
    }
    if a.kind == "get" && a.window == 0 {
        return Err(format!("{at}.window must be positive"));
    }
    if a.kind == "consumer" {
        if !["window", "poisson", "constant", "burst"].contains(&a.pattern.as_str()) {
            return Err(format!(
                "{at}.pattern: '{}' (window, poisson, constant, burst)",
                a.pattern
            ));
        }
        if a.pattern == "window" && a.window == 0 {
            return Err(format!("{at}.window must be positive"));
        }
        if a.pattern != "window" && (a.rate.is_nan() || a.rate <= 0.0) {
            return Err(format!("{at}.rate must be positive"));
        }
        if a.pattern == "burst" && a.burst == 0 {
            return Err(format!("{at}.burst must be positive"));
        }
        if a.zipf < 0.0 || a.zipf.is_nan() {
            return Err(format!("{at}.zipf must not be negative"));
        }
    }
    if matches!(a.kind.as_str(), "consumer" | "repository") {
        if a.catalogue == 0 {
            return Err(format!("{at}.catalogue must be positive"));
        }
        let prefix_len = ndnlab_wire::Name::from_uri(&prefix).map_or(0, |n| n.len())
            + usize::from(a.prefixes > 1);
        if a.from.is_empty() && a.name_components < prefix_len + 1 {
            return Err(format!(
                "{at}.name_components must be at least {} (the prefix and one more)",
                prefix_len + 1
            ));
        }
    }
    if a.is_consumer() && a.lifetime_ms == 0 {
        return Err(format!("{at}.lifetime_ms must be positive"));
    }
    if a.is_producer() {
        if a.payload > MAX_PAYLOAD {
            return Err(format!("{at}.payload must be at most {MAX_PAYLOAD} bytes"));
        }
        if a.kind == "put" && a.payload == 0 {
            return Err(format!("{at}.payload (bytes per segment) must be positive"));
        }
        if a.kind == "repository" && a.catalogue > 1_000_000 {
            return Err(format!(
                "{at}.catalogue: a repository signs its contents up front; at most 1000000"
            ));
        }
        if a.threads == 0 {
            return Err(format!("{at}.threads must be positive"));
        }
        match a.signature.parse::<ndnlab_app::tools::signing::SignKind>() {
            Err(e) => return Err(format!("{at}.signature: {e}")),
            Ok(ndnlab_app::tools::signing::SignKind::Digest) if !a.trusted => {
                return Err(format!(
                    "{at}.trusted = false: a DigestSha256 Data needs no key to be \
                     trusted; set {at}.signature to a key type (e.g. \"ecdsa-p256\")"
                ))
            }
            Ok(_) => {}
        }
    } else if !a.trusted {
        return Err(format!(
            "{at}.trusted = false: only a producer's key is trusted or not ({at}.kind = \"{}\")",
            a.kind
        ));
    }
    Ok(())
}
