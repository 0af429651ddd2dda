//! What a daemon run reads back from its forwarders and producers: the
//! forwarders' counters through management, every process's CPU, and the
//! producers' signing and serving times from their reports.

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::atomic::Ordering::Relaxed;
use std::time::Instant;

use anyhow::Context;
use ndnlab_app::client::blocking::BlockingClient;
use ndnlab_app::tools::serve_stats::{ServeStats, ServeSummary};
use ndnlab_proto::mgmt::dataset::{decode_records, DatasetKind};

use super::Children;
use crate::runner::summary::FwdDelta;
use crate::runner::Metrics;

/// One forwarder's counters at an end of the window, as [`counters`] reads
/// them.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) struct Counts {
    /// `nInInterests` of `status/general`: every Interest the forwarder
    /// received, the runner's own management Interests included (NFD and
    /// `ndnlab fwd` count those as Interests in, from the requester).
    pub interests: f64,
    /// `nHits` and `nMisses` of `cs/info`.
    pub cs_hits: f64,
    pub cs_misses: f64,
    /// The Interests the runner had sent to this forwarder (its management
    /// client's `tx_packets`: it sends nothing else) when it asked for
    /// `status/general`, that request not included.
    pub mgmt_sent: u64,
    /// When the forwarder counted: the middle of the `status/general`
    /// request's round trip.
    pub at: Instant,
}

/// One forwarder's increments over the window, from its [`Counts`] at the
/// window's ends: the experiment's Interests are the `nInInterests` increment
/// less the runner's management Interests counted in it. Those are the ones
/// sent from the `status/general` request that opens the window to the one
/// that closes it: the link samples meanwhile, the opening read's `cs/info`
/// and the closing `status/general` itself. Whether a forwarder counts a
/// `status/general` request before or after answering it, it does so at
/// both ends, so the difference of `mgmt_sent` is what the increment holds.
/// Its span is the node's own, from one `status/general` read to the other
/// ([`Counts::at`]): the nodes are not read at the same instant, and each
/// node's rate is its increment over its own span.
pub(super) fn window_delta<'a>(name: &'a str, before: &Counts, after: &Counts) -> FwdDelta<'a> {
    let mgmt = after.mgmt_sent.saturating_sub(before.mgmt_sent) as f64;
    FwdDelta {
        name,
        interests: after.interests - before.interests - mgmt,
        cs_hits: after.cs_hits - before.cs_hits,
        cs_misses: after.cs_misses - before.cs_misses,
        secs: after.at.saturating_duration_since(before.at).as_secs_f64(),
    }
}

/// Every node's [`Counts`] now, the nodes read at once (a thread each), so
/// that every read lies close to the instant the runner asks.
pub(super) fn counters(
    clients: &BTreeMap<&String, BlockingClient>,
) -> anyhow::Result<BTreeMap<String, Counts>> {
    std::thread::scope(|s| {
        let reads: Vec<_> = clients
            .iter()
            .map(|(n, c)| (*n, s.spawn(move || counts_of(n, c))))
            .collect();
        reads
            .into_iter()
            .map(|(n, h)| {
                let c = h
                    .join()
                    .map_err(|_| anyhow::anyhow!("the counter read of forwarder {n} panicked"))??;
                Ok((n.clone(), c))
            })
            .collect()
    })
}

/// How much earlier than the request a fresh `status/general` may be stamped
/// (the clocks of the runner and the forwarder are the machine's one clock;
/// NFD stamps in whole milliseconds).
const STAMP_SLACK_MS: u64 = 20;

/// Reads of a cached `status/general`, 100 ms apart, before giving up: NFD's
/// cache holds an answer for 1 s.
const CACHED_RETRIES: u32 = 15;

fn unix_ms() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as u64)
}

