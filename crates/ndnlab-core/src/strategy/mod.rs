//! Forwarding strategies (NFD triggers), selected per namespace by StrategyChoice.
//!
//! The six strategies NFD 24.07 registers, under the same names and versions:
//!
//! | kind | NFD name | type, file |
//! |---|---|---|
//! | [`StrategyKind::BestRoute`] | `/localhost/nfd/strategy/best-route/v=5` | `BestRouteStrategy`, `best_route.rs` |
//! | [`StrategyKind::Multicast`] | `/localhost/nfd/strategy/multicast/v=5` | `MulticastStrategy`, `multicast.rs` |
//! | [`StrategyKind::Asf`] | `/localhost/nfd/strategy/asf/v=5` | `AsfStrategy`, `asf.rs` (+ `rtt.rs`) |
//! | [`StrategyKind::Random`] | `/localhost/nfd/strategy/random/v=1` | `RandomStrategy`, `random.rs` |
//! | [`StrategyKind::Access`] | `/localhost/nfd/strategy/access/v=1` | `AccessStrategy`, `access.rs` (+ `rtt.rs`) |
//! | [`StrategyKind::SelfLearning`] | `/localhost/nfd/strategy/self-learning/v=1` | `SelfLearningStrategy`, `self_learning.rs` |
//!
//! A strategy is an object that implements `Strategy`: its triggers, and the state
//! it keeps (ASF's measurements and RTO timers, access's last working next hops,
//! self-learning's RIB requests and waiting Data). The forwarder holds one object per
//! registered strategy in `Strategies`, shared by every namespace that chose it; a
//! namespace's parameters come from its StrategyChoice entry
//! (`Context::params`). A PIT entry records the
//! [`StrategyKind`] that took it (its StrategyChoice at creation), and the pipelines
//! call `Strategies`' triggers with it: `Strategies` maps a kind to its object in
//! one place (`dispatch!`), so a pipeline never knows which strategy it calls, and a
//! new strategy is a new file, a [`StrategyKind`] variant and a line in `dispatch!`.
//!
//! A trigger acts through `Context` (`context.rs`), a narrow view
//! of the forwarder's tables: PIT entries, FIB lookup, faces, sending Interests, Data
//! and Nacks, rejecting entries, expiry timers. Shared algorithms: next-hop
//! eligibility (`algorithm.rs`), NFD's `ProcessNackTraits` (`process_nack.rs`) and
//! `RetxSuppressionExponential` (`retx.rs`); names, versions and parameters in
//! `kind.rs` and `params.rs`.

pub mod access;
pub(crate) mod algorithm;
pub mod asf;
mod best_route;
pub(crate) mod context;
pub(crate) mod kind;
mod multicast;
pub mod params;
mod process_nack;
mod random;
mod retx;
pub mod rtt;
pub mod self_learning;
pub(crate) mod triggers;

use ndnlab_wire::{Data, Interest, NackReason, Name};

use crate::face::FaceId;
use crate::packet::LpMeta;
use crate::tables::Tables;
use crate::Time;
use context::Context;
use triggers::{Strategy, Triggers};

pub use kind::StrategyKind;
pub use params::{RetxParams, StrategyInstance};

use access::AccessStrategy;
use asf::AsfStrategy;
use best_route::BestRouteStrategy;
use multicast::MulticastStrategy;
use random::RandomStrategy;
use self_learning::SelfLearningStrategy;

/// `$body` with `$s` bound to the object of strategy `$kind` in `$reg` (a
/// `&Strategies` or a `&mut Strategies`): the one place that maps a kind to its
/// strategy.
macro_rules! dispatch {
    ($reg:expr, $kind:expr, |$s:ident| $body:expr) => {{
        let Strategies {
            best_route,
            multicast,
            asf,
            random,
            access,
            self_learning,
        } = $reg;
        match $kind {
            StrategyKind::BestRoute => {
                let $s = best_route;
                $body
            }
            StrategyKind::Multicast => {
                let $s = multicast;
                $body
            }
            StrategyKind::Asf => {
                let $s = asf;
                $body
            }
            StrategyKind::Random => {
                let $s = random;
                $body
            }
            StrategyKind::Access => {
                let $s = access;
                $body
            }
            StrategyKind::SelfLearning => {
                let $s = self_learning;
                $body
            }
        }
    }};
}

/// The strategies of one forwarder, one object each (see the module docs).
#[derive(Default)]
pub(crate) struct Strategies {
    pub best_route: BestRouteStrategy,
    pub multicast: MulticastStrategy,
    pub asf: AsfStrategy,
    pub random: RandomStrategy,
    pub access: AccessStrategy,
    pub self_learning: SelfLearningStrategy,
}

