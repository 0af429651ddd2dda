//! Durations from the wire at their extremes in the forwarder core, in virtual
//! time: InterestLifetime (PIT expiry), FreshnessPeriod (CS staleness) and the
//! ASF probing-interval of a strategy name. 0 expires at once; the longest values
//! (2^64-1 ms, 2^63-1 ms, one past the largest exact nanosecond count) clamp to
//! the clock's end instead of wrapping into a short time or overflowing.

mod common;

use common::*;
use ndnlab_core::MS;

/// The largest period in milliseconds whose nanoseconds fit in a u64.
const LARGEST_EXACT_MS: u64 = u64::MAX / 1_000_000;
/// Past the clock: these wrap to short times if multiplied modulo 2^64.
const LONGEST_MS: [u64; 3] = [LARGEST_EXACT_MS + 1, i64::MAX as u64, u64::MAX];
const HOUR_MS: u64 = 3_600_000;

#[test]
fn the_longest_interest_lifetimes_keep_the_pit_entry() {
    for (k, ms) in LONGEST_MS.into_iter().enumerate() {
        let mut lab = Lab::standard();
        lab.route("/l", B, 0);
        let uri = format!("/l/{k}");
        lab.send_interest(A, interest_with(&uri, 1, |b| b.lifetime_ms(ms)));
        assert_eq!(summary(&lab.take()), vec![(B.0, "I".into())]);
        // An hour of timers later the entry is still pending: the Data reaches A.
        lab.run_for_ms(HOUR_MS);
        lab.send_data(B, data(&uri), None);
        assert_eq!(summary(&lab.take()), vec![(A.0, "D".into())], "{ms} ms");
    }
}

#[test]
fn a_zero_lifetime_expires_at_once_and_one_ms_after_a_millisecond() {
    let mut lab = Lab::standard();
    lab.route("/z", B, 0);
    lab.send_interest(A, interest_with("/z/0", 1, |b| b.lifetime_ms(0)));
    lab.send_interest(A, interest_with("/z/1", 2, |b| b.lifetime_ms(1)));
    lab.take();
    lab.run_for_ms(1);
    lab.send_data(B, data("/z/0"), None);
    lab.send_data(B, data("/z/1"), None);
    assert!(lab.take().is_empty(), "both entries expired");
    // The exact extreme: still pending after an hour.
    lab.send_interest(
        A,
        interest_with("/z/x", 3, |b| b.lifetime_ms(LARGEST_EXACT_MS)),
    );
    lab.take();
    lab.run_for_ms(HOUR_MS);
    lab.send_data(B, data("/z/x"), None);
    assert_eq!(summary(&lab.take()), vec![(A.0, "D".into())]);
}

#[test]
fn the_longest_freshness_periods_stay_fresh_in_the_cs() {
    for (k, ms) in LONGEST_MS.into_iter().enumerate() {
        let mut lab = Lab::standard();
        lab.route("/f", B, 0);
        let uri = format!("/f/{k}");
        lab.send_interest(A, interest_with(&uri, 1, |b| b.must_be_fresh(true)));
        lab.take();
        lab.send_data(B, data_fresh(&uri, Some(ms)), None);
        lab.take();
        lab.run_for_ms(HOUR_MS);
        // MustBeFresh again, from another face: the CS answers, nothing goes to B.
        lab.send_interest(C, interest_with(&uri, 2, |b| b.must_be_fresh(true)));
        assert_eq!(summary(&lab.take()), vec![(C.0, "D".into())], "{ms} ms");
    }
    // FreshnessPeriod 0 (and none): stale at once; MustBeFresh goes upstream.
    for (k, f) in [Some(0), None].into_iter().enumerate() {
        let mut lab = Lab::standard();
        lab.route("/s", B, 0);
        let uri = format!("/s/{k}");
        lab.send_interest(A, interest(&uri, 1));
        lab.take();
        lab.send_data(B, data_fresh(&uri, f), None);
        lab.take();
        lab.advance_ms(1);
        lab.send_interest(C, interest_with(&uri, 2, |b| b.must_be_fresh(true)));
        assert_eq!(summary(&lab.take()), vec![(B.0, "I".into())], "{f:?}");
    }
}

#[test]
fn the_longest_asf_probing_interval_postpones_probes_without_overflow() {
    // The largest value the strategy name accepts: its nanoseconds fit a u64.
    let strategy = format!("/localhost/nfd/strategy/asf/v=5/probing-interval~{LARGEST_EXACT_MS}");
    let mut lab = Lab::standard();
    lab.fw
        .strategy_choice()
        .set(&name("/a"), &name(&strategy))
        .unwrap();
    lab.route("/a", B, 1);
    lab.route("/a", C, 2);
    let mut probes = 0;
    for n in 0..120u32 {
        let uri = format!("/a/{n}");
        lab.send_interest(A, interest(&uri, n + 1));
        let out = lab.take();
        assert_eq!(out[0].face, B);
        probes += out.len() - 1;
        lab.advance_ms(10);
        lab.send_data(B, data(&uri), out[0].meta.pit_token.clone());
        lab.take();
        lab.advance_ms(90);
    }
    // The first probe goes within ASF's 5 s window; the next one is 584 years on.
    assert_eq!(probes, 1, "{probes} probes in 12 s");
    assert!(lab.now < 20_000 * MS);
}