/// One node's [`Counts`] now.
fn counts_of(n: &str, c: &BlockingClient) -> anyhow::Result<Counts> {
    let read = |module: &str, what: &str, kind| -> anyhow::Result<_> {
        let d = c
            .dataset(module, what)
            .with_context(|| format!("{module}/{what} of forwarder {n}"))?;
        decode_records(kind, &d).map_err(anyhow::Error::msg)
    };
    let num = |r: Option<&ndnlab_proto::mgmt::dataset::Record>, k: &str| {
        r.and_then(|r| r.num(k)).unwrap_or(0) as f64
    };
    // NFD answers a status dataset from a cache fresh for 1 s (ndn-cxx's
    // dispatcher): an answer stamped before it was asked for is that cached
    // copy, with counters from the earlier read. Read again once it is gone.
    let mut tries = 0;
    let (g, mgmt_sent, at) = loop {
        let mgmt_sent = c.client().counters().tx_packets.load(Relaxed);
        let asked_ms = unix_ms();
        let asked = Instant::now();
        let g = read("status", "general", DatasetKind::General)?;
        let at = asked + asked.elapsed() / 2;
        let stamped = g.first().and_then(|r| r.num("currentTimestamp"));
        match stamped {
            Some(ts) if ts + STAMP_SLACK_MS < asked_ms => {
                tries += 1;
                if tries > CACHED_RETRIES {
                    anyhow::bail!(
                        "forwarder {n}: status/general keeps answering from a cache \
                         (stamped {ts} ms, asked at {asked_ms} ms since the epoch)"
                    );
                }
                std::thread::sleep(std::time::Duration::from_millis(100));
            }
            _ => break (g, mgmt_sent, at),
        }
    };
    let cs = read("cs", "info", DatasetKind::Cs)?;
    Ok(Counts {
        interests: num(g.first(), "nInInterests"),
        cs_hits: num(cs.first(), "nHits"),
        cs_misses: num(cs.first(), "nMisses"),
        mgmt_sent,
        at,
    })
}

/// CPU seconds of each forwarder and app process, by metric suffix: the node
/// for a forwarder, `app@node` for an app (`ip netns exec` execs the program,
/// so the pid is the program's under every fabric). A process that exited
/// but is not yet reaped still reports its final time.
pub(super) fn cpu_of(children: &Children) -> BTreeMap<String, f64> {
    children
        .0
        .iter()
        .filter_map(|(name, child)| {
            let key = name.strip_prefix("fwd ").unwrap_or(name);
            ndnlab_cputime::process_seconds(child.id()).map(|s| (key.to_string(), s))
        })
        .collect()
}

/// Adds the producers' signing and serving metrics from the interval reports
/// `ndnlab perf server --json` printed to `<app>@<node>.json`: the intervals
/// whose middle lies inside the window (`open`..`close`, Unix seconds), their
/// histograms and signing time added up ([`window_summary`]).
pub(super) fn producer_metrics(
    m: &mut Metrics,
    producers: &[String],
    log_dir: &Path,
    (open, close): (f64, f64),
) -> anyhow::Result<()> {
    for name in producers {
        let path = log_dir.join(format!("{name}.json"));
        let text = std::fs::read_to_string(&path)
            .with_context(|| format!("producer {name}: {}", path.display()))?;
        let rows: Vec<serde_json::Value> = text
            .lines()
            .filter_map(|l| serde_json::from_str(l).ok())
            .filter(|r: &serde_json::Value| r["type"] == "interval")
            .collect();
        let s = window_summary(&rows, open, close).map_err(|e| {
            anyhow::anyhow!(
                "producer {name}: {e} in its report (see {})",
                path.display()
            )
        })?;
        super::super::summary::producers(std::iter::once((name.as_str(), s)), m);
    }
    Ok(())
}

/// The window's statistics from interval rows: the rows whose middle lies in
/// `[open, close)`, their histograms merged and their signing time summed
/// ([`ServeStats::add_json`]), over the seconds they cover; percentiles of the
/// merged histograms, as [`ServeStats::summary`] computes them under `inproc`.
fn window_summary(
    rows: &[serde_json::Value],
    open: f64,
    close: f64,
) -> Result<ServeSummary, String> {
    let f = |r: &serde_json::Value, k: &str| r[k].as_f64().unwrap_or(0.0);
    let mut s = ServeStats::default();
    let mut secs = 0.0;
    for r in rows {
        let mid = f(r, "at_unix_s") - f(r, "interval_s") / 2.0;
        if mid < open || mid >= close {
            continue;
        }
        s.add_json(r)
            .map_err(|e| format!("the row at {}: {e}", f(r, "time_s")))?;
        secs += f(r, "interval_s");
    }
    if secs == 0.0 {
        return Ok(ServeSummary::default());
    }
    Ok(s.summary(secs))
}

