//! `ndnlab perf server`: answers every Interest under the prefix with fresh
//! signed Data from a signing pool (or from pre-signed Data with `--cache`),
//! and reports per interval what limits it, its signing time per Data and its
//! time from Interest in to Data out (mean, median, 99th percentile). With
//! `--json` each row also carries the histograms those come from
//! (`sign_hist_ns`, `serve_hist_ns`: `[nanoseconds, count]` buckets, 2
//! significant digits) and `sign_busy_ns`, so rows add up exactly
//! ([`ServeStats::add_json`]).

use std::sync::atomic::{AtomicBool, Ordering::Relaxed};
use std::sync::Arc;
use std::time::{Duration, Instant};

use bytes::Bytes;
use ndnlab_cputime as cpu;
use ndnlab_wire::{Data, Name};
use serde_json::json;

use super::answer::{start_signers, MakeData, PerfAnswer};
use super::{DEFAULT_PREFIX, SATURATED};
use crate::stats::mbps;
use crate::tools::data_cache::DataCache;
use crate::tools::serve::BatchedServer;
use crate::tools::serve_stats::{ServeStats, ServeSummary};
use crate::tools::signing::{make_identity, SignKind};
use crate::tools::{parse_name, print_json, ConnectArgs};

/// Options of `ndnlab perf server`.
#[derive(Debug, Clone, clap::Args)]
pub struct ServerArgs {
    #[command(flatten)]
    pub connect: ConnectArgs,
    /// Prefix to serve.
    #[arg(long, default_value = DEFAULT_PREFIX, value_parser = parse_name)]
    pub prefix: Name,
    /// Content bytes per Data (large Data is fragmented by the forwarder's UDP faces).
    #[arg(long, default_value_t = 8192, value_name = "BYTES")]
    pub payload: usize,
    /// FreshnessPeriod of the Data, in milliseconds.
    #[arg(long, default_value_t = 0, value_name = "MS")]
    pub freshness: u64,
    /// Signature: digest, rsa-1024, rsa-2048, rsa-3072, ecdsa-p256, ecdsa-p384, ed25519, hmac.
    #[arg(long, default_value = "digest")]
    pub sign: SignKind,
    /// Signing threads.
    #[arg(long, default_value_t = 1)]
    pub threads: usize,
    /// Sign with this key (a key, identity or certificate name) of the keychain
    /// (`--keychain`) instead of a fresh key of the `--sign` type.
    #[arg(long, value_name = "NAME", value_parser = parse_name)]
    pub key: Option<Name>,
    /// Serve pre-signed Data: each name is signed once and kept in memory.
    #[arg(long)]
    pub cache: bool,
    /// With --cache: sign `/<prefix>/seq=0..N` before serving.
    #[arg(long, default_value_t = 0, value_name = "N")]
    pub presign: u64,
    /// Report interval in seconds.
    #[arg(long, default_value_t = 1.0, value_name = "S")]
    pub interval: f64,
    /// Stop after this many seconds (default: run until interrupted).
    #[arg(long, value_name = "S")]
    pub duration: Option<f64>,
    /// One JSON object per interval, then a summary; each with its signing
    /// and serving histograms (`sign_hist_ns`, `serve_hist_ns`: `[ns, count]`
    /// buckets) and `sign_busy_ns`.
    #[arg(long)]
    pub json: bool,
}

#[derive(Default, Clone, Copy)]
struct Snapshot {
    interests: u64,
    data: u64,
    signed: u64,
    busy_ns: u64,
    cpu: Duration,
    drops: u64,
    hits: u64,
}

