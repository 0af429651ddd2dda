//! The share of its read buffer each Data read from a stream face stands for
//! ([`LpFields::buffer_share`]), so that the CS charges the buffers its slices keep
//! alive whole (`ndnlab_core::cs::share`): Interests, link-layer headers and idle
//! packets between Data are charged to the Data after them, and what a buffer holds
//! after its last Data to the first Data of the next buffer.

use bytes::{Bytes, BytesMut};
use ndnlab_core::cs::share::BUFFER_OWN;
use ndnlab_proto::lp::LpFields;
use ndnlab_wire::packet_buf::packet_bytes_footprint;
use ndnlab_wire::tlv::types as t;

/// Sets the share of a packet from a datagram (or a WebSocket message) received into
/// a buffer of its own, `alloc` bytes asked of the allocator and starting at
/// `frame`: that buffer's footprint, marked [`BUFFER_OWN`]. A packet reassembled
/// from fragments lies elsewhere, in a buffer of its own length.
#[inline]
pub(crate) fn assign_own(pkt: &mut (LpFields, Bytes), frame: *const u8, alloc: usize) {
    let inside = (pkt.1.as_ptr() as usize).wrapping_sub(frame as usize) < alloc;
    let n = if inside { alloc } else { pkt.1.len() };
    let footprint = packet_bytes_footprint(n).min(!BUFFER_OWN as usize) as u32;
    pkt.0.buffer_share = BUFFER_OWN | footprint;
}

/// The stream-buffer shares of the packets a burst drops before the forwarder's
/// core sees them (oversized, malformed), carried to the next Data of the burst:
/// the buffer bytes they stood for stay alive as long as that Data's slice does. A
/// datagram's own buffer goes with its packet: nothing to carry.
#[derive(Default)]
pub(crate) struct Dropped {
    lost: u32,
}

impl Dropped {
    /// A packet of the burst arrives: a stream share (not [`BUFFER_OWN`]) takes what
    /// the packets dropped before it stood for. Returns whether it is a stream share.
    #[inline]
    pub(crate) fn arrive(&mut self, fields: &mut LpFields) -> bool {
        let share = fields.buffer_share;
        if share == 0 || share & BUFFER_OWN != 0 {
            return false;
        }
        fields.buffer_share = share.saturating_add(self.lost).min(!BUFFER_OWN);
        self.lost = 0;
        true
    }

    /// The packet `fields` arrived with (`stream`: as [`Dropped::arrive`] said) is
    /// dropped: its share goes to the next Data.
    #[inline]
    pub(crate) fn drop(&mut self, stream: bool, fields: &LpFields) {
        if stream {
            self.lost = fields.buffer_share;
        }
    }
}

/// Where a stream reader is in its read buffer.
pub(crate) struct BufferShares {
    /// One past the buffer's last byte.
    end: usize,
    /// One past the last Data read into it (its start before any).
    last_end: usize,
    /// What the previous buffer held after its last Data (0 if it held no Data).
    carried: usize,
    has_data: bool,
}

impl BufferShares {
    /// A reader starting with `buf`.
    pub(crate) fn new(buf: &BytesMut) -> Self {
        let start = buf.as_ptr() as usize;
        BufferShares {
            end: start + buf.capacity(),
            last_end: start,
            carried: 0,
            has_data: false,
        }
    }

    /// The reader moved on to a new buffer (or reclaimed its own), `buf`.
    pub(crate) fn next_buffer(&mut self, buf: &BytesMut) {
        let carried = if self.has_data {
            self.end - self.last_end
        } else {
            0
        };
        *self = BufferShares {
            carried,
            ..Self::new(buf)
        };
    }

    /// Sets the share of a packet cut from the buffer: a Data gets the bytes from the
    /// end of the previous one (plus what was carried) to its own end. A packet
    /// reassembled from fragments lies in a buffer of its own and gets none.
    #[inline]
    pub(crate) fn assign(&mut self, pkt: &mut (LpFields, Bytes)) {
        let (at, len) = (pkt.1.as_ptr() as usize, pkt.1.len());
        let is_data = pkt.1.first() == Some(&(t::DATA as u8));
        if !is_data || at < self.last_end || at + len > self.end {
            return;
        }
        let share = at + len - self.last_end + self.carried;
        pkt.0.buffer_share = share.min(u32::MAX as usize >> 1) as u32;
        self.last_end = at + len;
        self.carried = 0;
        self.has_data = true;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn data(len: usize) -> Vec<u8> {
        let mut v = vec![t::DATA as u8, 0xFD];
        v.extend_from_slice(&((len - 4) as u16).to_be_bytes());
        v.resize(len, 0);
        v
    }

    fn cut(buf: &mut BytesMut, n: usize) -> (LpFields, Bytes) {
        (LpFields::default(), buf.split_to(n).freeze())
    }

    /// Interests and headers between Data go to the Data after them; what a buffer
    /// holds after its last Data goes to the first Data of the next one.
    #[test]
    fn shares_cover_the_buffer() {
        let mut buf = BytesMut::with_capacity(4096);
        let mut s = BufferShares::new(&buf);
        let cap = buf.capacity();
        buf.extend_from_slice(&data(1000));
        buf.extend_from_slice(&[0x05, 0x02, 0, 0]); // an Interest
        buf.extend_from_slice(&data(500));
        let mut d1 = cut(&mut buf, 1000);
        let mut i = cut(&mut buf, 4);
        let mut d2 = cut(&mut buf, 500);
        s.assign(&mut d1);
        s.assign(&mut i);
        s.assign(&mut d2);
        assert_eq!(d1.0.buffer_share, 1000);
        assert_eq!(i.0.buffer_share, 0);
        assert_eq!(d2.0.buffer_share, 504);
        // A new buffer: the old one's remaining bytes ride on its first Data.
        let mut next = BytesMut::with_capacity(4096);
        s.next_buffer(&next);
        next.extend_from_slice(&data(300));
        let mut d3 = cut(&mut next, 300);
        s.assign(&mut d3);
        assert_eq!(d3.0.buffer_share as usize, 300 + cap - 1504);
        // Bytes from elsewhere (a reassembled packet) get no share.
        let mut other = (LpFields::default(), Bytes::from(data(200)));
        s.assign(&mut other);
        assert_eq!(other.0.buffer_share, 0);
        // A buffer that held no Data passes nothing on.
        let empty = BytesMut::with_capacity(4096);
        let mut s = BufferShares::new(&empty);
        let mut again = BytesMut::with_capacity(4096);
        s.next_buffer(&again);
        again.extend_from_slice(&data(100));
        let mut d = cut(&mut again, 100);
        s.assign(&mut d);
        assert_eq!(d.0.buffer_share, 100);
    }
}
