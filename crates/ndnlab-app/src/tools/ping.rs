//! `ndnlab ping` / `ndnlab ping server`: reachability and RTT, named like
//! ndn-tools' ndnping (`/<prefix>/ping/<seq>`, seq a decimal generic component).

use std::sync::atomic::Ordering::Relaxed;
use std::time::{Duration, Instant};

use bytes::Bytes;
use ndnlab_wire::{Data, Interest, Name};
use serde_json::json;
use tokio::sync::mpsc;

use crate::client::{IncomingInterest, Outcome};
use crate::stats::Latency;
use crate::tools::serve::{interrupted, Reply, Server};
use crate::tools::signing::{make_identity, SignKind};
use crate::tools::{parse_name, print_json, ConnectArgs};

/// Options of `ndnlab ping PREFIX`.
#[derive(Debug, Clone, clap::Args)]
pub struct PingArgs {
    #[command(flatten)]
    pub connect: ConnectArgs,
    /// Prefix the ping server serves.
    #[arg(value_parser = parse_name, required = true)]
    pub prefix: Option<Name>,
    /// Milliseconds between pings.
    #[arg(short = 'i', long, default_value_t = 1000, value_name = "MS")]
    pub interval: u64,
    /// Number of pings (default: until interrupted).
    #[arg(short = 'c', long)]
    pub count: Option<u64>,
    /// Timeout (InterestLifetime) in milliseconds.
    #[arg(short = 't', long, default_value_t = 4000, value_name = "MS")]
    pub timeout: u64,
    /// First sequence number (default: random).
    #[arg(long)]
    pub start_seq: Option<u64>,
    /// Print only the summary.
    #[arg(short = 'q', long)]
    pub quiet: bool,
    /// JSON lines: one per reply, then a summary.
    #[arg(long)]
    pub json: bool,
}

/// Options of `ndnlab ping server PREFIX`.
#[derive(Debug, Clone, clap::Args)]
pub struct PingServerArgs {
    #[command(flatten)]
    pub connect: ConnectArgs,
    /// Prefix to serve (`/ping` is appended).
    #[arg(value_parser = parse_name)]
    pub prefix: Name,
    /// Content bytes of each reply.
    #[arg(short = 's', long, default_value_t = 0)]
    pub size: usize,
    /// FreshnessPeriod in milliseconds.
    #[arg(short = 'x', long, default_value_t = 1000, value_name = "MS")]
    pub freshness: u64,
    /// Signature of the replies.
    #[arg(long, default_value = "digest")]
    pub sign: SignKind,
    /// Exit after answering this many pings.
    #[arg(short = 'p', long)]
    pub count: Option<u64>,
    /// Print nothing per ping.
    #[arg(short = 'q', long)]
    pub quiet: bool,
    /// JSON lines.
    #[arg(long)]
    pub json: bool,
}

/// Name of ping `seq` under `prefix`.
pub fn ping_name(prefix: &Name, seq: u64) -> Name {
    let mut b = Name::builder();
    b.extend_name(prefix)
        .push_generic(b"ping")
        .push_generic(seq.to_string().as_bytes());
    b.build()
}

/// Ping summary.
#[derive(Debug, Clone, serde::Serialize)]
pub struct PingSummary {
    pub prefix: String,
    pub transmitted: u64,
    pub received: u64,
    pub nacked: u64,
    pub timeouts: u64,
    pub loss_percent: f64,
    pub time_ms: f64,
    pub rtt_min_ms: f64,
    pub rtt_avg_ms: f64,
    pub rtt_max_ms: f64,
    pub rtt_mdev_ms: f64,
}

