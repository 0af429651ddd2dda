//! A fixed number of exchanges through a running `ndnlab fwd`, for instruction
//! counts (`scripts/fwd-callgrind.sh`) and CPU per exchange of the forwarder alone.
//!
//! The load is `ndnlab bench fwd`'s over a Unix socket: a producer (registered on
//! its own connection) answering from a Data pool, and a consumer keeping a window
//! of MustBeFresh Interests in flight (`ndnlab_app::load`). Two phases, each of
//! an exact number of exchanges and each drained to zero Interests in flight
//! before it ends, so the forwarder is idle at the phase boundaries: a warm-up,
//! then `--before` runs (a shell command, e.g. `callgrind_control -z PID`), then
//! the measured phase, then `--after` runs. It prints one JSON line with the
//! measured exchanges, seconds, and per exchange what the process `--cpu-pid`
//! used over the measured phase: CPU (user, system), minor page faults and context
//! switches.
//!
//! ```text
//! cargo run --release -p ndnlab-fwd --example fixed_load -- --socket S \
//!     [--payload 100] [--window 4096] [--pool 8192] [--warmup 50000] \
//!     [--count 200000] [--before CMD] [--after CMD] [--cpu-pid PID]
//! ```

use std::sync::atomic::{AtomicBool, Ordering::Relaxed};
use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::{bail, Context};
use bytes::Bytes;
use ndnlab_app::client::burst::BurstConn;
use ndnlab_app::client::FaceUri;
use ndnlab_app::load::{self, Producer, Sequence};
use ndnlab_wire::Name;

struct Args {
    socket: std::path::PathBuf,
    payload: usize,
    window: usize,
    pool: usize,
    warmup: u64,
    count: u64,
    before: Option<String>,
    after: Option<String>,
    cpu_pid: Option<u32>,
}

fn parse() -> anyhow::Result<Args> {
    let mut a = Args {
        socket: Default::default(),
        payload: 100,
        window: 4096,
        pool: 8192,
        warmup: 50_000,
        count: 200_000,
        before: None,
        after: None,
        cpu_pid: None,
    };
    let mut it = std::env::args().skip(1);
    while let Some(k) = it.next() {
        let v = it.next().with_context(|| format!("{k} needs a value"))?;
        match k.as_str() {
            "--socket" => a.socket = v.into(),
            "--payload" => a.payload = v.parse()?,
            "--window" => a.window = v.parse()?,
            "--pool" => a.pool = v.parse()?,
            "--warmup" => a.warmup = v.parse()?,
            "--count" => a.count = v.parse()?,
            "--before" => a.before = Some(v),
            "--after" => a.after = Some(v),
            "--cpu-pid" => a.cpu_pid = Some(v.parse()?),
            other => bail!("unknown option {other}"),
        }
    }
    if a.socket.as_os_str().is_empty() {
        bail!("--socket PATH is required");
    }
    load::check_pool(a.pool, a.window).map_err(anyhow::Error::msg)?;
    Ok(a)
}

/// Runs exactly `count` exchanges with at most `window` Interests in flight and
/// returns once every one of them came back (Data or Nack).
fn exchanges(
    conn: &mut BurstConn,
    seq: &mut Sequence,
    window: usize,
    count: u64,
) -> anyhow::Result<u64> {
    let (mut sent, mut back, mut nacks) = (0u64, 0u64, 0u64);
    let first = (window as u64).min(count);
    for _ in 0..first {
        conn.push_raw(&seq.next_interest());
    }
    sent += first;
    conn.flush()?;
    let mut progress = Instant::now();
    while back < count {
        let mut done = 0u64;
        conn.poll(Duration::from_millis(200), |fields, _pkt| {
            if fields.nack.is_some() {
                nacks += 1;
            }
            done += 1;
        })?;
        if done == 0 {
            if progress.elapsed() > Duration::from_secs(30) {
                bail!("no answer for 30 s ({back} of {count} back, {sent} sent)");
            }
            continue;
        }
        progress = Instant::now();
        back += done;
        let more = done.min(count - sent);
        for _ in 0..more {
            conn.push_raw(&seq.next_interest());
        }
        sent += more;
        conn.flush()?;
    }
    Ok(nacks)
}

