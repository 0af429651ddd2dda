//! [`Strategy`]: the triggers a forwarding strategy implements (NFD's `Strategy`
//! virtual methods), and [`Triggers`], the optional ones it has. The pipelines reach
//! them through `Strategies` (`mod.rs`); a trigger acts through
//! [`Context`].

use ndnlab_wire::{Data, Interest, NackReason, Name};

use super::context::Context;
use crate::face::FaceId;
use crate::packet::LpMeta;
use crate::Time;

/// Which optional triggers a strategy has: the pipelines skip the calls of the
/// others (and the work around them) for its entries.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Triggers {
    /// [`Strategy::before_satisfy`].
    pub before_satisfy: bool,
    /// [`Strategy::after_receive_data`].
    pub after_receive_data: bool,
    /// [`Strategy::after_new_nexthop`].
    pub after_new_nexthop: bool,
}

impl Triggers {
    /// Only the triggers every strategy has.
    pub(crate) const NONE: Triggers = Triggers {
        before_satisfy: false,
        after_receive_data: false,
        after_new_nexthop: false,
    };
}

/// A forwarding strategy: NFD's triggers, called by the pipelines for the PIT
/// entries the strategy took. `p` is the entry, `from` the face the packet came
/// from. A trigger that is not implemented does nothing; the optional ones
/// ([`Triggers`]) run only when [`Strategy::TRIGGERS`] names them.
pub(crate) trait Strategy {
    /// The optional triggers this strategy implements.
    const TRIGGERS: Triggers = Triggers::NONE;

    /// NFD `afterReceiveInterest`: a new or retransmitted Interest of entry `p` needs
    /// forwarding (its in-record is in place). `hashes`: the prefix hashes of its
    /// name; `sent`: its Nonce and the end of its lifetime from `now`, as the incoming
    /// pipeline read them; `non_discovery`: it came marked NonDiscovery.
    #[allow(clippy::too_many_arguments)]
    fn after_receive_interest(
        &mut self,
        ctx: &mut Context<'_>,
        now: Time,
        from: FaceId,
        p: u32,
        interest: Interest,
        hashes: &[u64],
        sent: (u32, Time),
        non_discovery: bool,
    );

    /// NFD `beforeSatisfyInterest`: Data from `from` is about to satisfy entry `p`.
    /// Returns how long the satisfied entry stays for late Data (NFD `setExpiryTimer`
    /// there): its in-records go, its out-records but the answering upstream's stay.
    /// 0 (the default): the entry is finalized now.
    fn before_satisfy(
        &mut self,
        _ctx: &mut Context<'_>,
        _now: Time,
        _from: FaceId,
        _p: u32,
        _data_name: &Name,
    ) -> Time {
        0
    }

    /// NFD `afterReceiveData`, when `p` is the only entry the Data matched (the Data
    /// is already in the CS): whether the strategy took over the Data step (sending the
    /// Data and finishing the entry); `false` leaves it to the pipeline.
    #[allow(clippy::too_many_arguments)]
    fn after_receive_data(
        &mut self,
        _ctx: &mut Context<'_>,
        _now: Time,
        _from: FaceId,
        _p: u32,
        _data: &Data,
        _meta: &LpMeta,
        _localhost: bool,
    ) -> bool {
        false
    }

    /// NFD `afterReceiveNack`: upstream `from` Nacked entry `p` (its out-record is
    /// marked).
    fn after_receive_nack(
        &mut self,
        _ctx: &mut Context<'_>,
        _now: Time,
        _from: FaceId,
        _p: u32,
        _reason: NackReason,
    ) {
    }

    /// NFD `afterNewNextHop`: `face` became a next hop of the longest FIB match of
    /// pending entry `p`, named `name`.
    fn after_new_nexthop(
        &mut self,
        _ctx: &mut Context<'_>,
        _now: Time,
        _p: u32,
        _face: FaceId,
        _name: &Name,
    ) {
    }

    /// The strategy's own timers due at `now` (called by `Forwarder::handle_timeout`).
    fn handle_timeout(&mut self, _ctx: &mut Context<'_>, _now: Time) {}

    /// The strategy's earliest timer (`None`: none armed).
    fn next_timeout(&self) -> Option<Time> {
        None
    }

    /// Face `face` is gone: forget what the strategy knows of it.
    fn remove_face(&mut self, _face: FaceId) {}
}
