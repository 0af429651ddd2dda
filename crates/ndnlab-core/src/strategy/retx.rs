//! NFD's `RetxSuppressionExponential`: a retransmitted Interest is forwarded only if
//! the previous transmission is older than the suppression interval, which starts at
//! `initial` and is multiplied after each forwarded retransmission up to `max`.

use crate::face::FaceId;
use crate::forwarder::Forwarder;
use crate::Time;

/// Suppression decision.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Retx {
    /// First transmission (no pending out-record).
    New,
    /// A retransmission to forward.
    Forward,
    /// A retransmission to suppress.
    Suppress,
}

impl Forwarder {
    /// NFD `decidePerPitEntry`.
    pub(crate) fn retx_per_entry(&mut self, p: u32, now: Time) -> Retx {
        let cfg = self.config.retx;
        let Some(e) = self.pcct.pit_mut(p) else {
            return Retx::New;
        };
        if !e.has_pending_out_records(now) {
            return Retx::New;
        }
        let last = e.last_outgoing().unwrap_or(0);
        let interval = if e.suppression_interval == 0 {
            cfg.initial
        } else {
            Time::from(e.suppression_interval)
        };
        if now.saturating_sub(last) < interval {
            e.suppression_interval = clamp(interval);
            return Retx::Suppress;
        }
        e.suppression_interval = clamp(interval.saturating_mul(cfg.multiplier).min(cfg.max));
        Retx::Forward
    }

    /// NFD `decidePerUpstream`.
    pub(crate) fn retx_per_upstream(&self, p: u32, face: FaceId, now: Time) -> Retx {
        let cfg = self.config.retx;
        let Some(o) = self.pcct.pit(p).and_then(|e| e.out_record(face)) else {
            return Retx::New;
        };
        let interval = if o.suppression_interval == 0 {
            cfg.initial
        } else {
            Time::from(o.suppression_interval)
        };
        if now.saturating_sub(o.last_renewed) < interval {
            Retx::Suppress
        } else {
            Retx::Forward
        }
    }

    /// NFD `incrementIntervalForOutRecord`.
    pub(crate) fn retx_increment_upstream(&mut self, p: u32, face: FaceId) {
        let cfg = self.config.retx;
        if let Some(o) = self.pcct.pit_mut(p).and_then(|e| e.out_record_mut(face)) {
            let interval = if o.suppression_interval == 0 {
                cfg.initial
            } else {
                Time::from(o.suppression_interval)
            };
            o.suppression_interval = clamp(interval.saturating_mul(cfg.multiplier).min(cfg.max));
        }
    }
}

/// Intervals are stored in `u32` nanoseconds (up to 4.29 s) to keep PIT entries small.
#[inline]
fn clamp(t: Time) -> u32 {
    t.min(Time::from(u32::MAX)) as u32
}
