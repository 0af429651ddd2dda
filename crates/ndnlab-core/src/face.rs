//! Faces as the core sees them: an id, a scope and a link type. The runtime owns the
//! actual transports; the core only needs what NFD's pipelines consult.

use crate::counters::FaceCounters;

/// A face identifier (NFD numbering): 0 invalid, 1 internal (management),
/// 255 content store, 256 and above real faces.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct FaceId(pub u64);

impl FaceId {
    /// The invalid face id.
    pub const INVALID: FaceId = FaceId(0);
    /// The internal face (management).
    pub const INTERNAL: FaceId = FaceId(1);
    /// The pseudo-face that represents the content store (IncomingFaceId of CS hits).
    pub const CONTENT_STORE: FaceId = FaceId(255);

    /// The id as an IncomingFaceId field value (`None` for the invalid id 0).
    #[inline]
    pub fn incoming_face_id(self) -> Option<std::num::NonZeroU64> {
        std::num::NonZeroU64::new(self.0)
    }
}

impl std::fmt::Display for FaceId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.0.fmt(f)
    }
}

/// NFD's FaceScope: local faces may carry `/localhost` packets.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum FaceScope {
    /// A face to another host.
    #[default]
    NonLocal,
    /// A face to an application on this host.
    Local,
}

/// NFD's LinkType.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum LinkType {
    /// One peer: a duplicate Nonce on it gets a Nack Duplicate.
    #[default]
    PointToPoint,
    /// Several peers (multicast): Nacks are neither sent nor accepted.
    MultiAccess,
    /// Ad hoc wireless: a packet may be sent back out of the face it came from.
    AdHoc,
}

/// What the core keeps per face.
#[derive(Debug, Clone, Default)]
pub struct FaceInfo {
    /// Scope.
    pub scope: FaceScope,
    /// Link type.
    pub link: LinkType,
    /// Counters (NFD names).
    pub counters: FaceCounters,
    /// PIT entries this face created that are still pending (kept only while
    /// `ForwarderConfig::pit_max_per_face` is set).
    pub pit_entries: u32,
    /// Interest rate limit: token bucket credit in ns of rate (one Interest costs
    /// `1e9 / rate` ns), and when it was last refilled.
    pub rate_credit: u64,
    /// See `rate_credit`.
    pub rate_last: crate::Time,
}

impl FaceInfo {
    /// Whether the face is local.
    pub fn is_local(&self) -> bool {
        self.scope == FaceScope::Local
    }
}
