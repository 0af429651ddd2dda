//! Content Store eviction order for each policy, and capacity in packets and bytes.

mod common;

use bytes::Bytes;
use common::*;
use ndnlab_core::{CsPolicyKind, ForwarderConfig, UnsolicitedDataPolicy};

fn lab(policy: CsPolicyKind, capacity: usize) -> Lab {
    let mut lab = Lab::standard_with(ForwarderConfig {
        cs_policy: policy,
        cs_capacity: capacity,
        unsolicited: UnsolicitedDataPolicy::AdmitAll,
        ..Default::default()
    });
    lab.route("/", C, 1);
    lab
}

fn cached(lab: &mut Lab) -> Vec<String> {
    let now = lab.now;
    lab.fw
        .cs()
        .eviction_order(now)
        .iter()
        .map(|n| n.to_string())
        .collect()
}

fn hit(lab: &mut Lab, uri: &str, nonce: u32) {
    lab.send_interest(B, interest(uri, nonce));
    assert_eq!(
        summary(&lab.take()),
        vec![(B.0, "D".into())],
        "{uri} should be a hit"
    );
}

#[test]
fn lru_evicts_least_recently_used() {
    let mut lab = lab(CsPolicyKind::Lru, 3);
    for n in ["/1", "/2", "/3"] {
        lab.send_data(A, data(n), None);
    }
    hit(&mut lab, "/1", 1);
    assert_eq!(cached(&mut lab), vec!["/2", "/3", "/1"]);
    lab.send_data(A, data("/4"), None);
    assert_eq!(cached(&mut lab), vec!["/3", "/1", "/4"]);
}

#[test]
fn priority_fifo_evicts_unsolicited_then_stale_then_fresh() {
    let mut lab = lab(CsPolicyKind::PriorityFifo, 3);
    // Solicited: fresh /f (10 s) and /s (stale after 10 ms).
    for (uri, fresh) in [("/f", Some(10_000)), ("/s", Some(10))] {
        lab.send_interest(A, interest(uri, 1));
        lab.take();
        lab.send_data(C, data_fresh(uri, fresh), None);
        lab.take();
    }
    lab.send_data(A, data("/u"), None); // unsolicited
    lab.advance_ms(20);
    assert_eq!(cached(&mut lab), vec!["/u", "/s", "/f"]);
    // Hits do not reorder a FIFO.
    hit(&mut lab, "/f", 2);
    lab.send_interest(A, interest("/g", 3));
    lab.take();
    lab.send_data(C, data("/g"), None);
    lab.take();
    assert_eq!(cached(&mut lab), vec!["/s", "/f", "/g"]);
    lab.send_data(A, data("/u2"), None);
    assert_eq!(cached(&mut lab), vec!["/u2", "/f", "/g"]);
}

#[test]
fn tinylfu_keeps_popular_entries_against_one_hit_wonders() {
    let mut lab = lab(CsPolicyKind::TinyLfu, 2);
    lab.send_data(A, data("/pop1"), None);
    lab.send_data(A, data("/pop2"), None);
    for k in 0..4 {
        hit(&mut lab, "/pop1", 10 + k);
        hit(&mut lab, "/pop2", 20 + k);
    }
    // One-hit wonders are requested once (a miss) and then arrive: not admitted.
    for k in 0..5u32 {
        let uri = format!("/once/{k}");
        lab.send_interest(A, interest(&uri, 100 + k));
        lab.take();
        lab.send_data(C, data(&uri), None);
        assert_eq!(
            summary(&lab.take()),
            vec![(A.0, "D".into())],
            "still forwarded"
        );
    }
    assert_eq!(cached(&mut lab), vec!["/pop1", "/pop2"]);
    // A name requested often enough gets in, replacing the LRU victim.
    for k in 0..8u32 {
        lab.send_interest(A, interest("/rising", 200 + k));
        lab.take();
        lab.advance_ms(5_000); // the entry expires, so the next Interest looks up the CS again
    }
    lab.send_data(C, data("/rising"), None);
    lab.take();
    let c = cached(&mut lab);
    assert!(c.contains(&"/rising".to_string()), "{c:?}");
    assert_eq!(c.len(), 2);
}

#[test]
fn lru_without_admission_is_flushed_by_one_hit_wonders() {
    // Same workload as above, plain LRU: the popular entries are lost.
    let mut lab = lab(CsPolicyKind::Lru, 2);
    lab.send_data(A, data("/pop1"), None);
    lab.send_data(A, data("/pop2"), None);
    for k in 0..4 {
        hit(&mut lab, "/pop1", 10 + k);
    }
    for k in 0..2u32 {
        lab.send_data(A, data(&format!("/once/{k}")), None);
    }
    assert_eq!(cached(&mut lab), vec!["/once/0", "/once/1"]);
}

