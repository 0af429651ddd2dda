//! Property tests: longest-prefix match against a linear scan, and Content Store
//! capacity/lookup invariants under random operations.

mod common;

use common::*;
use ndnlab_core::fib::Fib;
use ndnlab_core::{CsPolicyKind, FaceId, ForwarderConfig, UnsolicitedDataPolicy};
use ndnlab_wire::Name;
use proptest::prelude::*;

fn mk(comps: &[u8]) -> Name {
    let uri: String = comps.iter().map(|c| format!("/c{c}")).collect();
    Name::from_uri(if uri.is_empty() { "/" } else { &uri }).unwrap()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    #[test]
    fn fib_lpm_matches_linear_scan(
        ops in prop::collection::vec((any::<bool>(), prop::collection::vec(0u8..3, 0..4), 256u64..260), 1..60),
        queries in prop::collection::vec(prop::collection::vec(0u8..3, 0..6), 1..30),
    ) {
        let mut fib = Fib::new();
        let mut model: Vec<(Name, FaceId)> = Vec::new();
        for (add, comps, face) in ops {
            let n = mk(&comps);
            if add {
                fib.add_nexthop(&n, FaceId(face), 1);
                model.retain(|(m, f)| !(m == &n && *f == FaceId(face)));
                model.push((n, FaceId(face)));
            } else {
                fib.remove_nexthop(&n, FaceId(face));
                model.retain(|(m, f)| !(m == &n && *f == FaceId(face)));
            }
        }
        for q in queries {
            let qn = mk(&q);
            let best = model.iter().filter(|(m, _)| m.is_prefix_of(&qn)).map(|(m, _)| m.len()).max();
            let mut want: Vec<u64> = match best {
                Some(l) => model.iter().filter(|(m, _)| m.len() == l && m.is_prefix_of(&qn)).map(|(_, f)| f.0).collect(),
                None => vec![],
            };
            want.sort();
            let mut got: Vec<u64> = fib.lookup(&qn).iter().map(|h| h.face.0).collect();
            got.sort();
            prop_assert_eq!(got, want);
        }
    }

    #[test]
    fn cs_respects_capacity_and_serves_what_it_holds(
        names in prop::collection::vec(0u16..40, 1..120),
        cap in 1usize..16,
        policy in 0usize..3,
    ) {
        let policy = [CsPolicyKind::Lru, CsPolicyKind::PriorityFifo, CsPolicyKind::TinyLfu][policy];
        let mut lab = Lab::standard_with(ForwarderConfig {
            cs_capacity: cap,
            cs_policy: policy,
            unsolicited: UnsolicitedDataPolicy::AdmitAll,
            ..Default::default()
        });
        for (k, n) in names.iter().enumerate() {
            let uri = format!("/p/{n}");
            if k % 3 == 0 {
                lab.send_interest(B, interest(&uri, k as u32 + 1));
                let out = lab.take();
                let cached = lab.fw.cs_ref().contains(&name(&uri));
                // A cached name is answered from the CS, otherwise nothing (no route).
                prop_assert_eq!(out.iter().any(|t| t.face == B && matches!(t.packet, ndnlab_core::OutPacket::Data(_))), cached);
                lab.advance_ms(5_000);
            } else {
                lab.send_data(A, data(&uri), None);
            }
            prop_assert!(lab.fw.cs_ref().len() <= cap);
            let now = lab.now;
            prop_assert_eq!(lab.fw.cs().eviction_order(now).len(), lab.fw.cs_ref().len());
        }
    }
}