/// Runs the server until `--duration` elapses or the connection closes.
pub async fn run(args: ServerArgs) -> anyhow::Result<()> {
    anyhow::ensure!(args.threads >= 1, "--threads must be at least 1");
    anyhow::ensure!(args.interval > 0.0, "--interval must be positive");
    let uri = args.connect.uri()?;
    let id = match &args.key {
        Some(k) => crate::tools::signing::Identity {
            signer: crate::tools::command_signer(args.connect.keychain.as_deref(), Some(k))?
                .ok_or_else(|| anyhow::anyhow!("--key {k}: no such key"))?,
            kind: args.sign,
            certificate: None,
            key_name: Some(k.clone()),
        },
        None => make_identity(args.sign, &args.prefix)?,
    };
    let payload: Bytes = (0..args.payload)
        .map(|i| (i * 7 + 13) as u8)
        .collect::<Vec<u8>>()
        .into();
    let freshness = Duration::from_millis(args.freshness);
    let signer = id.signer.clone();
    let make: Arc<MakeData> = Arc::new(move |name: &Name| {
        Data::builder(name.clone())
            .freshness(freshness)
            .content(payload.clone())
            .sign(signer.as_ref())
    });
    let cache = args.cache.then(|| Arc::new(DataCache::new(4_000_000)));
    if let Some(c) = &cache {
        for seq in 0..args.presign {
            let mut b = Name::builder();
            b.extend_name(&args.prefix).push_sequence(seq);
            let n = b.build();
            c.insert(&n, make(&n)?);
        }
    }
    let server = BatchedServer::register(&uri, &args.prefix, args.connect.command_signer()?)?
        .with_reconnect(args.connect.reconnect()?);
    let sink = server.sink();
    let stats = ServeStats::shared();
    let signers = Arc::new(start_signers(
        args.threads,
        sink,
        make,
        cache.clone(),
        stats.clone(),
    )?);
    if !args.json {
        println!(
            "perf server on {} prefix {} payload {} B sign {} threads {}{}",
            uri,
            args.prefix,
            args.payload,
            args.sign,
            args.threads,
            if args.cache { " cache" } else { "" }
        );
        println!(
            "{:>7} {:>10} {:>10} {:>9} {:>11} {:>9} {:>10} {:>6} {:>7}  limit",
            "time_s",
            "Interest/s",
            "Data/s",
            "Mbit/s",
            "sign_us/pkt",
            "sign_busy",
            "serve_p50",
            "cpu%",
            "drops"
        );
    }

    let answer = PerfAnswer {
        certificate: id.key_name.clone().zip(id.certificate.clone()),
        cache: cache.clone(),
        signers: signers.clone(),
    };
    let served = server.served();
    let stop = Arc::new(AtomicBool::new(false));
    let s = stop.clone();
    let serving = std::thread::spawn(move || server.run(answer, None, &s));
    let start = Instant::now();
    let interval = Duration::from_secs_f64(args.interval);
    let snap = || {
        let t = signers.totals();
        Snapshot {
            interests: served.interests.load(Relaxed),
            data: served.data.load(Relaxed) + served.handed_off.load(Relaxed),
            signed: t.signed,
            busy_ns: t.busy.as_nanos() as u64,
            cpu: cpu::process_time(),
            drops: signers.dropped(),
            hits: cache.as_ref().map_or(0, |c| c.hits.load(Relaxed)),
        }
    };
    let take = || stats.lock().unwrap_or_else(|e| e.into_inner()).clone();
    let first = snap();
    let mut prev = first;
    let first_stats = take();
    let mut prev_stats = first_stats.clone();
    let mut tick = tokio::time::interval_at(tokio::time::Instant::now() + interval, interval);
    let mut last_t = Instant::now();
    loop {
        tick.tick().await;
        let now = Instant::now();
        let dt = now - last_t;
        last_t = now;
        let s = snap();
        let cur_stats = take();
        let mut r = Row::new(&prev, &s, dt, args.payload, args.threads);
        r.recorded = cur_stats.since(&prev_stats);
        r.serve = r.recorded.summary(dt.as_secs_f64());
        r.secs = dt.as_secs_f64();
        prev = s;
        prev_stats = cur_stats;
        let t = start.elapsed().as_secs_f64();
        if args.json {
            print_json(&r.json("interval", t));
        } else {
            r.print(t);
        }
        if serving.is_finished() {
            break;
        }
        if args.duration.is_some_and(|d| t >= d) {
            break;
        }
    }
    let mut total = Row::new(&first, &prev, start.elapsed(), args.payload, args.threads);
    total.secs = start.elapsed().as_secs_f64();
    total.recorded = prev_stats.since(&first_stats);
    total.serve = total.recorded.summary(total.secs);
    if args.json {
        print_json(&total.json("summary", start.elapsed().as_secs_f64()));
    } else {
        println!("--- summary over {:.1} s", start.elapsed().as_secs_f64());
        total.print(start.elapsed().as_secs_f64());
    }
    // stops serving; its outcome was reported above
    stop.store(true, Relaxed);
    match tokio::task::spawn_blocking(move || serving.join()).await {
        Ok(Ok(Err(e))) => Err(e),
        _ => Ok(()),
    }
}

struct Row {
    interests_ps: f64,
    data_ps: f64,
    mbps: f64,
    sign_us: f64,
    sign_busy: f64,
    threads: usize,
    cpu_pct: f64,
    drops: u64,
    hits: u64,
    /// Seconds the row covers.
    secs: f64,
    /// Signing and serving times over the row.
    serve: ServeSummary,
    /// What they are computed from.
    recorded: ServeStats,
}

