//! [`Packet`]: dispatch on the outermost TLV-TYPE.

use bytes::Bytes;

use crate::tlv::{self, types};
use crate::{Data, DecodeError, Interest, LpPacket};

/// Any top-level NDN packet.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Packet {
    Interest(Interest),
    Data(Data),
    Lp(LpPacket),
}

impl Packet {
    /// Decodes an Interest, Data or LpPacket (the whole of `wire`).
    pub fn decode(wire: Bytes) -> Result<Packet, DecodeError> {
        let mut p = 0;
        let typ = tlv::read_varnum(&wire, &mut p)?;
        match typ {
            types::INTEREST => Interest::decode(wire).map(Packet::Interest),
            types::DATA => Data::decode(wire).map(Packet::Data),
            types::LP_PACKET => LpPacket::decode(wire).map(Packet::Lp),
            0 => Err(DecodeError::InvalidType { typ, offset: 0 }),
            _ => Err(DecodeError::UnknownCritical { typ, offset: 0 }),
        }
    }

    /// The wire bytes.
    pub fn wire(&self) -> &Bytes {
        match self {
            Packet::Interest(i) => i.wire(),
            Packet::Data(d) => d.wire(),
            Packet::Lp(l) => l.wire(),
        }
    }
}
