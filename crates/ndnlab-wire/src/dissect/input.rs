//! Dissector input: packets written as hex text, and a codec check of every
//! top-level packet whose errors carry absolute offsets into the input.

use bytes::Bytes;

use crate::tlv::{self, types};
use crate::{Data, DecodeError, Interest, LpPacket, Name};

/// Why a hex text is not a byte string.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum HexError {
    /// A character that is neither a hex digit nor whitespace.
    #[error("invalid hex character {ch:?} at position {pos}")]
    InvalidChar {
        /// The character.
        ch: char,
        /// Its byte position in the text.
        pos: usize,
    },
    /// An odd number of digits: the last byte is incomplete.
    #[error("odd number of hex digits ({digits}): the last byte is incomplete")]
    OddDigits {
        /// How many hex digits the text has.
        digits: usize,
    },
}

/// Whether `raw` is hex text: at least one hex digit, and nothing but hex
/// digits and ASCII whitespace.
pub fn looks_like_hex(raw: &[u8]) -> bool {
    raw.iter().any(u8::is_ascii_hexdigit)
        && raw
            .iter()
            .all(|c| c.is_ascii_hexdigit() || c.is_ascii_whitespace())
}

/// Parses hex, upper or lower case, with whitespace allowed anywhere.
pub fn parse_hex(text: &str) -> Result<Vec<u8>, HexError> {
    let mut digits = Vec::with_capacity(text.len());
    for (pos, ch) in text.char_indices() {
        if ch.is_whitespace() {
            continue;
        }
        match ch.to_digit(16) {
            Some(d) => digits.push(d as u8),
            None => return Err(HexError::InvalidChar { ch, pos }),
        }
    }
    if digits.len() % 2 == 1 {
        return Err(HexError::OddDigits {
            digits: digits.len(),
        });
    }
    Ok(digits.chunks(2).map(|p| p[0] << 4 | p[1]).collect())
}

/// A decode error placed in the whole input: which element failed, where it
/// starts, and the codec's error (offsets relative to that element).
///
/// The message includes the codec error and its reason label, so it has no
/// separate [`std::error::Error::source`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LocatedError {
    /// What the failing element is (`Interest`, `Data`, `LpPacket`, `Name`, `TLV`).
    pub what: &'static str,
    /// Offset of the failing element's first byte in the input.
    pub start: usize,
    /// The codec's error.
    pub error: DecodeError,
}

impl LocatedError {
    /// `error` from decoding the `what` that starts at byte `start` of the input.
    pub fn new(error: DecodeError, start: usize, what: &'static str) -> Self {
        Self { what, start, error }
    }
}

impl core::fmt::Display for LocatedError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        let Self { what, start, error } = self;
        let reason = error.reason();
        match error.offset() {
            Some(off) if *start > 0 => write!(
                f,
                "invalid {what} starting at byte {start}: {error} (byte {} of the input; reason: {reason})",
                start + off
            ),
            _ if *start > 0 => write!(
                f,
                "invalid {what} starting at byte {start}: {error} (reason: {reason})"
            ),
            Some(_) => write!(f, "invalid {what}: {error} (reason: {reason})"),
            None => write!(
                f,
                "invalid {what} starting at byte 0: {error} (reason: {reason})"
            ),
        }
    }
}

impl std::error::Error for LocatedError {}

/// Checks every top-level Interest, Data, LpPacket and Name in `buf` with the
/// codec (other top-level TLVs only need to be well-formed), so an error
/// carries the codec's reason and offset.
pub fn validate_all(buf: &[u8]) -> Result<(), LocatedError> {
    let whole = Bytes::copy_from_slice(buf);
    for e in tlv::elements(buf) {
        let e = e.map_err(|err| LocatedError::new(err, 0, "TLV"))?;
        let pkt = whole.slice(e.range());
        let (what, res) = match e.typ {
            types::INTEREST => ("Interest", Interest::decode(pkt).map(drop)),
            types::DATA => ("Data", Data::decode(pkt).map(drop)),
            types::LP_PACKET => ("LpPacket", LpPacket::decode(pkt).map(drop)),
            types::NAME => ("Name", Name::decode(pkt).map(drop)),
            _ => continue,
        };
        res.map_err(|err| LocatedError::new(err, e.offset, what))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hex_allows_whitespace_and_names_the_bad_character() {
        assert_eq!(parse_hex(" 05 0A\n0b ").unwrap(), vec![5, 10, 11]);
        assert_eq!(
            parse_hex("05zz").unwrap_err().to_string(),
            "invalid hex character 'z' at position 2"
        );
        assert_eq!(
            parse_hex("050").unwrap_err().to_string(),
            "odd number of hex digits (3): the last byte is incomplete"
        );
        assert_eq!(parse_hex("").unwrap(), Vec::<u8>::new());
    }

    #[test]
    fn hex_is_recognised_only_when_nothing_else_is_there() {
        assert!(looks_like_hex(b"0507\n0703 080161\n"));
        assert!(!looks_like_hex(b" \n"));
        assert!(!looks_like_hex(&[0x05, 0x07]));
    }

    #[test]
    fn errors_carry_offsets_in_the_whole_input() {
        // An unknown critical element (type 9) at byte 7 of an Interest.
        let err = validate_all(&hex::decode("0509070308016109020000").unwrap()).unwrap_err();
        assert_eq!((err.what, err.start), ("Interest", 0));
        assert!(err.to_string().starts_with("invalid Interest: "), "{err}");
        assert!(
            err.to_string().contains("(reason: unknown-critical)"),
            "{err}"
        );

        // The same Interest after a valid Name of 7 bytes.
        let buf = hex::decode("07050803616263 0509070308016109020000".replace(' ', "")).unwrap();
        let err = validate_all(&buf).unwrap_err();
        let text = err.to_string();
        assert!(
            text.starts_with("invalid Interest starting at byte 7: "),
            "{text}"
        );
        assert!(
            text.contains("(byte 14 of the input; reason: unknown-critical)"),
            "{text}"
        );

        // A TLV header cut short.
        let err = dissect_or_validate("050507030801");
        assert!(
            err.contains("truncated") && err.contains("offset 0"),
            "{err}"
        );
    }

    fn dissect_or_validate(hex: &str) -> String {
        super::super::dissect_validated(&hex::decode(hex).unwrap())
            .unwrap_err()
            .to_string()
    }
}
