//! The NDNLPv2 link service (NFD's GenericLinkService), sans-IO.
//!
//! Receive: a top-level TLV from a transport is either a bare Interest/Data or an
//! LpPacket. [`LinkReceiver::receive`] checks it with the one LP codec
//! (`ndnlab_wire::LpPacket`) and returns the network-layer packet with its
//! [`LpFields`], reassembling fragments (keyed by `Sequence - FragIndex`, NFD's scheme)
//! with a bounded number of partial packets and a timeout. A dropped frame's
//! [`LpDrop`] names why, down to the codec's typed `DecodeError`.
//!
//! Send: [`LinkSender`] writes bare packets when no field is needed, otherwise an
//! LpPacket with header fields in increasing type order and the Fragment last (a
//! python-ndn client ignores a Nack whose IncomingFaceId comes first). It fragments
//! only when given an MTU (datagram faces), never on streams: python-ndn drops
//! LpPackets carrying FragIndex/FragCount.
//!
//! Optional parts: [`reliability`] (NFD's LpReliability: TxSequence/Ack,
//! retransmission) and [`congestion`] (CoDel-style CongestionMark on a send queue).

pub mod congestion;
mod receive;
pub mod reliability;
mod send;

pub use congestion::{CongestionLimits, CongestionMarker};
pub use ndnlab_wire::LpFields;
pub use receive::{LinkReceiver, LpDrop, ReassemblyLimits};
pub use send::LinkSender;

/// Nanoseconds on the caller's monotonic clock.
pub type Nanos = u64;

/// How long a partial packet waits for its missing fragments (NFD: 500 ms).
pub const REASSEMBLY_TIMEOUT: Nanos = 500_000_000;
/// Most fragments accepted for one packet.
pub const MAX_FRAGMENTS: u64 = 1024;
/// Most partial packets held per link (default of [`ReassemblyLimits`]).
pub const MAX_PARTIALS: usize = 256;
/// Most fragment bytes held for partial packets per link (default of
/// [`ReassemblyLimits`]): 256 packets of the 8800-byte NDN maximum would be 2.2 MB.
pub const MAX_REASSEMBLY_BYTES: usize = 1 << 21;

#[cfg(test)]
mod tests;
