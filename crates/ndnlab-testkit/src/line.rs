//! What the forwarders of a line must have counted, for the lab runners' tests.

/// Checks the incoming Interest rates of the forwarders of a line, consumer end
/// first: each passes on the Interests its Content Store did not answer, so the
/// rates do not grow down the line, and the last is at least the first less
/// every hit (`cs_hit_ratio` of all the forwarders' Interests, the lab's metric).
/// `slack` (per second) allows for the Interests in flight at the window's edges
/// and for counters read one after another. The error names the rates.
pub fn line_forwards_what_caches_miss(
    rates: &[f64],
    cs_hit_ratio: f64,
    slack: f64,
) -> Result<(), String> {
    for (k, w) in rates.windows(2).enumerate() {
        if w[1] > w[0] + slack {
            return Err(format!(
                "forwarder {} gets {}/s, more than the {}/s before it (slack {slack})",
                k + 1,
                w[1],
                w[0]
            ));
        }
    }
    let (Some(first), Some(last)) = (rates.first(), rates.last()) else {
        return Ok(());
    };
    let hits = cs_hit_ratio * rates.iter().sum::<f64>();
    if *last < first - hits - slack {
        return Err(format!(
            "the last forwarder gets {last}/s, less than the first's {first}/s minus \
             {hits} CS hits/s (slack {slack})"
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::line_forwards_what_caches_miss as check;

    #[test]
    fn hits_explain_what_the_line_does_not_forward() {
        // 100/s in, 10 hits/s at the first (10 of 280 lookups/s, 0.036): 90, 90 after
        assert_eq!(check(&[100.0, 90.0, 90.0], 0.04, 0.0), Ok(()));
        // without the hits the drop is unexplained
        assert!(check(&[100.0, 90.0, 90.0], 0.0, 0.0).is_err());
        // a forwarder cannot get more than the one before it sent on
        assert!(check(&[100.0, 120.0, 90.0], 0.5, 5.0).is_err());
        assert_eq!(check(&[100.0, 104.0, 100.0], 0.0, 5.0), Ok(()));
    }
}
