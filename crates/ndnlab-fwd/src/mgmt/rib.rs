//! The RIB and the FIB it computes.
//!
//! Routes are keyed by (prefix, face, origin). The FIB entry of a prefix holds its own
//! routes (lowest cost per face) plus the CHILD_INHERIT routes of its ancestors, up to
//! the first prefix carrying a CAPTURE route (NFD's semantics). Next hops added
//! directly with `fib/add-nexthop` are kept apart and override the computed cost.
//! Every change returns the FIB operations to apply to the forwarding shards.
//!
//! Routes made from prefix announcements (`rib/announce`, and self-learning's
//! requests: NFD's `slAnnounce`, `slRenew`, `slFindAnn`) keep their announcement:
//! origin prefix-announcement (129), cost 2048, CHILD_INHERIT, expiring with the
//! announcement (its ExpirationPeriod, cut to its ValidityPeriod).

use std::collections::{BTreeMap, BTreeSet};

use bytes::Bytes;
use ndnlab_wire::{Name, PrefixAnnouncement};

use super::params::{ROUTE_CAPTURE, ROUTE_CHILD_INHERIT};

/// Route origin of a prefix announcement (NFD `ROUTE_ORIGIN_PREFIXANN`).
pub const ORIGIN_PREFIXANN: u64 = 129;
/// Cost of a route made from a prefix announcement (NFD `PA_ROUTE_COST`).
pub const PA_ROUTE_COST: u64 = 2048;
/// Bounds of the ExpirationPeriod of an announcement made for a RIB entry that has
/// none (NFD `RibEntry::getPrefixAnnouncement`: 15 s to 1 h).
pub const MADE_ANNOUNCEMENT_EXPIRATION_MS: (u64, u64) = (15_000, 3_600_000);

const MS: u64 = 1_000_000;

/// The ExpirationPeriod that means "never expires" (ndn-cxx's
/// `time::milliseconds::max()`, 2^63-1 ms: what `nfd-autoreg` registers with).
pub const EXPIRATION_NEVER_MS: u64 = i64::MAX as u64;

/// When a route given `ExpirationPeriod = ms` at `now` (nanoseconds on the
/// daemon's clock) expires: `None` (never) for [`EXPIRATION_NEVER_MS`] and above,
/// as NFD's RIB, and for a period so long that the deadline is past the clock's
/// range (about 584 years); otherwise `now + ms`. Never wraps into the past.
pub fn expiry_after_ms(now: u64, ms: u64) -> Option<u64> {
    if ms >= EXPIRATION_NEVER_MS {
        return None;
    }
    now.checked_add(ms.checked_mul(MS)?)
        .filter(|&e| e != u64::MAX)
}

/// One route of a RIB entry.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Route {
    pub face_id: u64,
    pub origin: u64,
    pub cost: u64,
    pub flags: u64,
    /// Expiry on the daemon's clock (nanoseconds), `None` = never.
    pub expires: Option<u64>,
    /// The prefix-announcement Data TLV the route was made from.
    pub announcement: Option<Bytes>,
    /// When the announcement ends (daemon clock), for a route made from one.
    pub ann_expires: Option<u64>,
}

impl Route {
    /// Milliseconds left at `now` (rounded down, 0 once due), for the RIB
    /// dataset and command responses; `None`: never expires.
    pub fn remaining_ms(&self, now: u64) -> Option<u64> {
        self.expires
            .filter(|&e| e != u64::MAX)
            .map(|e| e.saturating_sub(now) / MS)
    }

    /// NFD's route made from an announcement toward `face` at `now` (daemon clock;
    /// `unix_ms`: the same instant as Unix time, for the ValidityPeriod).
    pub fn from_announcement(pa: &PrefixAnnouncement, face: u64, now: u64, unix_ms: u64) -> Route {
        // An announcement's route always ends (NFD keeps no never-expiring one): a
        // period past the clock's range ends at its last instant.
        let expires = expiry_after_ms(now, pa.route_lifetime_ms(unix_ms)).unwrap_or(u64::MAX);
        Route {
            face_id: face,
            origin: ORIGIN_PREFIXANN,
            cost: PA_ROUTE_COST,
            flags: ROUTE_CHILD_INHERIT,
            expires: Some(expires),
            announcement: Some(pa.wire().clone()),
            ann_expires: Some(expires),
        }
    }
}

/// An announcement for a name, as the RIB has it (NFD `slFindAnn`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FoundAnnouncement {
    /// The announcement of one of the entry's routes (the one expiring last).
    Kept(Bytes),
    /// None kept: one is to be made for the entry's prefix with this
    /// ExpirationPeriod (the entry's remaining lifetime, within 15 s..=1 h).
    Make { prefix: Name, expiration_ms: u64 },
}

