//! `ndnlab quickstart`: the main job, a quick default experiment run in-process.
//!
//! A consumer and a producer are attached to one sans-IO forwarder core through
//! in-memory faces; the consumer keeps a window of Interests in flight over a
//! catalogue of names, the producer answers each with fresh DigestSha256-signed
//! Data. The experiment is a 2^2 r factorial design (Jain, *The Art of Computer
//! Systems Performance Analysis*, ch. 18), the design seed 001 used for CCNx:
//!
//! * factor A, the Content Store: off (admit disabled) or on (LRU, 10% of the catalogue);
//! * factor B, popularity: uniform or Zipf(s = 1.0) over the catalogue;
//!
//! each cell replicated `r` times with its own seed. For every response
//! (exchanges/s of wall-clock time, CS hit ratio) it prints the effects with 95%
//! confidence intervals and the allocation of variation (`ndnlab-analysis`), and
//! writes `runs.csv` and `summary.json` (pandas reads both), `results.csv` in the
//! laboratory's contract and the HTML report `index.html` into `--out`.

use std::path::PathBuf;
use std::time::Instant;

use anyhow::Context;
use bytes::Bytes;
use clap::Args;
use indicatif::{ProgressBar, ProgressStyle};
use ndnlab_analysis::{analyze_two_level, Dataset, Table, Transform, TwoLevelAnalysis};
use ndnlab_core::{
    CsPolicyKind, FaceId, FaceScope, Forwarder, ForwarderConfig, LinkType, LpMeta, OutPacket, Time,
};
use ndnlab_wire::{DataBuilder, DigestSha256, Interest, Name};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use rand_distr::{Distribution, Zipf};
use serde::Serialize;

const CONSUMER: FaceId = FaceId(256);
const PRODUCER: FaceId = FaceId(257);

/// Run the quick default experiment (in-process, no configuration needed).
#[derive(Args, Debug)]
pub struct QuickstartArgs {
    /// Interest/Data exchanges per run.
    #[arg(long, default_value_t = 100_000, value_parser = clap::value_parser!(u64).range(1000..))]
    exchanges: u64,
    /// Replications per cell of the 2x2 design (r).
    #[arg(long, short = 'r', default_value_t = 3, value_parser = clap::value_parser!(u32).range(2..=30))]
    replications: u32,
    /// Distinct names the consumer requests.
    #[arg(long, default_value_t = 10_000, value_parser = clap::value_parser!(u64).range(10..))]
    catalog: u64,
    /// Interests kept in flight by the consumer.
    #[arg(long, default_value_t = 64, value_parser = clap::value_parser!(u32).range(1..=65536))]
    window: u32,
    /// Content payload size in bytes.
    #[arg(long, default_value_t = 100)]
    payload: usize,
    /// Zipf exponent of the "popular" level of factor B.
    #[arg(long, default_value_t = 1.0)]
    zipf: f64,
    /// First RNG seed (run i uses seed + i).
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Directory for runs.csv and summary.json.
    #[arg(long, default_value = "results/quickstart")]
    out: PathBuf,
    /// Print the summary as JSON instead of tables.
    #[arg(long)]
    json: bool,
}

/// One run's measurements.
#[derive(Debug, Clone, Serialize)]
struct Run {
    cs: &'static str,
    popularity: &'static str,
    replication: u32,
    seed: u64,
    exchanges: u64,
    seconds: f64,
    exchanges_per_sec: f64,
    cs_hit_ratio: f64,
    mean_latency_us: f64,
    cs_hits: u64,
    cs_misses: u64,
    producer_data: u64,
    drops: u64,
    /// Drops by reason (`drop=` labels); with one consumer face these are the
    /// strategy suppressing a second Interest for a name already pending.
    drops_by_reason: std::collections::BTreeMap<&'static str, u64>,
}

pub fn run(args: QuickstartArgs) -> anyhow::Result<()> {
    if !(args.zipf > 0.0 && args.zipf.is_finite()) {
        anyhow::bail!("--zipf must be a positive number, got {}", args.zipf);
    }
    if cfg!(debug_assertions) {
        eprintln!(
            "ndnlab: warning: debug build; throughput figures are not meaningful (use --release)"
        );
    }
    let cells = [
        ("off", "uniform"),
        ("on", "uniform"),
        ("off", "zipf"),
        ("on", "zipf"),
    ];
    let total = cells.len() as u64 * args.replications as u64;
    let bar = progress(total, args.json);
    let mut runs = Vec::new();
    let mut seed = args.seed;
    for rep in 0..args.replications {
        for &(cs, pop) in &cells {
            bar.set_message(format!("cs={cs} popularity={pop} rep={rep}"));
            runs.push(one_run(&args, cs, pop, rep, seed)?);
            seed += 1;
            bar.inc(1);
        }
    }
    bar.finish_and_clear();

    let throughput = analyse(&runs, "exchanges_per_sec", |r| r.exchanges_per_sec, &args)?;
    let hit_ratio = analyse(&runs, "cs_hit_ratio", |r| r.cs_hit_ratio, &args)?;
    write_results(&args.out, &runs, &[&throughput, &hit_ratio])?;
    let report = ndnlab_report::write_report(
        &args.out,
        &ndnlab_report::ReportOptions {
            factors: Some(vec!["cs".into(), "popularity".into()]),
            ..Default::default()
        },
    )?;
    if args.json {
        let summary = serde_json::json!({ "runs": runs, "responses": [throughput, hit_ratio] });
        println!("{}", serde_json::to_string_pretty(&summary)?);
    } else {
        print_runs(&runs);
        for r in [&throughput, &hit_ratio] {
            println!();
            print!("{}", ndnlab_report::text::two_level(r));
        }
        println!(
            "\nwrote {}, {} and {}",
            args.out.join("runs.csv").display(),
            args.out.join("summary.json").display(),
            report.display()
        );
    }
    Ok(())
}

