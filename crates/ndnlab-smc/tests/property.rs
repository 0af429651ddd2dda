//! The property language: parsing, evaluation, units, aliases, precedence
//! and every error message.

use ndnlab_smc::{Aliases, Kind, Property};

const KNOWN: [&str; 6] = [
    "satisfaction",
    "latency_p99",
    "max_queue",
    "first_loss",
    "unsatisfied",
    "duration",
];

/// satisfaction 0.995, p99 1.2 ms, max_queue 900, first loss at 3 ms, 2 unsatisfied, 1 s run.
const RUN: [f64; 6] = [0.995, 1.2e6, 900.0, 3e6, 2.0, 1e9];

fn eval(text: &str) -> f64 {
    Property::parse(text, &KNOWN)
        .unwrap_or_else(|e| panic!("{text}: {e}"))
        .eval_num(&RUN)
}

#[test]
fn evaluation_table() {
    let cases: [(&str, Kind, f64); 24] = [
        ("satisfaction >= 99%", Kind::Boolean, 1.0),
        ("satisfaction >= 99.9%", Kind::Boolean, 0.0),
        ("latency_p99 <= 2ms", Kind::Boolean, 1.0),
        ("latency_p99 <= 1000us", Kind::Boolean, 0.0),
        ("latency_p99 < 1200000ns", Kind::Boolean, 0.0),
        ("latency_p99 <= 1200000ns", Kind::Boolean, 1.0),
        ("duration == 1s", Kind::Boolean, 1.0),
        ("max_queue <= 1024", Kind::Boolean, 1.0),
        ("not max_queue > 1024", Kind::Boolean, 1.0),
        ("!(max_queue > 1024)", Kind::Boolean, 1.0),
        ("first_loss < 5ms", Kind::Boolean, 1.0),
        ("all-satisfied", Kind::Boolean, 0.0),
        ("not all-satisfied", Kind::Boolean, 1.0),
        ("all-satisfied or max_queue != 900", Kind::Boolean, 0.0),
        (
            "satisfaction > 0.9 and latency_p99 < 2ms && max_queue < 1000",
            Kind::Boolean,
            1.0,
        ),
        ("false or true and false", Kind::Boolean, 0.0),
        ("true or true and false", Kind::Boolean, 1.0),
        ("satisfaction", Kind::Numeric, 0.995),
        ("latency_p99 / 1ms", Kind::Numeric, 1.2),
        ("1 + 2 * 3", Kind::Numeric, 7.0),
        ("(1 + 2) * 3", Kind::Numeric, 9.0),
        ("10 - 4 - 3", Kind::Numeric, 3.0),
        ("-max_queue + 1e3", Kind::Numeric, 100.0),
        ("2.5e-1 * 4", Kind::Numeric, 1.0),
    ];
    for (text, kind, value) in cases {
        let p = Property::parse(text, &KNOWN).unwrap_or_else(|e| panic!("{text}: {e}"));
        assert_eq!(p.kind(), kind, "{text}");
        assert!(
            (p.eval_num(&RUN) - value).abs() < 1e-12,
            "{text}: {} != {value}",
            p.eval_num(&RUN)
        );
        assert_eq!(p.eval_bool(&RUN), value != 0.0, "{text}");
        assert_eq!(p.to_string(), text);
    }
}

#[test]
fn units_convert_to_nanoseconds_and_fractions() {
    assert_eq!(eval("1ns"), 1.0);
    assert_eq!(eval("1us"), 1e3);
    assert_eq!(eval("1.5ms"), 1.5e6);
    assert_eq!(eval("2s"), 2e9);
    assert_eq!(eval("50%"), 0.5);
    assert_eq!(eval(".5"), 0.5);
}

#[test]
fn precedence() {
    // not binds looser than a comparison, and tighter than and / or.
    assert_eq!(eval("not 1 > 2 and false"), 0.0);
    assert_eq!(eval("not (1 > 2 and false)"), 1.0);
    assert_eq!(eval("1 < 2 or 1 > 2 and false"), 1.0);
    assert_eq!(eval("- 2 * 3 + 1"), -5.0);
    assert_eq!(eval("8 / 4 / 2"), 1.0);
}

#[test]
fn the_issue_s_five_properties() {
    let every = Property::parse("all-satisfied", &KNOWN).unwrap();
    let ratio = Property::parse("satisfaction >= 0.999", &KNOWN).unwrap();
    let p99 = Property::parse("latency_p99 <= 2ms", &KNOWN).unwrap();
    let queue = Property::parse("max_queue <= 1024", &KNOWN).unwrap();
    let loss = Property::parse("first_loss <= 10ms", &KNOWN).unwrap();
    let all = [every, ratio, p99, queue, loss];
    assert!(all.iter().all(|p| p.kind() == Kind::Boolean));
    let got: Vec<bool> = all.iter().map(|p| p.eval_bool(&RUN)).collect();
    assert_eq!(got, [false, false, true, true, true]);
    assert_eq!(all[0].used(), vec![4]);
}

