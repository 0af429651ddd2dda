//! `ndnlab perf client`: one windowed pipeline per flow, periodic reports.
//!
//! An interval's row counts what happened in it (a Data may answer an Interest
//! of the interval before); its round-trip times are Karn's (no retransmitted
//! segment). With `--window-start` (from the client's start) or `--window-at`
//! (a Unix time, turned into the client's own monotonic clock once at its
//! start) and `--window-secs` the client also counts
//! the Interests it sent inside that window and their outcomes, whenever they
//! come ([`super::window`]), and reports them in a `window` row. With `--json`
//! the window row and the summary carry their round-trip histogram as
//! `rtt_hist_us`: `[µs, count]` buckets ([`crate::stats::buckets`]) that add
//! up exactly over clients.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering::Relaxed};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use ndnlab_cputime as cpu;
use ndnlab_wire::{Interest, Name};
use serde_json::json;

use super::batched::{self, Batched};
use super::window::Opening;
use super::{DEFAULT_PREFIX, SATURATED};
use crate::client::burst::BurstConn;
use crate::client::{Client, FaceUri, Outcome};
use crate::pipeline::{FetchOptions, NackKind, RttOptions, WindowKind, WindowOptions};
use crate::stats::{mbps, Latency};
use crate::tools::popularity::Popularity;
use crate::tools::verify::DataVerifier;
use crate::tools::wall_clock::instant_now_at;
use crate::tools::{parse_name, print_json, ConnectArgs};

/// Options of `ndnlab perf client`.
#[derive(Debug, Clone, clap::Args)]
pub struct ClientArgs {
    #[command(flatten)]
    pub connect: ConnectArgs,
    /// Prefix the server serves; repeat it to ask for the names under several
    /// prefixes (with --names, N names under each, ranked prefix by prefix).
    #[arg(long, default_value = DEFAULT_PREFIX, value_parser = parse_name, action = clap::ArgAction::Append)]
    pub prefix: Vec<Name>,
    /// Seconds to run.
    #[arg(long, default_value_t = 10.0, value_name = "S")]
    pub duration: f64,
    /// Fixed window: Interests outstanding per flow.
    #[arg(long, default_value_t = 8, value_name = "N", conflicts_with = "cc")]
    pub window: usize,
    /// Congestion control instead of a fixed window.
    #[arg(long, value_parser = ["aimd", "cubic"])]
    pub cc: Option<String>,
    /// Initial window of --cc.
    #[arg(long, default_value_t = 2.0)]
    pub init_cwnd: f64,
    /// Largest window of --cc.
    #[arg(long, default_value_t = 65536.0, value_name = "N")]
    pub max_cwnd: f64,
    /// Do not react to congestion marks.
    #[arg(long)]
    pub ignore_marks: bool,
    /// Report interval in seconds.
    #[arg(long, default_value_t = 1.0, value_name = "S")]
    pub interval: f64,
    /// Parallel flows, each with its own window.
    #[arg(long, default_value_t = 1)]
    pub flows: usize,
    /// InterestLifetime in milliseconds.
    #[arg(long, default_value_t = 4000, value_name = "MS")]
    pub lifetime: u64,
    /// Lower bound of the retransmission timeout, in milliseconds.
    #[arg(long, default_value_t = 200, value_name = "MS")]
    pub min_rto: u64,
    /// Cycle through N distinct names (to exercise `perf server --cache`).
    #[arg(long, value_name = "N")]
    pub names: Option<u64>,
    /// Draw each name at random among the --names names (of every --prefix)
    /// with Zipf(S) popularity, the first names the most popular; 0 draws them
    /// uniformly. A retransmission asks for the name its Interest did.
    #[arg(long, value_name = "S", requires = "names")]
    pub zipf: Option<f64>,
    /// Seed of the --zipf draws (default: random).
    #[arg(long, requires = "zipf")]
    pub seed: Option<u64>,
    /// Stop once N Interests (over all flows, retransmissions aside) are
    /// answered, and report; the summary's `finished_s` is when the last came.
    #[arg(short = 'c', long, value_name = "N")]
    pub count: Option<u64>,
    /// Send Interests without MustBeFresh (a cache may answer with Data past
    /// its FreshnessPeriod).
    #[arg(long)]
    pub no_fresh: bool,
    /// Verify every Data's signature: DigestSha256, or the server's key (the
    /// certificate its KeyLocator names, fetched once before the run). Data that
    /// fail are counted as `rejected`, not as Data, and make the run fail.
    #[arg(long)]
    pub verify: bool,
    /// With --verify: accept only Data signed by this certificate's key (a
    /// certificate file, binary or base64); implies --verify.
    #[arg(long, value_name = "CERTFILE")]
    pub trust_anchor: Option<std::path::PathBuf>,
    /// Count the Interests sent from S seconds after the client's start
    /// (its first Interest) for --window-secs, each with its outcome whenever
    /// it comes, and report them (a `window` row with --json); the client then
    /// stops sending at --duration (at the window's close, if later) and
    /// waits, up to a lifetime, for the answers to the window's Interests.
    #[arg(long, value_name = "S", requires = "window_secs")]
    pub window_start: Option<f64>,
    /// Like --window-start, but the window opens at this Unix time (seconds,
    /// the system clock's; several clients on one machine share it), read
    /// once against the client's monotonic clock at its start. A window
    /// opened before the client started is counted from its start; the
    /// client sends until the window's close even past --duration.
    #[arg(long, value_name = "UNIX_S", requires = "window_secs", conflicts_with = "window_start",
        value_parser = crate::tools::wall_clock::parse_unix_secs)]
    pub window_at: Option<f64>,
    /// The length of that window, in seconds (with --window-start or
    /// --window-at).
    #[arg(long, value_name = "S")]
    pub window_secs: Option<f64>,
    /// One JSON object per interval, then the window's (with --window-start
    /// or --window-at; its `window_start_s` from the client's start, negative
    /// for a window opened before it, and with --window-at `window_at_unix_s`),
    /// then a summary; those two with their round-trip histogram,
    /// `rtt_hist_us` (`[µs, count]` buckets).
    #[arg(long)]
    pub json: bool,
}

