//! Verification of incoming Data (`ForwarderConfig::verify_data`): a refused Data
//! is dropped before the PIT match and counted by its reason; without a verifier
//! the path is not taken at all.

mod common;

use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::sync::Arc;

use common::*;
use ndnlab_core::{DataVerifier, DropReason, ForwarderConfig, ImplicitDigest};
use ndnlab_wire::Data;

/// Refuses Data whose last component is `forged`; counts its calls.
#[derive(Debug, Default)]
struct Picky {
    calls: AtomicU64,
}

impl DataVerifier for Picky {
    fn verify(&self, data: &Data) -> Result<(), DropReason> {
        self.calls.fetch_add(1, Relaxed);
        match data.name().get(data.name().len() - 1) {
            Some(c) if c.value == b"forged" => Err(DropReason::DataBadSignature),
            _ => Ok(()),
        }
    }
}

fn lab_with(v: Option<Arc<dyn DataVerifier>>) -> Lab {
    let mut lab = Lab::standard_with(ForwarderConfig {
        verify_data: v,
        ..Default::default()
    });
    lab.route("/a", C, 1);
    lab
}

/// Sends an Interest from A, answers it from C; returns the outputs of the Data.
fn round_trip(lab: &mut Lab, uri: &str, nonce: u32) -> Vec<(u64, String)> {
    lab.send_interest(A, interest(uri, nonce));
    let out = lab.take();
    assert_eq!(summary(&out), vec![(C.0, "I".into())]);
    lab.send_data(C, data(uri), out[0].meta.pit_token.clone());
    summary(&lab.take())
}

#[test]
fn refused_data_is_dropped_before_the_pit_match_and_counted() {
    let picky = Arc::new(Picky::default());
    let mut lab = lab_with(Some(picky.clone()));
    assert_eq!(round_trip(&mut lab, "/a/ok", 1), vec![(A.0, "D".into())]);
    assert!(round_trip(&mut lab, "/a/forged", 2).is_empty());
    let c = lab.fw.counters();
    assert_eq!(picky.calls.load(Relaxed), 2);
    assert_eq!(c.n_verified_data, 2);
    assert_eq!(c.drops.get(DropReason::DataBadSignature), 1);
    // The forged Data neither satisfied the entry nor entered the CS.
    assert_eq!(c.n_satisfied_interests, 1);
    assert_eq!(lab.fw.pit_len(), 1);
    assert_eq!(lab.fw.cs_ref().info().n_entries, 1);
}

#[test]
fn without_a_verifier_the_path_is_not_taken() {
    let mut lab = lab_with(None);
    // A Data a verifier would refuse goes through, and nothing is counted as verified.
    assert_eq!(
        round_trip(&mut lab, "/a/forged", 1),
        vec![(A.0, "D".into())]
    );
    let c = lab.fw.counters();
    assert_eq!(c.n_verified_data, 0);
    for r in DropReason::DATA_VERIFY {
        assert_eq!(c.drops.get(r), 0, "{r}");
    }
}

#[test]
fn implicit_digest_is_computed_for_every_data_and_refuses_none() {
    let mut lab = lab_with(Some(Arc::new(ImplicitDigest)));
    for (i, uri) in ["/a/1", "/a/2", "/a/forged"].iter().enumerate() {
        assert_eq!(round_trip(&mut lab, uri, i as u32), vec![(A.0, "D".into())]);
    }
    assert_eq!(lab.fw.counters().n_verified_data, 3);
    assert_eq!(lab.fw.counters().drops.total(), 0);
}
