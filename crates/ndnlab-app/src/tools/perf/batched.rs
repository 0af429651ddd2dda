//! The perf client's flows on the client library's batched path
//! ([`BurstConn`](crate::client::burst::BurstConn)): one thread drives every
//! flow's pipeline ([`Fetcher`], the same sans-IO window, RTO and retransmission
//! logic as the async path), queues the Interests each pipeline asks for, writes
//! them with one system call and hands each Data or Nack of the next read back to
//! its pipeline by PIT token, on any transport.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering::Relaxed};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use bytes::Bytes;
use ndnlab_proto::lp::LpFields;
use ndnlab_wire::{Data, NackReason, Name};

use super::client::{nack_kind, Counts, Gauge};
use super::window::{Opening, WindowTally};
use crate::client::burst::{BurstConn, InterestShape, TOKEN_LEN};
use crate::pipeline::{DataVerdict, FetchOptions, Fetcher};
use crate::tools::popularity::{unit_of, Popularity};
use crate::tools::verify::DataVerifier;

/// Low bits of a PIT token that carry the segment; the flow is above them.
const SEG_BITS: u32 = 48;
/// Counts are handed to the reporter this often.
const PUBLISH: Duration = Duration::from_millis(20);

/// What the batched flows need.
pub(super) struct Batched {
    /// Every prefix asked for (names under each, in turn or by `draw`).
    pub prefixes: Vec<Name>,
    pub flows: usize,
    pub names: Option<u64>,
    /// `--zipf`: the catalogue's popularity and the draws' seed.
    pub draw: Option<(Popularity, u64)>,
    /// `--count`: Interests to have answered, over all flows.
    pub count: Option<u64>,
    pub must_be_fresh: bool,
    /// When the count was reached.
    pub finished: Arc<Mutex<Option<Instant>>>,
    pub lifetime: u64,
    pub opts: FetchOptions,
    pub shared: Arc<Mutex<Counts>>,
    pub gauges: Arc<Vec<Gauge>>,
    pub deadline: Instant,
    /// Set when the loop ends (deadline or connection lost).
    pub done: Arc<AtomicBool>,
    /// `--verify`: each Data's signature is checked; failures are counted.
    pub verifier: Option<Arc<DataVerifier>>,
    /// `--window-start` or `--window-at`, and `--window-secs`: the window's
    /// opening and length; its counts are left in `window_counts` (after
    /// the deadline the flows send nothing more and wait, up to a lifetime,
    /// for the answers to the window's Interests).
    pub window: Option<(Opening, Duration)>,
    pub window_counts: Arc<Mutex<Option<Counts>>>,
}

impl Batched {
    /// (prefix, sequence number) of the `k`-th Interest: drawn by `--zipf`
    /// from `k` (so a retransmission asks for the same name), or in turn.
    fn name_of(&self, k: u64) -> (usize, u64) {
        let p = self.prefixes.len() as u64;
        match (&self.draw, self.names) {
            (Some((pop, seed)), _) => {
                let (g, i) = pop.draw(unit_of(k ^ seed));
                (g, i)
            }
            (None, Some(n)) => {
                let j = k % (n.max(1) * p);
                ((j / n.max(1)) as usize, j % n.max(1))
            }
            (None, None) => ((k % p) as usize, k / p),
        }
    }
}

/// Runs every flow until the deadline or until the connection fails.
pub(super) fn run(mut conn: BurstConn, b: Batched) -> std::io::Result<()> {
    let r = drive(&mut conn, &b);
    b.done.store(true, Relaxed);
    r
}