#[derive(Default)]
pub(super) struct Counts {
    pub data: u64,
    pub bytes: u64,
    pub sent: u64,
    pub retx: u64,
    pub timeouts: u64,
    pub nacks: u64,
    pub marks: u64,
    pub rtt: Latency,
    /// Data whose signature did not verify (`--verify`), and the first reason.
    pub rejected: u64,
    pub first_rejection: Option<String>,
}

impl Counts {
    pub fn add(&mut self, o: &Counts) {
        self.data += o.data;
        self.bytes += o.bytes;
        self.sent += o.sent;
        self.retx += o.retx;
        self.timeouts += o.timeouts;
        self.nacks += o.nacks;
        self.marks += o.marks;
        self.rtt.merge(&o.rtt);
        self.rejected += o.rejected;
        if self.first_rejection.is_none() {
            self.first_rejection.clone_from(&o.first_rejection);
        }
    }
}

/// Window and in-flight gauges of one flow (for the limit statement).
#[derive(Default)]
pub(super) struct Gauge {
    pub in_flight: AtomicU64,
    pub window: AtomicU64,
    pub full_samples: AtomicU64,
    pub samples: AtomicU64,
}

/// Runs the client; returns the summary as JSON.
pub async fn run(args: ClientArgs) -> anyhow::Result<serde_json::Value> {
    anyhow::ensure!(args.flows >= 1, "--flows must be at least 1");
    anyhow::ensure!(args.window >= 1, "--window must be at least 1");
    anyhow::ensure!(args.count != Some(0), "--count must be positive");
    anyhow::ensure!(args.names != Some(0), "--names must be positive");
    let draw = match args.zipf {
        Some(s) => {
            let n = args.names.unwrap_or(1);
            let p = Popularity::new(vec![n; args.prefix.len()], s).map_err(anyhow::Error::msg)?;
            Some((p, args.seed.unwrap_or_else(rand::random)))
        }
        None => None,
    };
    anyhow::ensure!(
        args.interval > 0.0 && args.duration > 0.0,
        "--interval and --duration must be positive"
    );
    let window = match (args.window_start, args.window_at, args.window_secs) {
        (None, None, None) => None,
        (_, _, None) => anyhow::bail!("--window-start and --window-at need --window-secs"),
        (None, None, Some(_)) => anyhow::bail!("--window-secs needs --window-start or --window-at"),
        (Some(_), Some(_), _) => anyhow::bail!("--window-start and --window-at exclude each other"),
        (Some(start), None, Some(secs)) => {
            anyhow::ensure!(
                start >= 0.0 && secs > 0.0 && (start + secs).is_finite(),
                "--window-start must not be negative and --window-secs must be positive"
            );
            let open = Opening::AfterStart(Duration::from_secs_f64(start));
            Some((open, Duration::from_secs_f64(secs)))
        }
        (None, Some(at), Some(secs)) => {
            anyhow::ensure!(
                secs > 0.0 && secs.is_finite(),
                "--window-secs must be positive"
            );
            let open = Opening::At(instant_now_at("--window-at", at)?);
            Some((open, Duration::from_secs_f64(secs)))
        }
    };
    let window_counts = Arc::new(Mutex::new(None));
    let uri = args.connect.uri()?;
    let verifier_on = args.verify || args.trust_anchor.is_some();
    let kind = match args.cc.as_deref() {
        Some("aimd") => WindowKind::Aimd,
        Some("cubic") => WindowKind::Cubic,
        _ => WindowKind::Fixed,
    };
    let opts = FetchOptions {
        window: WindowOptions {
            kind,
            fixed_size: args.window,
            init_cwnd: args.init_cwnd,
            max_cwnd: args.max_cwnd,
            ..Default::default()
        },
        rtt: RttOptions {
            min_rto: Duration::from_millis(args.min_rto),
            ..Default::default()
        },
        max_retries: None,
        ignore_marks: args.ignore_marks,
        disable_cwa: false,
    };
    let verifier = if args.verify || args.trust_anchor.is_some() {
        Some(Arc::new(learn_server_key(&args, &uri).await?))
    } else {
        None
    };
    let shared = Arc::new(Mutex::new(Counts::default()));
    let gauges: Arc<Vec<Gauge>> = Arc::new((0..args.flows).map(|_| Gauge::default()).collect());
    let deadline = Instant::now() + Duration::from_secs_f64(args.duration);
    let done = Arc::new(AtomicBool::new(false));
    let finished = Arc::new(Mutex::new(None));
    let conn = BurstConn::connect(&uri)?;
    let b = Batched {
        prefixes: args.prefix.clone(),
        flows: args.flows,
        names: args.names,
        draw,
        count: args.count,
        must_be_fresh: !args.no_fresh,
        finished: finished.clone(),
        lifetime: args.lifetime,
        opts,
        shared: shared.clone(),
        gauges: gauges.clone(),
        deadline,
        done: done.clone(),
        verifier,
        window,
        window_counts: window_counts.clone(),
    };
    let driver = std::thread::Builder::new()
        .name("perf-client".into())
        .spawn(move || batched::run(conn, b))?;
    if !args.json {
        let w = match kind {
            WindowKind::Fixed => format!("window {}", args.window),
            k => format!("cc {k}"),
        };
        println!(
            "perf client on {} prefix {} {} flows {} duration {} s",
            uri,
            prefixes(&args.prefix),
            w,
            args.flows,
            args.duration
        );
        println!(
            "{:>7} {:>9} {:>9} {:>9} {:>8} {:>8} {:>7} {:>6} {:>6} {:>6}  limit",
            "time_s",
            "Mbit/s",
            "Data/s",
            "rtt_mean",
            "rtt_p50",
            "rtt_p99",
            "loss%",
            "nacks",
            "marks",
            "retx"
        );
    }
    let start = Instant::now();
    let interval = Duration::from_secs_f64(args.interval);
    let mut tick = tokio::time::interval_at(tokio::time::Instant::now() + interval, interval);
    let mut total = Counts::default();
    let mut cpu_prev = cpu::process_time();
    let mut last = Instant::now();
    let ctx = LimitCtx {
        kind,
        window: args.window,
        flows: args.flows,
        total_full: AtomicU64::new(0),
        total_samples: AtomicU64::new(0),
        base_rtt_us: AtomicU64::new(u64::MAX),
    };
    loop {
        tick.tick().await;
        let now = Instant::now();
        let dt = now - last;
        last = now;
        let c = std::mem::take(&mut *shared.lock().expect("stats lock"));
        let cpu = cpu::process_time();
        let cpu_pct = (cpu - cpu_prev).as_secs_f64() / dt.as_secs_f64() * 100.0;
        cpu_prev = cpu;
        let limit = ctx.limit(&c, &gauges, cpu_pct, false);
        let t = start.elapsed().as_secs_f64();
        if args.json {
            print_json(&row_json("interval", t, dt, &c, cpu_pct, &limit));
        } else {
            print_row(t, dt, &c, &limit);
        }
        total.add(&c);
        if now >= deadline || done.load(Relaxed) {
            break;
        }
    }
    let r = tokio::task::spawn_blocking(move || driver.join())
        .await
        .map_err(|e| anyhow::anyhow!("{e}"))?;
    match r {
        Ok(Ok(())) => {}
        Ok(Err(e)) => anyhow::bail!("connection to {uri}: {e}"),
        Err(_) => anyhow::bail!("the perf client thread panicked"),
    }
    let rest = std::mem::take(&mut *shared.lock().expect("stats lock"));
    total.add(&rest);
    let counted = window_counts.lock().expect("window lock").take();
    if let (Some(w), Some((open, secs))) = (&counted, window) {
        // the opening in seconds from the client's start (negative: before it)
        let open_s = match open {
            Opening::AfterStart(d) => d.as_secs_f64(),
            Opening::At(at) if at >= start => (at - start).as_secs_f64(),
            Opening::At(at) => -(start - at).as_secs_f64(),
        };
        let limit = format!(
            "Interests sent from {open_s:.3} s for {:.3} s",
            secs.as_secs_f64()
        );
        let mut row = row_json("window", open_s + secs.as_secs_f64(), secs, w, 0.0, &limit);
        row["window_start_s"] = open_s.into();
        row["window_secs"] = secs.as_secs_f64().into();
        if let Some(at) = args.window_at {
            row["window_at_unix_s"] = at.into();
        }
        if args.json {
            print_json(&row);
        } else {
            let s = w.rtt.summary();
            println!(
                "--- window: {limit}: {} Interests, {} Data, {} Nacks, {} timeouts; rtt p50/p99 = {:.3}/{:.3} ms",
                w.sent, w.data, w.nacks, w.timeouts, s.p50_ms, s.p99_ms
            );
        }
    }
    let elapsed = start.elapsed();
    let cpu_pct = cpu::process_time().as_secs_f64() / elapsed.as_secs_f64() * 100.0;
    let limit = ctx.limit(&total, &gauges, cpu_pct, true);
    let mut summary = row_json(
        "summary",
        elapsed.as_secs_f64(),
        elapsed,
        &total,
        cpu_pct,
        &limit,
    );
    let finished_s = finished
        .lock()
        .expect("finish lock")
        .map(|t: Instant| t.duration_since(start).as_secs_f64());
    if args.count.is_some() {
        summary["finished_s"] = finished_s.into();
    }
    if args.json {
        print_json(&summary);
    } else {
        println!("--- summary over {:.1} s", elapsed.as_secs_f64());
        print_row(elapsed.as_secs_f64(), elapsed, &total, &limit);
        let s = total.rtt.summary();
        println!(
            "{} Data, {} Interests ({} retransmitted), {} timeouts, {} Nacks, {} marks; rtt min/avg/max = {:.3}/{:.3}/{:.3} ms",
            total.data, total.sent, total.retx, total.timeouts, total.nacks, total.marks, s.min_ms, s.mean_ms, s.max_ms
        );
        if let (Some(n), Some(t)) = (args.count, finished_s) {
            println!("{n} Interests answered in {t:.3} s");
        }
        if verifier_on {
            println!(
                "signatures verified: {} Data accepted, {} rejected",
                total.data, total.rejected
            );
        }
    }
    if total.rejected > 0 {
        anyhow::bail!(
            "{} of {} Data failed signature verification (first: {})",
            total.rejected,
            total.rejected + total.data,
            total.first_rejection.as_deref().unwrap_or("?")
        );
    }
    if total.data == 0 {
        anyhow::bail!(
            "no Data received: is `ndnlab perf server --prefix {}` running?",
            prefixes(&args.prefix)
        );
    }
    Ok(summary)
}