/// Runs the client; an error if nothing came back.
pub async fn run(args: PingArgs) -> anyhow::Result<PingSummary> {
    anyhow::ensure!(args.count != Some(0), "--count must be positive");
    let prefix = args
        .prefix
        .clone()
        .ok_or_else(|| anyhow::anyhow!("a PREFIX to ping is required"))?;
    let client = args.connect.connect().await?;
    let mut seq = args
        .start_seq
        .unwrap_or_else(|| rand::random::<u32>() as u64);
    if !args.quiet && !args.json {
        println!("PING {prefix}");
    }
    let (tx, mut rx) = mpsc::unbounded_channel::<(u64, Outcome)>();
    let start = Instant::now();
    let mut sent = 0u64;
    let (mut received, mut nacked, mut timeouts) = (0u64, 0u64, 0u64);
    let mut rtt = Latency::default();
    let mut tick = tokio::time::interval(Duration::from_millis(args.interval.max(1)));
    let ctrl_c = tokio::signal::ctrl_c();
    tokio::pin!(ctrl_c);
    let mut stopping = false;
    let mut lost = false;
    loop {
        if client.is_closed() {
            // gone for good (not reconnecting, or it gave up): stop, never hang
            lost = true;
            break;
        }
        let all_sent = args.count.is_some_and(|c| sent >= c);
        if (all_sent || stopping) && received + nacked + timeouts >= sent {
            break;
        }
        tokio::select! {
            _ = tick.tick(), if !all_sent && !stopping => {
                let interest = Interest::builder(ping_name(&prefix, seq))
                    .must_be_fresh(true)
                    .nonce(rand::random())
                    .lifetime_ms(args.timeout)
                    .build_view()?;
                let (c, tx, s) = (client.clone(), tx.clone(), seq);
                tokio::spawn(async move {
                    let o = c.express(interest).await.unwrap_or(Outcome::Timeout);
                    let _ = tx.send((s, o));
                });
                sent += 1;
                seq = seq.wrapping_add(1);
            }
            m = rx.recv() => {
                let Some((s, o)) = m else { break };
                let line = match o {
                    Outcome::Data(r) => {
                        received += 1;
                        rtt.record(r.rtt);
                        let ms = r.rtt.as_secs_f64() * 1e3;
                        (format!("content from {prefix}: seq={s} time={ms:.3} ms"),
                         json!({"type":"reply","seq":s,"result":"data","rtt_ms":ms}))
                    }
                    Outcome::Nack(reason) => {
                        nacked += 1;
                        (format!("nack from {prefix}: seq={s} reason={}", reason.as_str()),
                         json!({"type":"reply","seq":s,"result":"nack","reason":reason.as_str()}))
                    }
                    Outcome::Timeout => {
                        timeouts += 1;
                        (format!("timeout from {prefix}: seq={s}"),
                         json!({"type":"reply","seq":s,"result":"timeout"}))
                    }
                };
                if args.json {
                    print_json(&line.1);
                } else if !args.quiet {
                    println!("{}", line.0);
                }
            }
            _ = &mut ctrl_c, if !stopping => stopping = true,
        }
    }
    let s = rtt.summary();
    let summary = PingSummary {
        prefix: prefix.to_string(),
        transmitted: sent,
        received,
        nacked,
        timeouts,
        loss_percent: if sent == 0 {
            0.0
        } else {
            (sent - received) as f64 * 100.0 / sent as f64
        },
        time_ms: start.elapsed().as_secs_f64() * 1e3,
        rtt_min_ms: s.min_ms,
        rtt_avg_ms: s.mean_ms,
        rtt_max_ms: s.max_ms,
        rtt_mdev_ms: s.mdev_ms,
    };
    if args.json {
        let mut v = serde_json::to_value(&summary)?;
        v["type"] = "summary".into();
        print_json(&v);
    } else {
        println!("\n--- {} ping statistics ---", summary.prefix);
        println!(
            "{} packets transmitted, {} received, {} nacked, {:.0}% lost, time {:.0} ms",
            sent, received, nacked, summary.loss_percent, summary.time_ms
        );
        if received > 0 {
            println!(
                "rtt min/avg/max/mdev = {:.3}/{:.3}/{:.3}/{:.3} ms",
                s.min_ms, s.mean_ms, s.max_ms, s.mdev_ms
            );
        }
    }
    anyhow::ensure!(!lost, "connection to the forwarder {} closed", client.uri());
    anyhow::ensure!(received > 0, "no reply from {}", summary.prefix);
    Ok(summary)
}

/// Runs the server until `--count` pings were answered or interrupted.
pub async fn serve(args: PingServerArgs) -> anyhow::Result<u64> {
    let client = args.connect.connect().await?;
    let mut b = Name::builder();
    b.extend_name(&args.prefix).push_generic(b"ping");
    let prefix = b.build();
    let id = make_identity(args.sign, &args.prefix)?;
    let server = Server::register(&client, &prefix).await?;
    if !args.quiet && !args.json {
        println!("PING SERVER {prefix}");
    }
    let content = Bytes::from(vec![b'a'; args.size]);
    let served = server.served();
    let answer = |inc: &IncomingInterest| -> anyhow::Result<Reply> {
        let name = inc.interest.name();
        let data = Data::builder(name.clone())
            .freshness_ms(args.freshness)
            .content(content.clone())
            .sign(id.signer.as_ref())?;
        if args.json {
            print_json(&json!({"type":"interest","name":name.to_string()}));
        } else if !args.quiet {
            println!("interest received: {name}");
        }
        Ok(Reply::Data(data))
    };
    server.run(answer, args.count, interrupted(None)).await?;
    let answered = served.data.load(Relaxed);
    if args.json {
        print_json(&json!({"type":"summary","answered":answered}));
    } else {
        println!("\n--- ping server {prefix} ---\n{answered} Interests processed");
    }
    Ok(answered)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ndnping_naming() {
        let n = ping_name(&"/example".parse().unwrap(), 42);
        assert_eq!(n.to_string(), "/example/ping/42");
    }
}