#[test]
fn capacity_in_bytes_and_runtime_reconfiguration() {
    let mut lab = lab(CsPolicyKind::Lru, 100);
    let size = data("/b/0").wire().len();
    let now = lab.now;
    lab.fw.cs().set_capacity_bytes(3 * size + size / 2, now);
    for k in 0..5 {
        lab.send_data(A, data(&format!("/b/{k}")), None);
    }
    assert_eq!(cached(&mut lab), vec!["/b/2", "/b/3", "/b/4"]);
    assert_eq!(lab.fw.cs_ref().bytes(), 3 * size);
    lab.fw.cs().set_capacity(1, now);
    assert_eq!(cached(&mut lab), vec!["/b/4"]);
    lab.fw.cs().set_policy(CsPolicyKind::PriorityFifo, now);
    assert_eq!(lab.fw.cs_ref().policy(), CsPolicyKind::PriorityFifo);
    assert_eq!(lab.fw.cs_ref().info().n_entries, 1);
    lab.fw.cs().set_capacity(0, now);
    assert!(lab.fw.cs_ref().is_empty());
    lab.send_data(A, data("/b/9"), None);
    assert!(lab.fw.cs_ref().is_empty(), "capacity 0 caches nothing");
}

/// Data back to back in one large "read buffer", as a stream face hands them over:
/// the buffer, and views over slices of it.
fn read_buffer_with(packets: &[ndnlab_wire::Data]) -> (Bytes, Vec<ndnlab_wire::Data>) {
    let mut buf = Vec::new();
    let mut spans = Vec::new();
    for d in packets {
        let at = buf.len();
        buf.extend_from_slice(d.wire());
        spans.push(at..buf.len());
    }
    buf.resize(256 * 1024, 0); // the rest of the read buffer
    let buf = Bytes::from(buf);
    let views = spans
        .into_iter()
        .map(|r| ndnlab_wire::Data::decode(buf.slice(r)).expect("Data"))
        .collect();
    (buf, views)
}

/// Caches `packets` (unsolicited) from one read buffer; returns the buffer and the
/// bytes of each packet.
fn cache_from_one_buffer(lab: &mut Lab, packets: &[ndnlab_wire::Data]) -> (Bytes, Vec<Vec<u8>>) {
    let (buf, views) = read_buffer_with(packets);
    let bytes = views.iter().map(|d| d.wire().to_vec()).collect();
    for d in views {
        lab.send_data(A, d, None);
    }
    lab.take();
    (buf, bytes)
}

fn hit_with_bytes(lab: &mut Lab, uri: &str, nonce: u32, bytes: &[u8]) {
    lab.send_interest(B, interest(uri, nonce));
    let out = lab.take();
    assert_eq!(summary(&out), vec![(B.0, "D".into())], "{uri} hit");
    assert_eq!(out[0].packet.wire().to_vec(), bytes, "{uri} bytes");
}

/// A long name (> 30 bytes) is kept out of the PCCT slot, in a packet buffer.
const LONG: &str = "/a-long-name-component-that-is-not-inline/and-another-one/x";

/// With own buffers, an LRU entry keeps its slice of the read buffer while it would
/// leave in arrival order, and gets a buffer of its own when a hit moves it behind
/// newer entries: then nothing but the reader holds the read buffer, and hits serve
/// the same bytes. Without, a cached slice keeps the whole 256 KiB buffer alive.
#[test]
fn own_buffers_lru_copies_entries_when_hit() {
    for own in [true, false] {
        let mut lab = lab(CsPolicyKind::Lru, 10);
        lab.fw.cs().set_own_buffers(own);
        assert_eq!(lab.fw.cs_ref().own_buffers(), own);
        let (buf, bytes) = cache_from_one_buffer(&mut lab, &[data("/short"), data(LONG)]);
        assert!(!buf.is_unique(), "not hit yet: arrival order, no copy");
        for (k, uri) in ["/short", LONG].into_iter().enumerate() {
            hit_with_bytes(&mut lab, uri, 10 + k as u32, &bytes[k]);
        }
        assert_eq!(buf.is_unique(), own, "own_buffers={own}");
        // Still served, from the copies, after the read buffer is gone.
        drop(buf);
        for (k, uri) in ["/short", LONG].into_iter().enumerate() {
            hit_with_bytes(&mut lab, uri, 20 + k as u32, &bytes[k]);
        }
    }
}

/// Under priority-FIFO (hits do not reorder) fresh Data is copied when cached, since
/// it outlives the stale and unsolicited entries cached after it; stale Data leaves
/// in arrival order and keeps its slice.
#[test]
fn own_buffers_priority_fifo_copies_fresh_data() {
    let mut lab = lab(CsPolicyKind::PriorityFifo, 10);
    lab.fw.cs().set_own_buffers(true);
    let fresh = [
        data_fresh("/f", Some(10_000)),
        data_fresh(LONG, Some(10_000)),
    ];
    let (fresh_buf, fresh_bytes) = cache_from_one_buffer(&mut lab, &fresh);
    assert!(fresh_buf.is_unique(), "fresh Data copied");
    let (stale_buf, stale_bytes) = cache_from_one_buffer(&mut lab, &[data_fresh("/s", None)]);
    assert!(!stale_buf.is_unique(), "stale Data keeps its slice");
    hit_with_bytes(&mut lab, "/f", 1, &fresh_bytes[0]);
    hit_with_bytes(&mut lab, LONG, 2, &fresh_bytes[1]);
    hit_with_bytes(&mut lab, "/s", 3, &stale_bytes[0]);
}