/// The `--verify` checker: the trust anchor, or else the server's certificate,
/// named by the KeyLocator of one Data fetched before the run.
async fn learn_server_key(args: &ClientArgs, uri: &FaceUri) -> anyhow::Result<DataVerifier> {
    let anchor = args
        .trust_anchor
        .as_deref()
        .map(DataVerifier::load_anchor)
        .transpose()?;
    let mut v = DataVerifier::new(anchor);
    if args.trust_anchor.is_some() {
        return Ok(v);
    }
    let client = Client::connect(uri).await?;
    let mut b = Name::builder();
    b.extend_name(&args.prefix[0])
        .push_sequence(rand::random::<u32>() as u64);
    let i = Interest::builder(b.build())
        .must_be_fresh(true)
        .nonce(rand::random())
        .lifetime_ms(args.lifetime)
        .build_view()?;
    match client.express(i).await? {
        Outcome::Data(r) => v.learn(&client, &r.data, args.lifetime).await?,
        other => anyhow::bail!(
            "--verify: no Data from {} to learn the server's key ({other:?}): is `ndnlab perf server` running?",
            args.prefix[0]
        ),
    }
    Ok(v)
}

/// The prefixes, for messages.
fn prefixes(p: &[Name]) -> String {
    p.iter().map(Name::to_string).collect::<Vec<_>>().join(",")
}