/// A change to apply to the FIB of every shard.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FibOp {
    AddNextHop { prefix: Name, face: u64, cost: u64 },
    RemoveNextHop { prefix: Name, face: u64 },
}

type NextHops = BTreeMap<u64, u64>;

/// RIB, direct FIB next hops, and the FIB currently installed in the shards.
#[derive(Debug, Default)]
pub struct Rib {
    routes: BTreeMap<Name, Vec<Route>>,
    manual: BTreeMap<Name, NextHops>,
    installed: BTreeMap<Name, NextHops>,
}

impl Rib {
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds or updates the route (prefix, face, origin).
    pub fn register(&mut self, prefix: &Name, route: Route) -> Vec<FibOp> {
        let list = self.routes.entry(prefix.clone()).or_default();
        match list
            .iter_mut()
            .find(|r| r.face_id == route.face_id && r.origin == route.origin)
        {
            Some(r) => *r = route,
            None => list.push(route),
        }
        self.recompute_under(prefix)
    }

    /// NFD `beginAddRoute`: a route that has already expired removes its
    /// (prefix, face, origin) instead of being added.
    pub fn add_route(&mut self, prefix: &Name, route: Route, now: u64) -> Vec<FibOp> {
        if route.expires.is_some_and(|e| e <= now) {
            return self.unregister(prefix, route.face_id, route.origin);
        }
        self.register(prefix, route)
    }

    /// NFD `slAnnounce`: the route of `pa` toward `face`, living at most
    /// `max_lifetime` nanoseconds.
    pub fn sl_announce(
        &mut self,
        pa: &PrefixAnnouncement,
        face: u64,
        max_lifetime: u64,
        now: u64,
        unix_ms: u64,
    ) -> Vec<FibOp> {
        let mut route = Route::from_announcement(pa, face, now, unix_ms);
        let cap = now.saturating_add(max_lifetime);
        route.expires = route.expires.map(|e| e.min(cap));
        self.add_route(pa.announced_name(), route, now)
    }

    /// NFD `slRenew`: the announcement route of `face` at `name`, or else at the
    /// longest RIB entry above `name`, now expires at the earlier of its
    /// announcement's end and `max_lifetime` from now (0: it goes). Nothing happens
    /// when there is no such route.
    pub fn sl_renew(&mut self, name: &Name, face: u64, max_lifetime: u64, now: u64) -> Vec<FibOp> {
        let find = |rib: &Self, n: &Name| {
            rib.routes.get(n).and_then(|l| {
                l.iter()
                    .find(|r| r.face_id == face && r.origin == ORIGIN_PREFIXANN)
                    .cloned()
            })
        };
        let old = find(self, name).or_else(|| {
            let parent = self.parent(name)?;
            find(self, &parent)
        });
        let Some(old) = old else { return Vec::new() };
        let Some(pa) = old
            .announcement
            .clone()
            .and_then(|w| PrefixAnnouncement::decode(w).ok())
        else {
            return Vec::new();
        };
        let mut route = old;
        let cap = now.saturating_add(max_lifetime);
        route.expires = Some(route.ann_expires.unwrap_or(u64::MAX).min(cap));
        self.add_route(pa.announced_name(), route, now)
    }

    /// NFD `slFindAnn`: the announcement for `name`, from the RIB entry of `name` or
    /// else of its longest prefix; `None` when no entry covers it.
    pub fn sl_find_announcement(&self, name: &Name, now: u64) -> Option<FoundAnnouncement> {
        let prefix = if self.routes.contains_key(name) {
            name.clone()
        } else {
            self.parent(name)?
        };
        let routes = self.routes.get(&prefix)?;
        let mut best: Option<&Route> = None;
        let mut entry_expiry = 0u64;
        for r in routes {
            match r.expires {
                Some(e) => {
                    entry_expiry = entry_expiry.max(e);
                    if r.announcement.is_some() && best.is_none_or(|b| Some(e) > b.expires) {
                        best = Some(r);
                    }
                }
                None => entry_expiry = u64::MAX,
            }
        }
        if let Some(ann) = best.and_then(|r| r.announcement.clone()) {
            return Some(FoundAnnouncement::Kept(ann));
        }
        let (lo, hi) = MADE_ANNOUNCEMENT_EXPIRATION_MS;
        let expiration_ms = (entry_expiry.saturating_sub(now) / MS).clamp(lo, hi);
        Some(FoundAnnouncement::Make {
            prefix,
            expiration_ms,
        })
    }

