//! Interest finalize pipeline (NFD `onInterestFinalize`): counts the entry as
//! satisfied or unsatisfied, inserts its outgoing Nonces into the Dead Nonce List
//! when needed, and removes the entry. No strategy trigger runs here (NFD 24.07 has
//! none): strategies that time out upstreams keep their own timers.

use crate::tables::Tables;
use crate::Time;

impl Tables {
    /// Remove PIT entry `p`.
    pub(crate) fn finalize(&mut self, now: Time, p: u32) {
        let Some(e) = self.pcct.pit(p) else {
            return;
        };
        if e.flags.satisfied {
            self.finalize_satisfied(now, p);
            return;
        }
        let name_key = self.pcct.slot_key(e.slot);
        let Some(e) = self.pcct.pit_remove(p) else {
            return;
        };
        self.counters.n_unsatisfied_interests += 1;
        self.pit_origin_released(e.origin);
        for r in &e.out_records {
            self.dnl.add(now, name_key, r.nonce);
        }
    }

    /// [`Tables::finalize`] of live entry `p`, known satisfied (inline: the Data
    /// pipeline calls it for every entry it satisfies).
    #[inline]
    pub(crate) fn finalize_satisfied(&mut self, now: Time, p: u32) {
        self.counters.n_satisfied_interests += 1;
        if let Some(origin) = self.pcct.pit(p).map(|e| e.origin).filter(|o| *o != 0) {
            self.pit_origin_released(origin);
        }
        // NFD: the Dead Nonce List needs the Nonces unless the entry was satisfied
        // without MustBeFresh (then a looping copy would hit the CS).
        if let Some(e) = self.pcct.pit(p).filter(|e| e.flags.must_be_fresh) {
            let name_key = self.pcct.slot_key(e.slot);
            for r in &e.out_records {
                self.dnl.add(now, name_key, r.nonce);
            }
        }
        self.pcct.pit_discard(p);
    }
}
