//! The core's fuzz harness (`ndnlab_core::fuzz`) on stable: the checked-in corpus,
//! then a fixed-seed proptest of random and mutated event sequences (`fuzz/` runs
//! it under cargo-fuzz as the `core` target).

use ndnlab_core::fuzz;
use ndnlab_testkit::fuzzing::check;

/// Replays the checked-in regression input `name` of the `core` corpus.
fn regression(name: &str) {
    let input = format!(
        "{}/../../fuzz/corpus/core/{name}",
        env!("CARGO_MANIFEST_DIR")
    );
    fuzz::core_events(&std::fs::read(input).expect("the regression input"));
}

#[test]
fn core_events() {
    check("core", 1500, 1024, &[], fuzz::core_events);
}

/// A fuzz finding: an Interest with a shorter lifetime refreshing a pending entry's
/// in-record left the entry alive until the timer armed for the old lifetime.
#[test]
fn a_shortened_lifetime_expires_on_time() {
    regression("regress-shortened-lifetime");
}

/// A fuzz finding: a Nack to one downstream erased the in-record that held the
/// entry's expiry, and the entry outlived its remaining downstream's lifetime until
/// the timer armed for the erased one.
#[test]
fn an_entry_nacked_to_one_downstream_expires_with_the_others() {
    regression("regress-asf-expiry-at-now");
}

/// A fuzz finding in the harness: a face that turned from local to non-local
/// while its `/localhost` Interest was pending; the Data is rightly dropped on
/// the way out, a drop the harness had not predicted.
#[test]
fn data_for_a_face_turned_non_local_is_dropped_on_the_way_out() {
    regression("regress-face-turned-non-local");
}

/// A fuzz finding: an entry Nacked to its last downstream (which was also its only
/// upstream left) and then renewed by a shorter-lived Interest kept only the timer
/// of its first lifetime.
#[test]
fn an_entry_renewed_after_its_last_downstream_was_nacked_expires_on_time() {
    regression("regress-renewed-after-nack");
}

/// A fuzz finding: a CS hit that copied a slice out of its shared read buffer left a
/// ghost and a new entry, one item more against the capacity in packets, and
/// nothing evicted back under it (only under the byte bound).
#[test]
fn a_hit_that_leaves_a_ghost_stays_within_the_packet_capacity() {
    regression("regress-ghost-over-packet-capacity");
}

/// A fuzz finding: under priority-FIFO a refreshed entry that went stale is first in
/// line for eviction; evicting back under the byte bound stopped at it, the entry it
/// must keep, and left the CS over its bound with fresh entries behind it.
#[test]
fn a_refreshed_entry_first_in_line_does_not_stop_eviction() {
    regression("regress-refreshed-entry-first-in-line");
}
