//! Resource bounds of the forwarder core: the PIT size (in total and per downstream
//! face) and the Interest rate of each face. Every limit counts when it bites: a
//! [`DropReason`] (`pit-full`, `pit-face-full`, `interest-rate-limit`) and the
//! face's `n_in_limited`.
//!
//! * **Interest rate** (a token bucket per face, checked first, before any table
//!   work): an Interest over the rate is dropped silently, like a policer.
//! * **PIT bounds** (checked only when an Interest would create a new entry: an
//!   Interest that joins a pending entry or hits the CS costs no new state). A
//!   refused Interest gets a Nack Congestion on a point-to-point face, so that a
//!   consumer backs off at once instead of waiting for its Interest to time out.
//!
//! The per-face bound is what keeps a flood on one face from taking the PIT away
//! from the others (docs/RELIABILITY.md, "Floods and resource bounds"): the face
//! that created an entry owns it until the entry is finalized, whichever faces
//! join it later.
//!
//! The bounds are per forwarder (one shard); the daemon splits its configured
//! totals between the shards. The checks are steps of the incoming Interest pipeline
//! (`pipeline/admission.rs`).

/// The resource bounds of one forwarder. `0` turns a bound off.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Limits {
    /// Most PIT entries at once.
    pub pit_max_entries: usize,
    /// Most pending PIT entries created by Interests from one face.
    pub pit_max_per_face: usize,
    /// Interests accepted per second from one face (long-run rate).
    pub interest_rate: u64,
    /// Interests a face may send back to back above the rate (the bucket depth;
    /// at least 1 when the rate is set).
    pub interest_burst: u64,
}

impl Limits {
    /// Time credit (ns) that one Interest costs under the rate limit.
    pub(crate) fn interest_cost(&self) -> u64 {
        (1_000_000_000 / self.interest_rate.max(1)).max(1)
    }
}

#[cfg(test)]
mod tests {
    use super::Limits;

    #[test]
    fn interest_cost_is_the_rate_period() {
        let l = Limits {
            interest_rate: 1000,
            ..Default::default()
        };
        assert_eq!(l.interest_cost(), 1_000_000);
        let fast = Limits {
            interest_rate: u64::MAX,
            ..Default::default()
        };
        assert_eq!(fast.interest_cost(), 1);
    }
}