fn drive(conn: &mut BurstConn, b: &Batched) -> std::io::Result<()> {
    let base = Instant::now();
    let window = b.window.map(|(open, secs)| open.since(base, secs));
    let deadline =
        base + super::window::send_until(b.deadline.saturating_duration_since(base), window);
    let shape = InterestShape {
        must_be_fresh: b.must_be_fresh,
        can_be_prefix: false,
        lifetime_ms: b.lifetime,
    };
    let mut fetchers: Vec<Fetcher> = (0..b.flows).map(|_| Fetcher::new(b.opts, 0)).collect();
    if let Some(c) = b.count {
        // flow f asks for the Interests f, f + flows, ... below the count
        for (f, fetcher) in fetchers.iter_mut().enumerate() {
            let n = c.saturating_sub(f as u64).div_ceil(b.flows as u64);
            if n > 0 {
                fetcher.set_final(n - 1);
            }
        }
    }
    let flow_done =
        |f: usize, fetcher: &Fetcher| b.count.is_some_and(|c| f as u64 >= c) || fetcher.is_done();
    let mut last: Vec<_> = fetchers.iter().map(|f| *f.stats()).collect();
    let mut published = Instant::now();
    let mut nonce: u32 = rand::random::<u32>() | 1;
    let lifetime = Duration::from_millis(b.lifetime);
    let mut o = Outcomes {
        counts: Counts::default(),
        tally: window.map(|(open, secs)| WindowTally::new(open, secs, lifetime)),
        by_name: HashMap::new(),
    };
    while Instant::now() < deadline {
        if b.count.is_some() && fetchers.iter().enumerate().all(|(f, x)| flow_done(f, x)) {
            *b.finished.lock().expect("finish lock") = Some(Instant::now());
            break;
        }
        let now = base.elapsed();
        for (f, fetcher) in fetchers.iter_mut().enumerate() {
            if b.count.is_some_and(|c| f as u64 >= c) {
                continue;
            }
            while let Some(req) = fetcher.poll_request(now) {
                let (prefix, seq) = b.name_of(req.seg * b.flows as u64 + f as u64);
                // xorshift: a fresh Nonce per Interest without a system call
                nonce ^= nonce << 13;
                nonce ^= nonce >> 17;
                nonce ^= nonce << 5;
                conn.push_interest(&b.prefixes[prefix], seq, nonce, shape, token(f, req.seg));
                if let Some(w) = &mut o.tally {
                    w.sent((f, req.seg), now, req.retx);
                }
                if b.names.is_some() {
                    let keys = o.by_name.entry((prefix, seq)).or_default();
                    if !keys.contains(&(f, req.seg)) {
                        keys.push((f, req.seg));
                    }
                }
            }
            let g = &b.gauges[f];
            g.in_flight.store(fetcher.in_flight() as u64, Relaxed);
            g.window.store(fetcher.window().size() as u64, Relaxed);
            g.samples.fetch_add(1, Relaxed);
            if fetcher.in_flight() >= fetcher.window().size() {
                g.full_samples.fetch_add(1, Relaxed);
            }
        }
        conn.flush()?;
        let wake = fetchers
            .iter()
            .filter_map(Fetcher::poll_timeout)
            .min()
            .map_or(deadline, |t| base + t)
            .min(deadline);
        let wait = wake
            .saturating_duration_since(Instant::now())
            .clamp(Duration::from_micros(100), PUBLISH);
        let got = conn.poll(wait, |fields, pkt| {
            answer(b, &mut fetchers, &mut o, base.elapsed(), fields, pkt)
        })?;
        if got == 0 {
            let now = base.elapsed();
            for f in &mut fetchers {
                if f.poll_timeout().is_some_and(|t| t <= now) {
                    let _ = f.handle_timeout(now);
                }
            }
        }
        if published.elapsed() >= PUBLISH {
            publish(&fetchers, &mut last, &mut o.counts, &b.shared);
            published = Instant::now();
            if let Some(w) = &mut o.tally {
                w.expire(base.elapsed());
            }
        }
    }
    // the answers to the window's last Interests, within their lifetime (a
    // count they complete has its finishing time, as the lab's consumers do)
    let drain_end = Instant::now() + lifetime;
    while o.tally.as_ref().is_some_and(WindowTally::waiting) && Instant::now() < drain_end {
        let wait = drain_end
            .saturating_duration_since(Instant::now())
            .clamp(Duration::from_micros(100), PUBLISH);
        conn.poll(wait, |fields, pkt| {
            answer(b, &mut fetchers, &mut o, base.elapsed(), fields, pkt)
        })?;
        if let Some(w) = &mut o.tally {
            w.expire(base.elapsed());
        }
        // a count the last answers complete
        let mut finished = b.finished.lock().expect("finish lock");
        if b.count.is_some()
            && finished.is_none()
            && fetchers.iter().enumerate().all(|(f, x)| flow_done(f, x))
        {
            *finished = Some(Instant::now());
        }
    }
    publish(&fetchers, &mut last, &mut o.counts, &b.shared);
    if let Some(w) = o.tally {
        *b.window_counts.lock().expect("window lock") = Some(w.finish());
    }
    Ok(())
}

