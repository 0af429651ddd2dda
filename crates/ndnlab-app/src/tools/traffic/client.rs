//! `ndnlab traffic client`: open-loop Interests; per-pattern outcomes.
//!
//! Every count is of the Interests sent after `--warmup` (or from the Unix
//! time `--window-at`, turned once into the client's monotonic clock at its
//! start), with their outcomes whenever they come (the client waits a
//! lifetime for the last). With
//! `--json`, each pattern's row and the summary carry the delivery-time
//! histogram, `delivery_hist_us`: `[µs, count]` buckets
//! ([`crate::stats::buckets`]) that add up exactly over patterns and clients.

use std::time::{Duration, Instant};

use ndnlab_wire::Interest;
use rand::{Rng, SeedableRng};
use serde::Serialize;
use tokio::sync::mpsc;

use super::pattern::{choose, normalize, Arrival, Pattern};
use crate::client::{Outcome, Waiter};
use crate::stats::Latency;
use crate::tools::popularity::Popularity;
use crate::tools::wall_clock::instant_now_at;
use crate::tools::{print_json, ConnectArgs};

/// Options of `ndnlab traffic client`.
#[derive(Debug, Clone, clap::Args)]
pub struct ClientArgs {
    #[command(flatten)]
    pub connect: ConnectArgs,
    /// An Interest pattern (repeatable):
    /// `name=/p,percent=50,components=6,distinct=1000,payload=1024,fresh=false,prefix=false,lifetime=2000`.
    #[arg(long = "pattern", required = true, value_parser = Pattern::parse)]
    pub patterns: Vec<Pattern>,
    /// Arrival process: poisson, constant or burst.
    #[arg(long, default_value = "poisson", value_parser = ["poisson", "constant", "burst"])]
    pub arrival: String,
    /// Mean Interests per second, over all patterns.
    #[arg(long, default_value_t = 100.0)]
    pub rate: f64,
    /// Interests per burst (with --arrival burst).
    #[arg(long, default_value_t = 10)]
    pub burst_size: u32,
    /// Stop sending after this many Interests.
    #[arg(long)]
    pub count: Option<u64>,
    /// Stop sending after this many seconds.
    #[arg(long, default_value_t = 10.0, value_name = "S")]
    pub duration: f64,
    /// Send, but leave out of the statistics, the Interests of the first S
    /// seconds (caches and windows settle before the measurement).
    #[arg(long, default_value_t = 0.0, value_name = "S")]
    pub warmup: f64,
    /// Instead of --warmup: count the Interests sent from this Unix time
    /// (seconds, the system clock's; several clients on one machine share
    /// it), read once against the client's monotonic clock at its start.
    #[arg(long, value_name = "UNIX_S", conflicts_with = "warmup",
        value_parser = crate::tools::wall_clock::parse_unix_secs)]
    pub window_at: Option<f64>,
    /// With --window-at: stop sending S seconds after it (instead of at
    /// --duration from the client's start).
    #[arg(long, value_name = "S", requires = "window_at")]
    pub window_secs: Option<f64>,
    /// Draw names with Zipf(S) popularity over the names of every pattern,
    /// ranked pattern by pattern in the order given (a pattern's first name
    /// the most popular of it); the percentages are then not used. 0 draws
    /// uniformly over them all.
    #[arg(long, value_name = "S")]
    pub zipf: Option<f64>,
    /// RNG seed (default: random).
    #[arg(long)]
    pub seed: Option<u64>,
    /// Per-pattern statistics as JSON, then a summary; each with its
    /// delivery-time histogram, `delivery_hist_us` (`[µs, count]` buckets).
    #[arg(long)]
    pub json: bool,
    /// No table.
    #[arg(short = 'q', long)]
    pub quiet: bool,
}

/// Statistics of one pattern.
#[derive(Debug, Clone, Serialize)]
pub struct PatternStats {
    pub pattern: usize,
    pub name: String,
    pub sent: u64,
    pub satisfied: u64,
    pub nacked: u64,
    pub timeouts: u64,
    /// Content bytes of the Data received.
    pub bytes: u64,
    pub satisfaction_ratio: f64,
    pub delivery_mean_ms: f64,
    pub delivery_p50_ms: f64,
    pub delivery_p99_ms: f64,
    pub delivery_max_ms: f64,
    /// The delivery times' histogram: `[µs, count]` buckets.
    pub delivery_hist_us: Vec<[u64; 2]>,
}

