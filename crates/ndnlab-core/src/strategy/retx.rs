//! NFD's `RetxSuppressionExponential`: a retransmitted Interest is forwarded only if
//! the previous transmission is older than the suppression interval, which starts at
//! `initial` and is multiplied after each forwarded retransmission up to `max`
//! (defaults 10 ms, x2, 250 ms: the i-th retransmission is suppressed if the last
//! transmission is younger than `min(10 ms * 2^(i-1), 250 ms)`).
//!
//! The intervals live in the PIT entry (per entry) and its out-records (per upstream),
//! where NFD keeps them too; the parameters come from the strategy instance.
//!
//! * per PIT entry (best-route): [`per_entry`] decides and grows the entry's interval
//!   in one step, as NFD's `decidePerPitEntry`;
//! * per upstream (multicast, ASF): [`per_upstream`] only decides; the strategy grows
//!   that out-record's interval with [`increment_upstream`] after it forwarded a
//!   retransmission, as NFD's `incrementIntervalForOutRecord`.

use super::params::RetxParams;
use crate::face::FaceId;
use crate::pit::PitEntry;
use crate::Time;

/// Suppression decision.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Retx {
    /// First transmission (no pending out-record / no out-record for this upstream).
    New,
    /// A retransmission to forward.
    Forward,
    /// A retransmission to suppress.
    Suppress,
}

/// The stored interval (0 = never set: `initial`).
#[inline]
fn current(stored: u32, r: &RetxParams) -> Time {
    if stored == 0 {
        r.initial
    } else {
        Time::from(stored)
    }
}

/// NFD `decidePerPitEntry` (no entry: [`Retx::New`]).
#[inline]
pub(crate) fn per_entry(e: Option<&mut PitEntry>, now: Time, r: &RetxParams) -> Retx {
    let Some(e) = e else {
        return Retx::New;
    };
    if !e.has_pending_out_records(now) {
        return Retx::New;
    }
    let last = e.last_outgoing().unwrap_or(0);
    let interval = current(e.suppression_interval, r);
    if now.saturating_sub(last) < interval {
        e.suppression_interval = clamp(interval);
        return Retx::Suppress;
    }
    e.suppression_interval = clamp(r.next_interval(interval));
    Retx::Forward
}

/// NFD `decidePerUpstream` (no entry: [`Retx::New`]).
pub(crate) fn per_upstream(e: Option<&PitEntry>, face: FaceId, now: Time, r: &RetxParams) -> Retx {
    let Some(o) = e.and_then(|e| e.out_record(face)) else {
        return Retx::New;
    };
    if now.saturating_sub(o.last_renewed) < current(o.suppression_interval, r) {
        Retx::Suppress
    } else {
        Retx::Forward
    }
}

/// NFD `incrementIntervalForOutRecord`.
pub(crate) fn increment_upstream(e: Option<&mut PitEntry>, face: FaceId, r: &RetxParams) {
    if let Some(o) = e.and_then(|e| e.out_record_mut(face)) {
        o.suppression_interval = clamp(r.next_interval(current(o.suppression_interval, r)));
    }
}

/// Intervals are stored in `u32` nanoseconds (up to 4.29 s) to keep PIT entries small.
#[inline]
fn clamp(t: Time) -> u32 {
    t.min(Time::from(u32::MAX)) as u32
}