    /// NFD `Rib::findParent`: the longest RIB entry name that is a proper prefix of
    /// `name`.
    fn parent(&self, name: &Name) -> Option<Name> {
        (0..name.len())
            .rev()
            .map(|i| name.prefix(i))
            .find(|p| self.routes.contains_key(p))
    }

    /// Removes the route (prefix, face, origin); no-op if absent.
    pub fn unregister(&mut self, prefix: &Name, face: u64, origin: u64) -> Vec<FibOp> {
        if let Some(list) = self.routes.get_mut(prefix) {
            list.retain(|r| !(r.face_id == face && r.origin == origin));
            if list.is_empty() {
                self.routes.remove(prefix);
            }
        }
        self.recompute_under(prefix)
    }

    /// `fib/add-nexthop`.
    pub fn add_nexthop(&mut self, prefix: &Name, face: u64, cost: u64) -> Vec<FibOp> {
        self.manual
            .entry(prefix.clone())
            .or_default()
            .insert(face, cost);
        self.recompute_names([prefix.clone()].into())
    }

    /// `fib/remove-nexthop`.
    pub fn remove_nexthop(&mut self, prefix: &Name, face: u64) -> Vec<FibOp> {
        if let Some(m) = self.manual.get_mut(prefix) {
            m.remove(&face);
            if m.is_empty() {
                self.manual.remove(prefix);
            }
        }
        // A direct removal also takes out a RIB-computed next hop, as in NFD.
        let mut ops = self.recompute_names([prefix.clone()].into());
        if let Some(inst) = self.installed.get_mut(prefix) {
            if inst.remove(&face).is_some() {
                ops.push(FibOp::RemoveNextHop {
                    prefix: prefix.clone(),
                    face,
                });
            }
            if inst.is_empty() {
                self.installed.remove(prefix);
            }
        }
        ops
    }

    /// Removes every route and next hop of a face that closed.
    pub fn remove_face(&mut self, face: u64) -> Vec<FibOp> {
        let mut touched = BTreeSet::new();
        self.routes.retain(|name, list| {
            let before = list.len();
            list.retain(|r| r.face_id != face);
            if list.len() != before {
                touched.insert(name.clone());
            }
            !list.is_empty()
        });
        self.manual.retain(|name, m| {
            if m.remove(&face).is_some() {
                touched.insert(name.clone());
            }
            !m.is_empty()
        });
        let mut names = BTreeSet::new();
        for t in &touched {
            names.extend(self.names_under(t));
        }
        self.recompute_names(names)
    }

    /// Removes expired routes.
    pub fn expire(&mut self, now: u64) -> Vec<FibOp> {
        let mut touched = Vec::new();
        self.routes.retain(|name, list| {
            let before = list.len();
            list.retain(|r| r.expires.is_none_or(|e| e > now));
            if list.len() != before {
                touched.push(name.clone());
            }
            !list.is_empty()
        });
        let mut names = BTreeSet::new();
        for t in &touched {
            names.extend(self.names_under(t));
        }
        self.recompute_names(names)
    }

    /// RIB entries (for rib/list).
    pub fn routes(&self) -> impl Iterator<Item = (&Name, &[Route])> {
        self.routes.iter().map(|(n, r)| (n, r.as_slice()))
    }

    /// The FIB as installed (for fib/list).
    pub fn fib(&self) -> impl Iterator<Item = (&Name, &NextHops)> {
        self.installed.iter()
    }

    /// Number of FIB entries.
    pub fn fib_len(&self) -> usize {
        self.installed.len()
    }

    fn names_under(&self, prefix: &Name) -> BTreeSet<Name> {
        let mut out: BTreeSet<Name> = self
            .routes
            .keys()
            .chain(self.manual.keys())
            .chain(self.installed.keys())
            .filter(|n| prefix.is_prefix_of(n))
            .cloned()
            .collect();
        out.insert(prefix.clone());
        out
    }

    fn recompute_under(&mut self, prefix: &Name) -> Vec<FibOp> {
        let names = self.names_under(prefix);
        self.recompute_names(names)
    }

