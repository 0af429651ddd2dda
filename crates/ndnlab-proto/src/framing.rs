//! Framing of bare TLVs back to back on a byte stream (Unix, TCP).
//!
//! Stream faces read large chunks and cut every complete top-level TLV out of the
//! buffer without copying (`BytesMut::split_to().freeze()`), so one `read` system
//! call yields as many packets as the peer managed to write.

use bytes::{Bytes, BytesMut};
use ndnlab_wire::tlv::read_varnum;

/// Largest packet accepted on a stream (NDN's 8800 is too small for 64 KB Data).
pub const MAX_FRAME: usize = 1 << 20;

/// Most buffers in one `writev` (Linux's IOV_MAX is 1024).
pub const MAX_SEGMENTS: usize = 512;

/// The `writev` slices of `segs[first..]`, at most [`MAX_SEGMENTS`] of them.
pub fn io_slices(segs: &[Bytes], first: usize) -> Vec<std::io::IoSlice<'_>> {
    segs[first..]
        .iter()
        .take(MAX_SEGMENTS)
        .map(|b| std::io::IoSlice::new(b))
        .collect()
}

/// After a `writev` that wrote `n` bytes of `segs[*first..]`: skips the segments
/// written whole and trims the one written in part.
pub fn advance_segments(segs: &mut [Bytes], first: &mut usize, mut n: usize) {
    while n > 0 {
        let len = segs[*first].len();
        if n >= len {
            n -= len;
            *first += 1;
        } else {
            bytes::Buf::advance(&mut segs[*first], n);
            n = 0;
        }
    }
}

/// Why a stream cannot be framed any more (the face is closed).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum FramingError {
    #[error("invalid TLV header on the stream")]
    BadHeader,
    #[error("frame of {0} bytes exceeds the {MAX_FRAME}-byte limit")]
    TooLarge(u64),
}

/// Cuts the next complete TLV off the front of `buf`, if there is one.
pub fn next_frame(buf: &mut BytesMut) -> Result<Option<Bytes>, FramingError> {
    if buf.is_empty() {
        return Ok(None);
    }
    let mut pos = 0;
    let typ = match read_varnum(buf, &mut pos) {
        Ok(t) => t,
        Err(ndnlab_wire::DecodeError::Truncated { .. }) => return Ok(None),
        Err(_) => return Err(FramingError::BadHeader),
    };
    if typ == 0 {
        return Err(FramingError::BadHeader);
    }
    let len = match read_varnum(buf, &mut pos) {
        Ok(l) => l,
        Err(ndnlab_wire::DecodeError::Truncated { .. }) => return Ok(None),
        Err(_) => return Err(FramingError::BadHeader),
    };
    // A length up to 2^64 - 1 must not overflow the sum (a peer sends what it likes).
    let total = (pos as u64).saturating_add(len);
    if total > MAX_FRAME as u64 {
        return Err(FramingError::TooLarge(total));
    }
    let total = total as usize;
    if buf.len() < total {
        // Make room for the rest of this frame in one go.
        buf.reserve(total - buf.len());
        return Ok(None);
    }
    Ok(Some(buf.split_to(total).freeze()))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A TLV-LENGTH of 2^64 - 1 overflowed `header + length` (a panic in debug
    /// builds, a bogus short frame in release); found by the `framing` fuzz target.
    #[test]
    fn length_up_to_u64_max_is_too_large() {
        for len in [u64::MAX, u64::MAX - 3, 1 << 32, MAX_FRAME as u64] {
            let mut b = BytesMut::from(&[0x05u8][..]);
            let mut h = Vec::new();
            ndnlab_wire::tlv::put_varnum(&mut h, len);
            b.extend_from_slice(&h);
            b.extend_from_slice(&[0; 16]);
            assert!(
                matches!(next_frame(&mut b), Err(FramingError::TooLarge(_))),
                "{len}"
            );
        }
    }

    #[test]
    fn splits_and_waits() {
        let mut b = BytesMut::from(&[0x05, 0x02, 0xAA, 0xBB, 0x06, 0x03, 0x01][..]);
        assert_eq!(
            next_frame(&mut b).unwrap().unwrap().as_ref(),
            &[5, 2, 0xAA, 0xBB]
        );
        assert_eq!(next_frame(&mut b).unwrap(), None);
        b.extend_from_slice(&[2, 3]);
        assert_eq!(
            next_frame(&mut b).unwrap().unwrap().as_ref(),
            &[6, 3, 1, 2, 3]
        );
        assert!(b.is_empty());
        assert_eq!(next_frame(&mut b).unwrap(), None);
    }

    #[test]
    fn partial_headers_wait() {
        let mut b = BytesMut::from(&[0x64, 0xFD, 0x01][..]);
        assert_eq!(next_frame(&mut b).unwrap(), None);
        b.extend_from_slice(&[0x00]);
        assert_eq!(next_frame(&mut b).unwrap(), None);
    }

    #[test]
    fn rejects_garbage() {
        let mut b = BytesMut::from(&[0x00, 0x01, 0x00][..]);
        assert_eq!(next_frame(&mut b), Err(FramingError::BadHeader));
        let mut b = BytesMut::from(&[0x06, 0xFE, 0x7F, 0, 0, 0][..]);
        assert!(matches!(next_frame(&mut b), Err(FramingError::TooLarge(_))));
        let mut b = BytesMut::from(&[0x06, 0xFD, 0x00, 0x01][..]);
        assert_eq!(next_frame(&mut b), Err(FramingError::BadHeader));
    }
}
