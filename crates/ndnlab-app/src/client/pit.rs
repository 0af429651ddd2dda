//! The client's pending-Interest table: who waits for which answer.
//!
//! Every expressed Interest gets a token, sent as NDNLPv2 PitToken; a Data or
//! Nack echoing it finds its entry directly. A Data also satisfies every
//! other entry it matches by name (exact, CanBePrefix, or implicit digest),
//! since a forwarder aggregates Interests and answers once. Entries expire
//! at their Interest lifetime.

use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashMap};
use std::time::{Duration, Instant};

use bytes::Bytes;
use ndnlab_wire::{Data, Interest, NackReason, Name};
use tokio::sync::{mpsc, oneshot};

/// The longest wait a deadline stands for (2^32 s, about 136 years): an
/// InterestLifetime beyond it (up to 2^64-1 ms on the wire) waits this long
/// instead of overflowing the clock.
pub const LONGEST_WAIT: Duration = Duration::from_secs(1 << 32);

/// `now + lifetime`, clamped to [`LONGEST_WAIT`]; never earlier than `now`.
fn deadline_after(now: Instant, lifetime: Duration) -> Instant {
    now.checked_add(lifetime.min(LONGEST_WAIT)).unwrap_or(now)
}

/// A Data that answered an Interest.
#[derive(Debug, Clone)]
pub struct Received {
    pub data: Data,
    /// NDNLPv2 CongestionMark on the Data (0: none).
    pub congestion_mark: u64,
    /// Time from expressing the Interest to the Data.
    pub rtt: Duration,
}

/// How an expressed Interest ended.
#[derive(Debug, Clone)]
pub enum Outcome {
    Data(Box<Received>),
    Nack(NackReason),
    Timeout,
}

/// Where an outcome goes.
#[derive(Debug)]
pub enum Waiter {
    /// One caller awaiting one answer.
    Once(oneshot::Sender<Outcome>),
    /// A pipeline multiplexing many Interests; `tag` tells them apart.
    Sink {
        tag: u64,
        tx: mpsc::UnboundedSender<(u64, Outcome)>,
    },
}

impl Waiter {
    /// Delivers (a gone receiver is not an error: it stopped caring).
    pub fn deliver(self, outcome: Outcome) {
        match self {
            Waiter::Once(tx) => {
                let _ = tx.send(outcome);
            }
            Waiter::Sink { tag, tx } => {
                let _ = tx.send((tag, outcome));
            }
        }
    }
}

#[derive(Debug)]
pub struct Entry {
    pub name: Name,
    pub can_be_prefix: bool,
    pub nonce: Option<u32>,
    pub sent_at: Instant,
    pub deadline: Instant,
    pub waiter: Waiter,
}

/// The table.
#[derive(Debug, Default)]
pub struct Pit {
    entries: HashMap<u64, Entry>,
    by_name: HashMap<Bytes, Vec<u64>>,
    deadlines: BinaryHeap<Reverse<(Instant, u64)>>,
    next_token: u64,
    can_be_prefix: usize,
    digest: usize,
}

/// Token bytes as sent in PitToken.
pub fn token_bytes(token: u64) -> [u8; 8] {
    token.to_be_bytes()
}

fn token_from(bytes: &[u8]) -> Option<u64> {
    <[u8; 8]>::try_from(bytes).ok().map(u64::from_be_bytes)
}

impl Pit {
    pub fn len(&self) -> usize {
        self.entries.len()
    }
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Adds an entry; returns its token.
    pub fn insert(&mut self, interest: &Interest, now: Instant, waiter: Waiter) -> u64 {
        self.next_token = self.next_token.wrapping_add(1);
        let token = self.next_token;
        let name = interest.name().clone();
        if interest.can_be_prefix() {
            self.can_be_prefix += 1;
        }
        if name.last().is_some_and(|c| c.is_implicit_digest()) {
            self.digest += 1;
        }
        self.by_name
            .entry(name.value().clone())
            .or_default()
            .push(token);
        let deadline = deadline_after(now, interest.lifetime());
        self.deadlines.push(Reverse((deadline, token)));
        self.entries.insert(
            token,
            Entry {
                name,
                can_be_prefix: interest.can_be_prefix(),
                nonce: interest.nonce(),
                sent_at: now,
                deadline,
                waiter,
            },
        );
        token
    }

