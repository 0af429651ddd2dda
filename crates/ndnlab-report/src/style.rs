//! The look of every figure: a colour-blind-safe palette (Okabe and Ito), one
//! font, thin axes, no grid.

use plotters::style::RGBColor;

/// Series colours, in order.
pub const PALETTE: [RGBColor; 8] = [
    RGBColor(0, 114, 178),
    RGBColor(213, 94, 0),
    RGBColor(0, 158, 115),
    RGBColor(204, 121, 167),
    RGBColor(230, 159, 0),
    RGBColor(86, 180, 233),
    RGBColor(0, 0, 0),
    RGBColor(240, 228, 66),
];

/// The colour of series `i`.
pub fn color(i: usize) -> RGBColor {
    PALETTE[i % PALETTE.len()]
}

/// A neutral grey for reference lines.
pub const GREY: RGBColor = RGBColor(120, 120, 120);

/// Text sizes in pixels.
pub const TITLE: u32 = 17;
pub const LABEL: u32 = 14;
pub const TICK: u32 = 12;

/// A range around `[lo, hi]` with a margin, never empty.
pub fn padded(lo: f64, hi: f64, frac: f64) -> (f64, f64) {
    let (lo, hi) = if lo.is_finite() && hi.is_finite() {
        (lo, hi)
    } else {
        (0.0, 1.0)
    };
    if hi - lo <= f64::EPSILON * hi.abs().max(1.0) {
        let d = if lo == 0.0 { 1.0 } else { lo.abs() * 0.1 };
        return (lo - d, hi + d);
    }
    let m = (hi - lo) * frac;
    (lo - m, hi + m)
}

/// A tick label on an axis spanning `span` (its high end minus its low end),
/// with as many digits as the value's magnitude and the axis's step (a tenth
/// of the span) need; a value within `span * 1e-9` of 0 is 0, so rounding
/// noise (`-2.8e-17`) never shows.
pub fn tick(v: f64, span: f64) -> String {
    let span = if span.is_finite() && span > 0.0 {
        span
    } else {
        0.0
    };
    let a = v.abs();
    if a == 0.0 || a <= span * 1e-9 {
        return "0".into();
    }
    if !(1e-3..1e6).contains(&a) {
        return format!("{v:.1e}");
    }
    let by_magnitude: usize = if a >= 100.0 {
        0
    } else if a >= 1.0 {
        2
    } else {
        3
    };
    let step = span / 10.0;
    let by_step = if step > 0.0 {
        (-step.log10().floor()).clamp(0.0, 6.0) as usize
    } else {
        0
    };
    let decimals = by_magnitude.max(by_step);
    let s = format!("{v:.decimals$}");
    if s.contains('.') {
        s.trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        s
    }
}

/// The unit a column name carries in its suffix, for axis labels:
/// `latency_us` -> `µs`, `exchanges_per_sec` -> `1/s`.
pub fn unit_of(column: &str) -> Option<&'static str> {
    let c = column.to_ascii_lowercase();
    const SUFFIXES: [(&str, &str); 16] = [
        ("_per_sec", "1/s"),
        ("_per_s", "1/s"),
        ("_pps", "packets/s"),
        ("_mbps", "Mbit/s"),
        ("_gbps", "Gbit/s"),
        ("_bps", "bit/s"),
        ("_ns", "ns"),
        ("_us", "µs"),
        ("_ms", "ms"),
        ("_seconds", "s"),
        ("_s", "s"),
        ("_bytes", "bytes"),
        ("_kib", "KiB"),
        ("_mib", "MiB"),
        ("_ratio", "fraction"),
        ("_pct", "%"),
    ];
    if c == "mbps" {
        return Some("Mbit/s");
    }
    SUFFIXES
        .iter()
        .find(|(s, _)| c.ends_with(s))
        .map(|(_, u)| *u)
}

/// `name (unit)` when the name carries a unit, else the name.
pub fn with_unit(column: &str) -> String {
    match unit_of(column) {
        Some(u) => format!("{column} ({u})"),
        None => column.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn units_and_ticks() {
        assert_eq!(with_unit("latency_us"), "latency_us (µs)");
        assert_eq!(with_unit("exchanges_per_sec"), "exchanges_per_sec (1/s)");
        assert_eq!(with_unit("Mbps"), "Mbps (Mbit/s)");
        assert_eq!(with_unit("hits"), "hits");
        assert_eq!(tick(2.50, 10.0), "2.5");
        assert_eq!(tick(1234.0, 1000.0), "1234");
        assert_eq!(tick(1000.5, 2.0), "1000.5");
        assert_eq!(tick(0.3000000000000001, 1.0), "0.3");
        assert_eq!(padded(1.0, 1.0, 0.05), (0.9, 1.1));
    }

    #[test]
    fn rounding_noise_on_an_axis_through_zero_is_zero() {
        assert_eq!(tick(-2.8e-17, 1.0), "0");
        assert_eq!(tick(5.5e-18, 0.4), "0");
        assert_eq!(tick(-0.1, 0.4), "-0.1");
        assert_eq!(tick(1e-4, 1e-3), "1.0e-4");
        assert_eq!(tick(0.0, 0.0), "0");
    }
}
