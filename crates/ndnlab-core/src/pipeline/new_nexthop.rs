//! New next hop (NFD `Forwarder::onNewNextHop`): when management adds a next hop to
//! a FIB prefix, the pending PIT entries whose name's longest FIB match is that
//! prefix itself (a longer FIB entry shadows the new next hop) go to their strategy's
//! `afterNewNextHop` trigger.
//!
//! Only strategies with that trigger care, so while no StrategyChoice entry selects
//! one nothing is scanned (a route load into a large PIT stays cheap). Otherwise, as
//! the PCCT has no name tree to enumerate, this walks the PIT: route changes are rare.

use bytes::Bytes;
use ndnlab_wire::Name;

use crate::face::FaceId;
use crate::strategy::Strategies;
use crate::tables::Tables;
use crate::Time;

impl Tables {
    /// `face` was added as a next hop of `prefix`.
    pub(crate) fn new_nexthop(
        &mut self,
        strategies: &mut Strategies,
        now: Time,
        prefix: &Name,
        face: FaceId,
    ) {
        let wants = |k| strategies.triggers(k).after_new_nexthop;
        if !self.sc.iter().any(|(_, k)| wants(k)) {
            return;
        }
        let pbytes = prefix.value_bytes();
        let mut affected = Vec::new();
        for p in self.pcct.pit_ids() {
            let Some(e) = self.pcct.pit(p) else { continue };
            if !wants(e.strategy) {
                continue;
            }
            // Component TLVs are self-delimiting: a byte prefix is a name prefix.
            let bytes = self.pcct.slot_name(e.slot);
            if !bytes.starts_with(pbytes) {
                continue;
            }
            let Ok(name) = Name::from_value(Bytes::copy_from_slice(bytes)) else {
                continue;
            };
            let hashes = crate::hash::prefix_hashes(&name);
            let lpm = self.fib.lpm_with(&name, &hashes);
            if lpm.is_some_and(|id| self.fib.prefix(id).len() == prefix.len()) {
                affected.push((p, e.strategy, name));
            }
        }
        for (p, kind, name) in affected {
            strategies.after_new_nexthop(kind, self, now, p, face, &name);
        }
    }
}