/// Writes `samples/faces/<run_id>.csv`: every face of every node with its
/// counters from the `faces/list` dataset (NFD's and `ndnlab fwd`'s alike), the
/// columns the `inproc` runner writes. `drops` is empty: the dataset has no
/// such counter.
pub(super) fn write_faces(
    clients: &BTreeMap<&String, BlockingClient>,
    path: &Path,
) -> anyhow::Result<()> {
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent)?;
    }
    let mut w = csv::Writer::from_path(path)?;
    w.write_record(crate::runner::FACE_COLUMNS)?;
    for (n, c) in clients {
        let d = c
            .dataset("faces", "list")
            .with_context(|| format!("faces/list of forwarder {n}"))?;
        for r in decode_records(DatasetKind::Faces, &d).map_err(anyhow::Error::msg)? {
            let num = |k: &str| r.num(k).map(|v| v.to_string()).unwrap_or_default();
            w.write_record([
                (*n).clone(),
                num("faceId"),
                r.text("remote").unwrap_or_default().to_string(),
                num("nInInterests"),
                num("nInData"),
                num("nInNacks"),
                num("nOutInterests"),
                num("nOutData"),
                num("nOutNacks"),
                num("nInBytes"),
                num("nOutBytes"),
                String::new(),
            ])?;
        }
    }
    w.flush()?;
    Ok(())
}

