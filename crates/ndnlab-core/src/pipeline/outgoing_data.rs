//! Outgoing Data pipeline (NFD `onOutgoingData`).

use ndnlab_wire::Data;

use super::scope::is_localhost;
use crate::counters::DropReason;
use crate::face::FaceId;
use crate::forwarder::{Forwarder, LpMeta, OutPacket, Transmit};

impl Forwarder {
    /// Send `data` to `to` with `meta` (downstream token, IncomingFaceId for local faces).
    pub(crate) fn outgoing_data(&mut self, to: FaceId, data: Data, mut meta: LpMeta) {
        let Some(face) = self.faces.get_mut(&to.0) else {
            self.drop_packet(DropReason::UnknownFace);
            return;
        };
        if !face.is_local() {
            if is_localhost(data.name()) {
                self.drop_packet(DropReason::LocalhostViolation);
                return;
            }
            meta.incoming_face_id = None;
        }
        face.counters.n_out_data += 1;
        self.counters.n_out_data += 1;
        self.out.push_back(Transmit {
            face: to,
            packet: OutPacket::Data(data),
            meta,
        });
    }
}