fn row_json(
    kind: &str,
    t: f64,
    dt: Duration,
    c: &Counts,
    cpu_pct: f64,
    limit: &str,
) -> serde_json::Value {
    let s = c.rtt.summary();
    let mut v = json!({
        "type": kind, "time_s": t, "mbps": mbps(c.bytes, dt),
        "data_per_s": c.data as f64 / dt.as_secs_f64().max(1e-9),
        "data": c.data, "bytes": c.bytes, "interests": c.sent, "retransmissions": c.retx,
        "rtt_mean_ms": s.mean_ms, "rtt_p50_ms": s.p50_ms, "rtt_p99_ms": s.p99_ms,
        "loss_percent": loss(c), "timeouts": c.timeouts, "nacks": c.nacks, "marks": c.marks,
        "rejected": c.rejected, "cpu_percent": cpu_pct, "limit": limit,
    });
    if kind != "interval" {
        v["rtt_hist_us"] = c.rtt.buckets().into();
    }
    v
}

fn loss(c: &Counts) -> f64 {
    if c.sent == 0 {
        0.0
    } else {
        c.timeouts as f64 * 100.0 / c.sent as f64
    }
}

fn print_row(t: f64, dt: Duration, c: &Counts, limit: &str) {
    let s = c.rtt.summary();
    println!(
        "{:>7.1} {:>9.1} {:>9.0} {:>9.3} {:>8.3} {:>8.3} {:>7.2} {:>6} {:>6} {:>6}  {}",
        t,
        mbps(c.bytes, dt),
        c.data as f64 / dt.as_secs_f64().max(1e-9),
        s.mean_ms,
        s.p50_ms,
        s.p99_ms,
        loss(c),
        c.nacks,
        c.marks,
        c.retx,
        limit
    );
}

