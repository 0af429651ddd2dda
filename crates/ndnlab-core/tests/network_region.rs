//! ForwardingHint and the network region table (NFD `NetworkRegionTable`,
//! `Strategy::lookupFib`, hint stripping in the producer region).

mod common;

use common::*;
use ndnlab_core::{ForwarderConfig, NetworkRegionTable};

fn hinted(uri: &str, nonce: u32, hints: &[&str]) -> ndnlab_wire::Interest {
    interest_with(uri, nonce, |b| {
        b.forwarding_hint(hints.iter().map(|h| name(h)))
            .lifetime_ms(2000)
    })
}

/// FIB: the delegation /isp/east via B, the producer prefix /app via C.
fn lab_with_regions(regions: &[&str]) -> Lab {
    let mut lab = Lab::standard_with(ForwarderConfig {
        network_region: regions
            .iter()
            .map(|r| name(r))
            .collect::<NetworkRegionTable>(),
        ..Default::default()
    });
    lab.route("/isp/east", B, 1);
    lab.route("/app", C, 1);
    lab
}

#[test]
fn outside_the_producer_region_the_hint_is_followed_and_kept() {
    let mut lab = lab_with_regions(&[]);
    lab.send_interest(A, hinted("/app/data", 1, &["/isp/east"]));
    let out = lab.take();
    assert_eq!(summary(&out), vec![(B.0, "I".into())]);
    let sent = as_interest(&out[0]);
    assert_eq!(sent.forwarding_hint(), &[name("/isp/east")][..]);
}

#[test]
fn in_the_producer_region_the_hint_is_stripped_and_the_name_is_used() {
    // The delegation /isp/east is a prefix of the region /isp/east/router1.
    let mut lab = lab_with_regions(&["/isp/east/router1"]);
    let i = hinted("/app/data", 7, &["/isp/east"]);
    lab.send_interest(A, i.clone());
    let out = lab.take();
    assert_eq!(
        summary(&out),
        vec![(C.0, "I".into())],
        "FIB by Interest name"
    );
    let sent = as_interest(&out[0]);
    assert!(sent.forwarding_hint().is_empty(), "hint stripped");
    assert_eq!(sent.name(), i.name());
    assert_eq!(sent.nonce(), Some(7));
    assert_eq!(sent.lifetime_field(), Some(2000));
    // Data comes back as usual.
    lab.send_data(C, data("/app/data"), out[0].meta.pit_token.clone());
    assert_eq!(summary(&lab.take()), vec![(A.0, "D".into())]);
}

#[test]
fn a_delegation_longer_than_every_region_is_not_in_the_region() {
    let mut lab = lab_with_regions(&["/isp/east"]);
    lab.route("/isp/east/pop3", D, 1);
    lab.send_interest(A, hinted("/app/data", 1, &["/isp/east/pop3"]));
    assert_eq!(summary(&lab.take()), vec![(D.0, "I".into())]);
}

#[test]
fn the_region_table_can_change_at_runtime() {
    let mut lab = lab_with_regions(&[]);
    lab.send_interest(A, hinted("/app/1", 1, &["/isp/east"]));
    assert_eq!(summary(&lab.take()), vec![(B.0, "I".into())]);
    assert!(lab.fw.network_region().insert(name("/isp/east")));
    lab.send_interest(A, hinted("/app/2", 2, &["/isp/east"]));
    assert_eq!(summary(&lab.take()), vec![(C.0, "I".into())]);
    assert!(lab.fw.network_region().remove(&name("/isp/east")));
    lab.send_interest(A, hinted("/app/3", 3, &["/isp/east"]));
    assert_eq!(summary(&lab.take()), vec![(B.0, "I".into())]);
    assert!(lab.fw.network_region_ref().is_empty());
}

#[test]
fn delegations_are_tried_in_order_and_any_one_in_the_region_strips() {
    let mut lab = lab_with_regions(&["/campus"]);
    lab.route("/isp/west", D, 1);
    // First delegation has no route: the second one is used.
    lab.send_interest(
        A,
        hinted("/app/1", 1, &["/nowhere", "/isp/west", "/isp/east"]),
    );
    assert_eq!(summary(&lab.take()), vec![(D.0, "I".into())]);
    // One delegation (/campus) names our region: stripped, by name.
    lab.send_interest(A, hinted("/app/2", 2, &["/isp/west", "/campus"]));
    let out = lab.take();
    assert_eq!(summary(&out), vec![(C.0, "I".into())]);
    assert!(as_interest(&out[0]).forwarding_hint().is_empty());
}

#[test]
fn no_delegation_with_a_route_is_no_route() {
    let mut lab = lab_with_regions(&[]);
    // The Interest name has a route, but hints are followed outside the producer region.
    lab.send_interest(A, hinted("/app/1", 1, &["/nowhere"]));
    assert_eq!(summary(&lab.take()), vec![(A.0, "N:no-route".into())]);
    // The default route catches every delegation (consumer region).
    lab.route("/", D, 5);
    lab.send_interest(A, hinted("/app/2", 2, &["/nowhere"]));
    assert_eq!(summary(&lab.take()), vec![(D.0, "I".into())]);
}
