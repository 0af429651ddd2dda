//! The order of a factor's levels: numeric levels ascending, other levels in
//! order of first appearance. For two-level factors the first is "low" (-1).

use crate::table::parse_number;

/// The distinct values of a column in level order.
pub fn ordered_levels(values: &[&str]) -> Vec<String> {
    let mut levels: Vec<&str> = Vec::new();
    for v in values {
        if !levels.contains(v) {
            levels.push(v);
        }
    }
    if levels.iter().all(|l| parse_number(l).is_some()) {
        levels.sort_by(|a, b| {
            parse_number(a)
                .unwrap_or(0.0)
                .total_cmp(&parse_number(b).unwrap_or(0.0))
        });
    }
    levels.into_iter().map(str::to_string).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numeric_sorted_names_in_appearance_order() {
        assert_eq!(ordered_levels(&["1", "-1", "+1", "-1"]), ["-1", "1", "+1"]);
        assert_eq!(ordered_levels(&["10", "9.5"]), ["9.5", "10"]);
        assert_eq!(ordered_levels(&["off", "on", "off"]), ["off", "on"]);
    }
}
