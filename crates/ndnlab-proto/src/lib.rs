//! # ndnlab-proto: what every NDN endpoint speaks above packets
//!
//! This crate sits between the packet codec (`ndnlab-wire`) and the two kinds of
//! endpoint built on it: the forwarder daemon (`ndnlab-fwd`) and the client library
//! and tools (`ndnlab-app`). Both speak the same protocols to each other, so both use
//! the one implementation here:
//!
//! * [`lp`]: the NDNLPv2 link service. [`lp::LinkSender`] writes header fields and
//!   fragments beyond an MTU; [`lp::LinkReceiver`] checks frames with the one LP
//!   codec (`ndnlab_wire::LpPacket`) and reassembles fragments, bounded in memory and
//!   time; [`lp::reliability`] is NFD's optional LpReliability; [`lp::congestion`]
//!   is the CoDel-style congestion marker of a send queue.
//! * [`framing`]: back-to-back TLVs on a byte stream (Unix, TCP).
//! * [`ether`]: NDN frames directly over Ethernet (EtherType 0x8624, padding,
//!   MAC addresses), for the forwarder's Ethernet faces.
//! * [`mgmt`]: the NFD management protocol: ControlParameters and ControlResponse,
//!   status datasets and their segmentation, command Interests in both signed forms,
//!   and the request/response logic of a management client.
//! * [`emu`]: an emulated link layer (delay, jitter, loss, rate with a bounded
//!   queue, MTU) for one direction of a link, with a seeded generator.
//! * `link` (feature `link`, tokio's channels): an in-memory link (a pair of
//!   bounded channels of whole TLVs), the face an application in the same process
//!   as a forwarder uses. The daemon and the client library enable it; the
//!   simulator, which runs without tokio, does not.
//!
//! Like `ndnlab-core`, this crate is sans-IO: it owns no socket and reads no clock.
//! Time is passed in as nanoseconds on the caller's monotonic clock ([`lp::Nanos`]),
//! so the same code runs on sockets, in memory and in virtual time.

pub mod emu;
pub mod ether;
pub mod framing;
#[doc(hidden)]
pub mod fuzz;
#[cfg(feature = "link")]
pub mod link;
pub mod lp;
pub mod mgmt;