#[test]
fn aliases_expand_and_extend() {
    let aliases = Aliases::default()
        .with("no-loss", "first_loss > duration")
        .with("fast-and-complete", "all-satisfied and latency_p99 < 5ms");
    let p = Property::parse_with("fast-and-complete or no-loss", &KNOWN, &aliases).unwrap();
    assert!(!p.eval_bool(&RUN));
    let done = [1.0, 1e6, 1.0, 2e9, 0.0, 1e9];
    assert!(p.eval_bool(&done));
    // An alias does not swallow a subtraction of plain names.
    assert_eq!(eval("duration-first_loss"), 1e9 - 3e6);
    let by_name = Property::parse("all-satisfied", &KNOWN).unwrap();
    assert!(by_name.eval_bool_by_name(&|name| if name == "unsatisfied" { 0.0 } else { 1.0 }));
    assert_eq!(by_name.eval_num_by_name(&|_| 3.0), 0.0);
}

#[test]
fn error_messages() {
    let known = "satisfaction, latency_p99, max_queue, first_loss, unsatisfied, duration, all-satisfied (alias)";
    let cases: Vec<(&str, String)> = vec![
        ("", "property, column 1: the property is empty".into()),
        ("latency_p98 < 2ms", format!("property, column 1: unknown identifier `latency_p98`; known names: {known}")),
        ("satisfaction >= 0.9 and maxqueue < 5", format!("property, column 25: unknown identifier `maxqueue`; known names: {known}")),
        ("latency_p99 < 2 xs", "property, column 17: expected an operator or the end of the property, found the identifier `xs`".into()),
        ("latency_p99 < 2xs", "property, column 16: unknown unit `xs` after 2; units are ns, us, ms, s (converted to nanoseconds) and %".into()),
        ("latency_p99 < 2 ms", "property, column 17: unexpected unit `ms`: write it right after the number, as in `10ms`".into()),
        ("satisfaction = 1", "property, column 14: `=` is not an operator; write `==` to compare".into()),
        ("a & b", "property, column 3: `&` is not an operator; write `&&` or `and`".into()),
        ("a | b", "property, column 3: `|` is not an operator; write `||` or `or`".into()),
        ("max_queue # 3", "property, column 11: unexpected character `#`".into()),
        ("(max_queue > 3", "property, column 15: expected `)` to close the `(` at column 1, found the end of the property".into()),
        ("max_queue > 3)", "property, column 14: `)` without a matching `(`".into()),
        ("max_queue >", "property, column 12: expected a number, an identifier, `not` or `(`, found the end of the property".into()),
        ("1 < max_queue < 5", "property, column 15: comparisons do not chain: `<` follows a comparison; join them with `and`".into()),
        ("max_queue and true", "property, column 1: `and` at column 11 needs a Boolean, found a number".into()),
        ("true or 3", "property, column 9: `or` at column 6 needs a Boolean, found a number".into()),
        ("not max_queue", "property, column 5: `not` at column 1 needs a Boolean, found a number".into()),
        ("(1 < 2) + 1", "property, column 1: `+` at column 9 needs a number, found a Boolean".into()),
        ("true < 1", "property, column 1: the comparison `<` at column 6 needs a number, found a Boolean".into()),
        ("-true", "property, column 2: `-` at column 1 needs a number, found a Boolean".into()),
        ("1.2.3 > 0", "property, column 1: `1.2.3` is not a number".into()),
    ];
    for (text, message) in cases {
        let err = Property::parse(text, &KNOWN).unwrap_err();
        assert_eq!(err.to_string(), message, "{text}");
    }
}

#[test]
fn errors_inside_an_alias_point_at_its_use() {
    // The caller's model has no `unsatisfied`: the built-in alias cannot expand.
    let known = ["satisfaction"];
    let err = Property::parse("satisfaction > 0 and all-satisfied", &known).unwrap_err();
    assert_eq!(
        err.to_string(),
        "property, column 22: unknown identifier `unsatisfied` (in alias `all-satisfied` = `unsatisfied == 0`); \
         known names: satisfaction, all-satisfied (alias)"
    );
    let aliases = Aliases::empty().with("loop", "loop and true");
    let err = Property::parse_with("loop", &known, &aliases).unwrap_err();
    assert!(
        err.to_string().contains("alias `loop` expands into itself"),
        "{err}"
    );
    let aliases = Aliases::empty().with("broken", "satisfaction +");
    let err = Property::parse_with("broken", &known, &aliases).unwrap_err();
    assert_eq!(
        err.to_string(),
        "property, column 1: in alias `broken` = `satisfaction +`, column 15: expected a number, an identifier, `not` or `(`, found the end of the property"
    );
}
