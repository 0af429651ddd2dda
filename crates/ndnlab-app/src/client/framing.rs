//! Cutting packets out of what a transport delivers: back-to-back TLVs on a
//! stream (Unix, TCP), and NDNLPv2 fragments on datagrams (a forwarder's UDP
//! face fragments packets larger than its MTU).

use std::collections::HashMap;

use bytes::{Bytes, BytesMut};
use ndnlab_wire::LpPacket;

/// Stream framing is the forwarder's own, so both ends of a face cut packets alike.
pub use ndnlab_fwd::face::framing::{next_frame, FramingError, MAX_FRAME};

/// Reassembles NDNLPv2 fragments (indexed by `Sequence - FragIndex`).
/// Bounded: at most [`Reassembler::MAX_PARTIALS`] packets in progress, the
/// oldest is evicted.
#[derive(Debug, Default)]
pub struct Reassembler {
    partials: HashMap<u64, Partial>,
    order: std::collections::VecDeque<u64>,
    /// Fragments that could not be used.
    pub dropped: u64,
}

#[derive(Debug)]
struct Partial {
    parts: Vec<Option<Bytes>>,
    have: usize,
    /// Fragment 0: it carries the link header fields (PitToken, Nack, ...).
    first: Option<LpPacket>,
}

impl Reassembler {
    pub const MAX_PARTIALS: usize = 64;
    pub const MAX_FRAGMENTS: u64 = 1024;

    /// Feeds one fragmented LpPacket; returns the whole packet once complete,
    /// with the first fragment (whose header fields apply to the packet).
    pub fn push(&mut self, lp: LpPacket) -> Option<(Bytes, LpPacket)> {
        let (Some(seq), Some(frag)) = (lp.sequence(), lp.fragment()) else {
            self.dropped += 1;
            return None;
        };
        let index = lp.frag_index().unwrap_or(0);
        let count = lp.frag_count().unwrap_or(1);
        if count == 0 || count > Self::MAX_FRAGMENTS || index >= count || index > seq {
            self.dropped += 1;
            return None;
        }
        if count == 1 {
            return Some((frag, lp));
        }
        let base = seq - index;
        if !self.partials.contains_key(&base) {
            if self.partials.len() >= Self::MAX_PARTIALS {
                if let Some(old) = self.order.pop_front() {
                    self.partials.remove(&old);
                    self.dropped += 1;
                }
            }
            self.partials.insert(
                base,
                Partial {
                    parts: vec![None; count as usize],
                    have: 0,
                    first: None,
                },
            );
            self.order.push_back(base);
        }
        let p = self.partials.get_mut(&base).expect("inserted");
        if p.parts.len() != count as usize {
            self.dropped += 1;
            return None;
        }
        let slot = &mut p.parts[index as usize];
        if slot.is_none() {
            *slot = Some(frag);
            p.have += 1;
            if index == 0 {
                p.first = Some(lp);
            }
        }
        if p.have < p.parts.len() {
            return None;
        }
        let p = self.partials.remove(&base).expect("present");
        self.order.retain(|&b| b != base);
        let total = p.parts.iter().flatten().map(Bytes::len).sum();
        let mut out = BytesMut::with_capacity(total);
        for part in p.parts.into_iter().flatten() {
            out.extend_from_slice(&part);
        }
        Some((out.freeze(), p.first.expect("fragment 0 present")))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frames_back_to_back_and_partial() {
        let mut b = BytesMut::from(&[0x08, 0x01, 0x61, 0x08, 0x02, 0x62][..]);
        assert_eq!(
            next_frame(&mut b).unwrap().unwrap().as_ref(),
            &[0x08, 0x01, 0x61]
        );
        assert_eq!(next_frame(&mut b).unwrap(), None);
        b.extend_from_slice(&[0x63]);
        assert_eq!(
            next_frame(&mut b).unwrap().unwrap().as_ref(),
            &[0x08, 0x02, 0x62, 0x63]
        );
        assert!(b.is_empty());
        assert_eq!(next_frame(&mut b).unwrap(), None);
    }

    #[test]
    fn rejects_type_zero_and_huge() {
        let mut b = BytesMut::from(&[0x00, 0x01, 0x00][..]);
        assert_eq!(next_frame(&mut b), Err(FramingError::BadHeader));
        let mut b = BytesMut::from(&[0x06, 0xfe, 0x10, 0, 0, 0][..]);
        assert!(matches!(next_frame(&mut b), Err(FramingError::TooLarge(_))));
    }

    #[test]
    fn reassembles_out_of_order() {
        let whole: Vec<u8> = (0..100u8).collect();
        let frags: Vec<LpPacket> = whole
            .chunks(40)
            .enumerate()
            .map(|(i, c)| {
                let w = LpPacket::builder()
                    .sequence(1000 + i as u64)
                    .frag_index(i as u64)
                    .frag_count(3)
                    .fragment(Bytes::copy_from_slice(c))
                    .build();
                LpPacket::decode(w).unwrap()
            })
            .collect();
        let mut r = Reassembler::default();
        assert_eq!(r.push(frags[2].clone()), None);
        assert_eq!(r.push(frags[0].clone()), None);
        assert_eq!(r.push(frags[0].clone()), None, "duplicate ignored");
        let (pkt, first) = r.push(frags[1].clone()).unwrap();
        assert_eq!(pkt.as_ref(), &whole[..]);
        assert_eq!(first.frag_index(), Some(0));
        assert!(r.partials.is_empty());
    }
}
