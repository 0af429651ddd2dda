//! Network Nack: an LpPacket with a Nack header whose fragment is the Interest.

use bytes::Bytes;

use crate::interest::Interest;
use crate::lp::{LpPacket, LpPacketBuilder};
use crate::DecodeError;

/// NackReason codes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum NackReason {
    /// No reason given (code 0, or NackReason absent).
    None,
    Congestion,
    Duplicate,
    NoRoute,
    /// Any other code.
    Other(u64),
}

impl NackReason {
    /// From a wire code.
    pub fn from_code(c: u64) -> Self {
        match c {
            0 => NackReason::None,
            50 => NackReason::Congestion,
            100 => NackReason::Duplicate,
            150 => NackReason::NoRoute,
            c => NackReason::Other(c),
        }
    }

    /// The wire code.
    pub fn code(self) -> u64 {
        match self {
            NackReason::None => 0,
            NackReason::Congestion => 50,
            NackReason::Duplicate => 100,
            NackReason::NoRoute => 150,
            NackReason::Other(c) => c,
        }
    }

    /// Label for logs and counters.
    pub fn as_str(self) -> &'static str {
        match self {
            NackReason::None => "none",
            NackReason::Congestion => "congestion",
            NackReason::Duplicate => "duplicate",
            NackReason::NoRoute => "no-route",
            NackReason::Other(_) => "other",
        }
    }

    /// NFD's "less severe" order used to pick the reason to return upstream
    /// (Congestion < Duplicate < NoRoute < None/other).
    pub fn severity(self) -> u8 {
        match self {
            NackReason::Congestion => 0,
            NackReason::Duplicate => 1,
            NackReason::NoRoute => 2,
            _ => 3,
        }
    }
}

/// A network Nack: the reason and the Interest it answers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Nack {
    pub reason: NackReason,
    pub interest: Interest,
}

impl Nack {
    pub fn new(interest: Interest, reason: NackReason) -> Self {
        Nack { reason, interest }
    }

    /// The Nack an LpPacket carries, if it has a Nack header; the fragment must
    /// be a whole Interest.
    pub fn from_lp(lp: &LpPacket) -> Result<Option<Nack>, DecodeError> {
        let Some(reason) = lp.nack() else {
            return Ok(None);
        };
        let frag = lp.fragment().ok_or(DecodeError::Missing {
            field: "Nack Interest",
        })?;
        Ok(Some(Nack {
            reason,
            interest: Interest::decode(frag)?,
        }))
    }

    /// LpPacket builder with the Nack header and the Interest as fragment.
    pub fn to_lp_builder(&self) -> LpPacketBuilder {
        LpPacket::builder()
            .nack(self.reason)
            .fragment(self.interest.wire().clone())
    }

    /// Encodes as an LpPacket.
    pub fn encode(&self) -> Bytes {
        self.to_lp_builder().build()
    }
}
