//! Fetching a segmented, versioned object (a status dataset, or any content
//! published as `<prefix>/<version>/<segment>`), sans-IO.
//!
//! Call order: send [`SegmentFetch::first_interest`], then hand every Data that
//! answers it to [`SegmentFetch::on_data`], which returns the next Interest to send
//! or the whole content. The caller owns the transport and the timeouts.

use bytes::{Bytes, BytesMut};
use ndnlab_wire::{Data, Interest, Name};

/// What to do after a Data.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FetchStep {
    /// Send this Interest and wait for its Data.
    Send(Bytes),
    /// Every segment arrived: the content, in order.
    Done(Bytes),
}

/// Why a fetch failed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum FetchError {
    /// The first Data's last component is not segment 0.
    #[error("{0} is not segment 0 of a versioned object")]
    NotFirstSegment(String),
    /// A Data that does not answer the Interest in flight.
    #[error("unexpected Data {0}")]
    Unexpected(String),
}

/// One segmented fetch.
#[derive(Debug)]
pub struct SegmentFetch {
    prefix: Name,
    /// The versioned name, once segment 0 arrived.
    versioned: Option<Name>,
    next: u64,
    last: u64,
    out: BytesMut,
    nonce: u32,
}

impl SegmentFetch {
    /// A fetch of the newest version under `prefix`; `nonce` seeds the Interests'
    /// Nonces.
    pub fn new(prefix: Name, nonce: u32) -> SegmentFetch {
        SegmentFetch {
            prefix,
            versioned: None,
            next: 0,
            last: 0,
            out: BytesMut::new(),
            nonce,
        }
    }

    /// The prefix being fetched.
    pub fn prefix(&self) -> &Name {
        &self.prefix
    }

    /// The name the next Data must fall under.
    pub fn expected(&self) -> Name {
        match &self.versioned {
            None => self.prefix.clone(),
            Some(v) => v.append_segment(self.next),
        }
    }

    fn nonce(&mut self) -> u32 {
        self.nonce = self.nonce.wrapping_mul(0x9E37_79B9).wrapping_add(1);
        self.nonce
    }

    /// The Interest for segment 0 of the newest version (CanBePrefix, MustBeFresh).
    pub fn first_interest(&mut self) -> Bytes {
        let nonce = self.nonce();
        Interest::builder(self.prefix.clone())
            .can_be_prefix(true)
            .must_be_fresh(true)
            .nonce(nonce)
            .lifetime_ms(4000)
            .build()
    }

    /// Handles the Data answering the Interest in flight.
    pub fn on_data(&mut self, d: &Data) -> Result<FetchStep, FetchError> {
        let expected = self.expected();
        if !expected.is_prefix_of(d.name()) {
            return Err(FetchError::Unexpected(d.name().to_uri()));
        }
        if self.versioned.is_none() {
            let name = d.name();
            let n = name.len();
            if name.get(n.wrapping_sub(1)).and_then(|c| c.as_segment()) != Some(0) {
                return Err(FetchError::NotFirstSegment(name.to_uri()));
            }
            self.versioned = Some(name.prefix(n - 1));
            self.last = d.final_block_id().and_then(|c| c.as_segment()).unwrap_or(0);
        }
        self.out.extend_from_slice(&d.content());
        if self.next >= self.last {
            return Ok(FetchStep::Done(std::mem::take(&mut self.out).freeze()));
        }
        self.next += 1;
        let nonce = self.nonce();
        Ok(FetchStep::Send(
            Interest::builder(self.expected())
                .nonce(nonce)
                .lifetime_ms(4000)
                .build(),
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ndnlab_wire::{DigestSha256, OwnedComponent};

    fn seg(prefix: &Name, v: u64, s: u64, last: u64, body: &[u8]) -> Data {
        let name = prefix.append_version(v).append_segment(s);
        let wire = Data::builder(name)
            .content(body.to_vec())
            .final_block_id(OwnedComponent::segment(last).as_component())
            .sign(&DigestSha256)
            .unwrap();
        Data::decode(wire).unwrap()
    }

    #[test]
    fn fetches_segments_in_order() {
        let p: Name = "/localhost/nfd/faces/list".parse().unwrap();
        let mut f = SegmentFetch::new(p.clone(), 7);
        let i0 = Interest::decode(f.first_interest()).unwrap();
        assert!(i0.can_be_prefix() && i0.must_be_fresh());
        let FetchStep::Send(i1) = f.on_data(&seg(&p, 5, 0, 2, b"ab")).unwrap() else {
            panic!("segment 1 expected")
        };
        let i1 = Interest::decode(i1).unwrap();
        assert_eq!(i1.name(), &p.append_version(5).append_segment(1));
        assert!(f.on_data(&seg(&p, 6, 1, 2, b"x")).is_err(), "other version");
        f.on_data(&seg(&p, 5, 1, 2, b"cd")).unwrap();
        assert_eq!(
            f.on_data(&seg(&p, 5, 2, 2, b"e")).unwrap(),
            FetchStep::Done(Bytes::from_static(b"abcde"))
        );
    }

    #[test]
    fn rejects_a_first_data_that_is_not_segment_zero() {
        let p: Name = "/x".parse().unwrap();
        let mut f = SegmentFetch::new(p.clone(), 1);
        assert!(matches!(
            f.on_data(&seg(&p, 1, 3, 3, b"")),
            Err(FetchError::NotFirstSegment(_))
        ));
    }
}