/// The optional triggers of `S`.
#[inline(always)]
fn triggers_of<S: Strategy>(_: &S) -> Triggers {
    S::TRIGGERS
}

impl Strategies {
    /// The optional triggers of strategy `kind`.
    #[inline]
    pub(crate) fn triggers(&self, kind: StrategyKind) -> Triggers {
        dispatch!(self, kind, |s| triggers_of(s))
    }

    /// Whether strategy `kind` has a trigger on Data ([`Strategy::before_satisfy`]
    /// or [`Strategy::after_receive_data`]).
    #[inline]
    pub(crate) fn acts_on_data(&self, kind: StrategyKind) -> bool {
        let t = self.triggers(kind);
        t.before_satisfy || t.after_receive_data
    }

    /// [`Strategy::after_receive_interest`] of strategy `kind`.
    #[allow(clippy::too_many_arguments)]
    #[inline]
    pub(crate) fn after_receive_interest(
        &mut self,
        kind: StrategyKind,
        t: &mut Tables,
        now: Time,
        from: FaceId,
        p: u32,
        interest: Interest,
        hashes: &[u64],
        sent: (u32, Time),
        non_discovery: bool,
    ) {
        let ctx = &mut Context::new(t);
        dispatch!(self, kind, |s| s.after_receive_interest(
            ctx,
            now,
            from,
            p,
            interest,
            hashes,
            sent,
            non_discovery
        ))
    }

    /// [`Strategy::before_satisfy`] of strategy `kind`, if it has it.
    #[allow(clippy::too_many_arguments)]
    #[inline]
    pub(crate) fn before_satisfy(
        &mut self,
        kind: StrategyKind,
        t: &mut Tables,
        now: Time,
        from: FaceId,
        p: u32,
        data_name: &Name,
    ) -> Time {
        if !self.triggers(kind).before_satisfy {
            return 0;
        }
        let ctx = &mut Context::new(t);
        dispatch!(self, kind, |s| s
            .before_satisfy(ctx, now, from, p, data_name))
    }

    /// [`Strategy::after_receive_data`] of strategy `kind`, if it has it.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn after_receive_data(
        &mut self,
        kind: StrategyKind,
        t: &mut Tables,
        now: Time,
        from: FaceId,
        p: u32,
        data: &Data,
        meta: &LpMeta,
        localhost: bool,
    ) -> bool {
        if !self.triggers(kind).after_receive_data {
            return false;
        }
        let ctx = &mut Context::new(t);
        dispatch!(self, kind, |s| s
            .after_receive_data(ctx, now, from, p, data, meta, localhost))
    }

    /// [`Strategy::after_receive_nack`] of strategy `kind`.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn after_receive_nack(
        &mut self,
        kind: StrategyKind,
        t: &mut Tables,
        now: Time,
        from: FaceId,
        p: u32,
        reason: NackReason,
    ) {
        let ctx = &mut Context::new(t);
        dispatch!(self, kind, |s| s
            .after_receive_nack(ctx, now, from, p, reason))
    }

    /// [`Strategy::after_new_nexthop`] of strategy `kind`.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn after_new_nexthop(
        &mut self,
        kind: StrategyKind,
        t: &mut Tables,
        now: Time,
        p: u32,
        face: FaceId,
        name: &Name,
    ) {
        let ctx = &mut Context::new(t);
        dispatch!(self, kind, |s| s.after_new_nexthop(ctx, now, p, face, name))
    }

    /// Every strategy's [`Strategy::handle_timeout`], in [`StrategyKind::ALL`] order.
    pub(crate) fn handle_timeout(&mut self, t: &mut Tables, now: Time) {
        let ctx = &mut Context::new(t);
        for kind in StrategyKind::ALL {
            dispatch!(&mut *self, kind, |s| s.handle_timeout(ctx, now));
        }
    }

    /// The earliest of every strategy's [`Strategy::next_timeout`].
    pub(crate) fn next_timeout(&self) -> Option<Time> {
        StrategyKind::ALL
            .into_iter()
            .filter_map(|kind| dispatch!(self, kind, |s| s.next_timeout()))
            .min()
    }

    /// Every strategy's [`Strategy::remove_face`].
    pub(crate) fn remove_face(&mut self, face: FaceId) {
        for kind in StrategyKind::ALL {
            dispatch!(&mut *self, kind, |s| s.remove_face(face));
        }
    }
}