    /// Removes an entry (the caller gave up).
    pub fn remove(&mut self, token: u64) -> Option<Entry> {
        let e = self.entries.remove(&token)?;
        self.unindex(token, &e);
        Some(e)
    }

    fn unindex(&mut self, token: u64, e: &Entry) {
        if e.can_be_prefix {
            self.can_be_prefix -= 1;
        }
        if e.name.last().is_some_and(|c| c.is_implicit_digest()) {
            self.digest -= 1;
        }
        if let Some(v) = self.by_name.get_mut(e.name.value_bytes()) {
            v.retain(|&t| t != token);
            if v.is_empty() {
                self.by_name.remove(e.name.value_bytes());
            }
        }
    }

    /// Every entry `data` satisfies (the one named by `token` first).
    pub fn take_for_data(&mut self, token: Option<&[u8]>, data: &Data) -> Vec<Entry> {
        let mut hits: Vec<u64> = Vec::new();
        if let Some(t) = token.and_then(token_from) {
            if self.entries.contains_key(&t) {
                hits.push(t);
            }
        }
        let name = data.name();
        let n = name.len();
        let lowest = if self.can_be_prefix > 0 { 0 } else { n };
        for k in (lowest..=n).rev() {
            if let Some(v) = self.by_name.get(name.prefix_bytes(k)) {
                for &t in v {
                    let e = &self.entries[&t];
                    if (k == n || e.can_be_prefix) && !hits.contains(&t) {
                        hits.push(t);
                    }
                }
            }
        }
        if self.digest > 0 {
            let full = data.full_name();
            if let Some(v) = self.by_name.get(full.value_bytes()) {
                for &t in v {
                    if !hits.contains(&t) {
                        hits.push(t);
                    }
                }
            }
        }
        hits.into_iter().filter_map(|t| self.remove(t)).collect()
    }

    /// The entry a Nack answers: by token, else by name and Nonce.
    pub fn take_for_nack(&mut self, token: Option<&[u8]>, interest: &Interest) -> Option<Entry> {
        if let Some(t) = token.and_then(token_from) {
            if self.entries.contains_key(&t) {
                return self.remove(t);
            }
        }
        let t = *self
            .by_name
            .get(interest.name().value_bytes())?
            .iter()
            .find(|t| self.entries[t].nonce == interest.nonce())?;
        self.remove(t)
    }

    /// Entries whose lifetime ended by `now`.
    pub fn expire(&mut self, now: Instant) -> Vec<Entry> {
        let mut out = Vec::new();
        while let Some(&Reverse((d, t))) = self.deadlines.peek() {
            if d > now {
                break;
            }
            self.deadlines.pop();
            // stale heap items (already answered) are skipped
            if self.entries.get(&t).is_some_and(|e| e.deadline == d) {
                out.extend(self.remove(t));
            }
        }
        out
    }

    /// Drops heap items of answered entries when the heap grows too large.
    pub fn compact(&mut self) {
        if self.deadlines.len() > 4 * self.entries.len() + 1024 {
            let live: Vec<_> = self
                .entries
                .iter()
                .map(|(&t, e)| Reverse((e.deadline, t)))
                .collect();
            self.deadlines = live.into();
        }
    }