struct Acc {
    sent: u64,
    satisfied: u64,
    nacked: u64,
    timeouts: u64,
    bytes: u64,
    delivery: Latency,
}

/// Runs the generator; returns per-pattern statistics.
pub async fn run(mut args: ClientArgs) -> anyhow::Result<Vec<PatternStats>> {
    normalize(&mut args.patterns).map_err(anyhow::Error::msg)?;
    anyhow::ensure!(args.rate > 0.0, "--rate must be positive");
    anyhow::ensure!(args.burst_size >= 1, "--burst-size must be at least 1");
    let arrival = match args.arrival.as_str() {
        "constant" => Arrival::Constant { rate: args.rate },
        "burst" => Arrival::Burst {
            rate: args.rate,
            size: args.burst_size,
        },
        _ => Arrival::Poisson { rate: args.rate },
    };
    anyhow::ensure!(args.warmup >= 0.0, "--warmup must not be negative");
    anyhow::ensure!(
        args.window_secs.is_none_or(|s| s > 0.0 && s.is_finite()),
        "--window-secs must be positive"
    );
    let draw = match args.zipf {
        Some(s) => Some(
            Popularity::new(args.patterns.iter().map(|p| p.distinct).collect(), s)
                .map_err(anyhow::Error::msg)?,
        ),
        None => None,
    };
    let seed = args.seed.unwrap_or_else(rand::random);
    let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
    let client = args.connect.connect().await?;
    let mut acc: Vec<Acc> = args
        .patterns
        .iter()
        .map(|_| Acc {
            sent: 0,
            satisfied: 0,
            nacked: 0,
            timeouts: 0,
            bytes: 0,
            delivery: Latency::default(),
        })
        .collect();
    // tag: the pattern, and whether the Interest is counted (after --warmup)
    let (tx, mut rx) = mpsc::unbounded_channel::<(u64, Outcome)>();
    let start = tokio::time::Instant::now();
    let (counted_from, stop_at) = match args.window_at {
        Some(at) => {
            let open = tokio::time::Instant::from_std(instant_now_at("--window-at", at)?);
            let stop = match args.window_secs {
                Some(secs) => open + Duration::from_secs_f64(secs),
                None => start + Duration::from_secs_f64(args.duration),
            };
            (open, stop)
        }
        None => (
            start + Duration::from_secs_f64(args.warmup),
            start + Duration::from_secs_f64(args.duration),
        ),
    };
    let mut uncounted = 0u64;
    let mut next = start;
    let mut sent = 0u64;
    let mut done = 0u64;
    let max_lifetime = args
        .patterns
        .iter()
        .map(|p| p.lifetime_ms)
        .max()
        .unwrap_or(4000);
    let mut sending = true;
    let mut drain_until = None;
    loop {
        if sending
            && (args.count.is_some_and(|c| sent >= c) || tokio::time::Instant::now() >= stop_at)
        {
            sending = false;
            drain_until = Some(tokio::time::Instant::now() + drain_wait(max_lifetime));
        }
        if !sending && done >= sent {
            break;
        }
        let wake = if sending {
            next
        } else {
            drain_until.unwrap_or(next)
        };
        tokio::select! {
            _ = tokio::time::sleep_until(wake) => {
                if !sending {
                    break;
                }
                let (n, gap) = arrival.next(&mut rng);
                for _ in 0..n {
                    if args.count.is_some_and(|c| sent >= c) {
                        break;
                    }
                    let (k, id) = match &draw {
                        Some(d) => d.draw(rng.gen()),
                        None => {
                            let k = choose(&args.patterns, &mut rng);
                            (k, rng.gen_range(0..args.patterns[k].distinct))
                        }
                    };
                    let p = &args.patterns[k];
                    let counted = tokio::time::Instant::now() >= counted_from;
                    let interest = Interest::builder(p.name_for(id))
                        .must_be_fresh(p.must_be_fresh)
                        .can_be_prefix(p.can_be_prefix)
                        .lifetime_ms(p.lifetime_ms)
                        .nonce(rng.gen())
                        .build_view()?;
                    let tag = ((k as u64) << 1) | u64::from(counted);
                    client.express_with(interest, Waiter::Sink { tag, tx: tx.clone() }).await?;
                    if counted {
                        acc[k].sent += 1;
                    } else {
                        uncounted += 1;
                    }
                    sent += 1;
                }
                next += gap;
            }
            m = rx.recv() => {
                let Some((tag, o)) = m else { break };
                done += 1;
                if tag & 1 == 0 {
                    continue;
                }
                let a = &mut acc[(tag >> 1) as usize];
                match o {
                    Outcome::Data(r) => {
                        a.satisfied += 1;
                        a.bytes += r.data.content_slice().len() as u64;
                        a.delivery.record(r.rtt);
                    }
                    Outcome::Nack(_) => a.nacked += 1,
                    Outcome::Timeout => a.timeouts += 1,
                }
            }
        }
    }
    let elapsed = start.elapsed();
    let stats: Vec<PatternStats> = acc
        .iter()
        .enumerate()
        .map(|(i, a)| {
            let s = a.delivery.summary();
            PatternStats {
                pattern: i,
                name: args.patterns[i].name.to_string(),
                sent: a.sent,
                satisfied: a.satisfied,
                nacked: a.nacked,
                timeouts: a.timeouts,
                bytes: a.bytes,
                satisfaction_ratio: if a.sent == 0 {
                    0.0
                } else {
                    a.satisfied as f64 / a.sent as f64
                },
                delivery_mean_ms: s.mean_ms,
                delivery_p50_ms: s.p50_ms,
                delivery_p99_ms: s.p99_ms,
                delivery_max_ms: s.max_ms,
                delivery_hist_us: a.delivery.buckets(),
            }
        })
        .collect();
    if args.json {
        for s in &stats {
            let mut v = serde_json::to_value(s)?;
            v["type"] = "pattern".into();
            print_json(&v);
        }
        let sum = |f: fn(&PatternStats) -> u64| stats.iter().map(f).sum::<u64>();
        let mut all = Latency::default();
        for a in &acc {
            all.merge(&a.delivery);
        }
        print_json(&serde_json::json!({
            "type": "summary", "seed": seed, "arrival": args.arrival, "rate": args.rate,
            "sent": sent - uncounted, "satisfied": sum(|s| s.satisfied),
            "nacked": sum(|s| s.nacked), "timeouts": sum(|s| s.timeouts),
            "bytes": sum(|s| s.bytes), "warmup_sent": uncounted,
            "time_s": elapsed.as_secs_f64(), "unanswered_at_exit": sent - done,
            "delivery_hist_us": all.buckets(),
        }));
    } else if !args.quiet {
        println!(
            "traffic: {} arrivals at {} Interest/s, seed {}, {:.1} s",
            args.arrival,
            args.rate,
            seed,
            elapsed.as_secs_f64()
        );
        println!(
            "{:>3} {:<24} {:>8} {:>9} {:>7} {:>8} {:>7} {:>9} {:>8} {:>8}",
            "#",
            "pattern",
            "sent",
            "satisfied",
            "nacked",
            "timeouts",
            "ratio%",
            "mean_ms",
            "p50_ms",
            "p99_ms"
        );
        for s in &stats {
            println!(
                "{:>3} {:<24} {:>8} {:>9} {:>7} {:>8} {:>7.2} {:>9.3} {:>8.3} {:>8.3}",
                s.pattern,
                s.name,
                s.sent,
                s.satisfied,
                s.nacked,
                s.timeouts,
                s.satisfaction_ratio * 100.0,
                s.delivery_mean_ms,
                s.delivery_p50_ms,
                s.delivery_p99_ms
            );
        }
    }
    let _ = Instant::now();
    Ok(stats)
}

/// How long the client waits for answers once it stops sending: the longest
/// InterestLifetime of its patterns and half a second, at most the client PIT's
/// longest wait (a lifetime of up to 2^64-1 ms neither overflows nor wraps).
fn drain_wait(max_lifetime_ms: u64) -> Duration {
    Duration::from_millis(max_lifetime_ms.saturating_add(500)).min(crate::client::pit::LONGEST_WAIT)
}

#[cfg(test)]
mod drain_tests {
    use super::*;

    #[test]
    fn the_drain_wait_clamps_the_longest_lifetimes() {
        assert_eq!(drain_wait(0), Duration::from_millis(500));
        assert_eq!(drain_wait(4000), Duration::from_millis(4500));
        let longest = crate::client::pit::LONGEST_WAIT;
        for ms in [i64::MAX as u64, u64::MAX - 499, u64::MAX] {
            assert_eq!(drain_wait(ms), longest, "{ms} ms");
            // what the client adds it to
            let _ = tokio::time::Instant::now() + drain_wait(ms);
        }
    }
}