fn progress(total: u64, quiet: bool) -> ProgressBar {
    if quiet || !std::io::IsTerminal::is_terminal(&std::io::stderr()) {
        return ProgressBar::hidden();
    }
    let bar = ProgressBar::new(total);
    bar.set_style(
        ProgressStyle::with_template("{bar:30} {pos}/{len} runs  {msg}")
            .expect("static template is valid"),
    );
    bar
}

/// The 2^2 r analysis of one response (Jain, ch. 18) by `ndnlab-analysis`.
fn analyse(
    runs: &[Run],
    name: &str,
    f: impl Fn(&Run) -> f64,
    args: &QuickstartArgs,
) -> anyhow::Result<TwoLevelAnalysis> {
    let zipf = format!("zipf({})", args.zipf);
    let table = Table::from_columns(&[
        ("cs", runs.iter().map(|r| r.cs.to_string()).collect()),
        (
            "popularity",
            runs.iter()
                .map(|r| match r.popularity {
                    "zipf" => zipf.clone(),
                    p => p.to_string(),
                })
                .collect(),
        ),
        (name, runs.iter().map(|r| f(r).to_string()).collect()),
    ])?;
    let ds = Dataset::from_table(&table, &["cs", "popularity"], name, Transform::None)?;
    Ok(analyze_two_level(&ds, 0.05)?)
}

/// Runs one cell replication: consumer -> forwarder core -> producer, all in memory.
fn one_run(
    args: &QuickstartArgs,
    cs: &'static str,
    pop: &'static str,
    rep: u32,
    seed: u64,
) -> anyhow::Result<Run> {
    let mut fw = Forwarder::new(ForwarderConfig {
        cs_capacity: (args.catalog as usize / 10).max(1),
        cs_policy: CsPolicyKind::Lru,
        seed,
        ..Default::default()
    });
    fw.cs().set_admit(cs == "on");
    fw.add_face(CONSUMER, FaceScope::Local, LinkType::PointToPoint);
    fw.add_face(PRODUCER, FaceScope::Local, LinkType::PointToPoint);
    let prefix = Name::from_uri("/quickstart")?;
    fw.fib().add_nexthop(&prefix, PRODUCER, 0);

    let names: Vec<Name> = (0..args.catalog)
        .map(|i| prefix.append_generic(format!("obj{i}").as_bytes()))
        .collect();
    let zipf = Zipf::new(args.catalog, args.zipf).context("bad Zipf parameters")?;
    let mut rng = StdRng::seed_from_u64(seed);
    let payload = Bytes::from(vec![0xA5u8; args.payload]);

    let start = Instant::now();
    let now = |start: &Instant| -> Time { start.elapsed().as_nanos() as Time };
    // name index -> send times of the Interests in flight for it
    let mut in_flight: std::collections::HashMap<usize, Vec<Time>> = Default::default();
    let mut outstanding = 0u64;
    let (mut sent, mut done, mut produced, mut latency_sum) = (0u64, 0u64, 0u64, 0u128);
    let mut out = Vec::with_capacity(args.window as usize * 2);
    while done < args.exchanges {
        while outstanding < args.window as u64 && sent < args.exchanges {
            let idx = match pop {
                "zipf" => zipf.sample(&mut rng) as usize - 1,
                _ => rng.gen_range(0..args.catalog as usize),
            };
            let t = now(&start);
            let interest = Interest::decode(
                Interest::builder(names[idx].clone())
                    .nonce(rng.gen())
                    .lifetime_ms(4000)
                    .build(),
            )?;
            in_flight.entry(idx).or_default().push(t);
            outstanding += 1;
            sent += 1;
            fw.handle_interest(t, CONSUMER, interest, LpMeta::default());
        }
        fw.drain_transmits(&mut out);
        if out.is_empty() {
            // Everything in flight was lost (cannot happen with these faces): stop, not spin.
            anyhow::bail!(
                "the forwarder produced no output with {outstanding} Interests outstanding"
            );
        }
        for t in out.drain(..) {
            match (t.face, t.packet) {
                (PRODUCER, OutPacket::Interest(wire)) => {
                    // The producer and consumer decode what reaches them, as apps do.
                    let i = ndnlab_wire::Interest::decode(wire)?;
                    let data = DataBuilder::new(i.name().clone())
                        .content(payload.clone())
                        .freshness_ms(10_000)
                        .sign(&DigestSha256)?;
                    produced += 1;
                    let data = ndnlab_wire::Data::decode(data)?;
                    fw.handle_data(now(&start), PRODUCER, data, t.meta);
                }
                (CONSUMER, OutPacket::Data(wire)) => {
                    let d = ndnlab_wire::Data::decode(wire)?;
                    let idx = name_index(d.name()).context("Data for a name we never asked")?;
                    let arrived = now(&start);
                    for sent_at in in_flight.remove(&idx).unwrap_or_default() {
                        latency_sum += (arrived - sent_at) as u128;
                        outstanding -= 1;
                        done += 1;
                    }
                }
                (face, p) => anyhow::bail!("unexpected transmit to face {}: {p:?}", face.0),
            }
        }
    }
    let seconds = start.elapsed().as_secs_f64();
    let c = fw.counters();
    let lookups = (c.n_cs_hits + c.n_cs_misses).max(1);
    Ok(Run {
        cs,
        popularity: pop,
        replication: rep,
        seed,
        exchanges: done,
        seconds,
        exchanges_per_sec: done as f64 / seconds,
        cs_hit_ratio: c.n_cs_hits as f64 / lookups as f64,
        mean_latency_us: latency_sum as f64 / done as f64 / 1e3,
        cs_hits: c.n_cs_hits,
        cs_misses: c.n_cs_misses,
        producer_data: produced,
        drops: c.drops.total(),
        drops_by_reason: c
            .drops
            .iter()
            .filter(|(_, n)| *n > 0)
            .map(|(r, n)| (r.as_str(), n))
            .collect(),
    })
}