struct LimitCtx {
    kind: WindowKind,
    window: usize,
    flows: usize,
    /// Window-full samples and all samples since the start (for the summary).
    total_full: AtomicU64,
    total_samples: AtomicU64,
    /// Smallest RTT sample of the run, in microseconds.
    base_rtt_us: AtomicU64,
}

impl LimitCtx {
    /// What limits the client over the last interval (`summary`: since the start).
    fn limit(&self, c: &Counts, gauges: &[Gauge], cpu_pct: f64, summary: bool) -> String {
        let (mut full, mut samples) = gauges.iter().fold((0, 0), |(f, s), g| {
            (
                f + g.full_samples.swap(0, Relaxed),
                s + g.samples.swap(0, Relaxed),
            )
        });
        full += self.total_full.fetch_add(full, Relaxed) * u64::from(summary);
        samples += self.total_samples.fetch_add(samples, Relaxed) * u64::from(summary);
        if c.data == 0 && c.sent == 0 {
            return "idle".into();
        }
        if c.data == 0 {
            return "no Data: server down or prefix unreachable".into();
        }
        if cpu_pct >= SATURATED * 100.0 {
            return format!("client CPU saturated ({cpu_pct:.0}%)");
        }
        if c.timeouts > 0 || c.nacks > 0 {
            return format!(
                "losses ({} timeouts, {} Nacks): server or forwarder overloaded",
                c.timeouts, c.nacks
            );
        }
        let cwnd: u64 = gauges.iter().map(|g| g.window.load(Relaxed)).sum();
        let rs = c.rtt.summary();
        let p50 = rs.p50_ms;
        // base RTT: the smallest sample seen so far (microseconds)
        let min_us = (rs.min_ms * 1000.0) as u64;
        let base_us = if min_us > 0 {
            self.base_rtt_us.fetch_min(min_us, Relaxed).min(min_us)
        } else {
            self.base_rtt_us.load(Relaxed)
        };
        let base = base_us as f64 / 1000.0;
        match self.kind {
            // a full window at the base RTT is the window's limit; a full
            // window with inflated RTTs means queueing downstream
            WindowKind::Fixed if samples > 0 && full * 10 >= samples * 9 && p50 <= 2.0 * base => format!(
                "window-bound: {}x{} outstanding at rtt {:.2} ms near base {:.2} ms (raise --window)",
                self.flows, self.window, p50, base
            ),
            WindowKind::Fixed if samples > 0 && full * 10 >= samples * 9 => format!(
                "server- or forwarder-bound: window full, rtt p50 {:.2} ms = {:.1}x base {:.2} ms (queueing)",
                p50,
                p50 / base.max(1e-6),
                base
            ),
            WindowKind::Fixed => "window not full: server or forwarder answers slower than requested".into(),
            _ if c.marks > 0 => format!("congestion marks ({}): cwnd {} at rtt {:.2} ms", c.marks, cwnd, p50),
            _ => format!("cwnd {cwnd} growing at rtt {p50:.2} ms"),
        }
    }
}