/// Each `ndnlab fwd` node's (Data verified, Data refused) from the
/// `verify.data` and `verify.refused` lines of its `status/limits` dataset,
/// for [`crate::runner::verify_metrics`]; NFD nodes (which verify nothing)
/// are left out.
pub(super) fn verify_counts(
    clients: &BTreeMap<&String, BlockingClient>,
    plan: &crate::runner::RunPlan,
) -> anyhow::Result<Vec<(u64, u64)>> {
    let mut out = Vec::new();
    for (n, c) in clients.iter().filter(|(n, _)| !super::nfd::is_nfd(plan, n)) {
        let d = c
            .dataset("status", "limits")
            .with_context(|| format!("status/limits of forwarder {n}"))?;
        let text = String::from_utf8_lossy(&d);
        let count = |key: &str| -> anyhow::Result<u64> {
            text.lines()
                .find_map(|l| l.strip_prefix(key)?.strip_prefix(' '))
                .and_then(|v| v.trim().parse().ok())
                .ok_or_else(|| anyhow::anyhow!("status/limits of forwarder {n}: no {key} line"))
        };
        out.push((count("verify.data")?, count("verify.refused")?));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;
    use std::time::{Duration, Instant};

    /// A `perf server` row of 0.1 s ending at `at`: `signed` signatures of
    /// `sign_us` µs, `served` Data of `serve_us` µs.
    fn row(at: f64, recs: &[(u64, u64, u64, u64)]) -> serde_json::Value {
        let mut s = ServeStats::default();
        let t = Instant::now();
        for &(signed, sign_us, served, serve_us) in recs {
            for _ in 0..signed {
                s.record_sign(t, Duration::from_micros(sign_us));
            }
            s.record_serve(t, Duration::from_micros(serve_us), served);
        }
        let mut r = json!({"type": "interval", "interval_s": 0.1, "at_unix_s": at, "time_s": at});
        if let (Some(r), serde_json::Value::Object(h)) = (r.as_object_mut(), s.json()) {
            r.extend(h);
        }
        r
    }

    /// What a producer's histogram reports for `us`: the highest value of its
    /// bucket (2 significant digits), in µs.
    fn reported(us: u64) -> f64 {
        ServeStats::default().sign_ns.highest_equivalent(us * 1000) as f64 / 1e3
    }

    /// One instant for every test's reads.
    fn t0() -> Instant {
        static T0: std::sync::OnceLock<Instant> = std::sync::OnceLock::new();
        *T0.get_or_init(Instant::now)
    }

    fn at(interests: f64, cs_hits: f64, cs_misses: f64, mgmt_sent: u64) -> Counts {
        Counts {
            interests,
            cs_hits,
            cs_misses,
            mgmt_sent,
            at: t0(),
        }
    }

    /// `c` counted `ms` milliseconds after [`t0`].
    fn read_at(c: Counts, ms: u64) -> Counts {
        Counts {
            at: t0() + Duration::from_millis(ms),
            ..c
        }
    }

    #[test]
    fn each_node_counts_over_its_own_span() {
        // A 0.5 s window from 1000 ms to 1500 ms; the line forwards 450
        // Interests/s at each node. The nodes' reads: r0 from 990 to 1510 ms
        // (0.52 s, 234 Interests), r1 from 1000 to 1500 (0.5 s, 225), r2 from
        // 1010 to 1490 (0.48 s, 216); each node's 2 management Interests
        // (the opening cs/info, the closing status/general) left out.
        let spans = [
            ("r0", 990, 1510, 234.0),
            ("r1", 1000, 1500, 225.0),
            ("r2", 1010, 1490, 216.0),
        ];
        let mut m = Metrics::new();
        let deltas: Vec<_> = spans
            .iter()
            .map(|&(n, open, close, interests)| {
                let before = read_at(at(100.0, 0.0, 0.0, 10), open);
                let after = read_at(at(100.0 + interests + 2.0, 0.0, 0.0, 12), close);
                window_delta(n, &before, &after)
            })
            .collect();
        let secs: Vec<f64> = deltas.iter().map(|d| d.secs).collect();
        assert_eq!(secs, [0.52, 0.5, 0.48]);
        crate::runner::summary::forwarders(deltas.into_iter(), true, &mut m);
        for n in ["r0", "r1", "r2"] {
            let x = m[&format!("fwd_interests_per_sec.{n}")];
            // over the window's 0.5 s they would be 468, 450 and 432
            assert!((x - 450.0).abs() < 1e-9, "{n}: {m:?}");
        }
        assert!((m["fwd_interests_per_sec"] - 1350.0).abs() < 1e-9, "{m:?}");
        // a closing read before the opening one (never the case) is no span
        let d = window_delta(
            "r",
            &read_at(at(0.0, 0.0, 0.0, 0), 5),
            &read_at(at(9.0, 0.0, 0.0, 0), 1),
        );
        assert_eq!(d.secs, 0.0);
    }

    #[test]
    fn window_delta_leaves_out_the_runners_management_interests() {
        // A 2 s window sampled every 100 ms. The opening read: 40 management
        // Interests sent before it (faces, routes, warm-up samples), then its
        // status/general (counted in nInInterests = 1041 as it arrives) and
        // cs/info. Meanwhile 20 ndnlab/links samples and 50 consumer
        // Interests. The closing status/general (counted as it arrives): the
        // forwarder has 1041 + 1 (cs/info) + 20 + 50 + 1 = 1113.
        let before = at(1041.0, 7.0, 3.0, 40);
        let after = at(1113.0, 17.0, 43.0, 40 + 2 + 20);
        let d = window_delta("r1", &before, &after);
        assert_eq!(d.name, "r1");
        assert_eq!(d.interests, 50.0);
        assert_eq!((d.cs_hits, d.cs_misses), (10.0, 40.0));
        // a forwarder counting each status/general after answering it reads
        // 1040 and 1112: the same 50
        let d = window_delta("r1", &at(1040.0, 0.0, 0.0, 40), &at(1112.0, 0.0, 0.0, 62));
        assert_eq!(d.interests, 50.0);
        // nothing sent between the reads but the reads themselves (an NFD
        // node, no link sampler): the opening cs/info and the closing
        // status/general, 2
        let d = window_delta("n", &at(5.0, 0.0, 0.0, 3), &at(7.0, 0.0, 0.0, 5));
        assert_eq!(d.interests, 0.0);
    }

    #[test]
    fn window_delta_counts_exactly_on_any_interleaving() {
        // A forwarder counting every Interest as it arrives; the runner's
        // requests (true) and the experiment's (false) in a seeded order.
        // The reads at both ends are status/general then cs/info.
        use rand::{Rng, SeedableRng};
        let mut rng = rand::rngs::StdRng::seed_from_u64(41);
        for _ in 0..200 {
            let (mut counted, mut sent) = (0u64, 0u64);
            let read = |counted: &mut u64, sent: &mut u64| {
                let mgmt_sent = *sent;
                *counted += 1; // status/general, counted before its answer
                *sent += 1;
                let c = at(*counted as f64, 0.0, 0.0, mgmt_sent);
                *counted += 1; // cs/info
                *sent += 1;
                c
            };
            for _ in 0..rng.gen_range(0..30) {
                counted += 1;
                sent += rng.gen_bool(0.5) as u64;
            }
            let before = read(&mut counted, &mut sent);
            let mut experiment = 0;
            for _ in 0..rng.gen_range(0..100) {
                counted += 1;
                if rng.gen_bool(0.3) {
                    sent += 1;
                } else {
                    experiment += 1;
                }
            }
            let after = read(&mut counted, &mut sent);
            let d = window_delta("r", &before, &after);
            assert_eq!(d.interests, experiment as f64, "{before:?} {after:?}");
        }
    }

    #[test]
    fn producer_window_merges_the_intervals_histograms() {
        // window 100.0 .. 100.2: the rows ending at 100.1 and 100.2 count;
        // 100.0 (mostly before) and 100.3 (after) do not
        let rows = [
            row(100.0, &[(999, 1000, 999, 1000)]),
            // 100 signatures: 98 of 40 µs, 2 of 1000 µs; its p99 is 1000 µs
            row(100.1, &[(98, 40, 98, 50), (2, 1000, 2, 2000)]),
            // 100 of 20 µs: its p99 20 µs
            row(100.2, &[(100, 20, 100, 30)]),
            row(100.3, &[(999, 1000, 999, 1000)]),
        ];
        let s = window_summary(&rows, 100.0, 100.2).unwrap();
        assert_eq!((s.signed, s.served), (200, 200));
        // (98 * 40 + 2 * 1000 + 100 * 20) / 200 = 39.6 µs (summed, exact)
        assert!((s.sign_mean_us - 39.6).abs() < 1e-9, "{s:?}");
        // the merged 99th percentile: sample 198 of the 200 sorted is 40 µs
        // (the two of 1000 µs are the 199th and 200th), reported as its
        // bucket's top, 40.191 µs; the mean of the two intervals' p99 would
        // be (1000 + 20) / 2 = 510 µs
        assert_eq!(reported(40), 40.191);
        assert_eq!(s.sign_p99_us, reported(40), "{s:?}");
        // the median, sample 100: 20 µs
        assert_eq!(s.sign_p50_us, reported(20), "{s:?}");
        // serving: 100 of 30, 98 of 50, 2 of 2000 µs
        assert_eq!(s.serve_p99_us, reported(50), "{s:?}");
        assert_eq!(s.serve_p50_us, reported(30), "{s:?}");
        // busy 7.92 ms over 0.2 s; needed: 39.6 µs x 1000 Data/s
        assert!((s.sign_cores - 0.0396).abs() < 1e-12, "{s:?}");
        assert!((s.sign_cores_needed - 0.0396).abs() < 1e-12, "{s:?}");
        assert_eq!(
            window_summary(&rows, 200.0, 201.0).unwrap(),
            ServeSummary::default()
        );
        let mut bad = rows[1].clone();
        bad["serve_hist_ns"] = json!("x");
        let e = window_summary(&[bad], 100.0, 100.2).unwrap_err();
        assert!(e.contains("100.1") && e.contains("serve_hist_ns"), "{e}");
    }

    #[test]
    fn two_producers_are_summarized_apart() {
        // each producer's intervals make its own metrics
        let a = [
            row(10.1, &[(10, 10, 10, 15)]),
            row(10.2, &[(10, 30, 10, 35)]),
        ];
        let b = [row(10.15, &[(40, 100, 40, 100)])];
        let mut m = Metrics::new();
        for (name, rows) in [("p@a", &a[..]), ("p@b", &b[..])] {
            let s = window_summary(rows, 10.0, 10.2).unwrap();
            crate::runner::summary::producers(std::iter::once((name, s)), &mut m);
        }
        // p@a: 20 signatures, mean 20 µs, over 0.2 s: 400 µs busy
        assert!((m["sign_mean_us.p@a"] - 20.0).abs() < 1e-9, "{m:?}");
        assert_eq!(m["sign_p50_us.p@a"], reported(10));
        assert_eq!(m["sign_p99_us.p@a"], reported(30));
        assert!((m["sign_cores.p@a"] - 0.002).abs() < 1e-12, "{m:?}");
        // 20 µs x 100 Data/s
        assert!((m["sign_cores_needed.p@a"] - 0.002).abs() < 1e-12, "{m:?}");
        assert_eq!(m["serve_p99_us.p@a"], reported(35));
        // p@b: 40 of 100 µs over 0.1 s
        assert!((m["sign_mean_us.p@b"] - 100.0).abs() < 1e-9, "{m:?}");
        assert!((m["sign_cores.p@b"] - 0.04).abs() < 1e-12, "{m:?}");
        assert_eq!(m["serve_p50_us.p@b"], reported(100));
        assert_eq!(m.len(), 16);
    }
}
