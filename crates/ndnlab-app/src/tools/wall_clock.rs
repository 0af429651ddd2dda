//! Absolute times given on the command line (`--window-at`: Unix seconds, as
//! [`SystemTime`] reads them). Processes on one machine, network namespaces
//! too, share that clock, so a runner can give several tools one instant. A
//! tool turns it into its own monotonic [`Instant`] once, at its start, and
//! measures by that clock from then on (a later step of the wall clock does
//! not move it).

use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

/// Checks a `--window-at` value: finite and not negative.
pub fn parse_unix_secs(s: &str) -> Result<f64, String> {
    let v: f64 = s
        .parse()
        .map_err(|_| format!("'{s}' is not a number of Unix seconds"))?;
    if v.is_finite() && v >= 0.0 {
        Ok(v)
    } else {
        Err(format!(
            "'{s}' must be finite and not negative Unix seconds"
        ))
    }
}

/// The instant of the monotonic clock at Unix time `at_unix_s`, given one
/// reading of both clocks taken together (`sys_now`, `now`): `now` plus
/// (`at_unix_s` - `sys_now`), earlier than `now` for a time already past.
/// `None` when that lies before the monotonic clock can represent.
pub fn instant_at(at_unix_s: f64, sys_now: SystemTime, now: Instant) -> Option<Instant> {
    let at = UNIX_EPOCH.checked_add(Duration::try_from_secs_f64(at_unix_s).ok()?)?;
    match at.duration_since(sys_now) {
        Ok(ahead) => now.checked_add(ahead),
        Err(e) => now.checked_sub(e.duration()),
    }
}

/// [`instant_at`] on the clocks as they read now, or an error naming `flag`.
pub fn instant_now_at(flag: &str, at_unix_s: f64) -> anyhow::Result<Instant> {
    let now = Instant::now();
    let sys_now = SystemTime::now();
    instant_at(at_unix_s, sys_now, now).ok_or_else(|| {
        anyhow::anyhow!("{flag} {at_unix_s}: before this machine's monotonic clock began")
    })
}

/// Unix seconds now, as a float.
pub fn unix_now_s() -> f64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0.0, |d| d.as_secs_f64())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_unix_time_maps_to_the_instant_at_the_same_offset() {
        let now = Instant::now();
        // the pair read together: Unix 1_000_000 s is `now`
        let sys = UNIX_EPOCH + Duration::from_secs(1_000_000);
        let ahead = instant_at(1_000_002.25, sys, now).unwrap();
        assert_eq!(ahead.duration_since(now), Duration::from_millis(2250));
        assert_eq!(instant_at(1_000_000.0, sys, now), Some(now));
        // a time already past: before `now`, by as much
        if let Some(earlier) = now.checked_sub(Duration::from_millis(40)) {
            assert_eq!(instant_at(999_999.96, sys, now), Some(earlier));
        }
        // microseconds survive the float
        let us = instant_at(1_000_000.000_017, sys, now).unwrap();
        let d = us.duration_since(now).as_nanos();
        assert!((16_900..=17_100).contains(&d), "{d} ns");
    }

    #[test]
    fn a_time_the_monotonic_clock_cannot_hold_is_none_and_bad_text_an_error() {
        let now = Instant::now();
        let sys = UNIX_EPOCH + Duration::from_secs(2_000_000_000);
        // the epoch, 63 years before `sys`: before this machine's boot
        assert!(instant_at(0.0, sys, now).is_none_or(|i| i < now));
        assert!(instant_at(f64::NAN, sys, now).is_none());
        assert!(instant_at(-1.0, sys, now).is_none());
        assert_eq!(parse_unix_secs("17.5"), Ok(17.5));
        for bad in ["-1", "inf", "NaN", "soon"] {
            let e = parse_unix_secs(bad).unwrap_err();
            assert!(e.contains(bad), "{e}");
        }
    }
}