/// Maps a wire Nack reason to the pipeline's.
pub fn nack_kind(r: ndnlab_wire::NackReason) -> NackKind {
    match r {
        ndnlab_wire::NackReason::Congestion => NackKind::Congestion,
        ndnlab_wire::NackReason::Duplicate => NackKind::Duplicate,
        ndnlab_wire::NackReason::NoRoute => NackKind::NoRoute,
        _ => NackKind::Other,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ctx() -> LimitCtx {
        LimitCtx {
            kind: WindowKind::Fixed,
            window: 8,
            flows: 1,
            total_full: AtomicU64::new(0),
            total_samples: AtomicU64::new(0),
            base_rtt_us: AtomicU64::new(u64::MAX),
        }
    }

    fn counts(rtts_ms: &[u64]) -> Counts {
        let mut c = Counts {
            data: rtts_ms.len() as u64,
            sent: rtts_ms.len() as u64,
            ..Default::default()
        };
        for &r in rtts_ms {
            c.rtt.record(Duration::from_millis(r));
        }
        c
    }

    fn full_gauges() -> Vec<Gauge> {
        let g = Gauge::default();
        g.samples.store(10, Relaxed);
        g.full_samples.store(10, Relaxed);
        vec![g]
    }

    #[test]
    fn full_window_at_base_rtt_is_window_bound_and_inflated_rtt_is_not() {
        let c = ctx();
        let l = c.limit(&counts(&[1, 1, 1, 1]), &full_gauges(), 10.0, false);
        assert!(l.starts_with("window-bound: 1x8"), "{l}");
        let l = c.limit(&counts(&[5, 6, 6, 7]), &full_gauges(), 10.0, false);
        assert!(l.starts_with("server- or forwarder-bound"), "{l}");
        let l = c.limit(&counts(&[5, 6]), &full_gauges(), 95.0, false);
        assert!(l.starts_with("client CPU saturated"), "{l}");
        let mut lossy = counts(&[1]);
        lossy.timeouts = 3;
        assert!(c
            .limit(&lossy, &full_gauges(), 10.0, false)
            .starts_with("losses (3 timeouts"));
    }
}