/// `/quickstart/obj<i>` -> i.
fn name_index(name: &Name) -> Option<usize> {
    let last = name.get(1)?;
    std::str::from_utf8(last.value)
        .ok()?
        .strip_prefix("obj")?
        .parse()
        .ok()
}

fn write_results(
    dir: &std::path::Path,
    runs: &[Run],
    responses: &[&TwoLevelAnalysis],
) -> anyhow::Result<()> {
    std::fs::create_dir_all(dir)
        .with_context(|| format!("cannot create output directory {}", dir.display()))?;
    let mut csv = String::from(
        "cs,popularity,replication,seed,exchanges,seconds,exchanges_per_sec,cs_hit_ratio,mean_latency_us,cs_hits,cs_misses,producer_data,drops\n",
    );
    for r in runs {
        csv += &format!(
            "{},{},{},{},{},{:.6},{:.1},{:.6},{:.3},{},{},{},{}\n",
            r.cs,
            r.popularity,
            r.replication,
            r.seed,
            r.exchanges,
            r.seconds,
            r.exchanges_per_sec,
            r.cs_hit_ratio,
            r.mean_latency_us,
            r.cs_hits,
            r.cs_misses,
            r.producer_data,
            r.drops
        );
    }
    let csv_path = dir.join("runs.csv");
    std::fs::write(&csv_path, csv)
        .with_context(|| format!("cannot write {}", csv_path.display()))?;
    // The laboratory's output contract: run_id, factors, replicate, seed, status, metrics.
    let mut results = String::from(
        "run_id,cs,popularity,replicate,seed,status,exchanges_per_sec,cs_hit_ratio,mean_latency_us,drops\n",
    );
    for (i, r) in runs.iter().enumerate() {
        results += &format!(
            "{i},{},{},{},{},ok,{:.1},{:.6},{:.3},{}\n",
            r.cs,
            r.popularity,
            r.replication,
            r.seed,
            r.exchanges_per_sec,
            r.cs_hit_ratio,
            r.mean_latency_us,
            r.drops
        );
    }
    let results_path = dir.join("results.csv");
    std::fs::write(&results_path, results)
        .with_context(|| format!("cannot write {}", results_path.display()))?;
    let json_path = dir.join("summary.json");
    let summary = serde_json::json!({ "runs": runs, "responses": responses });
    std::fs::write(&json_path, serde_json::to_string_pretty(&summary)?)
        .with_context(|| format!("cannot write {}", json_path.display()))?;
    Ok(())
}

fn print_runs(runs: &[Run]) {
    println!(
        "{:<4} {:<8} {:>3} {:>12} {:>9} {:>12} {:>9}",
        "cs", "pop", "rep", "exchanges/s", "hit", "latency_us", "produced"
    );
    for r in runs {
        println!(
            "{:<4} {:<8} {:>3} {:>12.0} {:>9.4} {:>12.2} {:>9}",
            r.cs,
            r.popularity,
            r.replication,
            r.exchanges_per_sec,
            r.cs_hit_ratio,
            r.mean_latency_us,
            r.producer_data
        );
    }
}