    /// Removes everything (connection closed).
    pub fn drain(&mut self) -> Vec<Entry> {
        self.by_name.clear();
        self.deadlines.clear();
        self.can_be_prefix = 0;
        self.digest = 0;
        self.entries.drain().map(|(_, e)| e).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ndnlab_wire::DigestSha256;

    fn interest(uri: &str, cbp: bool, nonce: u32) -> Interest {
        Interest::builder(uri.parse().unwrap())
            .can_be_prefix(cbp)
            .nonce(nonce)
            .lifetime(Duration::from_millis(100))
            .build_view()
            .unwrap()
    }

    fn data(uri: &str) -> Data {
        Data::builder(uri.parse().unwrap())
            .content(&b"x"[..])
            .sign_view(&DigestSha256)
            .unwrap()
    }

    fn once() -> (Waiter, oneshot::Receiver<Outcome>) {
        let (tx, rx) = oneshot::channel();
        (Waiter::Once(tx), rx)
    }

    #[test]
    fn exact_and_prefix_matching() {
        let now = Instant::now();
        let mut pit = Pit::default();
        let a = pit.insert(&interest("/a/b", false, 1), now, once().0);
        let b = pit.insert(&interest("/a", true, 2), now, once().0);
        let _c = pit.insert(&interest("/a", false, 3), now, once().0);
        let _d = pit.insert(&interest("/a/b/c", false, 4), now, once().0);
        let hits = pit.take_for_data(None, &data("/a/b"));
        let names: Vec<_> = hits.iter().map(|e| e.name.to_string()).collect();
        assert_eq!(names, vec!["/a/b", "/a"]);
        assert_eq!(pit.len(), 2);
        assert!(pit.remove(a).is_none());
        assert!(pit.remove(b).is_none());
    }

    #[test]
    fn token_match_first_and_unknown_token_falls_back_to_name() {
        let now = Instant::now();
        let mut pit = Pit::default();
        let t1 = pit.insert(&interest("/x", false, 1), now, once().0);
        let t2 = pit.insert(&interest("/x", false, 2), now, once().0);
        let hits = pit.take_for_data(Some(&token_bytes(t2)), &data("/x"));
        assert_eq!(hits.len(), 2);
        assert_eq!(hits[0].nonce, Some(2));
        assert!(pit.is_empty());
        let _ = t1;
        pit.insert(&interest("/y", false, 5), now, once().0);
        assert_eq!(pit.take_for_data(Some(&[9; 3]), &data("/y")).len(), 1);
    }

    #[test]
    fn implicit_digest_match() {
        let now = Instant::now();
        let mut pit = Pit::default();
        let d = data("/z");
        let full = d.full_name();
        pit.insert(
            &Interest::builder(full).nonce(1).build_view().unwrap(),
            now,
            once().0,
        );
        assert_eq!(pit.take_for_data(None, &data("/z/other")).len(), 0);
        assert_eq!(pit.take_for_data(None, &d).len(), 1);
    }

    #[test]
    fn nack_by_name_and_nonce() {
        let now = Instant::now();
        let mut pit = Pit::default();
        pit.insert(&interest("/n", false, 7), now, once().0);
        assert!(pit.take_for_nack(None, &interest("/n", false, 8)).is_none());
        assert!(pit.take_for_nack(None, &interest("/n", false, 7)).is_some());
    }

    #[test]
    fn expiry_at_lifetime() {
        let now = Instant::now();
        let mut pit = Pit::default();
        let (w, mut rx) = once();
        pit.insert(&interest("/e", false, 1), now, w);
        assert!(pit.expire(now + Duration::from_millis(99)).is_empty());
        let gone = pit.expire(now + Duration::from_millis(100));
        assert_eq!(gone.len(), 1);
        for e in gone {
            e.waiter.deliver(Outcome::Timeout);
        }
        assert!(matches!(rx.try_recv(), Ok(Outcome::Timeout)));
    }

    /// The extreme InterestLifetimes of the wire: 0 expires at once, the longest
    /// ones wait (clamped) instead of overflowing the clock or expiring early.
    #[test]
    fn extreme_lifetimes_clamp() {
        let now = Instant::now();
        let at = |ms: u64| {
            let i = Interest::builder("/x".parse().unwrap())
                .lifetime_ms(ms)
                .build_view()
                .unwrap();
            let mut pit = Pit::default();
            pit.insert(&i, now, once().0);
            pit
        };
        assert_eq!(at(0).expire(now).len(), 1);
        assert_eq!(at(1).expire(now).len(), 0);
        assert_eq!(at(1).expire(now + Duration::from_millis(1)).len(), 1);
        let year = Duration::from_secs(365 * 86_400);
        for ms in [u64::MAX / 1_000_000 + 1, i64::MAX as u64, u64::MAX] {
            let mut pit = at(ms);
            assert!(pit.expire(now + 100 * year).is_empty(), "{ms} ms");
            assert_eq!(pit.expire(now + LONGEST_WAIT).len(), 1, "{ms} ms");
        }
    }
}
