//! NFD's `ProcessNackTraits`, the Nack handling of best-route, multicast, random and
//! ASF: while some upstream has not Nacked, a Nack is absorbed (except that when the
//! only upstream left is also a downstream, that face is Nacked so it can stop
//! waiting); once every upstream Nacked, every downstream gets a Nack with the least
//! severe reason (Congestion < Duplicate < NoRoute) and the entry is rejected.

use ndnlab_wire::NackReason;

use super::context::Context;
use crate::Time;

impl Context<'_> {
    /// NFD `ProcessNackTraits::processNack` for entry `p` (its out-record of the
    /// Nacking upstream already marked).
    pub(crate) fn process_nack(&mut self, now: Time, p: u32) {
        let Some(e) = self.pit(p) else { return };
        let mut not_nacked = 0;
        let mut last_not_nacked = None;
        let mut least: Option<NackReason> = None;
        for o in &e.out_records {
            match o.nack() {
                None => {
                    not_nacked += 1;
                    last_not_nacked = Some(o.face);
                }
                Some(r) => {
                    least = match least {
                        Some(l) if l.severity() <= r.severity() => Some(l),
                        _ => Some(r),
                    };
                }
            }
        }
        let least = least.unwrap_or(NackReason::None);
        if not_nacked == 1 {
            // The only upstream left is also a downstream: Nack it so it can stop waiting.
            if let Some(f) = last_not_nacked {
                if e.in_record(f).is_some() {
                    self.send_nack(p, f, least);
                    return;
                }
            }
        }
        if not_nacked > 0 {
            return;
        }
        self.send_nacks(now, p, least);
    }
}