    fn computed(&self, name: &Name) -> NextHops {
        let mut hops = NextHops::new();
        let own = self.routes.get(name);
        if let Some(list) = own {
            for r in list {
                let c = hops.entry(r.face_id).or_insert(r.cost);
                *c = (*c).min(r.cost);
            }
        }
        let mut captured = own.is_some_and(|l| l.iter().any(|r| r.flags & ROUTE_CAPTURE != 0));
        let mut len = name.len();
        while !captured && len > 0 {
            len -= 1;
            let anc = name.prefix(len);
            if let Some(list) = self.routes.get(&anc) {
                let mut inherited = NextHops::new();
                for r in list.iter().filter(|r| r.flags & ROUTE_CHILD_INHERIT != 0) {
                    let c = inherited.entry(r.face_id).or_insert(r.cost);
                    *c = (*c).min(r.cost);
                }
                for (f, c) in inherited {
                    hops.entry(f).or_insert(c);
                }
                captured = list.iter().any(|r| r.flags & ROUTE_CAPTURE != 0);
            }
        }
        // Only prefixes with routes of their own get RIB-derived FIB entries.
        if own.is_none() {
            hops.clear();
        }
        if let Some(m) = self.manual.get(name) {
            for (f, c) in m {
                hops.insert(*f, *c);
            }
        }
        hops
    }

