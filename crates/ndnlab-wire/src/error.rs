//! Typed decode errors: every malformed packet is dropped with a reason.

use thiserror::Error;

/// Why a buffer is not a valid NDN packet (or element).
///
/// Offsets are byte positions from the start of the buffer handed to the
/// decoder. [`DecodeError::reason`] gives a short stable label, meant as the
/// key of a drop counter (`drop=truncated`).
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[non_exhaustive]
pub enum DecodeError {
    /// The buffer ends inside a TLV header or before the end of a TLV-VALUE.
    #[error("truncated TLV at offset {offset}")]
    Truncated { offset: usize },
    /// A TLV-LENGTH that is impossible for its type (e.g. a Nonce that is not 4 bytes).
    #[error("bad TLV-LENGTH at offset {offset}")]
    BadLength { offset: usize },
    /// A var-number (TLV-TYPE or TLV-LENGTH) that is not in its shortest form.
    #[error("non-minimal var-number at offset {offset}")]
    NonMinimalVarNumber { offset: usize },
    /// TLV-TYPE 0, or a type number too large for its place (name component type > 65535).
    #[error("invalid TLV-TYPE {typ} at offset {offset}")]
    InvalidType { typ: u64, offset: usize },
    /// An unrecognised critical element (odd type, or type <= 31): the packet is invalid.
    #[error("unknown critical element type {typ} at offset {offset}")]
    UnknownCritical { typ: u64, offset: usize },
    /// A mandatory element is absent.
    #[error("missing {field}")]
    Missing { field: &'static str },
    /// An element of another type where a specific one was required.
    #[error("expected TLV-TYPE {expected}, got {got} at offset {offset}")]
    Unexpected {
        expected: u64,
        got: u64,
        offset: usize,
    },
    /// A NonNegativeInteger whose length is not 1, 2, 4 or 8.
    #[error("bad NonNegativeInteger at offset {offset}")]
    BadNonNegativeInteger { offset: usize },
    /// A known element after one that must follow it, or repeated.
    #[error("element type {typ} out of order or repeated at offset {offset}")]
    OutOfOrder { typ: u64, offset: usize },
    /// Bytes after the end of the outermost TLV.
    #[error("trailing bytes after the packet at offset {offset}")]
    TrailingBytes { offset: usize },
    /// An Interest whose Name has no component.
    #[error("Interest name is empty")]
    EmptyName,
    /// ParametersSha256DigestComponent does not match ApplicationParameters (and signature).
    #[error("ParametersSha256DigestComponent does not match the parameters")]
    ParamsDigestMismatch,
    /// ApplicationParameters without ParametersSha256DigestComponent, the reverse, or
    /// more than one such component.
    #[error("ParametersSha256DigestComponent missing, misplaced or repeated")]
    ParamsDigestMissing,
    /// A value with the right length but an invalid content (e.g. a bad ValidityPeriod time).
    #[error("bad value of {field} at offset {offset}")]
    BadValue { field: &'static str, offset: usize },
}

impl DecodeError {
    /// Short stable label for drop counters and `key=value` logs.
    pub fn reason(&self) -> &'static str {
        match self {
            DecodeError::Truncated { .. } => "truncated",
            DecodeError::BadLength { .. } => "bad-length",
            DecodeError::NonMinimalVarNumber { .. } => "non-minimal-varnum",
            DecodeError::InvalidType { .. } => "invalid-type",
            DecodeError::UnknownCritical { .. } => "unknown-critical",
            DecodeError::Missing { .. } => "missing-field",
            DecodeError::Unexpected { .. } => "unexpected-type",
            DecodeError::BadNonNegativeInteger { .. } => "bad-nni",
            DecodeError::OutOfOrder { .. } => "out-of-order",
            DecodeError::TrailingBytes { .. } => "trailing-bytes",
            DecodeError::EmptyName => "empty-name",
            DecodeError::ParamsDigestMismatch => "params-digest-mismatch",
            DecodeError::ParamsDigestMissing => "params-digest-missing",
            DecodeError::BadValue { .. } => "bad-value",
        }
    }

    /// Byte offset of the fault, when it has one.
    pub fn offset(&self) -> Option<usize> {
        match *self {
            DecodeError::Truncated { offset }
            | DecodeError::BadLength { offset }
            | DecodeError::NonMinimalVarNumber { offset }
            | DecodeError::InvalidType { offset, .. }
            | DecodeError::UnknownCritical { offset, .. }
            | DecodeError::Unexpected { offset, .. }
            | DecodeError::BadNonNegativeInteger { offset }
            | DecodeError::OutOfOrder { offset, .. }
            | DecodeError::TrailingBytes { offset }
            | DecodeError::BadValue { offset, .. } => Some(offset),
            DecodeError::Missing { .. }
            | DecodeError::EmptyName
            | DecodeError::ParamsDigestMismatch
            | DecodeError::ParamsDigestMissing => None,
        }
    }
}

/// Why a string is not a valid NDN name URI.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[non_exhaustive]
pub enum UriError {
    /// The URI does not start with `/` (after an optional `ndn:` scheme).
    #[error("name URI must start with '/'")]
    NoLeadingSlash,
    /// An empty component between two slashes.
    #[error("empty name component at byte {pos}")]
    EmptyComponent { pos: usize },
    /// `.` or `..` (use `...` for an empty generic component).
    #[error("'.' and '..' are not valid name components (byte {pos})")]
    DotComponent { pos: usize },
    /// `%` not followed by two hex digits.
    #[error("bad percent-encoding at byte {pos}")]
    BadPercent { pos: usize },
    /// A typed component (`seg=`, `v=`, ...) whose value is not a decimal u64.
    #[error("bad number in component at byte {pos}")]
    BadNumber { pos: usize },
    /// `sha256digest=`/`params-sha256=` not followed by 64 hex digits.
    #[error("bad digest component at byte {pos}")]
    BadDigest { pos: usize },
    /// `N=...` with N = 0 or N > 65535.
    #[error("bad component type at byte {pos}")]
    BadType { pos: usize },
}
