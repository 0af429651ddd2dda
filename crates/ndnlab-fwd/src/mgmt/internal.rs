//! NFD's reserved faces and management's own traffic, as NFD's datasets show them.
//!
//! NFD answers management through a face of its own (`internal://`, FaceId 1),
//! reached by the FIB entries `/localhost/nfd` and `/localhost/nfd/rib`, and
//! keeps two null faces (`contentstore://` 254, `null://` 255). Here management
//! runs beside the forwarding shards and those faces have no socket, so the
//! datasets list them as NFD does, and a management exchange counts where NFD
//! counts it: on the requester's face (done by the router), on the internal face,
//! and in the forwarder's general counters.

use ndnlab_wire::Name;

use super::dataset::FaceStatus;

/// FaceId of the management face (NFD `FACEID_INTERNAL_FACE`).
pub const FACEID_INTERNAL: u64 = 1;
/// FaceId of the content store's null face (NFD `FACEID_CONTENT_STORE`).
pub const FACEID_CONTENT_STORE: u64 = 254;
/// FaceId of the null face (NFD `FACEID_NULL`).
pub const FACEID_NULL: u64 = 255;

/// The MTU a face without a limit reports (NFD: `MAX_NDN_PACKET_SIZE`); no
/// face reports more.
pub const MAX_NDN_PACKET_SIZE: u64 = 8800;

/// Management exchanges, counted as traffic of the internal face.
#[derive(Debug, Default, Clone, Copy)]
pub struct MgmtTraffic {
    /// Requests handed to management (the internal face's outgoing Interests).
    pub interests: u64,
    /// Replies and notifications management sent (its incoming Data).
    pub data: u64,
    pub interest_bytes: u64,
    pub data_bytes: u64,
}

impl MgmtTraffic {
    pub fn request(&mut self, wire_len: usize) {
        self.interests += 1;
        self.interest_bytes += wire_len as u64;
    }

    pub fn reply(&mut self, wire_len: usize) {
        self.data += 1;
        self.data_bytes += wire_len as u64;
    }
}

/// The reserved faces' FaceStatus records, in FaceId order.
pub fn reserved_faces(traffic: &MgmtTraffic) -> [FaceStatus; 3] {
    let null = |id: u64, uri: &str| FaceStatus {
        face_id: id,
        uri: uri.into(),
        local_uri: uri.into(),
        scope: 1,
        persistency: 2,
        mtu: Some(MAX_NDN_PACKET_SIZE),
        ..Default::default()
    };
    let internal = FaceStatus {
        face_id: FACEID_INTERNAL,
        uri: "internal://".into(),
        local_uri: "internal://".into(),
        scope: 1,
        persistency: 2,
        base_congestion_marking_interval: Some(100_000_000),
        default_congestion_threshold: Some(65536),
        mtu: Some(MAX_NDN_PACKET_SIZE),
        n_out_interests: traffic.interests,
        n_in_data: traffic.data,
        n_in_bytes: traffic.data_bytes,
        n_out_bytes: traffic.interest_bytes,
        // LocalFields on, as NFD's internal face has them.
        flags: 1,
        ..Default::default()
    };
    [
        internal,
        null(FACEID_CONTENT_STORE, "contentstore://"),
        null(FACEID_NULL, "null://"),
    ]
}

/// The FIB entries toward the internal face (`/localhost/nfd` and the RIB
/// manager's `/localhost/nfd/rib`), each with one next hop of cost 0.
pub fn management_routes() -> [Name; 2] {
    [
        Name::from_uri("/localhost/nfd").expect("literal"),
        Name::from_uri("/localhost/nfd/rib").expect("literal"),
    ]
}
