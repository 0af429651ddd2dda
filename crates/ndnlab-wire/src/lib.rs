//! # ndnlab-wire: the NDN wire format (packet format v0.3, NDNLPv2)
//!
//! The lowest layer of ndnlab: TLV primitives, names and the four packet kinds
//! (Interest, Data, Nack, LpPacket). Everything above builds on it.
//!
//! * **Views** ([`Interest`], [`Data`], [`LpPacket`], [`Name`]) are checked
//!   zero-copy views over [`bytes::Bytes`]: `decode` validates the whole
//!   packet once (shortest var-numbers, evolvability rules, field order,
//!   parameters digest) and records offsets; afterwards accessors cannot fail
//!   or panic, and payloads are slices of the received buffer.
//! * **Hot fields** (Nonce, HopLimit, InterestLifetime, PitToken) are rewritten
//!   in place; the buffer is copied only when it is shared with another `Bytes`.
//! * **Builders** ([`InterestBuilder`], [`DataBuilder`], [`LpPacketBuilder`])
//!   compute the encoded length first and write into one buffer.
//! * **Errors** are a typed [`DecodeError`] whose [`DecodeError::reason`] is a
//!   drop-counter label.
//! * **Dissection** ([`dissect`]) turns any packet or TLV into a tree of named,
//!   decoded elements, like ndn-tools' ndndissect; with the `serde` feature
//!   the tree serializes.
//!
//! ```
//! use ndnlab_wire::{Data, DigestSha256, Interest, Name, Packet};
//! let name: Name = "/ndn/example/v=1/seg=0".parse().unwrap();
//! let wire = Interest::builder(name.clone()).can_be_prefix(true).nonce(7).build();
//! let Packet::Interest(i) = Packet::decode(wire).unwrap() else { unreachable!() };
//! assert_eq!(i.name().to_string(), "/ndn/example/v=1/seg=0");
//! let data = Data::builder(name).content(&b"hello"[..]).sign(&DigestSha256).unwrap();
//! assert_eq!(Data::decode(data).unwrap().content_slice(), b"hello");
//! ```

pub mod component;
pub mod data;
pub mod data_builder;
pub mod dissect;
mod error;
#[doc(hidden)]
pub mod fuzz;
pub mod interest;
pub mod interest_builder;
pub mod lp;
mod lp_fields;
pub mod nack;
pub mod name;
pub mod packet;
pub mod packet_buf;
pub mod prefix_ann;
pub mod signature;
pub mod tlv;
mod uri;

pub use component::{Component, OwnedComponent};
pub use data::{content_type, Data};
pub use data_builder::DataBuilder;
pub use error::{DecodeError, UriError};
pub use interest::{Interest, DEFAULT_LIFETIME};
pub use interest_builder::InterestBuilder;
pub use lp::{LpPacket, LpPacketBuilder, CACHE_POLICY_NO_CACHE};
pub use lp_fields::LpFields;
pub use nack::{Nack, NackReason};
pub use name::{Name, NameBuilder};
pub use packet::Packet;
pub use packet_buf::packet_bytes;
pub use prefix_ann::{PrefixAnnError, PrefixAnnouncement};
pub use signature::{
    sig_type, DigestSha256, IsoTime, KeyLocator, SignError, SignatureInfo, Signer, ValidityPeriod,
};

#[cfg(test)]
mod size_tests {
    /// Views are moved around by value: keep them small.
    #[test]
    fn view_sizes() {
        let sizes = [
            ("Name", core::mem::size_of::<crate::Name>()),
            ("Interest", core::mem::size_of::<crate::Interest>()),
            ("Data", core::mem::size_of::<crate::Data>()),
            ("LpPacket", core::mem::size_of::<crate::LpPacket>()),
        ];
        println!("{sizes:?}");
        // <= 128 bytes: moved inline rather than by a `memcpy` call
        assert!(sizes[1].1 <= 128, "{sizes:?}");
        assert!(sizes[2].1 <= 128, "{sizes:?}");
    }
}
