//! `check_property` dispatches on the property's kind and is reproducible.

use ndnlab_smc::{check_property, Method, Outcome, Property, Spec};

const KNOWN: [&str; 2] = ["max_queue", "unsatisfied"];

fn run(i: u64) -> [f64; 2] {
    [
        (i % 50) as f64 * 30.0,
        f64::from(u8::from(i.is_multiple_of(7))),
    ]
}

#[test]
fn boolean_properties_give_probabilities_and_numeric_ones_expectations() {
    let spec = Spec {
        method: Method::Wilson,
        runs: Some(700),
        ..Spec::default()
    };
    let p = Property::parse("all-satisfied", &KNOWN).unwrap();
    let Outcome::Probability(out) = check_property(&spec, &p, run, 2, &mut |_| {}).unwrap() else {
        panic!("a Boolean property gives a probability")
    };
    assert_eq!(out.successes, 600);
    let spec = Spec {
        method: Method::ChowRobbins,
        runs: Some(500),
        ..Spec::default()
    };
    let q = Property::parse("max_queue / 30", &KNOWN).unwrap();
    let out = check_property(&spec, &q, run, 2, &mut |_| {}).unwrap();
    let Outcome::Expectation(e) = &out else {
        panic!("a numeric property gives an expectation")
    };
    assert!((e.mean - 24.5).abs() < 1e-12);
    let json = serde_json::to_value(&out).unwrap();
    assert_eq!(json["runs"], 500);
    assert!(out.to_string().contains("mean       24.5"));
}

#[test]
fn a_numeric_property_refuses_a_probability_method() {
    let q = Property::parse("max_queue", &KNOWN).unwrap();
    let err = check_property(&Spec::default(), &q, run, 1, &mut |_| {}).unwrap_err();
    assert!(
        err.to_string()
            .starts_with("--method chernoff: estimates the probability"),
        "{err}"
    );
}
