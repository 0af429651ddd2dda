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

/// The length of the TLV that begins `buf`, header included, once its header is
/// there (`None` before).
fn frame_len(buf: &[u8]) -> Result<Option<usize>, FramingError> {
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
    Ok(Some(total as usize))
}

/// Cuts the next complete TLV off the front of `buf`, if there is one. A frame not
/// yet complete stays in `buf`; [`make_room`] gives the next read room for it.
pub fn next_frame(buf: &mut BytesMut) -> Result<Option<Bytes>, FramingError> {
    match frame_len(buf)? {
        Some(total) if buf.len() >= total => Ok(Some(buf.split_to(total).freeze())),
        _ => Ok(None),
    }
}

/// Readies a read buffer for the next read. When less than `min_free` bytes are
/// free, or the frame begun at its front cannot complete in it, what it holds (the
/// start of a frame) moves to a new buffer of exactly `chunk` bytes, or of that
/// frame's length if larger. Exact, because every frame cut from a buffer keeps all
/// of it alive (the CS charges a cached slice its share of a `chunk`):
/// `BytesMut::reserve` asks for the bytes held plus the request, which lands just
/// past an allocator size class, grows by doubling, and for a short request gives
/// 64 KiB, so 8 KB Data came in 64 KiB buffers with up to an eighth of each unused.
/// A buffer no frame holds any longer is reused in place instead. A malformed
/// header is left for [`next_frame`] to report.
pub fn make_room(buf: &mut BytesMut, chunk: usize, min_free: usize) {
    let pending = frame_len(buf).ok().flatten().unwrap_or(0);
    if buf.capacity() - buf.len() >= min_free && buf.capacity() >= pending {
        return;
    }
    if buf.try_reclaim(min_free.max(pending.saturating_sub(buf.len()))) {
        return;
    }
    let mut next = BytesMut::with_capacity(chunk.max(pending).max(buf.len() + min_free));
    next.extend_from_slice(buf);
    *buf = next;
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

    /// A buffer `cap` bytes large holding `held` bytes: the start of a frame of
    /// `frame` bytes (header included) whose TLV-LENGTH has 3 bytes.
    fn partial(cap: usize, held: usize, frame: usize) -> BytesMut {
        let mut b = BytesMut::with_capacity(cap);
        b.extend_from_slice(&[0x06, 0xFD]);
        b.extend_from_slice(&((frame - 4) as u16).to_be_bytes());
        b.resize(held, 0xAB);
        b
    }

    #[test]
    fn make_room_moves_a_frame_that_cannot_complete_into_an_exact_chunk() {
        // The start of an 8 KB Data with 4,000 bytes free behind it: `BytesMut::reserve`
        // made the next buffer 64 KiB; it is a whole chunk.
        let mut b = partial(5000, 1000, 8300);
        let before = b.to_vec();
        make_room(&mut b, 256 * 1024, 2048);
        assert_eq!(b.capacity(), 256 * 1024);
        assert_eq!(b.as_ref(), &before[..]);
        // A frame longer than a chunk gets a buffer of its length.
        let mut b = partial(4096, 100, 60_000);
        make_room(&mut b, 16 * 1024, 2048);
        assert_eq!(b.capacity(), 60_000);
        assert_eq!(b.len(), 100);
    }

    #[test]
    fn make_room_refills_below_min_free_and_otherwise_keeps_the_buffer() {
        let mut b = partial(8192, 7000, 8000);
        let at = b.as_ptr();
        make_room(&mut b, 8192, 1024);
        assert_eq!(b.as_ptr(), at, "1,192 bytes free and the frame fits");
        let mut b = partial(8192, 7500, 8000);
        let at = b.as_ptr();
        make_room(&mut b, 16384, 1024);
        assert_ne!(b.as_ptr(), at, "692 bytes free");
        assert_eq!((b.capacity(), b.len()), (16384, 7500));
        // An empty buffer with no room left, and a malformed header, refill too.
        let mut b = BytesMut::with_capacity(16);
        b.extend_from_slice(&[0; 16]);
        make_room(&mut b, 64, 32);
        assert_eq!((b.capacity(), b.len()), (64, 16));
        assert_eq!(next_frame(&mut b), Err(FramingError::BadHeader));
    }

    #[test]
    fn make_room_reuses_a_buffer_no_frame_holds() {
        // A frame cut from the buffer, and the start of the next one held.
        let cut = |b: &mut BytesMut| {
            b.resize(8000, 0);
            let frame = b.split_to(7000);
            b.truncate(0);
            b.extend_from_slice(&[0x06, 0x02, 0xAA]);
            frame
        };
        let mut b = BytesMut::with_capacity(8192);
        let frame = cut(&mut b);
        make_room(&mut b, 8192, 2048);
        assert_eq!((b.capacity(), b.len()), (8192, 3));
        assert!(
            b.as_ptr() != frame.as_ptr(),
            "the frame holds the old buffer"
        );
        // Once no frame holds it, the buffer is reused from its start.
        let mut b = BytesMut::with_capacity(8192);
        let frame = cut(&mut b);
        let start = frame.as_ptr();
        drop(frame);
        make_room(&mut b, 8192, 2048);
        assert_eq!(b.as_ptr(), start);
        assert_eq!((b.capacity(), &b[..]), (8192, &[0x06, 0x02, 0xAA][..]));
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