    fn recompute_names(&mut self, names: BTreeSet<Name>) -> Vec<FibOp> {
        let mut ops = Vec::new();
        for name in names {
            let want = self.computed(&name);
            let have = self.installed.remove(&name).unwrap_or_default();
            for f in have.keys() {
                if !want.contains_key(f) {
                    ops.push(FibOp::RemoveNextHop {
                        prefix: name.clone(),
                        face: *f,
                    });
                }
            }
            for (f, c) in &want {
                if have.get(f) != Some(c) {
                    ops.push(FibOp::AddNextHop {
                        prefix: name.clone(),
                        face: *f,
                        cost: *c,
                    });
                }
            }
            if !want.is_empty() {
                self.installed.insert(name, want);
            }
        }
        ops
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn n(s: &str) -> Name {
        Name::from_uri(s).unwrap()
    }

    fn route(face: u64, cost: u64, flags: u64) -> Route {
        Route {
            face_id: face,
            origin: 0,
            cost,
            flags,
            ..Default::default()
        }
    }

    fn hops(rib: &Rib, s: &str) -> Vec<(u64, u64)> {
        rib.fib()
            .find(|(k, _)| **k == n(s))
            .map(|(_, h)| h.iter().map(|(a, b)| (*a, *b)).collect())
            .unwrap_or_default()
    }

    #[test]
    fn child_inherit_and_capture() {
        let mut rib = Rib::new();
        rib.register(&n("/a"), route(300, 10, ROUTE_CHILD_INHERIT));
        rib.register(&n("/a/b"), route(301, 5, 0));
        assert_eq!(hops(&rib, "/a/b"), vec![(300, 10), (301, 5)]);
        // CAPTURE at /a/b stops inheritance from /a.
        let ops = rib.register(&n("/a/b"), route(301, 5, ROUTE_CAPTURE));
        assert_eq!(
            ops,
            vec![FibOp::RemoveNextHop {
                prefix: n("/a/b"),
                face: 300
            }]
        );
        assert_eq!(hops(&rib, "/a/b"), vec![(301, 5)]);
        // No CHILD_INHERIT at /a: /a/c does not get face 300.
        rib.register(&n("/a"), route(300, 10, 0));
        rib.register(&n("/a/c"), route(302, 1, 0));
        assert_eq!(hops(&rib, "/a/c"), vec![(302, 1)]);
    }

    #[test]
    fn face_removal_and_unregister() {
        let mut rib = Rib::new();
        rib.register(&n("/p"), route(300, 0, ROUTE_CHILD_INHERIT));
        rib.register(&n("/p/q"), route(301, 0, 0));
        let ops = rib.remove_face(300);
        assert!(ops.contains(&FibOp::RemoveNextHop {
            prefix: n("/p"),
            face: 300
        }));
        assert!(ops.contains(&FibOp::RemoveNextHop {
            prefix: n("/p/q"),
            face: 300
        }));
        assert_eq!(rib.fib_len(), 1);
        rib.unregister(&n("/p/q"), 301, 0);
        assert_eq!(rib.fib_len(), 0);
        assert_eq!(rib.routes().count(), 0);
    }

    #[test]
    fn manual_next_hops_and_expiry() {
        let mut rib = Rib::new();
        rib.add_nexthop(&n("/m"), 400, 3);
        assert_eq!(hops(&rib, "/m"), vec![(400, 3)]);
        let mut r = route(401, 1, 0);
        r.expires = Some(100);
        rib.register(&n("/m"), r);
        assert_eq!(hops(&rib, "/m"), vec![(400, 3), (401, 1)]);
        let ops = rib.expire(200);
        assert_eq!(
            ops,
            vec![FibOp::RemoveNextHop {
                prefix: n("/m"),
                face: 401
            }]
        );
        rib.remove_nexthop(&n("/m"), 400);
        assert_eq!(rib.fib_len(), 0);
    }

    fn ann(prefix: &str, ms: u64) -> PrefixAnnouncement {
        PrefixAnnouncement::decode(
            PrefixAnnouncement::builder(&n(prefix), ms, None, 1).sign_digest(),
        )
        .unwrap()
    }

    #[test]
    fn self_learning_announce_renew_and_find() {
        let mut rib = Rib::new();
        let now = 1_000 * MS;
        // slAnnounce: a 60 s announcement capped at 10 s.
        let ops = rib.sl_announce(&ann("/sl", 60_000), 300, 10_000 * MS, now, 0);
        assert_eq!(
            ops,
            vec![FibOp::AddNextHop {
                prefix: n("/sl"),
                face: 300,
                cost: PA_ROUTE_COST
            }]
        );
        let r = &rib.routes().next().unwrap().1[0];
        assert_eq!((r.origin, r.flags), (ORIGIN_PREFIXANN, ROUTE_CHILD_INHERIT));
        assert_eq!(r.expires, Some(now + 10_000 * MS));
        assert_eq!(r.ann_expires, Some(now + 60_000 * MS));
        // slFindAnn under the prefix: the kept announcement.
        let found = rib.sl_find_announcement(&n("/sl/a/b"), now).unwrap();
        assert!(matches!(found, FoundAnnouncement::Kept(ref w)
            if PrefixAnnouncement::decode(w.clone()).unwrap().announced_name() == &n("/sl")));
        assert_eq!(rib.sl_find_announcement(&n("/other"), now), None);
        // slRenew from a longer name finds the route above it; lifetime 0 removes it.
        assert!(
            rib.sl_renew(&n("/sl/a"), 301, 0, now).is_empty(),
            "other face"
        );
        let ops = rib.sl_renew(&n("/sl/a"), 300, 0, now);
        assert_eq!(
            ops,
            vec![FibOp::RemoveNextHop {
                prefix: n("/sl"),
                face: 300
            }]
        );
        assert_eq!(rib.routes().count(), 0);
    }

    #[test]
    fn an_entry_without_announcement_gets_one_made_within_15s_and_1h() {
        let mut rib = Rib::new();
        let now = 5 * MS;
        let mut r = route(400, 1, 0);
        r.expires = Some(now + 2_000 * MS);
        rib.register(&n("/app"), r);
        assert_eq!(
            rib.sl_find_announcement(&n("/app/x"), now),
            Some(FoundAnnouncement::Make {
                prefix: n("/app"),
                expiration_ms: 15_000
            })
        );
        rib.register(&n("/app"), route(401, 1, 0)); // never expires
        assert_eq!(
            rib.sl_find_announcement(&n("/app"), now),
            Some(FoundAnnouncement::Make {
                prefix: n("/app"),
                expiration_ms: 3_600_000
            })
        );
    }

    /// ExpirationPeriods at the extremes: exact while the deadline fits the clock,
    /// never past it and from ndn-cxx's `milliseconds::max()` on; none wraps.
    #[test]
    fn expiry_after_extreme_periods() {
        let now = 5 * MS;
        assert_eq!(expiry_after_ms(now, 0), Some(now));
        assert_eq!(expiry_after_ms(now, 1), Some(now + MS));
        let fits = (u64::MAX - 1 - now) / MS;
        assert_eq!(expiry_after_ms(now, fits), Some(now + fits * MS));
        for ms in [
            fits + 1,
            u64::MAX / MS,
            u64::MAX / MS + 1,
            EXPIRATION_NEVER_MS - 1,
        ] {
            assert_eq!(expiry_after_ms(now, ms), None, "{ms} ms");
        }
        assert_eq!(expiry_after_ms(now, EXPIRATION_NEVER_MS), None);
        assert_eq!(expiry_after_ms(u64::MAX, 1), None);
        assert_eq!(expiry_after_ms(u64::MAX, 0), None);
        let mut r = route(1, 0, 0);
        assert_eq!(r.remaining_ms(now), None);
        r.expires = Some(now + 1500 * MS);
        assert_eq!(r.remaining_ms(now), Some(1500));
        assert_eq!(
            r.remaining_ms(u64::MAX - 1),
            Some(0),
            "past due: 0, not negative"
        );
        r.expires = Some(u64::MAX);
        assert_eq!(r.remaining_ms(now), None, "the clock's end is never");
    }
}