/// With own buffers an entry is charged what it occupies: a slice its share of the
/// read buffer it came from (its bytes, a frame header and 1/16 for the buffer's
/// unused tail), a copy its allocator block, each plus the table overhead. The byte
/// bound counts entries by that charge; a hit that copies an LRU slice charges the
/// copy, and removal gives the charge back.
#[test]
fn own_buffers_charge_what_the_entry_occupies() {
    use ndnlab_core::cs::{charge, ENTRY_OVERHEAD, SLICE_FRAME_HEADER};
    use ndnlab_wire::packet_buf::packet_bytes_footprint;
    let big = |uri: &str, fresh: Option<u64>| {
        let b = ndnlab_wire::Data::builder(name(uri)).content(vec![7u8; 8192]);
        let b = match fresh {
            Some(ms) => b.freshness_ms(ms),
            None => b,
        };
        ndnlab_wire::Data::decode(b.sign_digest()).unwrap()
    };
    // Names of one length: fresh Data are all `len` bytes long, stale ones `stale`.
    let len = big("/big/0", Some(10_000)).wire().len();
    let stale = big("/big/0", None).wire().len();
    let slice = charge(len, false);
    let copy = charge(len, true);
    let stale_slice = charge(stale, false);
    assert_eq!(slice, len + len / 16 + SLICE_FRAME_HEADER + ENTRY_OVERHEAD);
    assert_eq!(copy, packet_bytes_footprint(len) + ENTRY_OVERHEAD);
    assert!(
        copy > slice,
        "{len} bytes round up to the allocator's class"
    );

    // LRU, five slices of one read buffer, room for three and a half.
    let mut lab = lab(CsPolicyKind::Lru, 100);
    lab.fw.cs().set_own_buffers(true);
    let now = lab.now;
    let cap = 3 * slice + slice / 2;
    lab.fw.cs().set_capacity_bytes(cap, now);
    let packets: Vec<_> = (0..5)
        .map(|k| big(&format!("/big/{k}"), Some(10_000)))
        .collect();
    let (buf, bytes) = cache_from_one_buffer(&mut lab, &packets);
    assert!(!buf.is_unique(), "slices keep their read buffer");
    assert_eq!(cached(&mut lab), vec!["/big/2", "/big/3", "/big/4"]);
    assert_eq!(lab.fw.cs_ref().bytes(), 3 * slice);
    assert_eq!(lab.fw.cs_ref().info().n_bytes, 3 * slice);
    // A hit copies /big/2 out of the buffer and charges the copy; the next
    // insertion evicts back under the bound.
    hit_with_bytes(&mut lab, "/big/2", 1, &bytes[2]);
    assert_eq!(lab.fw.cs_ref().bytes(), 2 * slice + copy);
    lab.send_data(A, big("/big/5", Some(10_000)), None);
    assert_eq!(cached(&mut lab), vec!["/big/4", "/big/2", "/big/5"]);
    assert_eq!(lab.fw.cs_ref().bytes(), 2 * slice + copy);
    assert!(lab.fw.cs_ref().bytes() <= cap);
    assert_eq!(lab.fw.cs().erase(&name("/big"), 10), 3);
    assert_eq!(lab.fw.cs_ref().bytes(), 0);

    // Priority-FIFO copies fresh Data when cached (charged the copy), keeps stale
    // Data as a slice; refreshing an entry recharges it.
    let mut lab = self::lab(CsPolicyKind::PriorityFifo, 100);
    lab.fw.cs().set_own_buffers(true);
    let (buf, _) = cache_from_one_buffer(&mut lab, &[big("/big/f", Some(10_000))]);
    assert!(buf.is_unique(), "fresh Data copied");
    lab.send_data(A, big("/big/s", None), None);
    assert_eq!(lab.fw.cs_ref().bytes(), copy + stale_slice);
    lab.send_data(A, big("/big/f", None), None);
    assert_eq!(
        lab.fw.cs_ref().bytes(),
        2 * stale_slice,
        "refreshed as stale"
    );
    // Entries cached without own buffers are charged their length, and keep that.
    lab.fw.cs().set_own_buffers(false);
    lab.send_data(A, big("/big/p", None), None);
    assert_eq!(lab.fw.cs_ref().bytes(), 2 * stale_slice + stale);
    lab.fw.cs().set_own_buffers(true);
    let now = lab.now;
    lab.fw.cs().set_capacity(0, now);
    assert_eq!(lab.fw.cs_ref().bytes(), 0);
}