fn shell(cmd: &Option<String>) -> anyhow::Result<()> {
    if let Some(c) = cmd {
        let st = std::process::Command::new("sh").args(["-c", c]).status()?;
        if !st.success() {
            bail!("'{c}' failed: {st}");
        }
    }
    Ok(())
}

/// What the forwarder process used so far: user and system CPU seconds, minor
/// page faults (`/proc/PID/stat`), and context switches of all its threads
/// (`/proc/PID/task/*/status`).
#[derive(Default, Clone, Copy)]
struct Usage {
    user: f64,
    sys: f64,
    minflt: u64,
    ctxt: u64,
}

fn usage(pid: Option<u32>) -> Usage {
    let Some(pid) = pid else {
        return Usage::default();
    };
    let mut u = Usage::default();
    if let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        // Fields after the command name (which may hold spaces), from field 3 on.
        let rest = stat.rsplit_once(')').map_or("", |(_, r)| r);
        let f: Vec<&str> = rest.split_whitespace().collect();
        // SAFETY: sysconf has no preconditions.
        let tck = unsafe { libc::sysconf(libc::_SC_CLK_TCK) }.max(1) as f64;
        let num = |i: usize| {
            f.get(i - 3)
                .and_then(|v| v.parse::<u64>().ok())
                .unwrap_or(0)
        };
        u.minflt = num(10);
        u.user = num(14) as f64 / tck;
        u.sys = num(15) as f64 / tck;
    }
    if let Ok(dir) = std::fs::read_dir(format!("/proc/{pid}/task")) {
        for t in dir.flatten() {
            let Ok(st) = std::fs::read_to_string(t.path().join("status")) else {
                continue;
            };
            for line in st.lines() {
                if let Some(v) = line
                    .strip_prefix("voluntary_ctxt_switches:")
                    .or_else(|| line.strip_prefix("nonvoluntary_ctxt_switches:"))
                {
                    u.ctxt += v.trim().parse::<u64>().unwrap_or(0);
                }
            }
        }
    }
    u
}

fn main() -> anyhow::Result<()> {
    let a = parse()?;
    let prefix = Name::from_uri("/ndnlab/bench")?;
    let uri = FaceUri::Unix(a.socket.clone());
    let mut prod = BurstConn::connect(&uri)?;
    prod.register(&prefix, Duration::from_secs(60))
        .context("producer registration")?;
    let stop = Arc::new(AtomicBool::new(false));
    let s = stop.clone();
    let answerer = Producer::new(Bytes::from(vec![0xA5u8; a.payload]), a.pool);
    let producer = std::thread::spawn(move || load::produce(prod, answerer, s).map(|_| ()));
    let mut cons = BurstConn::connect(&uri)?;
    let mut seq = Sequence::new(prefix, std::process::id() as u64, a.pool);
    exchanges(&mut cons, &mut seq, a.window, a.warmup)?;
    shell(&a.before)?;
    let u0 = usage(a.cpu_pid);
    let t0 = Instant::now();
    let nacks = exchanges(&mut cons, &mut seq, a.window, a.count)?;
    let secs = t0.elapsed().as_secs_f64();
    let u1 = usage(a.cpu_pid);
    let (user, sys) = (u1.user - u0.user, u1.sys - u0.sys);
    let per = |x: f64| x / a.count.max(1) as f64;
    shell(&a.after)?;
    stop.store(true, Relaxed);
    let _ = producer.join();
    println!(
        "{{\"exchanges\": {}, \"nacks\": {nacks}, \"seconds\": {secs:.4}, \"exchanges_per_s\": {:.0}, \
         \"fwd_cpu_us_per_exchange\": {:.4}, \"fwd_user_us_per_exchange\": {:.4}, \
         \"fwd_sys_us_per_exchange\": {:.4}, \"fwd_minflt_per_exchange\": {:.5}, \
         \"fwd_ctxt_per_exchange\": {:.5}}}",
        a.count,
        a.count as f64 / secs,
        1e6 * per(user + sys),
        1e6 * per(user),
        1e6 * per(sys),
        per((u1.minflt - u0.minflt) as f64),
        per((u1.ctxt - u0.ctxt) as f64),
    );
    Ok(())
}