impl Row {
    fn new(a: &Snapshot, b: &Snapshot, dt: Duration, payload: usize, threads: usize) -> Row {
        let secs = dt.as_secs_f64().max(1e-9);
        let data = b.data - a.data;
        let signed = b.signed - a.signed;
        let busy = (b.busy_ns - a.busy_ns) as f64 / 1e9;
        let sign_busy = busy / (secs * threads as f64);
        Row {
            interests_ps: (b.interests - a.interests) as f64 / secs,
            data_ps: data as f64 / secs,
            mbps: mbps(data * payload as u64, dt),
            sign_us: if signed > 0 {
                busy * 1e6 / signed as f64
            } else {
                0.0
            },
            sign_busy,
            threads,
            cpu_pct: (b.cpu - a.cpu).as_secs_f64() / secs * 100.0,
            drops: b.drops - a.drops,
            hits: b.hits - a.hits,
            secs,
            serve: ServeSummary::default(),
            recorded: ServeStats::default(),
        }
    }

    fn limit(&self) -> String {
        if self.data_ps == 0.0 && self.interests_ps == 0.0 {
            return "idle: no Interests".into();
        }
        if self.sign_busy >= SATURATED {
            return format!(
                "server signing saturated {}/{} threads",
                self.threads, self.threads
            );
        }
        let cores = std::thread::available_parallelism().map_or(1, |n| n.get()) as f64;
        if self.cpu_pct >= SATURATED * 100.0 * cores {
            return format!("server CPU saturated ({:.0}%)", self.cpu_pct);
        }
        if self.drops > 0 {
            return format!("server queue overflow: {} Interests dropped", self.drops);
        }
        format!(
            "not server-bound ({} signing thread(s) {:.0}% busy): clients or forwarder limit",
            self.threads,
            self.sign_busy * 100.0
        )
    }

    fn print(&self, t: f64) {
        println!(
            "{:>7.1} {:>10.0} {:>10.0} {:>9.1} {:>11.1} {:>8.0}% {:>10.1} {:>6.0} {:>7}  {}",
            t,
            self.interests_ps,
            self.data_ps,
            self.mbps,
            self.sign_us,
            self.sign_busy * 100.0,
            self.serve.serve_p50_us,
            self.cpu_pct,
            self.drops,
            self.limit()
        );
    }

    fn json(&self, kind: &str, t: f64) -> serde_json::Value {
        let at_unix_s = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0.0, |d| d.as_secs_f64());
        let s = &self.serve;
        let mut v = json!({
            "interval_s": self.secs, "at_unix_s": at_unix_s, "signed": s.signed,
            "sign_us_mean": s.sign_mean_us, "sign_us_p50": s.sign_p50_us, "sign_us_p99": s.sign_p99_us,
            "sign_cores": s.sign_cores, "served": s.served, "serve_us_mean": s.serve_mean_us,
            "serve_us_p50": s.serve_p50_us, "serve_us_p99": s.serve_p99_us,
            "type": kind, "time_s": t, "interests_per_s": self.interests_ps, "data_per_s": self.data_ps,
            "mbps": self.mbps, "sign_us_per_packet": self.sign_us, "sign_busy": self.sign_busy,
            "sign_threads": self.threads, "cpu_percent": self.cpu_pct, "drops": self.drops,
            "cache_hits": self.hits, "limit": self.limit(),
        });
        if let (Some(v), serde_json::Value::Object(h)) = (v.as_object_mut(), self.recorded.json()) {
            v.extend(h);
        }
        v
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn snap(interests: u64, signed: u64, busy_ms: u64) -> Snapshot {
        Snapshot {
            interests,
            data: signed,
            signed,
            busy_ns: busy_ms * 1_000_000,
            ..Default::default()
        }
    }

    #[test]
    fn limit_names_saturated_signing() {
        // 2 threads busy 1.9 s out of 2 thread-seconds
        let r = Row::new(
            &snap(0, 0, 0),
            &snap(5000, 5000, 1900),
            Duration::from_secs(1),
            8192,
            2,
        );
        assert_eq!(r.limit(), "server signing saturated 2/2 threads");
        assert!((r.sign_us - 380.0).abs() < 1e-6);
        assert!((r.mbps - 5000.0 * 8192.0 * 8.0 / 1e6).abs() < 1e-6);
        let r = Row::new(
            &snap(0, 0, 0),
            &snap(5000, 5000, 500),
            Duration::from_secs(1),
            8192,
            2,
        );
        assert!(
            r.limit()
                .starts_with("not server-bound (2 signing thread(s) 25% busy)"),
            "{}",
            r.limit()
        );
        let r = Row::new(
            &snap(7, 7, 0),
            &snap(7, 7, 0),
            Duration::from_secs(1),
            8192,
            1,
        );
        assert_eq!(r.limit(), "idle: no Interests");
    }
}