/// What the answers change: the interval's counts, the window's, and with
/// `--names` the Interests in flight for each name.
struct Outcomes {
    counts: Counts,
    tally: Option<WindowTally>,
    /// (prefix, sequence number) → (flow, segment) of each Interest sent for
    /// it and not yet answered by a Data of that name.
    by_name: HashMap<(usize, u64), Vec<(usize, u64)>>,
}

/// A Data or Nack `pkt` (with its link fields) that arrived at `now`: to its
/// flow's pipeline, the interval's counts and the window's. A forwarder
/// answers a face once per name (its PIT keeps one in-record per face), with
/// the PIT token of the face's latest Interest for it: so a Data answers
/// every Interest in flight for its name, of any flow.
fn answer(
    b: &Batched,
    fetchers: &mut [Fetcher],
    o: &mut Outcomes,
    now: Duration,
    fields: LpFields,
    pkt: Bytes,
) {
    let Some((f, seg)) = fields.pit_token.as_deref().and_then(untoken) else {
        return;
    };
    let Some(fetcher) = fetchers.get_mut(f) else {
        return;
    };
    if let Some(code) = fields.nack {
        o.counts.nacks += 1;
        if let Some(w) = &mut o.tally {
            w.nack((f, seg));
        }
        let _ = fetcher.on_nack(now, seg, nack_kind(NackReason::from_code(code)));
        return;
    }
    let Ok(data) = Data::decode(pkt) else { return };
    let marked = fields.congestion_mark > 0;
    o.counts.marks += marked as u64;
    let mut keys = vec![(f, seg)];
    if b.names.is_some() {
        let name = b.name_of(seg * b.flows as u64 + f as u64);
        if let Some(more) = o.by_name.remove(&name) {
            keys.extend(more.into_iter().filter(|&k| k != (f, seg)));
        }
    }
    let bytes = data.content_slice().len() as u64;
    // checked once, on the first Interest it answers
    let mut check: Option<Option<String>> = None;
    for (f, seg) in keys {
        let Some(fetcher) = fetchers.get_mut(f) else {
            continue;
        };
        let DataVerdict::New { rtt } = fetcher.on_data(now, seg, marked) else {
            continue;
        };
        // A forged Data still answers its Interest (no retransmission storm
        // against a forging server), but is counted as rejected, not as Data.
        if let Some(v) = &b.verifier {
            if let Some(why) = check.get_or_insert_with(|| v.check(&data).err()) {
                o.counts.rejected += 1;
                o.counts.first_rejection.get_or_insert_with(|| why.clone());
                if let Some(w) = &mut o.tally {
                    w.rejected((f, seg));
                }
                continue;
            }
        }
        o.counts.data += 1;
        o.counts.bytes += bytes;
        if let Some(rtt) = rtt {
            o.counts.rtt.record(rtt);
        }
        if let Some(w) = &mut o.tally {
            w.data((f, seg), now, bytes, marked);
        }
    }
}

/// Adds what happened since the last call to the reporter's counts.
fn publish(
    fetchers: &[Fetcher],
    last: &mut [crate::pipeline::FetchStats],
    counts: &mut Counts,
    shared: &Mutex<Counts>,
) {
    for (f, l) in fetchers.iter().zip(last.iter_mut()) {
        let st = *f.stats();
        counts.sent += st.sent - l.sent;
        counts.retx += st.retransmissions - l.retransmissions;
        counts.timeouts += st.timeouts - l.timeouts;
        *l = st;
    }
    shared.lock().expect("stats lock").add(counts);
    *counts = Counts::default();
}

fn token(flow: usize, seg: u64) -> u64 {
    ((flow as u64) << SEG_BITS) | (seg & ((1 << SEG_BITS) - 1))
}

fn untoken(t: &[u8]) -> Option<(usize, u64)> {
    let t: [u8; TOKEN_LEN] = t.try_into().ok()?;
    let t = u64::from_be_bytes(t);
    Some(((t >> SEG_BITS) as usize, t & ((1 << SEG_BITS) - 1)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_carry_flow_and_segment() {
        for (f, s) in [(0, 0), (3, 12345), (65535, (1 << SEG_BITS) - 1)] {
            assert_eq!(untoken(&token(f, s).to_be_bytes()), Some((f, s)));
        }
        assert_eq!(untoken(&[1, 2, 3]), None);
    }
}
